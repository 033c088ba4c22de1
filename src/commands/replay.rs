//! `tablejudge camouflage replay`: a game from a folder of photos, one after each card, or
//! from a video of the table.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use image::RgbImage;
use rayon::prelude::*;
use serde::Serialize;
use tablejudge_rules::camouflage::{
    score, CamouflageSet, Fault, GameReport, GameRules, History, LatticePos, Mode, PlacementRules,
    SideIdx,
};
use tablejudge_vision::camouflage::{
    read_camouflage, reread_camouflage, BoardLattice, CamouflageReadOptions, CamouflageReading,
    CentreReading, FrameOutcome, Replay, SideColours, Tracker,
};
use tablejudge_vision::video::{is_video, FrameState, SettleDetector, VideoReader};
use tablejudge_vision::{Camera, VisionError};

use super::camouflage::annotated;
use super::print_json;
use crate::annotate::CellMark;
use crate::cli::Output;
use crate::frames::{photos_in, PhotoOrder};
use crate::input::load_camouflage_set;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_camera, load_photo, save_image};

/// Format tag of `camouflage replay --json`.
pub const REPLAY_FORMAT: &str = "tablejudge/camouflage-replay@1";

pub struct CamouflageReplay<'a> {
    pub source: &'a Path,
    pub set: &'a Path,
    pub side: Option<&'a str>,
    pub rules: GameRules,
    pub camera_calibration: Option<&'a Path>,
    pub annotate: Option<&'a Path>,
    /// In a video, how long the table must be still before a frame is read, seconds.
    pub settle_s: f64,
    /// How a folder's photos are ordered.
    pub order: PhotoOrder,
    pub output: Output,
}

/// One photo of a series: its name and its pixels, or why there are none.
pub struct SeriesPhoto {
    pub name: String,
    pub image: Result<RgbImage, String>,
}

/// The photos of a series, decoded in parallel; each named by its file name. A photo that
/// cannot be read keeps its place, with the reason.
pub fn load_series(paths: &[PathBuf]) -> Vec<SeriesPhoto> {
    paths
        .par_iter()
        .map(|p| SeriesPhoto {
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            image: load_photo(p).map_err(|e| e.to_string()),
        })
        .collect()
}

/// A replayed series: what was read and what the tracker made of it, scored.
pub struct ReplayRun {
    pub names: Vec<String>,
    pub readings: Vec<Result<CamouflageReading, String>>,
    pub replay: Replay,
    pub history: Result<History, String>,
    /// The scored game, or why the cards found do not make one.
    pub report: Result<GameReport, String>,
}

/// What watching a video took.
#[derive(Debug, Serialize)]
pub struct VideoWatch {
    pub frames: usize,
    pub fps: f64,
    /// Frames where the table had settled into a new state: the ones read.
    pub settled: usize,
    /// Decoding and watching for stillness, per frame, on one core.
    pub watch_ms_per_frame: f64,
}

impl VideoWatch {
    pub fn print(&self, source: &str) -> Result<()> {
        outln!(
            "{source}: {} frames at {:.0} frames/s, {} where the table settled; watching took \
             {:.1} ms a frame",
            self.frames,
            self.fps,
            self.settled,
            self.watch_ms_per_frame
        );
        Ok(())
    }
}

/// The frames of a video where the table settles into a new state (still for `settle_s`
/// seconds and unlike the last such frame), named `frame_NNNNNN` by their index.
pub fn settled_frames(path: &Path, settle_s: f64) -> Result<(Vec<SeriesPhoto>, VideoWatch)> {
    let mut video = VideoReader::open(path).map_err(|e| BadInput(format!("{e}")))?;
    let fps = video.fps();
    let mut detector = SettleDetector::new((settle_s * fps).ceil() as usize);
    let mut photos = Vec::new();
    let started = Instant::now();
    let mut frames = 0;
    loop {
        match watch_next(&mut video, &mut detector) {
            Ok(Watched::End) => break,
            Ok(Watched::Passed) => {}
            Ok(Watched::Settled(frame)) => photos.push(SeriesPhoto {
                name: format!("frame_{frames:06}"),
                image: Ok(frame),
            }),
            // A damaged frame ends what can be read; the frames before it still count.
            Err(e) => {
                photos.push(SeriesPhoto {
                    name: format!("frame_{frames:06}"),
                    image: Err(format!("the video cannot be decoded from here on: {e}")),
                });
                break;
            }
        }
        frames += 1;
    }
    let elapsed = started.elapsed().as_secs_f64();
    if frames == 0 {
        return Err(BadInput(format!("{}: the video has no frames", path.display())).into());
    }
    let watch = VideoWatch {
        frames,
        fps,
        settled: photos.iter().filter(|p| p.image.is_ok()).count(),
        watch_ms_per_frame: 1000.0 * elapsed / frames as f64,
    };
    Ok((photos, watch))
}

/// What the next frame of a watched video was.
enum Watched {
    End,
    /// Moving, or still but not yet long enough, or the scene last settled.
    Passed,
    /// The table settled into a new state in this frame.
    Settled(RgbImage),
}

/// Decodes and watches the next frame. Only a settled frame is made a whole image: the
/// others are only compared, as thumbnails.
fn watch_next(
    video: &mut VideoReader,
    detector: &mut SettleDetector,
) -> Result<Watched, VisionError> {
    if !video.advance()? {
        return Ok(Watched::End);
    }
    Ok(match detector.push_thumbnail(video.thumbnail()?) {
        FrameState::Settled => Watched::Settled(video.frame()?),
        FrameState::Moving | FrameState::Still => Watched::Passed,
    })
}

/// The photos read on their own at the start of each run of photos: one may have a hand over
/// the table and show few of its cards, and a run followed from that alone would carry the
/// loss on (a hand is seldom over the table in two photos running).
const WHOLE_AT_START: usize = 2;

/// How a photo of a series is read, given the readings of the photos before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    /// On its own.
    Whole,
    /// Following the board from the photos before, where they allow.
    FromBefore,
    /// The last photo: on its own, unless following the board finds more cards (a centre the
    /// search of the whole photo missed, which the photos before saw).
    Last,
}

/// Reads every photo with `read` and settles the side face up: the one named, or the one
/// most boards show (`sides` lists a reading's boards' sides). Photos with a board read as
/// another side are read again as this one.
///
/// The photos are read in as many runs of consecutive photos as there are threads, the runs
/// in parallel. Within a run `read` is given the readings of the photos before, the last
/// last, to start from, and how to use them ([`Follow`]): the first [`WHOLE_AT_START`] photos
/// of a run are read on their own, and the last photo (it settles the final scores) on its
/// own too, unless following finds more in it.
pub fn game_side<T: Send + Sync>(
    set: &CamouflageSet,
    side: Option<SideIdx>,
    camera: Option<&Camera>,
    photos: &[SeriesPhoto],
    read: impl Fn(&RgbImage, &CamouflageReadOptions, &[&T], Follow) -> Result<T, String> + Sync,
    sides: impl Fn(&T) -> Vec<Option<String>> + Sync,
) -> (SideIdx, Vec<Result<T, String>>) {
    let read_photo =
        |p: &SeriesPhoto, options: &CamouflageReadOptions, before: &[&T], follow| match &p.image {
            Ok(image) => read(image, options, before, follow),
            Err(e) => Err(e.clone()),
        };
    let options = side_options(set, side, camera);
    let run_len = run_len(photos.len());
    let mut readings: Vec<Result<T, String>> = photos
        .par_chunks(run_len)
        .enumerate()
        .flat_map_iter(|(run, chunk)| {
            let mut read_run: Vec<Result<T, String>> = Vec::with_capacity(chunk.len());
            for (i, p) in chunk.iter().enumerate() {
                let follow = if run * run_len + i + 1 == photos.len() {
                    Follow::Last
                } else if i < WHOLE_AT_START {
                    Follow::Whole
                } else {
                    Follow::FromBefore
                };
                let before: Vec<&T> = if follow == Follow::Whole {
                    Vec::new()
                } else {
                    read_run.iter().filter_map(|r| r.as_ref().ok()).collect()
                };
                let reading = read_photo(p, &options, &before, follow);
                read_run.push(reading);
            }
            read_run
        })
        .collect();
    let side = side.unwrap_or_else(|| {
        let mut votes = vec![0usize; set.sides().len()];
        for r in readings.iter().flatten() {
            for s in sides(r).iter().flatten() {
                if let Some(s) = set.side_by_name(s) {
                    votes[s.0 as usize] += 1;
                }
            }
        }
        let best = (0..votes.len()).max_by_key(|&i| votes[i]).unwrap_or(0);
        SideIdx(best as u8)
    });
    let forced = side_options(set, Some(side), camera);
    let side_name = &set.side(side).name;
    readings
        .par_iter_mut()
        .zip(photos)
        .filter(|(r, _)| {
            matches!(r, Ok(r) if sides(r).iter().any(|s| s.as_deref() != Some(side_name.as_str())))
        })
        .for_each(|(r, p)| *r = read_photo(p, &forced, &[], Follow::Whole));
    (side, readings)
}

/// How the photos of a series are read: with the set's colours, of `side` where it is known.
pub fn side_options<'a>(
    set: &'a CamouflageSet,
    side: Option<SideIdx>,
    camera: Option<&'a Camera>,
) -> CamouflageReadOptions<'a> {
    CamouflageReadOptions {
        colours: Some(SideColours { set, side }),
        camera,
    }
}

/// How many consecutive photos each run of [`game_side`] reads: as many runs as threads.
fn run_len(photos: usize) -> usize {
    photos.div_ceil(rayon::current_num_threads().max(1)).max(1)
}

/// Follows the board again into the photos of every run of [`game_side`] but the first, from
/// the run before, one photo after another, until a photo's reading followed so shows the
/// centres it shows already; where it finds more, it replaces it. The runs are read in
/// parallel, so a run's first photos were read whole, without the photos before them: a
/// centre a whole reading misses (a fine symbol among light patterns beside it) but following
/// the board found would be lost for the rest of the run, and every photo after skipped as
/// covered (seed 4's game 19 on two threads).
fn follow_across_runs(
    readings: &mut [Result<CamouflageReading, String>],
    photos: &[SeriesPhoto],
    options: &CamouflageReadOptions,
) {
    let run = run_len(photos.len());
    // Where the last run's following stopped: a run followed into the next is not done twice.
    let mut done = 0;
    for start in (run..photos.len()).step_by(run) {
        for i in start.max(done)..photos.len() {
            done = i + 1;
            let (Ok(image), Ok(read)) = (&photos[i].image, &readings[i]) else {
                break;
            };
            let before: Vec<&CamouflageReading> = readings[..i]
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .collect();
            let followed = reread_camouflage(image, options, &before).ok().flatten();
            match followed {
                Some(followed) if finds_more(&followed, read) => readings[i] = Ok(followed),
                Some(followed) if shows_alike(&followed, read) => break,
                // A hand over the board, or the board not followed: the next photo may tell.
                _ => {}
            }
        }
    }
}

/// A followed reading's lattice and the squares of its centres, to find another reading's
/// centres on.
fn followed_centres(followed: &CamouflageReading) -> Option<(BoardLattice, Vec<LatticePos>)> {
    let found = followed
        .centres
        .iter()
        .map(|c| LatticePos::new(c.row, c.col))
        .collect();
    Some((followed.lattice?, found))
}

/// Whether `followed`, a photo's reading followed from the photos before, finds more cards
/// than `whole`, its reading on its own: every centre of `whole` and more. Following sees
/// only cards touching the board, so a card laid apart keeps the whole reading; a centre whose
/// squares fit no card (`misfits`) beside the board followed need not be in it.
fn finds_more(followed: &CamouflageReading, whole: &CamouflageReading) -> bool {
    let Some((lattice, found)) = followed_centres(followed) else {
        return false;
    };
    let holds = |c: &CentreReading| {
        let Some(at) = lattice.square_of(c.px) else {
            return false;
        };
        found.contains(&at)
            || (whole.misfits.contains(&LatticePos::new(c.row, c.col))
                && found.iter().any(|f| f.squares_from(at) <= 2))
    };
    followed.centres.len() > whole.centres.len() - whole.misfits.len().min(whole.centres.len())
        && whole.centres.iter().all(holds)
}

/// Whether `followed` and `read`, two readings of one photo, show the same centres.
fn shows_alike(followed: &CamouflageReading, read: &CamouflageReading) -> bool {
    let Some((lattice, found)) = followed_centres(followed) else {
        return false;
    };
    followed.centres.len() == read.centres.len()
        && read.centres.iter().all(|c| {
            lattice
                .square_of(c.px)
                .is_some_and(|at| found.contains(&at))
        })
}

/// Reads every photo (in parallel), then replays them in order and scores the game.
pub fn replay_series(
    set: &CamouflageSet,
    side: Option<SideIdx>,
    rules: GameRules,
    camera: Option<&Camera>,
    photos: &[SeriesPhoto],
) -> ReplayRun {
    let (side, mut readings) = game_side(
        set,
        side,
        camera,
        photos,
        |image, options, before: &[&CamouflageReading], follow| {
            let whole = || read_camouflage(image, options).map_err(|e| e.to_string());
            // `None` where the board cannot be followed into the photo.
            let followed = || reread_camouflage(image, options, before).ok().flatten();
            match follow {
                Follow::Whole => whole(),
                Follow::FromBefore => followed().map_or_else(whole, Ok),
                Follow::Last => read_last(image, options, before),
            }
        },
        |r: &CamouflageReading| vec![r.side.clone()],
    );
    follow_across_runs(
        &mut readings,
        photos,
        &side_options(set, Some(side), camera),
    );
    // Every reading is now of the game's side.
    let mut tracker = Tracker::new(set, side, PlacementRules::game(rules.wild_centres));
    for reading in &readings {
        match reading {
            Ok(r) => {
                tracker.observe(r);
            }
            Err(e) => {
                tracker.skip(e.clone());
            }
        }
    }
    let names = photos.iter().map(|p| p.name.clone()).collect();
    conclude(set, side, &rules, tracker, names, readings)
}

/// The replay a tracker made of `readings` (of the photos `names`), with the doubts about
/// the cards' order, the history and the scores.
pub fn conclude(
    set: &CamouflageSet,
    side: SideIdx,
    rules: &GameRules,
    tracker: Tracker<'_>,
    names: Vec<String>,
    readings: Vec<Result<CamouflageReading, String>>,
) -> ReplayRun {
    let mut replay = tracker.finish();
    let order = replay.order_doubts(set, side, rules);
    replay.doubts.extend(order);
    let history = replay.history(set, side);
    if rules.mode == Mode::Diversify && !replay.unsure_contacts.is_empty() {
        let cards: Vec<&str> = replay
            .unsure_contacts
            .iter()
            .map(|&k| set.card(replay.cards[k].placement.card).id.as_str())
            .collect();
        replay.doubts.push(format!(
            "{} touch{} squares where two cards overlap that the photos show either way up, so \
             the cards {} touch{} (Diversify's points) are not known: take a photo after \
             each card",
            cards.join(", "),
            if cards.len() == 1 { "es" } else { "" },
            if cards.len() == 1 { "it" } else { "they" },
            if cards.len() == 1 { "es" } else { "" },
        ));
    }
    let report = score_found(set, rules, history.as_ref());
    ReplayRun {
        names,
        readings,
        replay,
        history,
        report,
    }
}

/// Reads the last photo of a game, which settles the final scores: on its own, unless
/// following the board from the photos `before` finds more cards in it (a centre the search
/// of the whole photo missed, which the photos before saw).
pub fn read_last(
    image: &RgbImage,
    options: &CamouflageReadOptions,
    before: &[&CamouflageReading],
) -> Result<CamouflageReading, String> {
    let whole = read_camouflage(image, options).map_err(|e| e.to_string());
    let followed = reread_camouflage(image, options, before).ok().flatten();
    match (whole, followed) {
        (Ok(w), Some(f)) if finds_more(&f, &w) => Ok(f),
        (Err(_), Some(f)) => Ok(f),
        (w, _) => w,
    }
}

/// The game the replay found, scored; or why there is none.
pub fn score_found(
    set: &CamouflageSet,
    rules: &GameRules,
    history: Result<&History, &String>,
) -> Result<GameReport, String> {
    let history = history.map_err(Clone::clone)?;
    score(set, rules, history).map_err(|e| format!("the cards found do not make a game: {e}"))
}

#[derive(Serialize)]
struct PhotoJson<'a> {
    file: &'a str,
    #[serde(flatten)]
    outcome: &'a FrameOutcome,
}

#[derive(Serialize)]
pub struct PlacementJson {
    pub photo: String,
    pub card: String,
    pub deck: String,
    /// "start" for the starting board, else the player's name.
    pub player: String,
    pub row: i32,
    pub col: i32,
    /// Quarter-turns clockwise from the first photo's lattice.
    pub turn: u8,
    /// `null` where the photos leave the verdict open (`Replay::unsure_verdicts`).
    pub legal: Option<bool>,
    pub faults: Vec<Fault>,
    pub points: Option<u32>,
}

pub fn replay(args: CamouflageReplay<'_>) -> Result<Outcome> {
    let set = load_camouflage_set(args.set)?;
    let side = match args.side {
        None => None,
        Some(name) => Some(super::render::camouflage_side(&set, args.set, Some(name))?),
    };
    let camera = args.camera_calibration.map(load_camera).transpose()?;
    if let Some(dir) = args.annotate {
        std::fs::create_dir_all(dir).map_err(|e| {
            BadInput(format!(
                "{}: cannot create the folder for annotated photos ({e})",
                dir.display()
            ))
        })?;
    }
    let (photos, watch) = if args.source.is_file() && is_video(args.source) {
        let (photos, watch) = settled_frames(args.source, args.settle_s)?;
        (photos, Some(watch))
    } else {
        (load_series(&photos_in(args.source, args.order)?), None)
    };
    if args.rules.mode == Mode::NotMyStack {
        return super::replay_locations::replay(&args, &set, side, camera.as_ref(), &photos, watch);
    }
    let run = replay_series(&set, side, args.rules, camera.as_ref(), &photos);

    let placements = placements_json(&set, &run);
    let (status, reasons) = replay_status(&run, &placements);

    if let Some(dir) = args.annotate {
        annotate_series(&photos, &run, &placements, camera.as_ref(), dir)?;
    }
    let source = args.source.display().to_string();
    if args.output.json {
        let frames: Vec<PhotoJson> = run
            .names
            .iter()
            .zip(&run.replay.frames)
            .map(|(file, outcome)| PhotoJson { file, outcome })
            .collect();
        print_json(&serde_json::json!({
            "format": REPLAY_FORMAT,
            "source": source,
            "status": status,
            "reason": (!reasons.is_empty()).then(|| reasons.join("; ")),
            "rules": args.rules,
            "video": watch,
            "photos": frames,
            "placements": placements,
            "history": run.history.as_ref().ok(),
            "report": run.report.as_ref().ok(),
        }))?;
    } else {
        if let Some(w) = &watch {
            w.print(&source)?;
        }
        print_text(&source, &run, &placements, &reasons)?;
    }
    Ok(status_outcome(status))
}

/// A replay's verdict, "legal", "illegal" or "undecided", and why it is undecided (its doubts,
/// and why the cards found make no game).
pub fn replay_status(run: &ReplayRun, placements: &[PlacementJson]) -> (&'static str, Vec<String>) {
    let mut reasons = run.replay.doubts.clone();
    if let Err(e) = &run.report {
        reasons.push(e.clone());
    }
    let illegal = placements.iter().any(|p| p.legal == Some(false));
    let status = if !reasons.is_empty() {
        "undecided"
    } else if illegal {
        "illegal"
    } else {
        "legal"
    };
    (status, reasons)
}

/// The exit status of a replay's verdict ([`replay_status`]).
pub fn status_outcome(status: &str) -> Outcome {
    match status {
        "undecided" => Outcome::Undecided,
        "illegal" => Outcome::Fail,
        _ => Outcome::Pass,
    }
}

pub fn placements_json(set: &CamouflageSet, run: &ReplayRun) -> Vec<PlacementJson> {
    let Ok(history) = &run.history else {
        return Vec::new();
    };
    run.replay
        .cards
        .iter()
        .enumerate()
        .map(|(i, tracked)| {
            let card = set.card(tracked.placement.card);
            let (player, faults, points, legal) = if i < 3 {
                let legal = run
                    .report
                    .as_ref()
                    .ok()
                    .and_then(|r| r.start.get(i))
                    .is_none_or(|v| v.is_ok());
                ("start".to_string(), Vec::new(), None, legal)
            } else {
                let play = &history.plays[i - 3];
                let report = run.report.as_ref().ok().and_then(|r| r.plays.get(i - 3));
                let faults = report.map(|r| r.faults.clone()).unwrap_or_default();
                let legal = !faults.iter().any(|f| matches!(f, Fault::Illegal(_)));
                (
                    history.players[play.player].name.clone(),
                    faults,
                    report.map(|r| r.points),
                    legal,
                )
            };
            PlacementJson {
                photo: run.names[tracked.frame].clone(),
                card: card.id.clone(),
                deck: set.deck(card.deck).id.clone(),
                player,
                row: tracked.placement.centre.row,
                col: tracked.placement.centre.col,
                turn: tracked.placement.turn.quarter_turns(),
                legal: (!run.replay.unsure_verdicts.contains(&i)).then_some(legal),
                faults,
                points,
            }
        })
        .collect()
}

pub fn print_text(
    source: &str,
    run: &ReplayRun,
    placements: &[PlacementJson],
    reasons: &[String],
) -> Result<()> {
    for line in text_lines(source, run, placements, reasons) {
        outln!("{line}");
    }
    Ok(())
}

/// What `camouflage replay` prints for people: the photos skipped, each card, the scores and
/// why the replay is undecided.
pub fn text_lines(
    source: &str,
    run: &ReplayRun,
    placements: &[PlacementJson],
    reasons: &[String],
) -> Vec<String> {
    let mut lines = vec![format!(
        "{source}: {} photos, {} cards found",
        run.names.len(),
        run.replay.cards.len()
    )];
    for (name, outcome) in run.names.iter().zip(&run.replay.frames) {
        if let FrameOutcome::Skipped { reason } = outcome {
            lines.push(format!("  {name}: skipped: {reason}"));
        }
    }
    for p in placements {
        lines.push(format!("  {}", placement_line(p)));
    }
    if let (Ok(report), Ok(history)) = (&run.report, &run.history) {
        for &i in &report.ranking {
            let p = &report.players[i];
            lines.push(format!(
                "  {}: score {}{}",
                history.players[i].name,
                p.score,
                if report.winners.contains(&i) {
                    " (winner)"
                } else {
                    ""
                }
            ));
        }
    }
    if !reasons.is_empty() {
        lines.push(format!("undecided: {}", reasons.join("; ")));
    }
    lines
}

/// One card of a replay: the photo it was first seen in, who laid it where, and its verdict.
pub fn placement_line(p: &PlacementJson) -> String {
    format!(
        "{}: {} ({}) at ({}, {}) turned {}°: {}{}",
        p.photo,
        p.card,
        p.player,
        p.row,
        p.col,
        u16::from(p.turn) * 90,
        if p.player == "start" {
            "starting board".to_owned()
        } else if p.legal.is_none() {
            "legal or not as the order of the cards new in its photo, which the photos do \
             not show"
                .to_owned()
        } else {
            verdict(&p.faults)
        },
        p.points
            .map(|x| format!(", {x} points"))
            .unwrap_or_default()
    )
}

fn describe_fault(f: &Fault) -> String {
    match f {
        Fault::Illegal(e) => format!("ILLEGAL: {e}"),
        Fault::AfterGameOver { out_at_play } => {
            format!("played after the game ended at play {}", out_at_play + 1)
        }
        Fault::NoExtraTime { out_at_play } => format!(
            "played after the first player went out at play {} (expert: no extra time)",
            out_at_play + 1
        ),
        Fault::OwnLocation => "ILLEGAL: played on the player's own location".into(),
        Fault::FrozenLocation { owner, out_at_play } => format!(
            "ILLEGAL: the location was frozen (its owner, player {}, went out at play {})",
            owner + 1,
            out_at_play + 1
        ),
        other => format!("{other:?}"),
    }
}

/// A card's legality as an annotation banner says it; `None` where the photos leave it open.
pub fn legality_word(legal: Option<bool>) -> &'static str {
    match legal {
        Some(true) => "legal",
        Some(false) => "ILLEGAL",
        None => "not sure",
    }
}

/// A card's verdict in words: its faults, or that it stands.
pub fn verdict(faults: &[Fault]) -> String {
    if faults.is_empty() {
        return "stands".into();
    }
    let words: Vec<String> = faults.iter().map(describe_fault).collect();
    words.join("; ")
}

/// An annotated copy of every photo, its banner saying what the replay made of it; `camera`
/// is the lens calibration the photos were read through.
fn annotate_series(
    photos: &[SeriesPhoto],
    run: &ReplayRun,
    placements: &[PlacementJson],
    camera: Option<&Camera>,
    dir: &Path,
) -> Result<()> {
    for (i, photo) in photos.iter().enumerate() {
        let Ok(image) = &photo.image else {
            continue;
        };
        let (banner, mark) = match &run.replay.frames[i] {
            FrameOutcome::Skipped { reason } => (format!("SKIPPED: {reason}"), CellMark::Doubtful),
            FrameOutcome::Settled {
                laid, unexplained, ..
            } => {
                let mut parts: Vec<String> = laid
                    .iter()
                    .filter_map(|&k| placements.get(k))
                    .map(|p| {
                        format!(
                            "{} at ({}, {}) {}",
                            p.card,
                            p.row,
                            p.col,
                            legality_word(p.legal)
                        )
                    })
                    .collect();
                if !unexplained.is_empty() {
                    parts.push(format!("{} centres unexplained", unexplained.len()));
                }
                let mark =
                    if unexplained.is_empty() && placements.iter().all(|p| p.legal == Some(true)) {
                        CellMark::Fine
                    } else {
                        CellMark::Doubtful
                    };
                (
                    if parts.is_empty() {
                        "no change".to_string()
                    } else {
                        parts.join("; ")
                    },
                    mark,
                )
            }
        };
        let out = dir.join(format!(
            "{}.png",
            Path::new(&photo.name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| format!("photo_{i}"))
        ));
        let img = match &run.readings[i] {
            Ok(reading) => annotated(image, reading, camera, &banner, mark),
            Err(_) => crate::annotate::annotate(image, &[], &banner, mark),
        };
        save_image(&img, &out)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A reading with centres at `centres` (row, col) and `misfits` among them, on a lattice
    /// of squares 20 pixels wide whose square (0, 0) lies at pixel (100, 100).
    pub(crate) fn reading(centres: &[(i32, i32)], misfits: &[(i32, i32)]) -> CamouflageReading {
        let lattice = BoardLattice::new([[20.0, 0.0, 100.0], [0.0, 20.0, 100.0], [0.0, 0.0, 1.0]])
            .expect("not singular");
        CamouflageReading {
            side: None,
            rows: 0,
            cols: 0,
            corners: [[0.0; 2]; 4],
            picture: Vec::new(),
            squares: Vec::new(),
            beyond: Vec::new(),
            table_ring: Vec::new(),
            misfits: misfits
                .iter()
                .map(|&(r, c)| LatticePos::new(r, c))
                .collect(),
            centres: centres
                .iter()
                .map(|&(row, col)| CentreReading {
                    row,
                    col,
                    px: lattice.to_photo([col as f32, row as f32]).expect("finite"),
                    symbol_group: 0,
                    symbol: Vec::new(),
                })
                .collect(),
            stray_symbols: Vec::new(),
            lattice: Some(lattice),
            looks: Default::default(),
            symbol_size: None,
        }
    }

    /// Photos of a later run read whole miss a centre the run before followed (taken out of
    /// their readings here): following the board across the runs puts it back.
    #[test]
    fn a_centre_the_run_before_followed_is_followed_into_the_next_run() {
        use crate::cli::DegradationArg;
        use crate::commands::render::{camouflage as render, RenderCamouflage};
        let dir = tempfile::tempdir().unwrap();
        let set_path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("models/camouflage/reference.json");
        render(RenderCamouflage {
            set: &set_path,
            out: dir.path(),
            n: 1,
            seed: 2,
            cards: 0,
            series: Some(2),
            mistakes: 0.0,
            puzzles: None,
            video: false,
            not_my_stack: false,
            side: None,
            size: (960, 720),
            degradation: DegradationArg::Clean,
        })
        .unwrap();
        let set = load_camouflage_set(&set_path).unwrap();
        let paths = photos_in(&dir.path().join("game_0000"), PhotoOrder::Name).unwrap();
        let photos = load_series(&paths);
        let options = CamouflageReadOptions {
            colours: Some(SideColours {
                set: &set,
                side: Some(SideIdx(0)),
            }),
            camera: None,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| {
            let run = run_len(photos.len());
            let mut readings: Vec<Result<CamouflageReading, String>> = Vec::new();
            for (i, p) in photos.iter().enumerate() {
                let image = p.image.as_ref().unwrap();
                let before: Vec<&CamouflageReading> =
                    readings.iter().filter_map(|r| r.as_ref().ok()).collect();
                let followed = (i > 0 && i < run)
                    .then(|| reread_camouflage(image, &options, &before).ok().flatten())
                    .flatten();
                let reading = match followed {
                    Some(f) => f,
                    None => read_camouflage(image, &options).unwrap(),
                };
                readings.push(Ok(reading));
            }
            let hidden = readings[run - 1].as_ref().unwrap().centres[0].px;
            let near = |c: &CentreReading| tablejudge_vision::geom::dist(c.px, hidden) < 10.0;
            for r in readings[run..].iter_mut().flatten() {
                r.centres.retain(|c| !near(c));
            }
            follow_across_runs(&mut readings, &photos, &options);
            // Following did not take the run's first photo here (it stays read whole, as
            // without the runs): the photos after it.
            for (i, r) in readings.iter().enumerate().skip(run + 1) {
                assert!(
                    r.as_ref().unwrap().centres.iter().any(near),
                    "photo {}",
                    i + 1
                );
            }
        });
    }

    #[test]
    fn two_readings_show_alike_only_with_the_same_centres() {
        let board = reading(&[(1, 1), (1, 3), (3, 2)], &[]);
        assert!(shows_alike(&board, &board));
        assert!(!shows_alike(
            &reading(&[(1, 1), (1, 3), (3, 2), (3, 4)], &[]),
            &board
        ));
        assert!(!shows_alike(
            &board,
            &reading(&[(1, 1), (1, 3), (3, 4)], &[])
        ));
    }

    #[test]
    fn the_last_photo_is_followed_only_where_that_finds_every_card_and_more() {
        let board = [(1, 1), (1, 3), (3, 2)];
        let whole = reading(&board, &[]);
        // A centre the whole photo's search missed.
        let more = reading(&[(1, 1), (1, 3), (3, 2), (3, 4)], &[]);
        assert!(finds_more(&more, &whole));
        assert!(!finds_more(&whole, &whole));
        // A card laid apart from the board, which following does not see.
        let apart = reading(&[(1, 1), (1, 3), (3, 2), (9, 9)], &[]);
        assert!(!finds_more(&more, &apart));
        // A centre beside the board that fitted no card (a mark on the table) need not be
        // followed; one far from it must.
        let marked = reading(&[(1, 1), (1, 3), (3, 2), (0, 5)], &[(0, 5)]);
        assert!(finds_more(&more, &marked));
        let marked_apart = reading(&[(1, 1), (1, 3), (3, 2), (9, 9)], &[(9, 9)]);
        assert!(!finds_more(&more, &marked_apart));
    }
}
