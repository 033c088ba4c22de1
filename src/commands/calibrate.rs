//! `tablejudge calibrate camera`: a lens calibration from chessboard photos, saved as a
//! `tablejudge/camera@1` file for `--camera-calibration`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;
use tablejudge_vision::calibrate::{calibrate_lens, find_chessboard, Chessboard, MIN_VIEWS};

use super::print_json;
use crate::cli::Output;
use crate::frames::{is_photo, photos_in, PhotoOrder};
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_photo, CameraFile, CAMERA_FORMAT};

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
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Fail before the work, not after it.
        std::fs::create_dir_all(dir).map_err(|e| {
            BadInput(format!(
                "{}: cannot create the folder ({e}): give an --out you may write",
                dir.display()
            ))
        })?;
    }
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
    let mut text = serde_json::to_string_pretty(&file)?;
    text.push('\n');
    std::fs::write(args.out, text).map_err(|e| {
        BadInput(format!(
            "{}: cannot write the calibration ({e}): give an --out you may write",
            args.out.display()
        ))
    })?;
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
