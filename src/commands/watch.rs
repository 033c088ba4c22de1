//! `tablejudge watch`: judge the table live from a frame source, announcing each new verdict
//! once; and `tablejudge cameras`, the webcams there are to watch with.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use image::RgbImage;
use serde::Serialize;
use serde_json::Value;
use tablejudge_vision::preview::PreviewWindow;
use tablejudge_vision::video::{FrameState, SettleDetector};

use super::judge::{StackJudge, StackVerdict};
use super::print_json;
use crate::annotate::{annotate, CellMark};
use crate::cli::{GameArg, Output, PhotoOptions, WatchArgs};
use crate::frames::{self, webcam, Frame, FrameSource, SourceEvent, Webcam};
use crate::outcome::{BadInput, Outcome};
use crate::photo::save_image;

/// Format tag of the first line `watch --headless` prints.
pub const WATCH_FORMAT: &str = "tablejudge/watch@1";

/// What `watch` tells, as it happens; `--headless` prints each as a line of JSON.
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Event<'a> {
    Started {
        format: &'static str,
        source: &'a str,
        /// Whether frames come as a stream (judged once still) or as photos (each judged).
        stream: bool,
        fps: Option<f64>,
        /// Frames in a row without motion before a scene is judged.
        still_frames: Option<usize>,
    },
    /// A verdict unlike the last one announced.
    Verdict {
        frame: &'a str,
        time_s: Option<f64>,
        /// 0 match, 1 mismatch, 3 undecided (formats.md §5).
        status: u8,
        headline: &'a str,
        /// What `layers verify --json` prints for this frame.
        result: &'a Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        annotated: Option<String>,
    },
    Unreadable {
        frame: &'a str,
        why: &'a str,
    },
    CameraLost {
        why: &'a str,
    },
    CameraReopened,
    Ended {
        frames: u64,
        /// Scenes judged (settled scenes of a stream, or photos).
        judged: usize,
        verdicts: usize,
        /// Watching each frame for motion, milliseconds on average.
        watch_ms_per_frame: f64,
        /// Judging a settled scene, milliseconds: mean and slowest.
        judge_ms_mean: Option<f64>,
        judge_ms_max: Option<f64>,
    },
}

/// Prints events: JSON lines for programs, or a line of text for people.
struct Announcer {
    json: bool,
}

impl Announcer {
    fn say(&self, event: &Event<'_>) -> Result<()> {
        if self.json {
            outln!("{}", serde_json::to_string(event)?);
            return Ok(());
        }
        match event {
            Event::Started { source, .. } => {
                outln!("watching {source} (q or Esc in the window quits)")
            }
            Event::Verdict {
                frame,
                headline,
                annotated,
                ..
            } => {
                outln!("{frame}: {headline}");
                if let Some(path) = annotated {
                    outln!("  annotated: {path}");
                }
            }
            Event::Unreadable { frame, why } => outln!("{frame}: skipped: {why}"),
            Event::CameraLost { why } => {
                outln!("the camera stopped ({why}); waiting for it to come back")
            }
            Event::CameraReopened => outln!("the camera is back"),
            Event::Ended {
                frames,
                judged,
                verdicts,
                watch_ms_per_frame,
                judge_ms_mean,
                ..
            } => outln!(
                "{frames} frames, {judged} scenes judged, {verdicts} verdicts announced; \
                 watching {watch_ms_per_frame:.1} ms a frame{}",
                judge_ms_mean
                    .map(|ms| format!(", judging {ms:.1} ms a scene"))
                    .unwrap_or_default()
            ),
        }
        Ok(())
    }
}

pub fn watch(args: WatchArgs) -> Result<Outcome> {
    match args.game {
        GameArg::Layers => {}
    }
    let photo_options = PhotoOptions {
        annotate: None,
        camera_calibration: args.camera_calibration.clone(),
    };
    let mut judge = StackJudge::new(&args.set, &args.mission, &photo_options)?;
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
    announcer.say(&Event::Started {
        format: WATCH_FORMAT,
        source: source.name(),
        stream: source.is_stream(),
        fps: source.fps(),
        still_frames,
    })?;
    let mut watcher = Watcher {
        detector: still_frames.map(SettleDetector::new),
        still_frames: still_frames.unwrap_or(1),
        still_run: 0,
        announced: None,
        last: None,
        frames: 0,
        watch_time: Duration::ZERO,
        judge_times: Vec::new(),
        verdicts: 0,
    };
    loop {
        match source.next_event()? {
            SourceEvent::End => break,
            SourceEvent::Frame(frame) => {
                let judged = watcher.see(&frame, &mut judge)?;
                if let Some(verdict) = judged {
                    let annotated = match &args.annotate {
                        Some(dir) => save_verdict(dir, &frame, &judge, verdict)?,
                        None => None,
                    };
                    announcer.say(&Event::Verdict {
                        frame: &frame.name,
                        time_s: frame.time_s,
                        status: exit_status(verdict.outcome),
                        headline: &verdict.headline,
                        result: &verdict.json,
                        annotated,
                    })?;
                }
                if let Some(w) = window.as_mut() {
                    let shown = watcher.preview(&frame.image, &judge);
                    if !w.show(&shown).map_err(|e| BadInput(e.to_string()))? {
                        break;
                    }
                }
            }
            SourceEvent::Unreadable { name, why } => announcer.say(&Event::Unreadable {
                frame: &name,
                why: &why,
            })?,
            SourceEvent::Lost { why } => announcer.say(&Event::CameraLost { why: &why })?,
            SourceEvent::Reopened => announcer.say(&Event::CameraReopened)?,
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    announcer.say(&Event::Ended {
        frames: watcher.frames,
        judged: watcher.judge_times.len(),
        verdicts: watcher.verdicts,
        watch_ms_per_frame: ms(watcher.watch_time) / watcher.frames.max(1) as f64,
        judge_ms_mean: (!watcher.judge_times.is_empty()).then(|| {
            ms(watcher.judge_times.iter().sum::<Duration>()) / watcher.judge_times.len() as f64
        }),
        judge_ms_max: watcher.judge_times.iter().max().map(|&d| ms(d)),
    })?;
    Ok(watcher.last.map_or(Outcome::Undecided, |v| v.outcome))
}

/// The state of a watch between frames.
struct Watcher {
    /// For a stream: finds the moments the scene settles. `None` for photos, each a scene.
    detector: Option<SettleDetector>,
    still_frames: usize,
    /// Frames in a row without motion, up to `still_frames`.
    still_run: usize,
    /// The headline of the last verdict announced.
    announced: Option<String>,
    /// The last verdict reached.
    last: Option<StackVerdict>,
    frames: u64,
    watch_time: Duration,
    judge_times: Vec<Duration>,
    verdicts: usize,
}

impl Watcher {
    /// Watches one frame; judges it when its scene has just settled (or it is a photo) and
    /// returns the verdict when it is unlike the last one announced.
    fn see(&mut self, frame: &Frame, judge: &mut StackJudge) -> Result<Option<&StackVerdict>> {
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
        if !settled {
            return Ok(None);
        }
        let started = Instant::now();
        let verdict = judge.judge(&frame.image, &frame.name)?;
        self.judge_times.push(started.elapsed());
        let new = self.announced.as_deref() != Some(verdict.headline.as_str());
        if new {
            self.announced = Some(verdict.headline.clone());
            self.verdicts += 1;
        }
        self.last = Some(verdict);
        Ok(if new { self.last.as_ref() } else { None })
    }

    /// What the preview shows of `image`: the last verdict drawn over it while the scene is
    /// still (the grid where it was judged), else the frame with what is awaited.
    fn preview(&self, image: &RgbImage, judge: &StackJudge) -> RgbImage {
        let still = self.detector.is_none() || self.still_run >= self.still_frames;
        match &self.last {
            Some(verdict) if still => judge
                .draw(image, verdict)
                .unwrap_or_else(|| annotate(image, &[], &verdict.headline, mark(verdict))),
            Some(_) => annotate(
                image,
                &[],
                "MOVING: waiting for the table to be still",
                CellMark::Doubtful,
            ),
            None => annotate(
                image,
                &[],
                "WAITING: show the stack, then keep still",
                CellMark::Doubtful,
            ),
        }
    }
}

fn mark(verdict: &StackVerdict) -> CellMark {
    match verdict.outcome {
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

/// Writes the annotated frame of a verdict as `verdict_NNNNNN.png` (the frame's number).
fn save_verdict(
    dir: &Path,
    frame: &Frame,
    judge: &StackJudge,
    verdict: &StackVerdict,
) -> Result<Option<String>> {
    let Some(annotated) = judge.draw(&frame.image, verdict) else {
        return Ok(None);
    };
    let path = dir.join(format!("verdict_{:06}.png", frame.index));
    save_image(&annotated, &path)?;
    Ok(Some(path.display().to_string()))
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
