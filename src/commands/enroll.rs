//! `tablejudge layers enroll`

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;
use tablejudge_rules::Srgb;
use tablejudge_vision::enroll::{enroll as enroll_photos, EnrollOptions, EnrollPhotos};

use super::print_json;
use crate::cli::Output;
use crate::outcome::{BadInput, Outcome};

pub struct EnrollArgs<'a> {
    pub photos: &'a [PathBuf],
    pub rows: usize,
    pub cols: usize,
    pub out: &'a Path,
    pub name: String,
    pub card_srgb: Option<Srgb>,
    pub output: Output,
}

pub fn enroll(args: EnrollArgs<'_>) -> Result<Outcome> {
    let bad = |e: tablejudge_vision::enroll::EnrollError| -> anyhow::Error {
        BadInput(e.to_string()).into()
    };
    let photos = EnrollPhotos::open(args.rows, args.cols, args.photos).map_err(bad)?;
    let options = EnrollOptions {
        name: args.name,
        card_srgb: args.card_srgb,
        ..EnrollOptions::default()
    };
    let enrolled = enroll_photos(&photos, &options).map_err(bad)?;
    let text = serde_json::to_string_pretty(&enrolled.raw)?;
    std::fs::write(args.out, text + "\n").map_err(|e| {
        BadInput(format!(
            "{}: cannot write the set file ({e})",
            args.out.display()
        ))
    })?;

    let report = &enrolled.report;
    let outcome = if report.conflicts.is_empty() && report.problems.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Undecided
    };
    if args.output.json {
        print_json(&json!({
            "set": args.out.display().to_string(),
            "status": if outcome == Outcome::Pass { "enrolled" } else { "undecided" },
            "frame_width": report.frame_width,
            "photos": report.photos.iter().map(|p| json!({
                "file": p.file, "confidence": p.confidence, "frame_width": p.frame_width,
                "worst_cell_delta_e": p.worst_cell_delta_e,
            })).collect::<Vec<_>>(),
            "colors": report.clusters.iter().map(|c| json!({
                "key": c.key.to_string(), "name": c.name, "srgb": c.srgb.to_string(),
                "members": c.members, "spread": c.spread, "max_delta_e": c.max_delta_e,
            })).collect::<Vec<_>>(),
            "conflicts": report.conflicts.iter().map(|c| json!({
                "file": c.file, "row": c.row, "col": c.col, "message": c.message,
            })).collect::<Vec<_>>(),
            "problems": report.problems,
        }))?;
    } else {
        outln!(
            "wrote {} ({} photos, frame width {:.2} cells)",
            args.out.display(),
            report.photos.len(),
            report.frame_width
        );
        outln!("learned colours:");
        for c in &report.clusters {
            outln!(
                "  {}  {:<24} {}  ({} samples, spread ΔE {:.1})",
                c.key,
                c.name,
                c.srgb,
                c.members,
                c.spread
            );
        }
        for p in &report.photos {
            outln!("  {}: confidence {:.2}", p.file, p.confidence);
        }
        for c in &report.conflicts {
            outln!(
                "retake {}: row {}, column {}: {}",
                c.file,
                c.row,
                c.col,
                c.message
            );
        }
        for p in &report.problems {
            outln!("problem: {p}");
        }
    }
    Ok(outcome)
}
