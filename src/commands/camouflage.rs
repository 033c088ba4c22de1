//! `tablejudge camouflage read`

use std::path::Path;

use anyhow::Result;
use tablejudge_rules::camouflage::CamouflageSet;
use tablejudge_vision::camouflage::{
    read_camouflage, CamouflageReadError, CamouflageReadOptions, CamouflageReading, SideColours,
    SquareKind,
};
use tablejudge_vision::Camera;

use super::{print_json, stamp_status};
use crate::annotate::{annotate, CellMark, CellNote, GridNote};
use crate::cli::{Output, PhotoOptions};
use crate::input::load_camouflage_set;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_corrected, photo_camera, save_image};

/// Format tag of `camouflage read --json`.
const READING_FORMAT: &str = "tablejudge/camouflage-reading@1";

pub struct CamouflageRead<'a> {
    pub photo: &'a Path,
    pub set: Option<&'a Path>,
    pub side: Option<&'a str>,
    pub photo_options: &'a PhotoOptions,
    pub output: Output,
}

pub fn read(args: CamouflageRead<'_>) -> Result<Outcome> {
    let set = args.set.map(load_camouflage_set).transpose()?;
    let colours = match &set {
        Some(set) => Some(side_colours(
            set,
            args.set.unwrap_or(Path::new("")),
            args.side,
        )?),
        None => None,
    };
    let camera = photo_camera(args.photo_options)?;
    let image = load_corrected(args.photo, args.photo_options)?;
    let source = args.photo.display().to_string();
    let options = CamouflageReadOptions {
        colours,
        camera: camera.as_ref(),
    };
    let reading = match read_camouflage(&image, &options) {
        Ok(r) => r,
        Err(e @ CamouflageReadError::NoColour { .. }) => {
            let file = args
                .set
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            return Err(BadInput(format!("{file}: {e}")).into());
        }
        Err(e) => {
            let reason = e.to_string();
            if args.output.json {
                print_json(&serde_json::json!({
                    "format": READING_FORMAT,
                    "source": source,
                    "status": "undecided",
                    "reason": reason,
                }))?;
            } else {
                outln!("{source}: undecided: {reason}");
            }
            if let Some(out) = &args.photo_options.annotate {
                let banner = format!("UNDECIDED: {reason}");
                save_image(&annotate(&image, &[], &banner, CellMark::Doubtful), out)?;
            }
            return Ok(Outcome::Undecided);
        }
    };

    let unknown: Vec<String> = reading
        .unknown()
        .map(|s| format!("({}, {})", s.row, s.col))
        .collect();
    let mut reasons: Vec<String> = Vec::new();
    if !reading.stray_symbols.is_empty() {
        let at: Vec<String> = reading
            .stray_symbols
            .iter()
            .map(|[x, y]| format!("({x:.0}, {y:.0})"))
            .collect();
        reasons.push(format!(
            "{} symbol{} at pixel {} on no card read: a card off the others' lattice or missed; \
             lay it square on the others, or retake in focus and square-on",
            at.len(),
            if at.len() == 1 { "" } else { "s" },
            at.join(", ")
        ));
    }
    let orphans: Vec<String> = reading
        .orphans()
        .map(|s| format!("({}, {})", s.row, s.col))
        .collect();
    if !orphans.is_empty() {
        reasons.push(format!(
            "{} square{} look{} like card where no card centre was found: {}; a card whose \
             centre is hidden, blurred or in glare; retake with every centre in view",
            orphans.len(),
            if orphans.len() == 1 { "" } else { "s" },
            if orphans.len() == 1 { "s" } else { "" },
            orphans.join(", ")
        ));
    }
    if !reading.misfits.is_empty() {
        let at: Vec<String> = reading
            .misfits
            .iter()
            .map(|p| format!("({}, {})", p.row, p.col))
            .collect();
        reasons.push(format!(
            "the card{} centred at {} fit{} no card of the set: a square misread, or a mark on \
             the table taken for a symbol; retake in even light, square-on",
            if at.len() == 1 { "" } else { "s" },
            at.join(", "),
            if at.len() == 1 { "s" } else { "" },
        ));
    }
    if !unknown.is_empty() && set.is_some() {
        reasons.push(format!(
            "{} square{} not told: {}; retake without hands, glare or shadow over the cards",
            unknown.len(),
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", ")
        ));
    }
    let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
    let decks = reading
        .centres
        .iter()
        .map(|c| c.symbol_group)
        .max()
        .map_or(0, |g| g + 1);
    if args.output.json {
        let mut v = serde_json::to_value(&reading)?;
        v["format"] = serde_json::json!(READING_FORMAT);
        v["source"] = serde_json::json!(source);
        stamp_status(&mut v, reason.as_deref());
        print_json(&v)?;
    } else {
        outln!(
            "{source}: {} cards of {decks} symbol{}, {}x{} squares{}",
            reading.centres.len(),
            if decks == 1 { "" } else { "s" },
            reading.rows,
            reading.cols,
            reading
                .side
                .as_ref()
                .map(|s| format!(", side {s}"))
                .unwrap_or_default()
        );
        for row in &reading.picture {
            outln!("  {row}");
        }
        if let Some(reason) = &reason {
            outln!("undecided: {reason}");
        }
    }
    if let Some(out) = &args.photo_options.annotate {
        let banner = match &reason {
            Some(r) => format!("UNDECIDED: {r}"),
            None => format!("{} cards read", reading.centres.len()),
        };
        let mark = if reason.is_some() {
            CellMark::Doubtful
        } else {
            CellMark::Fine
        };
        save_image(
            &annotated(&image, &reading, camera.as_ref(), &banner, mark),
            out,
        )?;
    }
    Ok(if reason.is_some() {
        Outcome::Undecided
    } else {
        Outcome::Pass
    })
}

/// The set's side named on the command line, or any side (the reader picks).
fn side_colours<'a>(
    set: &'a CamouflageSet,
    file: &Path,
    side: Option<&str>,
) -> Result<SideColours<'a>> {
    let side = match side {
        None => None,
        Some(name) => Some(set.side_by_name(name).ok_or_else(|| {
            let names: Vec<&str> = set.sides().iter().map(|s| s.name.as_str()).collect();
            BadInput(format!(
                "{}: no side {name:?}: the set's sides are {}",
                file.display(),
                names.join(", ")
            ))
        })?),
    };
    Ok(SideColours { set, side })
}

/// The photo with the lattice block drawn, each card square's key, each centre's symbol
/// group as a letter, and doubtful squares ringed. `lens`: the one the reading was made
/// through (its lattice is undistorted), to draw it where the photo shows it.
pub fn annotated(
    image: &image::RgbImage,
    reading: &CamouflageReading,
    lens: Option<&Camera>,
    banner: &str,
    mark: CellMark,
) -> image::RgbImage {
    annotated_boards(
        image,
        std::slice::from_ref(reading),
        lens,
        &[],
        banner,
        mark,
    )
}

/// The photo with every board of `readings` drawn on it (each captioned from `captions`,
/// where given) under one banner.
pub fn annotated_boards(
    image: &image::RgbImage,
    readings: &[CamouflageReading],
    lens: Option<&Camera>,
    captions: &[String],
    banner: &str,
    mark: CellMark,
) -> image::RgbImage {
    let maps: Vec<_> = readings
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.lattice.map(|l| (i, r, l)))
        .map(|(i, r, lattice)| {
            let to_image =
                move |[x, y]: [f64; 2]| match lattice.to_photo([x as f32 - 0.5, y as f32 - 0.5]) {
                    Some(p) => match lens {
                        Some(lens) => lens.distort(p.map(f64::from)).map(|v| v as f32),
                        None => p,
                    },
                    None => [f32::NAN, f32::NAN],
                };
            (i, r, to_image, square_notes(r))
        })
        .collect();
    let grids: Vec<GridNote> = maps
        .iter()
        .map(|(i, reading, to_image, cells)| GridNote {
            rows: reading.rows,
            cols: reading.cols,
            to_image,
            cells,
            outline: image::Rgb([40, 120, 255]),
            caption: captions.get(*i).map(String::as_str),
        })
        .collect();
    annotate(image, &grids, banner, mark)
}

/// What each square of a reading is labelled with: its centre's symbol group, its pattern,
/// or nothing for the table; unknown squares in amber.
fn square_notes(reading: &CamouflageReading) -> Vec<CellNote> {
    reading
        .squares
        .iter()
        .map(|s| {
            let centre = reading
                .centres
                .iter()
                .find(|c| c.row == s.row && c.col == s.col);
            let text = match (s.kind, centre) {
                (SquareKind::Centre, Some(c)) => group_letter(c.symbol_group),
                (SquareKind::Table, _) => String::new(),
                (kind, _) => kind.char().to_string(),
            };
            let misfit = reading
                .misfits
                .iter()
                .any(|p| (p.row, p.col) == (s.row, s.col));
            let mark = if s.kind == SquareKind::Unknown || misfit {
                CellMark::Doubtful
            } else {
                CellMark::Fine
            };
            CellNote { text, mark }
        })
        .collect()
}

/// Symbol groups as capital letters: A, B, …, then A1, B1, … past Z.
fn group_letter(g: usize) -> String {
    let letter = char::from(b'A' + (g % 26) as u8);
    match g / 26 {
        0 => letter.to_string(),
        n => format!("{letter}{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_through_a_lens_is_drawn_where_the_photo_shows_it() {
        // Lattice point (-0.5, -0.5), the block's corner, lies at pixel (90, 90) undistorted.
        let reading = crate::commands::replay::tests::reading(&[], &[]);
        let lens = Camera {
            fx: 200.0,
            fy: 200.0,
            cx: 200.0,
            cy: 150.0,
            dist: [0.5, 0.0, 0.0, 0.0, 0.0],
        };
        let photo = image::RgbImage::new(400, 300);
        let outline = image::Rgb([40, 120, 255]);
        let [x, y] = lens.distort([90.0, 90.0]).map(|v| v.round() as u32);
        assert!((x as i32 - 90).abs() > 10, "the lens moves the corner");
        let through = annotated(&photo, &reading, Some(&lens), "", CellMark::Fine);
        assert_eq!(*through.get_pixel(x, y), outline);
        assert_ne!(*through.get_pixel(90, 90), outline);
        let plain = annotated(&photo, &reading, None, "", CellMark::Fine);
        assert_eq!(*plain.get_pixel(90, 90), outline);
    }
}
