//! `tablejudge watch`: judge the table live from a frame source, announcing each new verdict
//! (Layers+) or card laid (Camouflage) once; and `tablejudge cameras`, the webcams there are.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use image::RgbImage;
use serde_json::{json, Value};
use tablejudge_rules::camouflage::{CamouflageSet, GameRules, Mode, PlacementRules, SideIdx};
use tablejudge_vision::camouflage::{
    read_camouflage, reread_camouflage, CamouflageReading, Tracker,
};
use tablejudge_vision::preview::PreviewWindow;
use tablejudge_vision::video::{FrameState, SettleDetector};
use tablejudge_vision::Camera;

use super::camouflage::annotated;
use super::judge::{StackJudge, StackVerdict};
use super::print_json;
use super::replay::{
    conclude, placement_line, placements_json, read_last, replay_status, side_options,
    status_outcome, text_lines, ReplayRun, SeriesPhoto, REPLAY_FORMAT,
};
use crate::annotate::{annotate, CellMark};
use crate::cli::{GameArg, Output, PhotoOptions, WatchArgs};
use crate::frames::{self, webcam, Frame, FrameSource, SourceEvent, Webcam};
use crate::input::load_camouflage_set;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_camera, save_image};

/// Format tag of the first line `watch --headless` prints.
pub const WATCH_FORMAT: &str = "tablejudge/watch@1";

/// Something worth telling: a line of JSON for programs (`event` names its kind) and lines
/// of text for people.
struct Announcement {
    event: Value,
    text: Vec<String>,
}

/// A game judged from the settled scenes of a watch.
trait LiveJudge {
    /// Judges a scene that has just settled; what is new in it, to announce.
    fn judge(&mut self, frame: &Frame) -> Result<Vec<Announcement>>;
    /// `image` with the last judgement drawn over it (the scene has not moved since).
    fn draw(&self, image: &RgbImage) -> Option<RgbImage>;
    /// What to announce when the frames end, and the exit status of the whole watch.
    fn finish(self: Box<Self>) -> Result<(Vec<Announcement>, Outcome)>;
}

/// Layers+: the stack judged against one mission; a verdict is announced when it differs
/// from the last one announced.
struct LayersLive {
    judge: StackJudge,
    announced: Option<String>,
    last: Option<StackVerdict>,
}

impl LiveJudge for LayersLive {
    fn judge(&mut self, frame: &Frame) -> Result<Vec<Announcement>> {
        let verdict = self.judge.judge(&frame.image, &frame.name)?;
        let new = self.announced.as_deref() != Some(verdict.headline.as_str());
        let mut said = Vec::new();
        if new {
            self.announced = Some(verdict.headline.clone());
            said.push(Announcement {
                event: json!({
                    "event": "verdict",
                    "frame": frame.name,
                    "time_s": frame.time_s,
                    "status": exit_status(verdict.outcome),
                    "headline": verdict.headline,
                    "result": verdict.json,
                }),
                text: vec![format!("{}: {}", frame.name, verdict.headline)],
            });
        }
        self.last = Some(verdict);
        Ok(said)
    }

    fn draw(&self, image: &RgbImage) -> Option<RgbImage> {
        let verdict = self.last.as_ref()?;
        Some(
            self.judge
                .draw(image, verdict)
                .unwrap_or_else(|| annotate(image, &[], &verdict.headline, mark(verdict.outcome))),
        )
    }

    fn finish(self: Box<Self>) -> Result<(Vec<Announcement>, Outcome)> {
        Ok((
            Vec::new(),
            self.last.map_or(Outcome::Undecided, |v| v.outcome),
        ))
    }
}

/// Camouflage: the game replayed as it is played. Each settled scene is read (following the
/// board from the scenes before) and explained by the tracker; a card is announced once a
/// later scene agrees with it (until then a misreading could be taken back).
struct CamouflageLive<'s> {
    set: &'s CamouflageSet,
    rules: GameRules,
    camera: Option<Camera>,
    /// The side face up: given, or that of the first board read.
    side: Option<SideIdx>,
    tracker: Option<Tracker<'s>>,
    names: Vec<String>,
    readings: Vec<Result<CamouflageReading, String>>,
    /// Scenes judged before the side was known (no board in them).
    before_side: usize,
    /// The last scene judged: read again at the end as `camouflage replay` reads its last
    /// photo, which settles the scores.
    last_image: Option<RgbImage>,
    /// Cards announced (card, centre row, column): each once, wherever the tracker files it
    /// (a card found late goes under the cards laid over it).
    announced: HashSet<(String, i32, i32)>,
}

/// The first scenes are read on their own: one may have a hand over the table.
const WHOLE_AT_START: usize = 2;

impl<'s> CamouflageLive<'s> {
    fn new(
        set: &'s CamouflageSet,
        rules: GameRules,
        camera: Option<Camera>,
        side: Option<SideIdx>,
    ) -> CamouflageLive<'s> {
        CamouflageLive {
            set,
            rules,
            camera,
            side,
            tracker: None,
            names: Vec::new(),
            readings: Vec::new(),
            before_side: 0,
            last_image: None,
            announced: HashSet::new(),
        }
    }

    fn read(&self, image: &RgbImage) -> Result<CamouflageReading, String> {
        let options = side_options(self.set, self.side, self.camera.as_ref());
        let before: Vec<&CamouflageReading> = self
            .readings
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .collect();
        if before.len() >= WHOLE_AT_START {
            if let Ok(Some(followed)) = reread_camouflage(image, &options, &before) {
                return Ok(followed);
            }
        }
        read_camouflage(image, &options).map_err(|e| e.to_string())
    }

    /// The game as the scenes seen show it, once they have ended; `None` when no board was
    /// read. The last scene settles the scores, so it is read again as `camouflage replay`
    /// reads its last photo (on its own unless following finds more), and the game tracked
    /// again with it.
    fn final_run(&mut self) -> Option<ReplayRun> {
        let (Some(side), Some(image), Some(_)) = (self.side, self.last_image.take(), &self.tracker)
        else {
            return None;
        };
        let options = side_options(self.set, Some(side), self.camera.as_ref());
        let last = self.readings.len() - 1;
        let before: Vec<&CamouflageReading> = self.readings[..last]
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .collect();
        let reading = read_last(&image, &options, &before);
        self.readings[last] = reading;
        let mut tracker = self.new_tracker(side);
        for reading in &self.readings[self.before_side..] {
            track(&mut tracker, reading);
        }
        Some(self.run(tracker, side))
    }

    /// A tracker given the scenes before the side was known, as skipped.
    fn new_tracker(&self, side: SideIdx) -> Tracker<'s> {
        let mut tracker = Tracker::new(
            self.set,
            side,
            PlacementRules::game(self.rules.wild_centres),
        );
        for _ in 0..self.before_side {
            tracker.skip("no board read yet".into());
        }
        tracker
    }

    /// The replay so far, as `camouflage replay` would make it of the scenes seen.
    fn run(&self, tracker: Tracker<'s>, side: SideIdx) -> ReplayRun {
        conclude(
            self.set,
            side,
            &self.rules,
            tracker,
            self.names.clone(),
            self.readings.clone(),
        )
    }
}

impl LiveJudge for CamouflageLive<'_> {
    fn judge(&mut self, frame: &Frame) -> Result<Vec<Announcement>> {
        let reading = self.read(&frame.image);
        if self.side.is_none() {
            // The first board read settles the side for the rest of the game.
            self.side = reading
                .as_ref()
                .ok()
                .and_then(|r| r.side.as_deref())
                .and_then(|name| self.set.side_by_name(name));
        }
        self.names.push(frame.name.clone());
        self.last_image = Some(frame.image.clone());
        let Some(side) = self.side else {
            self.readings.push(reading);
            self.before_side += 1;
            return Ok(Vec::new());
        };
        let tracker = match self.tracker.as_mut() {
            Some(t) => t,
            None => self.tracker.insert(self.new_tracker(side)),
        };
        track(tracker, &reading);
        self.readings.push(reading);
        let confirmed = tracker.confirmed();
        if confirmed <= self.announced.len() {
            return Ok(Vec::new());
        }
        let snapshot = tracker.clone();
        let run = self.run(snapshot, side);
        let placements = placements_json(self.set, &run);
        let mut said = Vec::new();
        for p in placements.iter().take(confirmed) {
            if !self.announced.insert((p.card.clone(), p.row, p.col)) {
                continue;
            }
            said.push(Announcement {
                event: json!({
                    "event": "placement",
                    "frame": frame.name,
                    "time_s": frame.time_s,
                    "placement": p,
                }),
                text: vec![placement_line(p)],
            });
        }
        Ok(said)
    }

    fn draw(&self, image: &RgbImage) -> Option<RgbImage> {
        let reading = self.readings.last()?.as_ref().ok()?;
        let cards = self.tracker.as_ref().map_or(0, Tracker::confirmed);
        Some(annotated(
            image,
            reading,
            self.camera.as_ref(),
            &format!("{cards} cards on the table"),
            CellMark::Fine,
        ))
    }

    fn finish(mut self: Box<Self>) -> Result<(Vec<Announcement>, Outcome)> {
        let Some(run) = self.final_run() else {
            let reason = "no board was read in any settled scene: show the starting board, \
                          then keep still";
            return Ok((
                vec![Announcement {
                    event: json!({"event": "game", "status": "undecided", "reason": reason}),
                    text: vec![format!("undecided: {reason}")],
                }],
                Outcome::Undecided,
            ));
        };
        let placements = placements_json(self.set, &run);
        // The cards of the last scenes, which no scene after could confirm: final now.
        let mut said: Vec<Announcement> = placements
            .iter()
            .filter(|p| !self.announced.contains(&(p.card.clone(), p.row, p.col)))
            .map(|p| Announcement {
                event: json!({"event": "placement", "frame": self.names.last(), "placement": p}),
                text: vec![placement_line(p)],
            })
            .collect();
        let (status, reasons) = replay_status(&run, &placements);
        let text = text_lines("the game", &run, &placements, &reasons);
        let event = json!({
            "event": "game",
            "format": REPLAY_FORMAT,
            "status": status,
            "reason": (!reasons.is_empty()).then(|| reasons.join("; ")),
            "rules": self.rules,
            "placements": placements,
            "history": run.history.as_ref().ok(),
            "report": run.report.as_ref().ok(),
        });
        said.push(Announcement { event, text });
        Ok((said, status_outcome(status)))
    }
}

/// Replays a game's photos as `watch --game camouflage` does (each photo a settled scene, in
/// order, as a live game is seen), for `eval camouflage --live`. An unreadable photo is passed
/// over, as a watch passes over a frame it cannot decode.
pub fn replay_live(
    set: &CamouflageSet,
    side: Option<SideIdx>,
    rules: GameRules,
    photos: &[SeriesPhoto],
) -> Result<Option<ReplayRun>> {
    let mut live = CamouflageLive::new(set, rules, None, side);
    for (index, photo) in photos.iter().enumerate() {
        if let Ok(image) = &photo.image {
            live.judge(&Frame {
                image: image.clone(),
                name: photo.name.clone(),
                index: index as u64,
                time_s: None,
            })?;
        }
    }
    Ok(live.final_run())
}

/// Gives the tracker the next scene's reading, or why there is none.
fn track(tracker: &mut Tracker<'_>, reading: &Result<CamouflageReading, String>) {
    match reading {
        Ok(r) => {
            tracker.observe(r);
        }
        Err(e) => {
            tracker.skip(e.clone());
        }
    }
}

/// Prints announcements: JSON lines for programs, lines of text for people.
#[derive(Clone, Copy)]
struct Announcer {
    json: bool,
}

impl Announcer {
    fn say(&self, event: &Value, text: &[String]) -> Result<()> {
        use std::io::Write as _;
        // One lock for all the lines: the judging thread and the watching one both announce.
        let mut out = std::io::stdout().lock();
        if self.json {
            writeln!(out, "{}", serde_json::to_string(event)?)?;
        } else {
            for line in text {
                writeln!(out, "{line}")?;
            }
        }
        Ok(())
    }
}

pub fn watch(args: WatchArgs) -> Result<Outcome> {
    let camouflage_set = match args.game {
        GameArg::Camouflage => Some(load_camouflage_set(&args.set)?),
        GameArg::Layers => None,
    };
    let judge: Box<dyn LiveJudge + Send + '_> = match (&args.game, &camouflage_set) {
        (GameArg::Camouflage, Some(set)) => Box::new(camouflage_live(&args, set)?),
        _ => {
            let mission = args.mission.source().ok_or_else(|| {
                BadInput(
                    "watch --game layers needs the mission: --mission ID, --mission-photo \
                     CARD.jpg or --mission-in-photo"
                        .into(),
                )
            })?;
            let photo_options = PhotoOptions {
                annotate: None,
                camera_calibration: args.camera_calibration.clone(),
                colour_calibration: args.colour_calibration.clone(),
            };
            Box::new(LayersLive {
                judge: StackJudge::new(&args.set, &mission, &photo_options)?,
                announced: None,
                last: None,
            })
        }
    };
    if let Some(dir) = &args.annotate {
        // Fail before watching, not at the first verdict.
        std::fs::create_dir_all(dir).map_err(|e| {
            BadInput(format!(
                "{}: cannot create the folder ({e}): give a folder you may write",
                dir.display()
            ))
        })?;
    }
    let mut source: Box<dyn FrameSource> = match (&args.frames.camera, &args.frames.source) {
        (Some(index), _) => Box::new(Webcam::open(*index, args.camera_size)?),
        (None, Some(path)) => frames::open_path(path)?,
        (None, None) => {
            return Err(BadInput("give --camera N or --source PATH".into()).into());
        }
    };
    let mut window = if args.headless {
        None
    } else {
        Some(PreviewWindow::open("tablejudge watch").map_err(|e| {
            BadInput(format!(
                "cannot open the preview window ({e}): run with --headless where there is no \
                 display"
            ))
        })?)
    };
    let announcer = Announcer {
        json: args.headless,
    };
    let still_frames = source
        .is_stream()
        .then(|| ((args.settle * source.fps().unwrap_or(30.0)).ceil() as usize).max(1));
    announcer.say(
        &json!({
            "event": "started",
            "format": WATCH_FORMAT,
            "source": source.name(),
            "game": match args.game { GameArg::Layers => "layers", GameArg::Camouflage => "camouflage" },
            "stream": source.is_stream(),
            "fps": source.fps(),
            "still_frames": still_frames,
        }),
        &[format!(
            "watching {}{}",
            source.name(),
            if window.is_some() {
                " (q or Esc in the window quits)"
            } else {
                ""
            }
        )],
    )?;
    let mut watcher = Watcher {
        detector: still_frames.map(SettleDetector::new),
        still_frames: still_frames.unwrap_or(1),
        still_run: 0,
        judged_any: false,
        frames: 0,
        watch_time: Duration::ZERO,
    };
    let scenes = SceneJudge {
        judge: Mutex::new(judge),
        mailbox: Mutex::new(Mailbox::default()),
        posted: Condvar::new(),
        annotate: args.annotate.clone(),
        announcer,
        record: Mutex::new(JudgeRecord::default()),
    };
    // A camera goes on giving frames while a scene is judged: the judge has a thread of its
    // own, so that watching and the preview keep the camera's pace. A file waits, and every
    // scene in it is judged in turn.
    let live = source.is_live();
    std::thread::scope(|scope| -> Result<()> {
        let worker = live.then(|| scope.spawn(|| scenes.serve()));
        let watched = watch_frames(
            source.as_mut(),
            &scenes,
            &mut watcher,
            window.as_mut(),
            live,
        );
        scenes.close();
        if let Some(worker) = worker {
            worker
                .join()
                .map_err(|_| anyhow!("the thread judging the scenes stopped"))??;
        }
        watched
    })?;
    let mut record = scenes
        .record
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let judge = scenes
        .judge
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let (said, outcome) = judge.finish()?;
    for a in &said {
        announcer.say(&a.event, &a.text)?;
        record.announced += 1;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let judged = record.judge_times.len();
    let watch_ms = ms(watcher.watch_time) / watcher.frames.max(1) as f64;
    let judge_mean =
        (judged > 0).then(|| ms(record.judge_times.iter().sum::<Duration>()) / judged as f64);
    let mut sorted = record.judge_times.clone();
    sorted.sort();
    let judge_median = sorted.get(judged / 2).map(|&d| ms(d));
    announcer.say(
        &json!({
            "event": "ended",
            "frames": watcher.frames,
            "judged": judged,
            "announced": record.announced,
            "passed_over": record.passed_over,
            "watch_ms_per_frame": watch_ms,
            "judge_ms_mean": judge_mean,
            "judge_ms_median": judge_median,
            "judge_ms_max": record.judge_times.iter().max().map(|&d| ms(d)),
        }),
        &[format!(
            "{} frames, {judged} scenes judged, {} announced; watching {watch_ms:.1} ms a \
             frame{}",
            watcher.frames,
            record.announced,
            judge_mean
                .map(|ms| format!(", judging {ms:.1} ms a scene"))
                .unwrap_or_default()
        )],
    )?;
    Ok(outcome)
}

fn camouflage_live<'s>(args: &WatchArgs, set: &'s CamouflageSet) -> Result<CamouflageLive<'s>> {
    let mode = args.mode.ok_or_else(|| {
        BadInput(
            "watch --game camouflage needs the game played: --mode speed|diversify|cover".into(),
        )
    })?;
    let rules = GameRules {
        mode: mode.into(),
        wild_centres: args.wild_centers,
        timer: Default::default(),
    };
    if rules.mode == Mode::NotMyStack {
        return Err(BadInput(
            "watch follows one board; replay a game of Not My Stack! from its photos or video \
             with `tablejudge camouflage replay --mode not-my-stack`"
                .into(),
        )
        .into());
    }
    let side = args
        .side
        .as_deref()
        .map(|name| super::render::camouflage_side(set, &args.set, Some(name)))
        .transpose()?;
    let camera = args
        .camera_calibration
        .as_deref()
        .map(load_camera)
        .transpose()?;
    Ok(CamouflageLive::new(set, rules, camera, side))
}

/// Reads the frames until the source ends or the preview window is closed, handing each
/// settled scene to `scenes`: judged at once, or with `live` posted to the judging thread
/// (which a later scene replaces if it has not been taken yet).
fn watch_frames(
    source: &mut dyn FrameSource,
    scenes: &SceneJudge<'_>,
    watcher: &mut Watcher,
    mut window: Option<&mut PreviewWindow>,
    live: bool,
) -> Result<()> {
    let say = |event: Value, text: String| scenes.announcer.say(&event, &[text]);
    loop {
        match source.next_event()? {
            SourceEvent::End => return Ok(()),
            SourceEvent::Frame(frame) => {
                let settled = watcher.settled(&frame);
                watcher.judged_any |= settled;
                if settled && !live {
                    scenes.judge_scene(&frame)?;
                }
                if let Some(w) = window.as_deref_mut() {
                    let shown = scenes.preview(watcher, &frame.image);
                    if !w.show(&shown).map_err(|e| BadInput(e.to_string()))? {
                        return Ok(());
                    }
                }
                if live {
                    let open = if settled {
                        scenes.post(frame)
                    } else {
                        scenes.open()
                    };
                    // A judging thread that stopped has its error returned when it is joined.
                    if !open {
                        return Ok(());
                    }
                }
            }
            SourceEvent::Unreadable { name, why } => say(
                json!({"event": "unreadable", "frame": name, "why": why}),
                format!("{name}: skipped: {why}"),
            )?,
            SourceEvent::Lost { why } => say(
                json!({"event": "camera_lost", "why": why}),
                format!("the camera stopped ({why}); waiting for it to come back"),
            )?,
            SourceEvent::Reopened => say(
                json!({"event": "camera_reopened"}),
                "the camera is back".to_owned(),
            )?,
        }
    }
}

/// Judges the settled scenes of a watch, in the watching thread or in one of its own
/// ([`SceneJudge::serve`]), and announces what is new in each.
struct SceneJudge<'j> {
    judge: Mutex<Box<dyn LiveJudge + Send + 'j>>,
    mailbox: Mutex<Mailbox>,
    /// Signalled when a scene is posted or the mailbox closed.
    posted: Condvar,
    annotate: Option<PathBuf>,
    announcer: Announcer,
    record: Mutex<JudgeRecord>,
}

/// The scene waiting for the judging thread.
#[derive(Default)]
struct Mailbox {
    pending: Option<Frame>,
    /// No more scenes will come (the frames ended, or the judging failed).
    closed: bool,
    /// Settled scenes replaced by a later one before they were judged.
    passed_over: usize,
}

/// What the judging cost and said.
#[derive(Default)]
struct JudgeRecord {
    judge_times: Vec<Duration>,
    announced: usize,
    passed_over: usize,
}

/// A lock whose holder panicked: the panic is reported when the thread is joined.
fn lock<T>(mutex: &Mutex<T>) -> Result<MutexGuard<'_, T>> {
    mutex
        .lock()
        .map_err(|_| anyhow!("the thread judging the scenes stopped"))
}

impl SceneJudge<'_> {
    /// Judges one settled scene and announces what is new in it, drawing the frame for
    /// `--annotate` once for all of it.
    fn judge_scene(&self, frame: &Frame) -> Result<()> {
        let mut judge = lock(&self.judge)?;
        let started = Instant::now();
        let said = judge.judge(frame)?;
        let took = started.elapsed();
        let saved = match (&self.annotate, said.is_empty()) {
            (Some(dir), false) => judge
                .draw(&frame.image)
                .map(|img| save_annotated(dir, frame, &img))
                .transpose()?,
            _ => None,
        };
        drop(judge);
        let mut record = lock(&self.record)?;
        record.judge_times.push(took);
        for mut a in said {
            if let Some(path) = &saved {
                a.event["annotated"] = json!(path);
                a.text.push(format!("  annotated: {path}"));
            }
            self.announcer.say(&a.event, &a.text)?;
            record.announced += 1;
        }
        Ok(())
    }

    /// The judging thread: judges each scene posted until the mailbox is closed and empty.
    /// A failure closes it, so that the watching stops too.
    fn serve(&self) -> Result<()> {
        loop {
            let frame = {
                let mut mailbox = lock(&self.mailbox)?;
                loop {
                    if let Some(frame) = mailbox.pending.take() {
                        break frame;
                    }
                    if mailbox.closed {
                        let passed_over = mailbox.passed_over;
                        drop(mailbox);
                        lock(&self.record)?.passed_over = passed_over;
                        return Ok(());
                    }
                    mailbox = self
                        .posted
                        .wait(mailbox)
                        .map_err(|_| anyhow!("the watching thread stopped"))?;
                }
            };
            if let Err(e) = self.judge_scene(&frame) {
                self.close();
                return Err(e);
            }
        }
    }

    /// Posts a settled scene to the judging thread, in place of one it has not taken yet;
    /// false once the mailbox is closed.
    fn post(&self, frame: Frame) -> bool {
        let mut mailbox = self.mailbox.lock().unwrap_or_else(PoisonError::into_inner);
        if mailbox.closed {
            return false;
        }
        if mailbox.pending.replace(frame).is_some() {
            mailbox.passed_over += 1;
        }
        self.posted.notify_one();
        true
    }

    /// Whether scenes may still be posted.
    fn open(&self) -> bool {
        !self
            .mailbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closed
    }

    fn close(&self) {
        self.mailbox
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closed = true;
        self.posted.notify_all();
    }

    /// The preview of `image`: with the last judgement drawn over it, unless a scene is
    /// being judged right now.
    fn preview(&self, watcher: &Watcher, image: &RgbImage) -> RgbImage {
        match self.judge.try_lock() {
            Ok(judge) => watcher.preview(image, Some(&**judge)),
            Err(_) => watcher.preview(image, None),
        }
    }
}

/// The state of a watch between frames: when the scene settles, and what watching cost.
struct Watcher {
    /// For a stream: finds the moments the scene settles. `None` for photos, each a scene.
    detector: Option<SettleDetector>,
    still_frames: usize,
    /// Frames in a row without motion, up to `still_frames`.
    still_run: usize,
    judged_any: bool,
    frames: u64,
    watch_time: Duration,
}

impl Watcher {
    /// Watches one frame: whether its scene has just settled (a photo always has).
    fn settled(&mut self, frame: &Frame) -> bool {
        self.frames += 1;
        let started = Instant::now();
        let settled = match self.detector.as_mut() {
            None => true,
            Some(detector) => {
                let state = detector.push(&frame.image);
                self.still_run = match state {
                    FrameState::Moving => 0,
                    _ => (self.still_run + 1).min(self.still_frames),
                };
                state == FrameState::Settled
            }
        };
        self.watch_time += started.elapsed();
        settled
    }

    /// What the preview shows of `image`: the last judgement drawn over it while the scene
    /// is still, else the frame with what is awaited. `judge` is `None` while a scene is
    /// being judged.
    fn preview(&self, image: &RgbImage, judge: Option<&dyn LiveJudge>) -> RgbImage {
        let still = self.detector.is_none() || self.still_run >= self.still_frames;
        let Some(judge) = judge else {
            return annotate(image, &[], "JUDGING: reading the table", CellMark::Doubtful);
        };
        let drawn = if still { judge.draw(image) } else { None };
        drawn.unwrap_or_else(|| {
            let banner = if self.judged_any {
                "MOVING: waiting for the table to be still"
            } else {
                "WAITING: show the table, then keep still"
            };
            annotate(image, &[], banner, CellMark::Doubtful)
        })
    }
}

fn mark(outcome: Outcome) -> CellMark {
    match outcome {
        Outcome::Pass => CellMark::Fine,
        Outcome::Fail => CellMark::Mismatch,
        _ => CellMark::Doubtful,
    }
}

fn exit_status(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Pass => 0,
        Outcome::Fail => 1,
        Outcome::BadInput => 2,
        Outcome::Undecided => 3,
    }
}

/// Writes a frame with what was announced in it as `frame_NNNNNN.png`.
fn save_annotated(dir: &Path, frame: &Frame, image: &RgbImage) -> Result<String> {
    let path = dir.join(format!("frame_{:06}.png", frame.index));
    save_image(image, &path)?;
    Ok(path.display().to_string())
}

pub fn cameras(output: Output) -> Result<Outcome> {
    let cameras = webcam::list_cameras().map_err(|e| {
        BadInput(format!(
            "cannot list the cameras ({e}): check that you may read /dev/video* (the `video` \
             group)"
        ))
    })?;
    if output.json {
        print_json(&cameras)?;
    } else if cameras.is_empty() {
        outln!("no cameras found: plug one in, and check that you may read /dev/video*");
    } else {
        for c in &cameras {
            outln!("camera {}: {} ({})", c.index, c.name, c.description);
            match &c.formats_error {
                Some(why) => outln!("  formats unknown: {why}"),
                None => outln!("  {}", c.formats.join(", ")),
            }
        }
    }
    Ok(Outcome::Pass)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::sync::Arc;

    use super::*;

    /// Three still scenes of a camera, ten frames each: a dark card on a light table, moved
    /// between them. The frames of the second wait until the first is being judged
    /// (`judging`).
    struct Camera {
        next: u64,
        judging: Receiver<()>,
    }

    impl FrameSource for Camera {
        fn next_event(&mut self) -> Result<SourceEvent> {
            let index = self.next;
            self.next += 1;
            let scene = index / 10;
            if scene > 2 {
                return Ok(SourceEvent::End);
            }
            if index == 10 {
                self.judging.recv()?;
            }
            let card = 4 + 20 * scene as u32..20 + 20 * scene as u32;
            let image = RgbImage::from_fn(64, 48, |x, _| {
                image::Rgb([if card.contains(&x) { 30 } else { 220 }; 3])
            });
            Ok(SourceEvent::Frame(Frame {
                image,
                name: format!("frame {index}"),
                index,
                time_s: None,
            }))
        }

        fn name(&self) -> &str {
            "camera"
        }

        fn is_stream(&self) -> bool {
            true
        }

        fn is_live(&self) -> bool {
            true
        }
    }

    /// A judge that says when it starts on a scene and finishes only when let through.
    struct SlowJudge {
        judging: Sender<()>,
        let_through: Receiver<()>,
        judged: Arc<Mutex<Vec<u64>>>,
    }

    impl LiveJudge for SlowJudge {
        fn judge(&mut self, frame: &Frame) -> Result<Vec<Announcement>> {
            // The camera stops asking once it has what it waited for.
            let _ = self.judging.send(());
            self.let_through.recv()?;
            self.judged.lock().unwrap().push(frame.index);
            Ok(Vec::new())
        }

        fn draw(&self, _: &RgbImage) -> Option<RgbImage> {
            None
        }

        fn finish(self: Box<Self>) -> Result<(Vec<Announcement>, Outcome)> {
            Ok((Vec::new(), Outcome::Pass))
        }
    }

    /// A camera's frames are watched while a scene is judged; a scene that settles while
    /// another waits to be judged takes its place, and the last one is judged at the end.
    #[test]
    fn a_slow_judgement_does_not_hold_up_a_cameras_frames() {
        let (judging_tx, judging) = channel();
        let (let_through, let_through_rx) = channel();
        let judged = Arc::new(Mutex::new(Vec::new()));
        let scenes = SceneJudge {
            judge: Mutex::new(Box::new(SlowJudge {
                judging: judging_tx,
                let_through: let_through_rx,
                judged: Arc::clone(&judged),
            })),
            mailbox: Mutex::new(Mailbox::default()),
            posted: Condvar::new(),
            annotate: None,
            announcer: Announcer { json: true },
            record: Mutex::new(JudgeRecord::default()),
        };
        let mut camera = Camera { next: 0, judging };
        let mut watcher = Watcher {
            detector: Some(SettleDetector::new(3)),
            still_frames: 3,
            still_run: 0,
            judged_any: false,
            frames: 0,
            watch_time: Duration::ZERO,
        };
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| scenes.serve());
            watch_frames(&mut camera, &scenes, &mut watcher, None, true).unwrap();
            // Every frame watched while the first scene is still being judged.
            assert_eq!(watcher.frames, 30);
            assert!(judged.lock().unwrap().is_empty());
            scenes.close();
            for _ in 0..2 {
                let_through.send(()).unwrap();
            }
            worker.join().unwrap().unwrap();
        });
        // Each scene settles on its fourth frame; the second gave way to the third.
        assert_eq!(*judged.lock().unwrap(), [3, 23]);
        let record = scenes.record.into_inner().unwrap();
        assert_eq!(record.judge_times.len(), 2);
        assert_eq!(record.passed_over, 1);
    }
}
