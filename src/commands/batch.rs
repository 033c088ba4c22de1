//! `tablejudge batch`: every photo of a folder judged in parallel, each result appended to
//! `results.jsonl` as it finishes (so an interrupted batch loses nothing and `--resume`
//! carries on), then `report.html` over all of them.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::judge::StackJudge;
use super::print_json;
use super::report::write_report;
use crate::cli::{BatchArgs, GameArg, PhotoOptions};
use crate::frames::is_photo;
use crate::outcome::{BadInput, Outcome};
use crate::photo::decode_photo;

/// The file of results, one JSON object a line, in the order photos finished.
pub const RESULTS_FILE: &str = "results.jsonl";
pub const REPORT_FILE: &str = "report.html";
/// What the batch judges against ([`check_same_batch`]).
const BATCH_FILE: &str = "batch.json";
const BATCH_FORMAT: &str = "tablejudge/batch@1";
/// Annotated photos and their thumbnails, mirroring the folder's layout.
const ANNOTATED_DIR: &str = "annotated";
const THUMBS_DIR: &str = "thumbs";
const THUMB_WIDTH: u32 = 320;

/// One photo's line of `results.jsonl`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PhotoResult {
    /// The photo's path relative to the batch folder, with `/` between folders.
    pub photo: String,
    /// 0 match, 1 mismatch, 3 undecided (formats.md §5); 2 the photo could not be read.
    pub status: u8,
    /// "match", "mismatch", "undecided", or "unreadable".
    pub verdict: String,
    /// The verdict in one line, or why the photo could not be read.
    pub headline: String,
    /// Decoding, judging and drawing this photo, milliseconds.
    pub ms: f64,
    /// The annotated photo and its thumbnail, relative to the output folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotated: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<String>,
    /// What `layers verify --json` prints for the photo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// What a batch found, over every photo (those of earlier, resumed runs too).
#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub photos: usize,
    pub matched: usize,
    pub mismatched: usize,
    pub undecided: usize,
    pub unreadable: usize,
    /// Photos judged by this run (the others came from `results.jsonl`).
    pub judged_now: usize,
    /// This run's photos a second, wall clock.
    pub photos_per_second: Option<f64>,
    pub threads: usize,
    /// Entries of the folder that could not be walked (a symlink loop, no permission).
    pub not_walked: Vec<String>,
    pub results: String,
    pub report: String,
}

impl Summary {
    fn count(results: &[PhotoResult]) -> Summary {
        let n = |s: u8| results.iter().filter(|r| r.status == s).count();
        Summary {
            photos: results.len(),
            matched: n(0),
            mismatched: n(1),
            unreadable: n(2),
            undecided: n(3),
            ..Summary::default()
        }
    }

    /// A mismatch first (what an organiser must act on), then an unreadable photo, then an
    /// undecided one; 0 when every photo matched.
    fn outcome(&self) -> Outcome {
        if self.mismatched > 0 {
            Outcome::Fail
        } else if self.unreadable > 0 {
            Outcome::BadInput
        } else if self.undecided > 0 || self.photos == 0 {
            Outcome::Undecided
        } else {
            Outcome::Pass
        }
    }
}

pub fn batch(args: BatchArgs) -> Result<Outcome> {
    if args.game != GameArg::Layers {
        return Err(BadInput(
            "batch judges Layers+ photos; replay a Camouflage game from its folder of photos \
             with `tablejudge camouflage replay`"
                .into(),
        )
        .into());
    }
    if !args.dir.is_dir() {
        return Err(BadInput(format!(
            "{}: not a folder: give the folder of photos to judge",
            args.dir.display()
        ))
        .into());
    }
    let photo_options = PhotoOptions {
        annotate: None,
        camera_calibration: args.camera_calibration.clone(),
        colour_calibration: args.colour_calibration.clone(),
    };
    // Set up once first: a bad set, mission or calibration is reported before any work.
    let first = StackJudge::new(&args.set, &args.mission, &photo_options)?;
    let setup = batch_setup(&args);
    if args.resume {
        check_same_batch(&args.out, &setup)?;
    }
    let (done, mut results_file) = open_results(&args.out, args.resume)?;
    save_batch_setup(&args.out, &setup)?;
    let (photos, not_walked) = photos_under(&args.dir, &args.out);
    for why in &not_walked {
        eprintln!("tablejudge: skipped: {why}");
    }
    let done_names: HashSet<&str> = done.iter().map(|d| d.photo.as_str()).collect();
    let todo: Vec<&(PathBuf, String)> = photos
        .iter()
        .filter(|(_, name)| !done_names.contains(name.as_str()))
        .collect();

    let threads = args
        .jobs
        .map_or_else(rayon::current_num_threads, usize::from);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BadInput(format!("cannot start {threads} threads: {e}")))?;
    // The photos run in parallel; OpenCV's own threads would only fight them for the cores.
    tablejudge_vision::mat::set_opencv_threads(1)?;
    let judges = Mutex::new(vec![first]);
    let written = Mutex::new(Vec::new());
    let bar = ProgressBar::new(todo.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} photos  {per_sec}  eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if args.output.json {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let started = Instant::now();
    let outcome: Result<()> = pool.install(|| {
        todo.par_iter().try_for_each(|(path, name)| -> Result<()> {
            let taken = judges.lock().map_err(poisoned)?.pop();
            let mut judge = match taken {
                Some(j) => j,
                None => StackJudge::new(&args.set, &args.mission, &photo_options)?,
            };
            let result = judge_photo(&mut judge, path, name, &args.out);
            judges.lock().map_err(poisoned)?.push(judge);
            let mut result = result?;
            // Appended and flushed at once: a batch stopped now keeps this photo.
            let mut line = serde_json::to_string(&result)?;
            line.push('\n');
            results_file
                .lock()
                .map_err(poisoned)?
                .write_all(line.as_bytes())
                .map_err(|e| cannot_write(&args.out.join(RESULTS_FILE), e))?;
            // The report needs the verdict, not the whole reading: kept, a thousand photos'
            // readings would hold tens of megabytes.
            result.result = None;
            written.lock().map_err(poisoned)?.push(result);
            bar.inc(1);
            Ok(())
        })
    });
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    results_file
        .get_mut()
        .map_err(poisoned)?
        .flush()
        .map_err(|e| cannot_write(&args.out.join(RESULTS_FILE), e))?;
    outcome?;

    let new = written.into_inner().map_err(poisoned)?;
    let judged_now = new.len();
    let mut all = done;
    all.extend(new);
    // The report lists photos by name, whatever order they finished in.
    all.sort_by(|a, b| a.photo.cmp(&b.photo));
    let report = args.out.join(REPORT_FILE);
    let mut summary = Summary::count(&all);
    summary.judged_now = judged_now;
    summary.photos_per_second =
        (judged_now > 0 && elapsed > 0.0).then(|| judged_now as f64 / elapsed);
    summary.threads = threads;
    summary.not_walked = not_walked;
    summary.results = args.out.join(RESULTS_FILE).display().to_string();
    summary.report = report.display().to_string();
    write_report(&report, &args.dir, &all, &summary).map_err(|e| cannot_write(&report, e))?;
    if args.output.json {
        print_json(&summary)?;
    } else {
        outln!(
            "{} photos: {} match, {} mismatch, {} undecided, {} unreadable",
            summary.photos,
            summary.matched,
            summary.mismatched,
            summary.undecided,
            summary.unreadable
        );
        if let Some(rate) = summary.photos_per_second {
            outln!(
                "judged {} now, {rate:.1} photos/s on {threads} thread{}",
                summary.judged_now,
                if threads == 1 { "" } else { "s" }
            );
        }
        outln!("results: {}", summary.results);
        outln!("report: {}", summary.report);
    }
    Ok(summary.outcome())
}

/// Judges one photo and writes its annotated image and thumbnail; an unreadable photo is a
/// result too. An `Err` stops the batch (a folder that cannot be written).
fn judge_photo(judge: &mut StackJudge, path: &Path, name: &str, out: &Path) -> Result<PhotoResult> {
    let started = Instant::now();
    let image = match decode_photo(path) {
        Ok(image) => image,
        Err(why) => {
            return Ok(PhotoResult {
                photo: name.to_owned(),
                status: 2,
                verdict: "unreadable".into(),
                headline: why,
                ms: started.elapsed().as_secs_f64() * 1000.0,
                annotated: None,
                thumbnail: None,
                result: None,
            });
        }
    };
    let verdict = judge.judge(&image, name)?;
    let (annotated, thumbnail) = match judge.draw(&image, &verdict) {
        Some(drawn) => {
            let annotated = format!("{ANNOTATED_DIR}/{name}.jpg");
            let thumbnail = format!("{THUMBS_DIR}/{name}.jpg");
            write_jpeg(&drawn, &out.join(&annotated), 85)?;
            let h = (drawn.height() * THUMB_WIDTH / drawn.width().max(1)).max(1);
            write_jpeg(
                &image::imageops::thumbnail(&drawn, THUMB_WIDTH, h),
                &out.join(&thumbnail),
                80,
            )?;
            (Some(annotated), Some(thumbnail))
        }
        None => (None, None),
    };
    let status = match verdict.outcome {
        Outcome::Pass => 0,
        Outcome::Fail => 1,
        Outcome::BadInput => 2,
        Outcome::Undecided => 3,
    };
    Ok(PhotoResult {
        photo: name.to_owned(),
        status,
        verdict: verdict.json["verdict"]
            .as_str()
            .unwrap_or("undecided")
            .to_owned(),
        headline: verdict.headline,
        ms: started.elapsed().as_secs_f64() * 1000.0,
        annotated,
        thumbnail,
        result: Some(verdict.json),
    })
}

fn write_jpeg(img: &image::RgbImage, path: &Path, quality: i32) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| cannot_write(dir, e))?;
    }
    let bytes = tablejudge_vision::mat::encode_jpeg(img, quality)?;
    std::fs::write(path, bytes).map_err(|e| cannot_write(path, e).into())
}

/// What a batch judges against, kept in `OUT/batch.json`: a resumed batch must judge the rest
/// of its photos the same way, or its results would mix two verdicts.
fn batch_setup(args: &BatchArgs) -> serde_json::Value {
    let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
    serde_json::json!({
        "format": BATCH_FORMAT,
        "dir": args.dir.display().to_string(),
        "set": args.set.display().to_string(),
        "mission": args.mission.mission,
        "mission_photo": path(&args.mission.mission_photo),
        "mission_in_photo": args.mission.mission_in_photo,
        "camera_calibration": path(&args.camera_calibration),
        "colour_calibration": path(&args.colour_calibration),
    })
}

/// Refuses to resume a batch that judged against something else.
fn check_same_batch(out: &Path, setup: &serde_json::Value) -> Result<()> {
    let path = out.join(BATCH_FILE);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let before: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    if &before != setup {
        return Err(BadInput(format!(
            "{}: the batch there judged {before}; resume it with the same folder, set, mission \
             and calibrations, or give another --out",
            path.display()
        ))
        .into());
    }
    Ok(())
}

fn save_batch_setup(out: &Path, setup: &serde_json::Value) -> Result<()> {
    let path = out.join(BATCH_FILE);
    let mut text = serde_json::to_string_pretty(setup)?;
    text.push('\n');
    std::fs::write(&path, text).map_err(|e| cannot_write(&path, e).into())
}

/// Opens `out/results.jsonl` for appending, creating `out`. Without `resume` an existing
/// file is refused (its results are not to be lost); with it, its whole lines are the photos
/// done, and a line cut short by an interruption is dropped.
fn open_results(out: &Path, resume: bool) -> Result<(Vec<PhotoResult>, Mutex<File>)> {
    std::fs::create_dir_all(out).map_err(|e| cannot_write(out, e))?;
    let path = out.join(RESULTS_FILE);
    let mut done = Vec::new();
    let mut whole_lines = Vec::new();
    if path.exists() {
        if !resume {
            return Err(BadInput(format!(
                "{}: a batch's results are already there: pass --resume to carry on with it, \
                 or give another --out",
                path.display()
            ))
            .into());
        }
        let file = File::open(&path).map_err(|e| cannot_write(&path, e))?;
        for line in BufReader::new(file).lines() {
            let line = line.map_err(|e| cannot_write(&path, e))?;
            match serde_json::from_str::<PhotoResult>(&line) {
                Ok(r) => {
                    // Only the verdict is kept for the report (see `batch`).
                    done.push(PhotoResult { result: None, ..r });
                    whole_lines.push(line);
                }
                // Only the last line can be cut short; whatever follows it is not trusted.
                Err(_) => break,
            }
        }
    }
    // Rewritten with the whole lines only, so that new lines follow a complete one.
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&path)
        .map_err(|e| cannot_write(&path, e))?;
    for line in &whole_lines {
        writeln!(file, "{line}").map_err(|e| cannot_write(&path, e))?;
    }
    Ok((done, Mutex::new(file)))
}

/// The photos under `dir` (in subfolders too, following links), sorted by path, each with its
/// name relative to `dir`; `out` is left out (a batch's own annotated photos). Entries that
/// cannot be walked (a symlink loop, a folder without permission) are returned as messages.
fn photos_under(dir: &Path, out: &Path) -> (Vec<(PathBuf, String)>, Vec<String>) {
    let out = out.canonicalize().ok();
    let mut photos = Vec::new();
    let mut not_walked = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            out.as_ref()
                .is_none_or(|o| e.path().canonicalize().ok().as_ref() != Some(o))
        });
    for entry in walk {
        match entry {
            Ok(e) if e.file_type().is_file() && is_photo(e.path()) => {
                let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
                let name = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                photos.push((e.path().to_path_buf(), name));
            }
            Ok(_) => {}
            Err(e) => not_walked.push(not_walked_because(&e)),
        }
    }
    (photos, not_walked)
}

/// Why an entry of the folder was not walked, and what would let it be.
fn not_walked_because(e: &walkdir::Error) -> String {
    let path = e
        .path()
        .map_or_else(String::new, |p| format!("{}: ", p.display()));
    if e.loop_ancestor().is_some() {
        return format!(
            "{path}a link back to a folder above it (a loop); its photos are read once, where \
             the folder is"
        );
    }
    match e.io_error().map(std::io::Error::kind) {
        Some(std::io::ErrorKind::NotFound) => {
            format!("{path}a link to nothing; restore what it pointed to, or remove it")
        }
        Some(std::io::ErrorKind::PermissionDenied) => {
            format!("{path}not permitted to read it; give read permission to include it")
        }
        _ => format!("{path}cannot be read ({e})"),
    }
}

fn cannot_write(path: &Path, e: std::io::Error) -> BadInput {
    BadInput(format!(
        "{}: cannot write ({e}): give an --out folder you may write",
        path.display()
    ))
}

fn poisoned<T>(_: std::sync::PoisonError<T>) -> anyhow::Error {
    anyhow::anyhow!("a batch thread panicked")
}
