//! `tablejudge eval camouflage-puzzle`: render puzzle photos (some with a card laid wrong),
//! judge each from its JPEG as `camouflage puzzle` does, and compare with the rules' verdict
//! on the cards as laid.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use tablejudge_rules::camouflage::Puzzle;
use tablejudge_vision::camouflage::{
    judge_puzzle, read_camouflage, CamouflageReadOptions, PuzzleJudgement, SideColours,
};

use super::print_json;
use super::render::{degradation, puzzle_scene};
use crate::cli::{DegradationArg, Output};
use crate::input::load_camouflage_set;
use crate::outcome::{BadInput, Outcome};

pub struct EvalPuzzle<'a> {
    pub set: &'a Path,
    pub n: usize,
    pub seed: u64,
    /// Chance that a card is laid wrong.
    pub mistakes: f64,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
    pub output: Output,
}

#[derive(Debug, Serialize)]
struct PhotoResult {
    index: usize,
    puzzle: String,
    /// The rules' verdict on the cards as laid.
    solved: bool,
    mistake: Option<&'static str>,
    /// `solved`, `not_solved` or `undecided`.
    verdict: &'static str,
    reason: Option<String>,
    judge_s: f64,
}

#[derive(Debug, Default, Serialize)]
struct PuzzleSummary {
    set: String,
    photos: usize,
    seed: u64,
    mistakes: f64,
    degradation: String,
    size: String,
    solved: usize,
    solved_judged_solved: usize,
    solved_judged_not_solved: usize,
    not_solved: usize,
    not_solved_judged_not_solved: usize,
    not_solved_judged_solved: usize,
    undecided: usize,
    judge_s_median: f64,
    judge_s_max: f64,
    undecided_reasons: Vec<(String, usize)>,
}

pub fn camouflage_puzzle(args: EvalPuzzle<'_>) -> Result<Outcome> {
    let set = load_camouflage_set(args.set)?;
    let puzzles: Vec<&Puzzle> = set.puzzles().iter().collect();
    if puzzles.is_empty() {
        return Err(BadInput(format!("{}: the set has no puzzles", args.set.display())).into());
    }
    // The same draws as `render camouflage --puzzles`, so its photos are these.
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let bar = indicatif::ProgressBar::new(args.n as u64);
    let mut shots = Vec::with_capacity(args.n);
    for i in 0..args.n {
        let puzzle = puzzles[i % puzzles.len()];
        let shot = puzzle_scene(
            &set,
            puzzle,
            args.mistakes,
            args.size,
            degradation(args.degradation),
            &mut rng,
        )
        .with_context(|| format!("puzzle scene {i} ({})", puzzle.id))?;
        let jpeg = shot.scene.jpeg()?;
        shots.push((i, puzzle, shot.solved, shot.mistake, jpeg));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let results: Vec<PhotoResult> = shots
        .par_iter()
        .map(
            |(i, puzzle, solved, mistake, jpeg)| -> Result<PhotoResult> {
                let image = image::load_from_memory(jpeg)?.to_rgb8();
                let started = Instant::now();
                let options = CamouflageReadOptions {
                    colours: Some(SideColours {
                        set: &set,
                        side: Some(puzzle.side),
                    }),
                    camera: None,
                };
                let judgement = match read_camouflage(&image, &options) {
                    Ok(reading) => judge_puzzle(&set, puzzle, &reading),
                    Err(e) => PuzzleJudgement::Undecided {
                        reason: e.to_string(),
                    },
                };
                let judge_s = started.elapsed().as_secs_f64();
                let (verdict, reason) = match judgement {
                    PuzzleJudgement::Solved { .. } => ("solved", None),
                    PuzzleJudgement::NotSolved { faults, .. } => {
                        ("not_solved", Some(faults.join("; ")))
                    }
                    PuzzleJudgement::Undecided { reason } => ("undecided", Some(reason)),
                };
                Ok(PhotoResult {
                    index: *i,
                    puzzle: puzzle.id.clone(),
                    solved: *solved,
                    mistake: *mistake,
                    verdict,
                    reason,
                    judge_s,
                })
            },
        )
        .collect::<Result<_>>()?;
    let summary = summarise(&args, &results);
    if args.output.json {
        print_json(&serde_json::json!({ "summary": summary, "photos": results }))?;
    } else {
        print_summary(&summary)?;
        for r in results.iter().filter(|r| {
            (r.verdict == "solved" && !r.solved) || (r.verdict == "not_solved" && r.solved)
        }) {
            outln!(
                "  WRONG: photo {} (puzzle {}, {}): judged {}",
                r.index,
                r.puzzle,
                r.mistake.unwrap_or("laid right"),
                r.verdict
            );
        }
    }
    Ok(Outcome::Pass)
}

fn summarise(args: &EvalPuzzle<'_>, results: &[PhotoResult]) -> PuzzleSummary {
    let count = |f: &dyn Fn(&PhotoResult) -> bool| results.iter().filter(|r| f(r)).count();
    let mut times: Vec<f64> = results.iter().map(|r| r.judge_s).collect();
    times.sort_by(f64::total_cmp);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in results.iter().filter(|r| r.verdict == "undecided") {
        *reasons.entry(reason_kind(r.reason.as_deref())).or_default() += 1;
    }
    let mut undecided_reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    undecided_reasons.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    PuzzleSummary {
        set: args.set.display().to_string(),
        photos: results.len(),
        seed: args.seed,
        mistakes: args.mistakes,
        degradation: format!("{:?}", args.degradation).to_lowercase(),
        size: format!("{}x{}", args.size.0, args.size.1),
        solved: count(&|r| r.solved),
        solved_judged_solved: count(&|r| r.solved && r.verdict == "solved"),
        solved_judged_not_solved: count(&|r| r.solved && r.verdict == "not_solved"),
        not_solved: count(&|r| !r.solved),
        not_solved_judged_not_solved: count(&|r| !r.solved && r.verdict == "not_solved"),
        not_solved_judged_solved: count(&|r| !r.solved && r.verdict == "solved"),
        undecided: count(&|r| r.verdict == "undecided"),
        judge_s_median: times.get(times.len() / 2).copied().unwrap_or(0.0),
        judge_s_max: times.last().copied().unwrap_or(0.0),
        undecided_reasons,
    }
}

/// An undecided reason without its squares and names, to count alike reasons together.
fn reason_kind(reason: Option<&str>) -> String {
    let r = reason.unwrap_or("");
    for (needle, kind) in [
        (
            "shows too little to tell",
            "a covered card's turn cannot be seen",
        ),
        ("misread", "a square or two may be misread"),
        (
            "no card centre was found",
            "card squares with no centre found",
        ),
        ("on no card read", "a stray symbol"),
        ("read as table", "a card square read as table"),
        (
            "different symbols seen",
            "more symbols than the puzzle has decks",
        ),
        (
            "card centres found; the puzzle has",
            "fewer centres found than the puzzle's cards",
        ),
        ("no card centre found", "no centre found"),
        ("too many ways", "too many ways"),
    ] {
        if r.contains(needle) {
            return kind.to_string();
        }
    }
    r.chars().take(60).collect()
}

fn print_summary(s: &PuzzleSummary) -> Result<()> {
    outln!(
        "{} puzzle photos of {} (seed {}, {}, {}, mistakes {})",
        s.photos,
        s.set,
        s.seed,
        s.size,
        s.degradation,
        s.mistakes
    );
    outln!(
        "  solved:     {:>4}  judged solved {}, undecided {}, judged NOT solved {}",
        s.solved,
        s.solved_judged_solved,
        s.solved - s.solved_judged_solved - s.solved_judged_not_solved,
        s.solved_judged_not_solved
    );
    outln!(
        "  not solved: {:>4}  judged not solved {}, undecided {}, judged SOLVED {}",
        s.not_solved,
        s.not_solved_judged_not_solved,
        s.not_solved - s.not_solved_judged_not_solved - s.not_solved_judged_solved,
        s.not_solved_judged_solved
    );
    outln!(
        "  time to read and judge a photo: median {:.2} s, max {:.2} s",
        s.judge_s_median,
        s.judge_s_max
    );
    for (reason, n) in &s.undecided_reasons {
        outln!("  undecided {n}: {reason}");
    }
    Ok(())
}
