//! `tablejudge grid read`

use std::path::Path;

use anyhow::Result;
use image::Rgb;
use tablejudge_vision::{read_grid, ReadError, ReadOptions};

use super::{print_json, stamp_status};
use crate::annotate::{annotate, grid_to_image, CellMark, CellNote, GridNote};
use crate::cli::{Output, PhotoOptions};
use crate::input::load_palette;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_corrected, photo_camera, save_image};

pub struct GridRead<'a> {
    pub photo: &'a Path,
    pub rows: usize,
    pub cols: usize,
    pub palette: Option<&'a Path>,
    pub min_confidence: f32,
    pub photo_options: &'a PhotoOptions,
    pub output: Output,
}

pub fn read(args: GridRead<'_>) -> Result<Outcome> {
    let palette = args.palette.map(load_palette).transpose()?;
    let camera = photo_camera(args.photo_options)?;
    let image = load_corrected(args.photo, args.photo_options)?;
    let source = args.photo.display().to_string();
    let options = ReadOptions {
        camera,
        ..ReadOptions::default()
    };

    let reading = match read_grid(&image, args.rows, args.cols, palette.as_ref(), &options) {
        Ok(reading) => reading,
        Err(e @ (ReadError::Request(_) | ReadError::Palette(_))) => {
            return Err(BadInput(format!("{source}: {e}")).into());
        }
        Err(e) => {
            // Found nothing trustworthy: undecided, with what to retake.
            let reason = e.to_string();
            if args.output.json {
                print_json(&serde_json::json!({
                    "format": tablejudge_vision::observation::OBSERVATION_FORMAT,
                    "source": source,
                    "rows": args.rows,
                    "cols": args.cols,
                    "status": "undecided",
                    "reason": reason,
                }))?;
            } else {
                outln!("{source}: undecided: {reason}");
            }
            if let Some(out) = &args.photo_options.annotate {
                save_image(
                    &annotate(
                        &image,
                        &[],
                        &format!("UNDECIDED: {reason}"),
                        CellMark::Doubtful,
                    ),
                    out,
                )?;
            }
            return Ok(Outcome::Undecided);
        }
    };

    // With a palette every cell has a label; one read without enough confidence makes the
    // whole read undecided rather than silently wrong.
    let doubtful: Vec<_> = reading
        .cells
        .iter()
        .filter(|(_, r)| palette.is_some() && r.confidence < args.min_confidence)
        .map(|(p, _)| p)
        .collect();
    let outcome = if doubtful.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Undecided
    };
    let reason = (!doubtful.is_empty()).then(|| {
        let cells: Vec<String> = doubtful.iter().map(ToString::to_string).collect();
        format!(
            "{} cell{} below confidence {}: {}; retake with even light and no glare on them",
            doubtful.len(),
            if doubtful.len() == 1 { "" } else { "s" },
            args.min_confidence,
            cells.join("; ")
        )
    });

    if args.output.json {
        let mut v = serde_json::to_value(reading.to_observation(&source))?;
        v["confidence"] = serde_json::json!(reading.confidence);
        stamp_status(&mut v, reason.as_deref());
        print_json(&v)?;
    } else {
        outln!(
            "{source}: {}x{} grid, confidence {:.2}, corners {}",
            args.rows,
            args.cols,
            reading.confidence,
            reading
                .corners
                .iter()
                .map(|[x, y]| format!("({x:.1}, {y:.1})"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        for r in 0..args.rows {
            let row: Vec<String> = (0..args.cols)
                .map(|c| {
                    let cell = &reading.cells[tablejudge_rules::Pos::new(r, c)];
                    match cell.label {
                        Some(k) => format!("{k} {:.2}", cell.confidence),
                        None => cell.srgb.to_string(),
                    }
                })
                .collect();
            outln!("  {}", row.join("  "));
        }
        if let Some(reason) = &reason {
            outln!("undecided: {reason}");
        }
    }

    if let Some(out) = &args.photo_options.annotate {
        let notes: Vec<CellNote> = reading
            .cells
            .iter()
            .map(|(p, r)| CellNote {
                text: r.label.map(|k| k.to_string()).unwrap_or_default(),
                mark: if doubtful.contains(&p) {
                    CellMark::Doubtful
                } else {
                    CellMark::Fine
                },
            })
            .collect();
        let banner = match &reason {
            None => format!(
                "READ {}x{}  confidence {:.2}",
                args.rows, args.cols, reading.confidence
            ),
            Some(r) => format!("UNDECIDED: {r}"),
        };
        let mark = if reason.is_none() {
            CellMark::Fine
        } else {
            CellMark::Doubtful
        };
        let img = match grid_to_image(&reading.corners, args.rows, args.cols) {
            Some(to_image) => {
                let grid = GridNote {
                    rows: args.rows,
                    cols: args.cols,
                    to_image: &to_image,
                    cells: &notes,
                    outline: Rgb([0, 160, 255]),
                    caption: Some("grid"),
                };
                annotate(&image, &[grid], &banner, mark)
            }
            None => annotate(&image, &[], &banner, mark),
        };
        save_image(&img, out)?;
    }
    Ok(outcome)
}
