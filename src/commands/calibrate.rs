//! `tablejudge calibrate camera` and `calibrate colour`: a lens calibration from chessboard
//! photos (`tablejudge/camera@1`, for `--camera-calibration`) and a colour correction from a
//! chart in a photo (`tablejudge/colour@1`, for `--colour-calibration`).

use std::path::{Path, PathBuf};

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use tablejudge_rules::{Palette, Srgb, Turn};
use tablejudge_vision::calibrate::{calibrate_lens, find_chessboard, Chessboard, MIN_VIEWS};
use tablejudge_vision::colour_chart::{fit_chart, ChartFit};
use tablejudge_vision::judge_mat::{find_mat, patch_colours, FoundMat, PATCHES};
use tablejudge_vision::{read_grid, ReadError, ReadOptions};

use super::print_json;
use crate::cli::Output;
use crate::frames::{is_photo, photos_in, PhotoOrder};
use crate::input::load_palette;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_photo, CameraFile, ColourFile, CAMERA_FORMAT, COLOUR_FORMAT};

/// A calibration is reported as poor above this RMS reprojection error: a corner misfound, a
/// photo blurred or the board bent.
const POOR_RMS_PX: f64 = 1.0;

/// A photo searched for the board: its size, and the inner corners when the whole board shows.
type Searched = ((u32, u32), Option<Vec<[f32; 2]>>);

pub struct CalibrateCamera<'a> {
    pub board: (u32, u32),
    pub photos: &'a [PathBuf],
    pub out: &'a Path,
    pub output: Output,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    camera: &'a CameraFile,
    saved: String,
    /// Each photo used and its own RMS reprojection error, pixels.
    photos_used: Vec<PhotoRms>,
    /// Photos where the whole board was not found, and why.
    photos_not_used: Vec<NotUsed>,
}

#[derive(Serialize)]
struct PhotoRms {
    photo: String,
    rms: f64,
}

#[derive(Serialize)]
struct NotUsed {
    photo: String,
    why: String,
}

pub fn camera(args: CalibrateCamera<'_>) -> Result<Outcome> {
    let board = Chessboard {
        cols: args.board.0,
        rows: args.board.1,
    };
    let photos = expand(args.photos)?;
    // Fail before the work, not after it.
    create_parent(args.out)?;
    let found: Vec<(PathBuf, Result<Searched>)> = photos
        .into_par_iter()
        .map(|p| {
            let corners = load_photo(&p).and_then(|img| {
                let size = img.dimensions();
                Ok((size, find_chessboard(&img, board)?))
            });
            (p, corners)
        })
        .collect();
    let mut size = None;
    let mut used = Vec::new();
    let mut views = Vec::new();
    let mut not_used = Vec::new();
    for (path, result) in found {
        let (photo_size, corners) = result?;
        match size {
            None => size = Some((photo_size, path.clone())),
            Some((s, ref first)) if s != photo_size => {
                return Err(BadInput(format!(
                    "{}: {}x{} pixels, but {} is {}x{}: calibrate with photos of one camera at one size",
                    path.display(),
                    photo_size.0,
                    photo_size.1,
                    first.display(),
                    s.0,
                    s.1
                ))
                .into());
            }
            Some(_) => {}
        }
        match corners {
            Some(c) => {
                used.push(path);
                views.push(c);
            }
            None => not_used.push(NotUsed {
                photo: path.display().to_string(),
                why: format!(
                    "no whole {}x{} chessboard found (every inner corner in view, sharp, no glare)",
                    board.cols, board.rows
                ),
            }),
        }
    }
    let Some((size, _)) = size else {
        return Err(BadInput("no photos given".into()).into());
    };
    for n in &not_used {
        eprintln!("tablejudge: {}: not used: {}", n.photo, n.why);
    }
    if views.len() < MIN_VIEWS {
        let message = format!(
            "undecided: the whole {}x{} board was found in {} photo{}; a calibration needs at \
             least {MIN_VIEWS} (10 or more from different angles is better): retake with every \
             inner corner in view, the board flat, sharp and without glare, and check --board \
             counts inner corners (a board of 10x7 squares has 9x6)",
            board.cols,
            board.rows,
            views.len(),
            if views.len() == 1 { "" } else { "s" }
        );
        if args.output.json {
            print_json(&serde_json::json!({
                "verdict": "undecided",
                "reason": message,
                "photos_not_used": not_used,
            }))?;
        } else {
            outln!("{message}");
        }
        return Ok(Outcome::Undecided);
    }
    let calibration = calibrate_lens(&views, board, size)
        .map_err(|e| BadInput(format!("the calibration failed: {e}")))?;
    let c = &calibration.camera;
    let file = CameraFile {
        format: CAMERA_FORMAT.to_owned(),
        fx: c.fx,
        fy: c.fy,
        cx: c.cx,
        cy: c.cy,
        distortion: c.dist,
        rms: Some(calibration.rms),
    };
    save_json(&file, args.out)?;
    let photos_used: Vec<PhotoRms> = used
        .iter()
        .zip(&calibration.per_view_rms)
        .map(|(p, &rms)| PhotoRms {
            photo: p.display().to_string(),
            rms,
        })
        .collect();
    let poor = calibration.rms > POOR_RMS_PX;
    if args.output.json {
        print_json(&Report {
            camera: &file,
            saved: args.out.display().to_string(),
            photos_used,
            photos_not_used: not_used,
        })?;
    } else {
        outln!(
            "calibrated from {} of {} photos ({}x{} pixels)",
            photos_used.len(),
            photos_used.len() + not_used.len(),
            size.0,
            size.1
        );
        outln!("  focal length fx {:.2} px, fy {:.2} px", c.fx, c.fy);
        outln!("  principal point ({:.2}, {:.2}) px", c.cx, c.cy);
        outln!(
            "  distortion k1 {:.5}, k2 {:.5}, p1 {:.5}, p2 {:.5}, k3 {:.5}",
            c.dist[0],
            c.dist[1],
            c.dist[2],
            c.dist[3],
            c.dist[4]
        );
        outln!("  RMS reprojection error {:.3} px", calibration.rms);
        if let Some(worst) = photos_used.iter().max_by(|a, b| a.rms.total_cmp(&b.rms)) {
            outln!("  worst photo {} ({:.3} px)", worst.photo, worst.rms);
        }
        outln!(
            "saved: {} (use it with --camera-calibration)",
            args.out.display()
        );
    }
    if poor {
        eprintln!(
            "tablejudge: the calibration is poor (RMS {:.2} px, over {POOR_RMS_PX} px): retake \
             the worst photos sharper, with the board flat",
            calibration.rms
        );
    }
    Ok(Outcome::Pass)
}

/// The photos named: files as they are, folders by their photos in name order.
fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut photos = Vec::new();
    for p in paths {
        if p.is_dir() {
            photos.extend(photos_in(p, PhotoOrder::Name)?);
        } else if is_photo(p) || !p.exists() {
            // A missing file is named by load_photo, with the fix.
            photos.push(p.clone());
        } else {
            return Err(BadInput(format!(
                "{}: not a photo (.jpg, .jpeg, .png): give chessboard photos or a folder of them",
                p.display()
            ))
            .into());
        }
    }
    Ok(photos)
}

/// The classic 24-patch chart's palette, shipped in the binary: the default chart.
const CLASSIC_CHART: &str = include_str!("../../crates/vision/testdata/colorchecker-classic.json");

pub struct CalibrateColour<'a> {
    pub photo: &'a Path,
    pub chart: Option<&'a Path>,
    pub rows: usize,
    pub cols: usize,
    pub out: &'a Path,
    pub output: Output,
}

/// A fitted chart is read surely when its best orientation explains the patches this well
/// (mean ΔE₀₀ after the correction)...
const GOOD_FIT_DE: f32 = 6.0;
/// ...and at most this fraction of the other orientation's error.
const CLEAR_ORIENTATION: f32 = 0.5;

pub fn colour(args: CalibrateColour<'_>) -> Result<Outcome> {
    let (palette, chart_name) = match args.chart {
        Some(path) => (load_palette(path)?, path.display().to_string()),
        None => (
            Palette::from_json(CLASSIC_CHART, "the classic 24-patch chart")
                .map_err(|e| anyhow::anyhow!("the shipped chart palette: {e}"))?,
            "colorchecker-classic".to_owned(),
        ),
    };
    let printed: Vec<Srgb> = palette.colors.values().map(|c| c.srgb).collect();
    if printed.len() != args.rows * args.cols {
        return Err(BadInput(format!(
            "the chart's palette has {} colours, but --rows {} --cols {} make {} patches: give \
             the chart's rows and columns",
            printed.len(),
            args.rows,
            args.cols,
            args.rows * args.cols
        ))
        .into());
    }
    create_parent(args.out)?;
    let image = load_photo(args.photo)?;
    let source = args.photo.display().to_string();
    let undecided = |reason: String| colour_undecided(&args, &source, reason);
    if args.chart.is_none() {
        if let Some(mat) = find_mat(&image)? {
            return colour_from_mat(&args, &image, &mat, &source);
        }
    }
    // Found without the palette: the raw samples are what is fitted.
    let reading = match read_grid(&image, args.rows, args.cols, None, &ReadOptions::default()) {
        Ok(r) => r,
        Err(e @ (ReadError::Request(_) | ReadError::Palette(_))) => {
            return Err(BadInput(format!("{source}: {e}")).into())
        }
        Err(e) => {
            return undecided(format!(
                "no {}x{} chart found ({e}): retake with the whole chart in view, flat, \
                 without glare",
                args.rows, args.cols
            ))
        }
    };
    // The chart may lie either way round: each orientation is fitted, the better kept.
    let fits: Vec<(Turn, ChartFit, usize)> = [Turn::R0, Turn::R180]
        .into_iter()
        .filter_map(|turn| {
            let samples = reading.samples.turned(turn);
            let measured: Vec<Srgb> = samples.iter().map(|(_, s)| s.srgb).collect();
            // Glare or a clipped channel says nothing of the light's colour.
            let usable: Vec<bool> = samples
                .iter()
                .map(|(_, s)| {
                    s.coverage >= 0.8 && [s.srgb.r, s.srgb.g, s.srgb.b].iter().all(|&c| c < 250)
                })
                .collect();
            let used = usable.iter().filter(|&&u| u).count();
            fit_chart(&measured, &printed, &usable)
                .ok()
                .map(|f| (turn, f, used))
        })
        .collect();
    let Some(best) = fits
        .iter()
        .min_by(|a, b| a.1.mean_after().total_cmp(&b.1.mean_after()))
    else {
        return undecided(
            "too few patches free of glare and clipping: retake with even light, the chart not \
             over-exposed"
                .into(),
        );
    };
    let other = fits
        .iter()
        .filter(|f| f.0 != best.0)
        .map(|f| f.1.mean_after())
        .fold(f32::INFINITY, f32::min);
    let (turn, fit, used) = best;
    if fit.mean_after() > GOOD_FIT_DE || fit.mean_after() > CLEAR_ORIENTATION * other {
        return undecided(format!(
            "the patches do not match the chart's colours surely (mean ΔE {:.1} after the \
             correction, {:.1} the other way round): check --chart names this chart, and retake \
             it under even light",
            fit.mean_after(),
            other
        ));
    }
    let headline = format!(
        "{}x{} chart found{}, {used} of {} patches used",
        args.rows,
        args.cols,
        if *turn == Turn::R0 {
            ""
        } else {
            " upside down"
        },
        printed.len()
    );
    let details =
        serde_json::json!({ "chart_turned_degrees": turn.degrees(), "patches_used": used });
    save_colour_fit(&args, &source, fit, chart_name, &headline, details)
}

/// Creates the folder `out` is to be written in.
fn create_parent(out: &Path) -> Result<()> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            BadInput(format!(
                "{}: cannot create the folder ({e}): give an --out you may write",
                dir.display()
            ))
        })?;
    }
    Ok(())
}

/// Writes a calibration file as pretty JSON.
fn save_json(value: &impl Serialize, out: &Path) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    std::fs::write(out, text).map_err(|e| {
        BadInput(format!(
            "{}: cannot write the calibration ({e}): give an --out you may write",
            out.display()
        ))
        .into()
    })
}

/// The colour correction from a judge mat's eight patches (five greys, red, green, blue).
fn colour_from_mat(
    args: &CalibrateColour<'_>,
    image: &image::RgbImage,
    mat: &FoundMat,
    source: &str,
) -> Result<Outcome> {
    let seen = patch_colours(image, mat);
    let measured: Vec<Srgb> = seen.iter().map(|&(c, _)| c).collect();
    let usable: Vec<bool> = seen.iter().map(|&(_, u)| u).collect();
    let printed: Vec<Srgb> = PATCHES.iter().map(|&(c, _)| c).collect();
    let fit = match fit_chart(&measured, &printed, &usable) {
        Ok(fit) => fit,
        Err(e) => {
            return colour_undecided(
                args,
                source,
                format!(
                    "the judge mat's patches cannot be used ({e}): retake with the strip in \
                     view, lit evenly, not over-exposed"
                ),
            )
        }
    };
    let used = usable.iter().filter(|&&u| u).count();
    let headline = format!(
        "judge mat found (markers {:?}), {used} of {} patches used",
        mat.markers,
        printed.len()
    );
    let details = serde_json::json!({ "from": "judge mat", "patches_used": used });
    save_colour_fit(
        args,
        source,
        &fit,
        "judge mat".to_owned(),
        &headline,
        details,
    )
}

/// Says why no colour correction was made (exit 3).
fn colour_undecided(args: &CalibrateColour<'_>, source: &str, reason: String) -> Result<Outcome> {
    if args.output.json {
        print_json(
            &serde_json::json!({"source": source, "verdict": "undecided", "reason": reason}),
        )?;
    } else {
        outln!("{source}: undecided: {reason}");
    }
    Ok(Outcome::Undecided)
}

/// Saves a fitted colour correction and reports it: `headline` says what was found, and
/// `details` (JSON) is added to the report.
fn save_colour_fit(
    args: &CalibrateColour<'_>,
    source: &str,
    fit: &ChartFit,
    chart: String,
    headline: &str,
    details: serde_json::Value,
) -> Result<Outcome> {
    let max_after = fit.after.iter().copied().fold(0.0, f32::max);
    let file = ColourFile {
        format: COLOUR_FORMAT.to_owned(),
        matrix: fit.matrix,
        chart: Some(chart),
        photo: Some(source.to_owned()),
        delta_e_before: Some(fit.mean_before()),
        delta_e_after: Some(fit.mean_after()),
        delta_e_max_after: Some(max_after),
    };
    save_json(&file, args.out)?;
    if args.output.json {
        let mut report = serde_json::json!({
            "calibration": file,
            "saved": args.out.display().to_string(),
            "delta_e_before": fit.before,
            "delta_e_after": fit.after,
        });
        if let (Some(r), Some(d)) = (report.as_object_mut(), details.as_object()) {
            r.extend(d.clone());
        }
        print_json(&report)?;
    } else {
        outln!("{source}: {headline}");
        outln!(
            "  ΔE00 from the printed colours: mean {:.1} before, {:.2} after (largest {:.2})",
            fit.mean_before(),
            fit.mean_after(),
            max_after
        );
        for row in fit.matrix.0 {
            outln!("  [{:8.4} {:8.4} {:8.4}]", row[0], row[1], row[2]);
        }
        outln!(
            "saved: {} (use it with --colour-calibration)",
            args.out.display()
        );
    }
    Ok(Outcome::Pass)
}
