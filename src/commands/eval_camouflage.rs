//! `tablejudge eval camouflage`: render whole games as photo series, replay each from its
//! JPEGs as `camouflage replay` does, and compare with the game that was played.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tablejudge_rules::camouflage::{
    score, CamouflageSet, DeckIdx, GameReport, GameRules, History, LatticePos, Mode, Placement,
    SideIdx,
};
use tablejudge_rules::{Pos, Turn};
use tablejudge_vision::camouflage::Replay;

use super::print_json;
use super::render::{camouflage_game, camouflage_side, RenderCamouflage, GAME_VIDEO};
use super::replay::{load_series, replay_series, settled_frames, ReplayRun};
use super::replay_locations::{breaks_a_rule, replay_locations, LocationsRun};
use crate::cli::{DegradationArg, Output};
use crate::frames::{photos_in, PhotoOrder};
use crate::input::load_camouflage_set;
use crate::outcome::{BadInput, Outcome};

/// How long the table must be still in a video before a frame is read (the replay's
/// default).
const SETTLE_S: f64 = 0.5;

pub struct EvalCamouflage<'a> {
    pub set: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub players: usize,
    /// Chance that a play is illegal.
    pub mistakes: f64,
    pub rules: GameRules,
    pub side: Option<&'a str>,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
    /// Keep the rendered photos here (a temporary folder otherwise).
    pub keep: Option<PathBuf>,
    /// Render each game as a video and replay it from the video.
    pub video: bool,
    /// Replay each game as `watch --game camouflage` does, one scene after another.
    pub live: bool,
    pub output: Output,
}

/// What happened to one game.
#[derive(Debug, Serialize)]
struct GameResult {
    index: usize,
    photos: usize,
    plays: usize,
    /// Plays found at their place, turned as laid.
    found: usize,
    /// Plays found and judged legal or illegal as they were.
    legality_right: usize,
    illegal: usize,
    illegal_judged_legal: usize,
    scores_exact: bool,
    /// The replay vouched for itself (no doubt).
    trusted: bool,
    reason: Option<String>,
    replay_s: f64,
    /// From a video: its frames, and what decoding and watching them cost per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    video_frames: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    watch_ms_per_frame: Option<f64>,
}

#[derive(Debug, Default, Serialize)]
struct Summary {
    set: String,
    /// Replayed from videos rather than photo series.
    video: bool,
    games: usize,
    seed: u64,
    players: usize,
    mistakes: f64,
    mode: String,
    degradation: String,
    size: String,
    photos: usize,
    plays: usize,
    found: usize,
    detection_rate: f64,
    legality_right: usize,
    legality_accuracy: f64,
    illegal: usize,
    illegal_judged_legal: usize,
    scores_exact: usize,
    exact_score_rate: f64,
    /// Trusted replays with every play found and the scores exact / not.
    trusted_right: usize,
    trusted_wrong: usize,
    undecided: usize,
    replay_s_median: f64,
    replay_s_max: f64,
    photos_per_s: f64,
    /// From videos: all frames, the cost of decoding and watching one (median over games),
    /// and the whole replay's time spread over every frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    video_frames: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    watch_ms_per_frame_median: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replay_ms_per_frame: Option<f64>,
    undecided_reasons: Vec<(String, usize)>,
}

pub fn camouflage(args: EvalCamouflage<'_>) -> Result<Outcome> {
    let set = load_camouflage_set(args.set)?;
    let side = camouflage_side(&set, args.set, args.side)?;
    let temp;
    let out: &Path = match &args.keep {
        Some(dir) => dir,
        None => {
            temp = tempfile::tempdir().map_err(|e| {
                BadInput(format!(
                    "cannot create a temporary folder for the photos ({e})"
                ))
            })?;
            temp.path()
        }
    };
    let render = RenderCamouflage {
        set: args.set,
        out,
        n: args.n,
        seed: args.seed,
        cards: 0,
        series: Some(args.players),
        mistakes: args.mistakes,
        puzzles: None,
        video: args.video,
        not_my_stack: args.rules.mode == Mode::NotMyStack,
        side: args.side,
        size: args.size,
        degradation: args.degradation,
    };
    std::fs::create_dir_all(out)
        .map_err(|e| BadInput(format!("{}: cannot create the folder ({e})", out.display())))?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let bar = indicatif::ProgressBar::new(args.n as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games, {eta} left")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut results = Vec::with_capacity(args.n);
    for i in 0..args.n {
        let game = camouflage_game(&set, side, &render, args.players, i, &mut rng)?;
        // The clock runs from the files: a video is watched for settled frames, photos are
        // decoded, as part of the replay.
        let mut watch = None;
        let started = Instant::now();
        let photos = if args.video {
            let (photos, w) = settled_frames(&game.dir.join(GAME_VIDEO), SETTLE_S)?;
            watch = Some(w);
            photos
        } else {
            load_series(&photos_in(&game.dir, PhotoOrder::Name)?)
        };
        let judge = |replayed: &Replayed<'_>, replay_s: f64| {
            compare(
                &set,
                side,
                &args.rules,
                i,
                &game.history,
                replayed,
                replay_s,
            )
        };
        let mut result = if args.rules.mode == Mode::NotMyStack {
            let run = replay_locations(&set, Some(side), args.rules, None, &photos);
            let replay_s = started.elapsed().as_secs_f64();
            judge(&Replayed::of_locations(&run), replay_s)
        } else if args.live {
            let run = super::watch::replay_live(&set, Some(side), args.rules, &photos)?
                .ok_or_else(|| anyhow::anyhow!("game {i}: the live replay read no board"))?;
            let replay_s = started.elapsed().as_secs_f64();
            judge(&Replayed::of_board(&run), replay_s)
        } else {
            let run = replay_series(&set, Some(side), args.rules, None, &photos);
            let replay_s = started.elapsed().as_secs_f64();
            judge(&Replayed::of_board(&run), replay_s)
        };
        if let Some(w) = watch {
            result.video_frames = Some(w.frames);
            result.watch_ms_per_frame = Some(w.watch_ms_per_frame);
        }
        results.push(result);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let summary = summarise(&args, &results);
    if args.output.json {
        print_json(&serde_json::json!({ "summary": summary, "games": results }))?;
    } else {
        print_summary(&summary)?;
    }
    Ok(Outcome::Pass)
}

/// The face of `card` as nine characters, row-major, turned as laid.
fn face(
    set: &CamouflageSet,
    side: SideIdx,
    card: tablejudge_rules::camouflage::CardIdx,
    turn: Turn,
) -> [char; 9] {
    let face = set.face(card, side);
    std::array::from_fn(|k| face.square(turn, Pos::new(k / 3, k % 3)).char())
}

fn turned(pos: LatticePos, q: u8) -> LatticePos {
    match q % 4 {
        0 => pos,
        1 => LatticePos::new(pos.col, -pos.row),
        2 => LatticePos::new(-pos.row, -pos.col),
        _ => LatticePos::new(-pos.col, pos.row),
    }
}

/// The truth's placements that the replay found: same card, at the place and turn the truth's
/// lattice maps to under the quarter-turn and shift that match the most cards.
fn matched(
    set: &CamouflageSet,
    side: SideIdx,
    truth: &[Placement],
    replay: &[Placement],
) -> Vec<bool> {
    let mut best = vec![false; truth.len()];
    let mut best_count = 0;
    for q in 0..4u8 {
        for t in truth {
            let Some(r) = replay.iter().find(|r| r.card == t.card) else {
                continue;
            };
            let at = turned(t.centre, q);
            let shift = (r.centre.row - at.row, r.centre.col - at.col);
            let hits: Vec<bool> = truth
                .iter()
                .map(|t| {
                    let at = turned(t.centre, q).offset(shift.0, shift.1);
                    replay.iter().any(|r| {
                        r.card == t.card
                            && r.centre == at
                            && face(set, side, r.card, r.turn)
                                == face(
                                    set,
                                    side,
                                    t.card,
                                    t.turn.then(Turn::from_quarter_turns(i64::from(q))),
                                )
                    })
                })
                .collect();
            let count = hits.iter().filter(|&&h| h).count();
            if count > best_count {
                best_count = count;
                best = hits;
            }
        }
    }
    best
}

fn deck_scores(history: &History, report: &GameReport) -> BTreeMap<DeckIdx, u32> {
    history
        .players
        .iter()
        .zip(&report.players)
        .map(|(p, r)| (p.deck, r.score))
        .collect()
}

/// Whether the replay scored every deck as the truth did. A camera knows the players by the
/// cards they laid, so a player who laid none is missing from the replay: right when the
/// truth scores them 0 (and they laid no card, or the placements found would differ).
fn same_scores(truth: &BTreeMap<DeckIdx, u32>, replayed: &BTreeMap<DeckIdx, u32>) -> bool {
    replayed.iter().all(|(d, s)| truth.get(d) == Some(s))
        && truth
            .iter()
            .all(|(d, &s)| replayed.contains_key(d) || s == 0)
}

/// What a replay made of a game, for comparing with the truth.
struct Replayed<'a> {
    /// The cards found on each table (one, or each Not My Stack! location), in the order
    /// laid.
    tables: Vec<Vec<Placement>>,
    /// The game the replay made and how it was scored, when it made one.
    game: Option<(&'a History, &'a GameReport)>,
    /// The cards whose verdict the replay leaves open: judged neither legal nor illegal.
    unsure: BTreeSet<u16>,
    doubts: Vec<String>,
    photos: usize,
}

impl<'a> Replayed<'a> {
    fn of_board(run: &'a ReplayRun) -> Replayed<'a> {
        let mut doubts = run.replay.doubts.clone();
        if let Err(e) = &run.report {
            doubts.push(e.clone());
        }
        Replayed {
            tables: vec![run.replay.cards.iter().map(|c| c.placement).collect()],
            game: run.history.as_ref().ok().zip(run.report.as_ref().ok()),
            unsure: unsure_cards(&run.replay),
            doubts,
            photos: run.names.len(),
        }
    }

    fn of_locations(run: &'a LocationsRun) -> Replayed<'a> {
        let mut doubts = run.replay.doubts.clone();
        if let Err(e) = &run.report {
            doubts.push(e.clone());
        }
        Replayed {
            tables: run
                .replay
                .locations
                .iter()
                .map(|l| l.replay.cards.iter().map(|c| c.placement).collect())
                .collect(),
            game: run
                .history
                .as_ref()
                .ok()
                .map(|(h, _)| h)
                .zip(run.report.as_ref().ok()),
            unsure: run
                .replay
                .locations
                .iter()
                .flat_map(|l| unsure_cards(&l.replay))
                .collect(),
            doubts,
            photos: run.names.len(),
        }
    }
}

/// The cards of `replay` whose verdict it leaves open.
fn unsure_cards(replay: &Replay) -> BTreeSet<u16> {
    replay
        .unsure_verdicts
        .iter()
        .map(|&k| replay.cards[k].placement.card.0)
        .collect()
}

/// Each table of the truth (the one board, or each player's location, their own card first)
/// with the cards on it in the order laid.
fn truth_tables(truth: &History) -> Vec<Vec<Placement>> {
    let placement = |p: &tablejudge_rules::camouflage::Play| Placement {
        card: p.card,
        centre: p.centre,
        turn: p.turn,
    };
    if truth.plays.iter().any(|p| p.location.is_some()) {
        truth
            .start
            .iter()
            .enumerate()
            .map(|(l, &own)| {
                std::iter::once(own)
                    .chain(
                        truth
                            .plays
                            .iter()
                            .filter(|p| p.location == Some(l))
                            .map(placement),
                    )
                    .collect()
            })
            .collect()
    } else {
        vec![truth
            .start
            .iter()
            .copied()
            .chain(truth.plays.iter().map(placement))
            .collect()]
    }
}

fn compare(
    set: &CamouflageSet,
    side: SideIdx,
    rules: &GameRules,
    index: usize,
    truth: &History,
    run: &Replayed<'_>,
    replay_s: f64,
) -> GameResult {
    let truth_report = score(set, rules, truth).ok();
    // The plays found at their place and turn: each table of the truth against the replayed
    // table that starts with the same card (a location is known by its owner's card).
    let mut found_cards: BTreeSet<u16> = BTreeSet::new();
    for table in truth_tables(truth) {
        let Some(replayed) = run
            .tables
            .iter()
            .find(|r| r.first().map(|p| p.card) == table.first().map(|p| p.card))
            .or_else(|| run.tables.first().filter(|_| run.tables.len() == 1))
        else {
            continue;
        };
        let hits = matched(set, side, &table, replayed);
        found_cards.extend(
            table
                .iter()
                .zip(hits)
                .filter(|(_, hit)| *hit)
                .map(|(p, _)| p.card.0),
        );
    }
    let plays = truth.plays.len();
    let found = truth
        .plays
        .iter()
        .filter(|p| found_cards.contains(&p.card.0))
        .count();

    // Legality of each play, by card, as the truth and the replay judged it.
    let replay_illegal: BTreeMap<u16, bool> = match run.game {
        Some((h, r)) => h
            .plays
            .iter()
            .zip(&r.plays)
            .map(|(p, rep)| (p.card.0, breaks_a_rule(&rep.faults)))
            .collect(),
        None => BTreeMap::new(),
    };
    let mut legality_right = 0;
    let mut illegal = 0;
    let mut illegal_judged_legal = 0;
    if let Some(tr) = &truth_report {
        for (p, rep) in truth.plays.iter().zip(&tr.plays) {
            let truly_illegal = breaks_a_rule(&rep.faults);
            illegal += usize::from(truly_illegal);
            match replay_illegal.get(&p.card.0) {
                Some(&judged)
                    if found_cards.contains(&p.card.0) && !run.unsure.contains(&p.card.0) =>
                {
                    legality_right += usize::from(judged == truly_illegal);
                    illegal_judged_legal += usize::from(truly_illegal && !judged);
                }
                _ => {}
            }
        }
    }
    let scores_exact = match (&truth_report, run.game) {
        (Some(tr), Some((h, r))) => same_scores(&deck_scores(truth, tr), &deck_scores(h, r)),
        _ => false,
    };
    GameResult {
        index,
        photos: run.photos,
        plays,
        found,
        legality_right,
        illegal,
        illegal_judged_legal,
        scores_exact,
        trusted: run.doubts.is_empty(),
        reason: (!run.doubts.is_empty()).then(|| run.doubts.join("; ")),
        replay_s,
        video_frames: None,
        watch_ms_per_frame: None,
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn summarise(args: &EvalCamouflage<'_>, results: &[GameResult]) -> Summary {
    let video_frames: usize = results.iter().filter_map(|r| r.video_frames).sum();
    let sum = |f: fn(&GameResult) -> usize| results.iter().map(f).sum::<usize>();
    let mut times: Vec<f64> = results.iter().map(|r| r.replay_s).collect();
    times.sort_by(f64::total_cmp);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for r in results.iter().filter(|r| !r.trusted) {
        let text = r.reason.clone().unwrap_or_default();
        // The kind of doubt, without the squares it names.
        let kind = text
            .split([':', '(', ','])
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        *reasons.entry(kind).or_default() += 1;
    }
    let mut undecided_reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    undecided_reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    let photos = sum(|r| r.photos);
    let plays = sum(|r| r.plays);
    let all_right = |r: &GameResult| r.found == r.plays && r.scores_exact;
    Summary {
        video: args.video,
        set: args.set.display().to_string(),
        games: results.len(),
        seed: args.seed,
        players: args.players,
        mistakes: args.mistakes,
        mode: args.rules.mode.to_string(),
        degradation: format!("{:?}", args.degradation).to_lowercase(),
        size: format!("{}x{}", args.size.0, args.size.1),
        photos,
        plays,
        found: sum(|r| r.found),
        detection_rate: ratio(sum(|r| r.found), plays),
        legality_right: sum(|r| r.legality_right),
        legality_accuracy: ratio(sum(|r| r.legality_right), plays),
        illegal: sum(|r| r.illegal),
        illegal_judged_legal: sum(|r| r.illegal_judged_legal),
        scores_exact: results.iter().filter(|r| r.scores_exact).count(),
        exact_score_rate: ratio(
            results.iter().filter(|r| r.scores_exact).count(),
            results.len(),
        ),
        trusted_right: results.iter().filter(|r| r.trusted && all_right(r)).count(),
        trusted_wrong: results
            .iter()
            .filter(|r| r.trusted && !all_right(r))
            .count(),
        undecided: results.iter().filter(|r| !r.trusted).count(),
        replay_s_median: times.get(times.len() / 2).copied().unwrap_or(0.0),
        replay_s_max: times.last().copied().unwrap_or(0.0),
        photos_per_s: photos as f64 / times.iter().sum::<f64>().max(1e-9),
        video_frames: args.video.then_some(video_frames),
        watch_ms_per_frame_median: args.video.then(|| {
            let mut w: Vec<f64> = results
                .iter()
                .filter_map(|r| r.watch_ms_per_frame)
                .collect();
            w.sort_by(f64::total_cmp);
            w.get(w.len() / 2).copied().unwrap_or(0.0)
        }),
        replay_ms_per_frame: args
            .video
            .then(|| 1000.0 * times.iter().sum::<f64>() / video_frames.max(1) as f64),
        undecided_reasons,
    }
}

fn print_summary(s: &Summary) -> Result<()> {
    outln!(
        "{} games of {} players ({}), {} {} {} {}, seed {}",
        s.games,
        s.players,
        s.mode,
        s.photos,
        if s.video {
            "settled video frames"
        } else {
            "photos"
        },
        s.size,
        s.degradation,
        s.seed
    );
    outln!(
        "placements found:   {}/{} ({:.1}%)",
        s.found,
        s.plays,
        100.0 * s.detection_rate
    );
    outln!(
        "legality right:     {}/{} ({:.1}%); illegal plays {}, judged legal {}",
        s.legality_right,
        s.plays,
        100.0 * s.legality_accuracy,
        s.illegal,
        s.illegal_judged_legal
    );
    outln!(
        "scores exact:       {}/{} games ({:.1}%)",
        s.scores_exact,
        s.games,
        100.0 * s.exact_score_rate
    );
    outln!(
        "trusted and right {}, trusted and wrong {}, undecided {}",
        s.trusted_right,
        s.trusted_wrong,
        s.undecided
    );
    for (reason, n) in &s.undecided_reasons {
        outln!("  {n:>4}  {reason}");
    }
    outln!(
        "replay time per game: median {:.2} s, max {:.2} s; {:.1} photos/s",
        s.replay_s_median,
        s.replay_s_max,
        s.photos_per_s
    );
    if let (Some(frames), Some(watch), Some(all)) = (
        s.video_frames,
        s.watch_ms_per_frame_median,
        s.replay_ms_per_frame,
    ) {
        outln!(
            "video: {frames} frames; decoding and watching {watch:.1} ms a frame (median of \
             games), the whole replay {all:.1} ms a frame"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(pairs: &[(u16, u32)]) -> BTreeMap<DeckIdx, u32> {
        pairs.iter().map(|&(d, s)| (DeckIdx(d), s)).collect()
    }

    #[test]
    fn a_player_who_laid_no_card_is_missing_from_the_replay_and_scores_0() {
        let truth = scores(&[(0, 3), (1, 0), (2, 0)]);
        assert!(same_scores(&truth, &scores(&[(0, 3), (1, 0)])));
        assert!(same_scores(&truth, &scores(&[(0, 3)])));
        // Missing a player who scored, or scoring one differently, is wrong.
        assert!(!same_scores(&scores(&[(0, 3), (1, 2)]), &scores(&[(0, 3)])));
        assert!(!same_scores(&truth, &scores(&[(0, 4), (1, 0)])));
        // A deck the truth has no player for is wrong.
        assert!(!same_scores(&truth, &scores(&[(0, 3), (5, 0)])));
    }
}
