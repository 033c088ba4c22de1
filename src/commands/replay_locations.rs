//! `tablejudge camouflage replay --mode not-my-stack`: a game of several locations, one per
//! player, from the same photos or video as a one-board game.

use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use tablejudge_rules::camouflage::{
    CamouflageSet, Fault, GameReport, GameRules, History, PlacementRules, SideIdx,
};
use tablejudge_vision::camouflage::{
    read_camouflage_boards, CamouflageReading, FoundPlay, FrameOutcome, LocationsReplay,
    LocationsTracker,
};
use tablejudge_vision::Camera;

use super::camouflage::annotated_boards;
use super::print_json;
use super::replay::{
    game_side, legality_word, score_found, verdict, CamouflageReplay, SeriesPhoto, VideoWatch,
    REPLAY_FORMAT,
};
use crate::annotate::CellMark;
use crate::outcome::Outcome;
use crate::photo::save_image;

/// The most locations a table holds: Not My Stack! is for 3 to 7 players.
const MAX_LOCATIONS: usize = 7;

/// A replayed Not My Stack! series: what was read and what the trackers made of it, scored.
pub struct LocationsRun {
    pub names: Vec<String>,
    /// Every board read in each photo, or why none was.
    pub readings: Vec<Result<Vec<CamouflageReading>, String>>,
    pub replay: LocationsReplay,
    /// The game, and where the replay found each of its plays; or why the cards found do not
    /// make one.
    pub history: Result<(History, Vec<FoundPlay>), String>,
    pub report: Result<GameReport, String>,
}

/// Reads every board of every photo (in parallel), then replays each location in order and
/// scores the game.
pub fn replay_locations(
    set: &CamouflageSet,
    side: Option<SideIdx>,
    rules: GameRules,
    camera: Option<&Camera>,
    photos: &[SeriesPhoto],
) -> LocationsRun {
    let (side, readings) = game_side(
        set,
        side,
        camera,
        photos,
        // Each photo is read whole: a location's board is not followed from photo to photo.
        |image, options, _before, _follow| {
            read_camouflage_boards(image, options, MAX_LOCATIONS).map_err(|e| e.to_string())
        },
        |boards: &Vec<CamouflageReading>| boards.iter().map(|b| b.side.clone()).collect(),
    );
    let mut tracker = LocationsTracker::new(set, side, PlacementRules::game(rules.wild_centres));
    for reading in &readings {
        match reading {
            Ok(boards) => tracker.observe(boards),
            Err(e) => tracker.skip(e),
        }
    }
    let mut replay = tracker.finish();
    let order = replay.order_doubts(set, side, &rules);
    replay.doubts.extend(order);
    let history = replay.history(set, side);
    let report = score_found(set, &rules, history.as_ref().map(|(h, _)| h));
    LocationsRun {
        names: photos.iter().map(|p| p.name.clone()).collect(),
        readings,
        replay,
        history,
        report,
    }
}

/// One card found at a location.
#[derive(Serialize)]
pub struct LocationCardJson {
    pub photo: String,
    pub card: String,
    pub deck: String,
    /// The player who laid it: the location's owner for its first card.
    pub player: String,
    /// The location's own card, laid by its owner before the game.
    pub own_card: bool,
    pub row: i32,
    pub col: i32,
    /// Quarter-turns clockwise from the location's first photo's lattice.
    pub turn: u8,
    /// `null` where the photos leave the verdict open (`Replay::unsure_verdicts`).
    pub legal: Option<bool>,
    pub faults: Vec<Fault>,
}

/// One location and its cards.
#[derive(Serialize)]
pub struct LocationJson {
    /// Numbered from 1 in the order first seen.
    pub location: usize,
    /// The player whose location it is (named after their deck), if its first card names one.
    pub owner: Option<String>,
    pub first_photo: String,
    pub cards: Vec<LocationCardJson>,
}

/// Every location with its cards, their players and verdicts.
pub fn locations_json(set: &CamouflageSet, run: &LocationsRun) -> Vec<LocationJson> {
    let plays = run.history.as_ref().ok();
    let report = run.report.as_ref().ok();
    run.replay
        .locations
        .iter()
        .enumerate()
        .map(|(l, loc)| {
            let owner = plays
                .and_then(|(h, _)| h.players.get(l))
                .map(|p| p.name.clone());
            let cards = loc
                .replay
                .cards
                .iter()
                .enumerate()
                .map(|(k, tracked)| {
                    let card = set.card(tracked.placement.card);
                    let play = plays.and_then(|(h, found)| {
                        let i = found.iter().position(|f| f.location == l && f.card == k)?;
                        Some((&h.players[h.plays[i].player].name, i))
                    });
                    let faults = play
                        .and_then(|(_, i)| report.and_then(|r| r.plays.get(i)))
                        .map(|r| r.faults.clone())
                        .unwrap_or_default();
                    LocationCardJson {
                        photo: run.names[tracked.frame].clone(),
                        card: card.id.clone(),
                        deck: set.deck(card.deck).id.clone(),
                        player: match play {
                            Some((name, _)) => name.clone(),
                            None => owner.clone().unwrap_or_default(),
                        },
                        own_card: k == 0,
                        row: tracked.placement.centre.row,
                        col: tracked.placement.centre.col,
                        turn: tracked.placement.turn.quarter_turns(),
                        legal: (!loc.replay.unsure_verdicts.contains(&k))
                            .then(|| !faults.iter().any(|f| matches!(f, Fault::Illegal(_)))),
                        faults,
                    }
                })
                .collect();
            LocationJson {
                location: l + 1,
                owner,
                first_photo: run.names[loc.first_photo].clone(),
                cards,
            }
        })
        .collect()
}

/// A card played where the rules forbid it: illegally laid, on one's own location, or on a
/// frozen one.
pub fn breaks_a_rule(faults: &[Fault]) -> bool {
    faults.iter().any(|f| {
        matches!(
            f,
            Fault::Illegal(_) | Fault::OwnLocation | Fault::FrozenLocation { .. }
        )
    })
}

pub fn print_text(
    source: &str,
    run: &LocationsRun,
    locations: &[LocationJson],
    reasons: &[String],
) -> Result<()> {
    let cards: usize = locations.iter().map(|l| l.cards.len()).sum();
    outln!(
        "{source}: {} photos, {} locations, {cards} cards found",
        run.names.len(),
        locations.len()
    );
    for loc in locations {
        outln!(
            "  location {} ({}), first seen in {}:",
            loc.location,
            loc.owner.as_deref().unwrap_or("owner unknown"),
            loc.first_photo
        );
        for c in &loc.cards {
            outln!(
                "    {}: {} ({}) at ({}, {}) turned {}°: {}",
                c.photo,
                c.card,
                c.player,
                c.row,
                c.col,
                u16::from(c.turn) * 90,
                if c.own_card {
                    "own card".to_string()
                } else {
                    verdict(&c.faults)
                }
            );
        }
    }
    if let (Ok(report), Ok((history, _))) = (&run.report, &run.history) {
        for &i in &report.ranking {
            let p = &report.players[i];
            outln!(
                "  {}: {} card{} on their location{}{}",
                history.players[i].name,
                p.score,
                if p.score == 1 { "" } else { "s" },
                p.out_token
                    .map(|k| format!(", out token {k}"))
                    .unwrap_or_default(),
                if report.winners.contains(&i) {
                    " (winner)"
                } else {
                    ""
                }
            );
        }
    }
    if !reasons.is_empty() {
        outln!("undecided: {}", reasons.join("; "));
    }
    Ok(())
}

/// An annotated copy of every photo: each location's board outlined and captioned, the
/// banner saying what the replay made of the photo.
pub fn annotate_series(
    photos: &[SeriesPhoto],
    run: &LocationsRun,
    locations: &[LocationJson],
    camera: Option<&Camera>,
    dir: &Path,
) -> Result<()> {
    photos
        .par_iter()
        .enumerate()
        .try_for_each(|(i, photo)| -> Result<()> {
            let Ok(image) = &photo.image else {
                return Ok(());
            };
            let mut parts = Vec::new();
            let mut doubtful = false;
            for (l, loc) in run.replay.locations.iter().enumerate() {
                match &loc.replay.frames[i] {
                    FrameOutcome::Settled {
                        laid, unexplained, ..
                    } => {
                        for &k in laid {
                            if let Some(c) = locations[l].cards.get(k) {
                                parts.push(format!(
                                    "L{}: {} {}",
                                    l + 1,
                                    c.card,
                                    legality_word(c.legal)
                                ));
                                doubtful |= c.legal != Some(true);
                            }
                        }
                        doubtful |= !unexplained.is_empty();
                    }
                    FrameOutcome::Skipped { .. } if i >= loc.first_photo => {
                        parts.push(format!("L{} skipped", l + 1));
                        doubtful = true;
                    }
                    FrameOutcome::Skipped { .. } => {}
                }
            }
            let banner = if parts.is_empty() {
                "no change".to_string()
            } else {
                parts.join("; ")
            };
            let mark = if doubtful {
                CellMark::Doubtful
            } else {
                CellMark::Fine
            };
            let boards = run.readings[i].as_deref().unwrap_or_default();
            let captions: Vec<String> = (0..boards.len())
                .map(|b| {
                    run.replay
                        .locations
                        .iter()
                        .position(|loc| loc.boards.get(i) == Some(&Some(b)))
                        .map_or_else(
                            || "not a location".into(),
                            |l| format!("location {}", l + 1),
                        )
                })
                .collect();
            let img = annotated_boards(image, boards, camera, &captions, &banner, mark);
            let stem = Path::new(&photo.name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("photo_{i}"));
            save_image(&img, &dir.join(format!("{stem}.png")))?;
            Ok(())
        })
}

/// One photo and what each location made of it (`null` before the location was first seen).
#[derive(Serialize)]
struct PhotoJson<'a> {
    file: &'a str,
    locations: Vec<Option<&'a FrameOutcome>>,
}

/// Replays a Not My Stack! game from `photos` and reports it as `camouflage replay` does.
pub fn replay(
    args: &CamouflageReplay<'_>,
    set: &CamouflageSet,
    side: Option<SideIdx>,
    camera: Option<&Camera>,
    photos: &[SeriesPhoto],
    watch: Option<VideoWatch>,
) -> Result<Outcome> {
    let run = replay_locations(set, side, args.rules, camera, photos);
    let mut reasons = run.replay.doubts.clone();
    if let Err(e) = &run.report {
        reasons.push(e.clone());
    }
    let locations = locations_json(set, &run);
    let illegal = run
        .report
        .as_ref()
        .is_ok_and(|r| r.plays.iter().any(|p| breaks_a_rule(&p.faults)));
    let status = if !reasons.is_empty() {
        "undecided"
    } else if illegal {
        "illegal"
    } else {
        "legal"
    };
    if let Some(dir) = args.annotate {
        annotate_series(photos, &run, &locations, camera, dir)?;
    }
    let source = args.source.display().to_string();
    if args.output.json {
        let frames: Vec<PhotoJson> = run
            .names
            .iter()
            .enumerate()
            .map(|(i, file)| PhotoJson {
                file,
                locations: run
                    .replay
                    .locations
                    .iter()
                    .map(|l| (i >= l.first_photo).then(|| &l.replay.frames[i]))
                    .collect(),
            })
            .collect();
        print_json(&serde_json::json!({
            "format": REPLAY_FORMAT,
            "source": source,
            "status": status,
            "reason": (!reasons.is_empty()).then(|| reasons.join("; ")),
            "rules": args.rules,
            "video": watch,
            "photos": frames,
            "locations": locations,
            "history": run.history.as_ref().ok().map(|(h, _)| h),
            "report": run.report.as_ref().ok(),
        }))?;
    } else {
        if let Some(w) = &watch {
            w.print(&source)?;
        }
        print_text(&source, &run, &locations, &reasons)?;
    }
    Ok(match status {
        "undecided" => Outcome::Undecided,
        "illegal" => Outcome::Fail,
        _ => Outcome::Pass,
    })
}
