//! `tablejudge camouflage puzzle`

use std::path::Path;

use anyhow::Result;
use tablejudge_rules::camouflage::{CamouflageSet, Placement};
use tablejudge_vision::camouflage::{
    judge_puzzle, read_camouflage, CamouflageReadError, CamouflageReadOptions, PuzzleJudgement,
    SideColours,
};

use super::camouflage::annotated;
use super::print_json;
use crate::annotate::{annotate, CellMark};
use crate::cli::{Output, PhotoOptions};
use crate::input::load_camouflage_set;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_corrected, photo_camera, save_image};

/// Format tag of `camouflage puzzle --json`.
const PUZZLE_FORMAT: &str = "tablejudge/camouflage-puzzle@1";

pub struct CamouflagePuzzle<'a> {
    pub photo: &'a Path,
    pub set: &'a Path,
    pub puzzle: &'a str,
    pub photo_options: &'a PhotoOptions,
    pub output: Output,
}

pub fn puzzle(args: CamouflagePuzzle<'_>) -> Result<Outcome> {
    let set = load_camouflage_set(args.set)?;
    let puzzle = set.puzzle_by_id(args.puzzle).ok_or_else(|| {
        let ids: Vec<&str> = set.puzzles().iter().map(|p| p.id.as_str()).collect();
        BadInput(format!(
            "{}: no puzzle {:?}; its puzzles are {}",
            args.set.display(),
            args.puzzle,
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ))
    })?;
    let camera = photo_camera(args.photo_options)?;
    let image = load_corrected(args.photo, args.photo_options)?;
    let source = args.photo.display().to_string();
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: Some(puzzle.side),
        }),
        camera: camera.as_ref(),
    };
    let (judgement, reading) = match read_camouflage(&image, &options) {
        Ok(reading) => (judge_puzzle(&set, puzzle, &reading), Some(reading)),
        Err(e @ CamouflageReadError::NoColour { .. }) => {
            return Err(BadInput(format!("{}: {e}", args.set.display())).into())
        }
        Err(e) => (
            PuzzleJudgement::Undecided {
                reason: e.to_string(),
            },
            None,
        ),
    };

    let (status, outcome, mark) = match &judgement {
        PuzzleJudgement::Solved { .. } => ("solved", Outcome::Pass, CellMark::Fine),
        PuzzleJudgement::NotSolved { .. } => ("not solved", Outcome::Fail, CellMark::Mismatch),
        PuzzleJudgement::Undecided { .. } => ("undecided", Outcome::Undecided, CellMark::Doubtful),
    };
    let detail = match &judgement {
        PuzzleJudgement::Solved { cards } => cards_text(&set, cards),
        PuzzleJudgement::NotSolved { faults, .. } => faults.join("; "),
        PuzzleJudgement::Undecided { reason } => reason.clone(),
    };
    if args.output.json {
        let mut v = serde_json::to_value(&judgement)?;
        v["format"] = serde_json::json!(PUZZLE_FORMAT);
        v["source"] = serde_json::json!(source);
        v["puzzle"] = serde_json::json!(puzzle.id);
        if let Some(cards) = v.get_mut("cards") {
            let named = match &judgement {
                PuzzleJudgement::Solved { cards } | PuzzleJudgement::NotSolved { cards, .. } => {
                    cards_json(&set, cards)
                }
                PuzzleJudgement::Undecided { .. } => serde_json::json!([]),
            };
            *cards = named;
        }
        if let Some(r) = &reading {
            v["picture"] = serde_json::json!(r.picture);
        }
        print_json(&v)?;
    } else {
        outln!("{source}: puzzle {} {status}: {detail}", puzzle.id);
        if let Some(r) = &reading {
            for row in &r.picture {
                outln!("  {row}");
            }
        }
    }
    if let Some(out) = &args.photo_options.annotate {
        let banner = format!("{}: puzzle {} {status}", status.to_uppercase(), puzzle.id);
        let picture = match &reading {
            Some(r) => annotated(&image, r, camera.as_ref(), &banner, mark),
            None => annotate(&image, &[], &banner, mark),
        };
        save_image(&picture, out)?;
    }
    Ok(outcome)
}

fn turn_degrees(p: &Placement) -> u32 {
    u32::from(p.turn.quarter_turns()) * 90
}

/// "bat-4 on (2, 3) turned 90°, …", bottom card first.
fn cards_text(set: &CamouflageSet, cards: &[Placement]) -> String {
    let each: Vec<String> = cards
        .iter()
        .map(|p| {
            format!(
                "{} on ({}, {}) turned {}°",
                set.card(p.card).id,
                p.centre.row,
                p.centre.col,
                turn_degrees(p)
            )
        })
        .collect();
    format!("{} (bottom card first)", each.join(", "))
}

fn cards_json(set: &CamouflageSet, cards: &[Placement]) -> serde_json::Value {
    cards
        .iter()
        .map(|p| {
            let card = set.card(p.card);
            serde_json::json!({
                "card": card.id,
                "deck": set.deck(card.deck).id,
                "row": p.centre.row,
                "col": p.centre.col,
                "turn": turn_degrees(p),
            })
        })
        .collect()
}
