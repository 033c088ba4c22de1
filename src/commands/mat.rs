//! `tablejudge mat`: the printable judge mat, as a PDF (vector, to print at 100%) or a PNG.

use std::path::Path;

use anyhow::Result;
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str};
use tablejudge_vision::judge_mat::{
    draw_mat, marker_squares_mm, patch_origin_mm, PAPER_MM, PATCHES, PATCH_MM, PLAY_AREA_MM,
    SCALE_BAR_MM,
};

use crate::outcome::{BadInput, Outcome};
use crate::photo::save_image;

/// Points (1/72 inch) to the millimetre.
const PT_PER_MM: f64 = 72.0 / 25.4;

pub fn mat(out: &Path, dpi: u32) -> Result<Outcome> {
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("pdf") => {
            let bytes = mat_pdf()?;
            std::fs::write(out, bytes).map_err(|e| {
                BadInput(format!(
                    "{}: cannot write the mat ({e}): give a path you may write",
                    out.display()
                ))
            })?;
        }
        Some("png") => save_image(&draw_mat(f64::from(dpi) / 25.4)?, out)?,
        _ => {
            return Err(BadInput(format!(
                "{}: give a name ending in .pdf (to print) or .png",
                out.display()
            ))
            .into())
        }
    }
    outln!(
        "wrote {}: print it on A4 at 100% (no \"fit to page\"); the bar under the title is 100 mm",
        out.display()
    );
    Ok(Outcome::Pass)
}

/// The mat as a one-page A4 PDF: the markers and patches as filled rectangles, so the printer
/// draws them sharp at any resolution.
fn mat_pdf() -> Result<Vec<u8>> {
    let catalog = Ref::new(1);
    let pages = Ref::new(2);
    let page = Ref::new(3);
    let font = Ref::new(4);
    let contents = Ref::new(5);
    let font_name = Name(b"F1");
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(pages);
    pdf.pages(pages).kids([page]).count(1);
    let mut p = pdf.page(page);
    let (w, h) = (PAPER_MM.0 * PT_PER_MM, PAPER_MM.1 * PT_PER_MM);
    p.media_box(Rect::new(0.0, 0.0, w as f32, h as f32));
    p.parent(pages);
    p.contents(contents);
    p.resources().fonts().pair(font_name, font);
    p.finish();
    pdf.type1_font(font).base_font(Name(b"Helvetica"));

    let mut c = Content::new();
    // A rectangle given in mat millimetres from the top left (PDF counts from the bottom).
    let rect = |c: &mut Content, x: f64, y: f64, rw: f64, rh: f64| {
        c.rect(
            (x * PT_PER_MM) as f32,
            ((PAPER_MM.1 - y - rh) * PT_PER_MM) as f32,
            (rw * PT_PER_MM) as f32,
            (rh * PT_PER_MM) as f32,
        );
    };
    c.set_fill_rgb(0.0, 0.0, 0.0);
    for (x, y, side) in marker_squares_mm()? {
        rect(&mut c, x, y, side, side);
    }
    c.fill_nonzero();
    for (i, (colour, _)) in PATCHES.iter().enumerate() {
        let (x, y) = patch_origin_mm(i);
        let f = |v: u8| f32::from(v) / 255.0;
        c.set_fill_rgb(f(colour.r), f(colour.g), f(colour.b));
        rect(&mut c, x, y, PATCH_MM, PATCH_MM);
        c.fill_nonzero();
    }
    let [l, t, r, b] = PLAY_AREA_MM;
    c.set_stroke_rgb(0.67, 0.67, 0.67);
    c.set_line_width((0.5 * PT_PER_MM) as f32);
    rect(&mut c, l, t, r - l, b - t);
    c.stroke();
    // The 100 mm bar to check the print's scale, and the title.
    c.set_fill_rgb(0.0, 0.0, 0.0);
    rect(&mut c, SCALE_BAR_MM.0, SCALE_BAR_MM.1, 100.0, 1.0);
    c.fill_nonzero();
    let text = |c: &mut Content, x: f64, y: f64, size: f32, s: &str| {
        c.begin_text();
        c.set_font(font_name, size);
        c.next_line(
            (x * PT_PER_MM) as f32,
            ((PAPER_MM.1 - y) * PT_PER_MM) as f32,
        );
        c.show(Str(s.as_bytes()));
        c.end_text();
    };
    text(&mut c, 55.0, 18.0, 14.0, "tablejudge judge mat");
    text(
        &mut c,
        55.0,
        25.0,
        8.0,
        "Print on A4 at 100% (no fit to page): the bar below is 100 mm.",
    );
    text(
        &mut c,
        55.0,
        30.0,
        8.0,
        "Lay the stack or the cards inside the frame; keep the four markers in view.",
    );
    text(&mut c, 52.0, 263.0, 7.0, "reference patches: do not cover");
    pdf.stream(contents, &c.finish());
    Ok(pdf.finish())
}
