//! Annotated images: the photo with the found grid outlined, each cell's reading, and the
//! cells that decided the verdict marked — what a person looks at to accept a verdict.

use font8x8::UnicodeFonts;
use image::{Rgb, RgbImage};
use imageproc::drawing::{draw_filled_rect_mut, draw_hollow_rect_mut, draw_line_segment_mut};
use imageproc::rect::Rect;

/// How a cell is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellMark {
    /// Read with confidence and agreeing with what was expected (or nothing was expected).
    Fine,
    /// Read with confidence and different from what was expected.
    Mismatch,
    /// Not read confidently enough.
    Doubtful,
}

impl CellMark {
    fn colour(self) -> Rgb<u8> {
        match self {
            CellMark::Fine => Rgb([40, 200, 90]),
            CellMark::Mismatch => Rgb([230, 40, 40]),
            CellMark::Doubtful => Rgb([255, 170, 0]),
        }
    }
}

/// One cell's annotation.
#[derive(Clone, Debug)]
pub struct CellNote {
    /// Short text drawn at the cell centre (the label, or "?").
    pub text: String,
    pub mark: CellMark,
}

/// A grid found in the photo: its size, a map from grid coordinates to pixels, and its cells.
pub struct GridNote<'a> {
    pub rows: usize,
    pub cols: usize,
    /// Maps (x, y) in cell units — (0, 0) the outer corner of row 0, column 0, (cols, rows) the
    /// opposite corner — to image pixels.
    pub to_image: &'a dyn Fn([f64; 2]) -> [f32; 2],
    /// Row-major, `rows * cols` entries.
    pub cells: &'a [CellNote],
    /// Outline colour of the whole grid.
    pub outline: Rgb<u8>,
    /// A caption drawn beside the grid's first corner ("stack", "mission card").
    pub caption: Option<&'a str>,
}

/// The map from grid coordinates (cell units) to image pixels for a grid with these outer
/// corners (clockwise from row 0, column 0).
pub fn grid_to_image(
    corners: &[[f32; 2]; 4],
    rows: usize,
    cols: usize,
) -> Option<impl Fn([f64; 2]) -> [f32; 2]> {
    let (r, c) = (rows as f32, cols as f32);
    let grid_corners = [[0.0, 0.0], [c, 0.0], [c, r], [0.0, r]];
    let h = tablejudge_vision::rectify::fit_homography(&grid_corners, corners).ok()?;
    Some(move |[x, y]: [f64; 2]| {
        tablejudge_vision::rectify::apply_homography(&h, [x as f32, y as f32])
            .unwrap_or([f32::NAN, f32::NAN])
    })
}

/// Draws grids and a verdict banner onto a copy of `photo`.
pub fn annotate(
    photo: &RgbImage,
    grids: &[GridNote<'_>],
    banner: &str,
    banner_mark: CellMark,
) -> RgbImage {
    let mut img = photo.clone();
    let scale = text_scale(&img);
    for grid in grids {
        draw_grid(&mut img, grid, scale);
    }
    draw_banner(&mut img, banner, banner_mark, scale);
    img
}

/// Text size that stays legible from thumbnails to 12-megapixel photos.
fn text_scale(img: &RgbImage) -> u32 {
    (img.width().max(img.height()) / 600).clamp(1, 8)
}

fn draw_grid(img: &mut RgbImage, grid: &GridNote<'_>, scale: u32) {
    let to = grid.to_image;
    // Lattice lines, thin; the outline, thick.
    for r in 0..=grid.rows {
        let y = r as f64;
        thick_line(
            img,
            to([0.0, y]),
            to([grid.cols as f64, y]),
            grid.outline,
            line_width(r, grid.rows, scale),
        );
    }
    for c in 0..=grid.cols {
        let x = c as f64;
        thick_line(
            img,
            to([x, 0.0]),
            to([x, grid.rows as f64]),
            grid.outline,
            line_width(c, grid.cols, scale),
        );
    }
    // Labels fit inside their cells, however small the grid is in the photo.
    let (o, x1, y1) = (to([0.0, 0.0]), to([1.0, 0.0]), to([0.0, 1.0]));
    let cell_px = ((x1[0] - o[0]).hypot(x1[1] - o[1])).min((y1[0] - o[0]).hypot(y1[1] - o[1]));
    let label_scale = ((cell_px * 0.45 / 8.0) as u32).clamp(1, scale + 1);
    for (i, note) in grid.cells.iter().enumerate().take(grid.rows * grid.cols) {
        let (r, c) = (i / grid.cols, i % grid.cols);
        let centre = to([c as f64 + 0.5, r as f64 + 0.5]);
        if !note.text.is_empty() {
            draw_label(img, centre, &note.text, note.mark.colour(), label_scale);
        }
        if note.mark != CellMark::Fine {
            // A ring inside the cell so a mismatched or doubtful cell stands out at a glance.
            let inset = 0.12;
            let corners = [
                to([c as f64 + inset, r as f64 + inset]),
                to([c as f64 + 1.0 - inset, r as f64 + inset]),
                to([c as f64 + 1.0 - inset, r as f64 + 1.0 - inset]),
                to([c as f64 + inset, r as f64 + 1.0 - inset]),
            ];
            for k in 0..4 {
                thick_line(
                    img,
                    corners[k],
                    corners[(k + 1) % 4],
                    note.mark.colour(),
                    scale + 1,
                );
            }
        }
    }
    if let Some(caption) = grid.caption {
        let at = to([0.0, -0.35]);
        draw_label(img, at, caption, grid.outline, scale);
    }
}

fn line_width(i: usize, n: usize, scale: u32) -> u32 {
    if i == 0 || i == n {
        scale + 2
    } else {
        scale.div_ceil(2)
    }
}

fn thick_line(img: &mut RgbImage, a: [f32; 2], b: [f32; 2], colour: Rgb<u8>, width: u32) {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len = (dx * dx + dy * dy).sqrt().max(1e-3);
    let (nx, ny) = (-dy / len, dx / len);
    let half = (width as f32 - 1.0) / 2.0;
    let steps = width.max(1);
    for s in 0..steps {
        let o = if steps == 1 { 0.0 } else { -half + s as f32 };
        draw_line_segment_mut(
            img,
            (a[0] + nx * o, a[1] + ny * o),
            (b[0] + nx * o, b[1] + ny * o),
            colour,
        );
    }
}

/// Draws `text` centred on `at`, on a dark box so it reads on any background.
fn draw_label(img: &mut RgbImage, at: [f32; 2], text: &str, colour: Rgb<u8>, scale: u32) {
    let glyph = 8 * scale as i32;
    let w = glyph * text.chars().count() as i32 + 2 * scale as i32;
    let h = glyph + 2 * scale as i32;
    let x0 = at[0].round() as i32 - w / 2;
    let y0 = at[1].round() as i32 - h / 2;
    draw_filled_rect_mut(
        img,
        Rect::at(x0, y0).of_size(w as u32, h as u32),
        Rgb([20, 20, 20]),
    );
    draw_hollow_rect_mut(img, Rect::at(x0, y0).of_size(w as u32, h as u32), colour);
    for (i, ch) in text.chars().enumerate() {
        draw_glyph(
            img,
            x0 + scale as i32 + i as i32 * glyph,
            y0 + scale as i32,
            ch,
            colour,
            scale,
        );
    }
}

fn draw_glyph(img: &mut RgbImage, x: i32, y: i32, ch: char, colour: Rgb<u8>, scale: u32) {
    let Some(bitmap) = font8x8::BASIC_FONTS
        .get(ch)
        .or_else(|| font8x8::BASIC_FONTS.get('?'))
    else {
        return;
    };
    for (row, bits) in bitmap.iter().enumerate() {
        for col in 0..8 {
            if bits & (1 << col) != 0 {
                let rect = Rect::at(x + col * scale as i32, y + row as i32 * scale as i32)
                    .of_size(scale, scale);
                draw_filled_rect_mut(img, rect, colour);
            }
        }
    }
}

fn draw_banner(img: &mut RgbImage, text: &str, mark: CellMark, scale: u32) {
    let s = scale + 1;
    let h = 8 * s + 4 * s;
    let width = img.width();
    draw_filled_rect_mut(img, Rect::at(0, 0).of_size(width, h), Rgb([20, 20, 20]));
    draw_filled_rect_mut(
        img,
        Rect::at(0, h as i32 - s as i32).of_size(width, s),
        mark.colour(),
    );
    for (i, ch) in text.chars().enumerate() {
        let x = 2 * s as i32 + i as i32 * 8 * s as i32;
        if x as u32 + 8 * s > width {
            break;
        }
        draw_glyph(img, x, (2 * s) as i32, ch, Rgb([240, 240, 240]), s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(w: u32, h: u32) -> RgbImage {
        RgbImage::from_pixel(w, h, Rgb([128, 128, 128]))
    }

    #[test]
    fn outlines_cells_and_marks_mismatches_in_red() {
        let photo = plain(400, 300);
        let cells = vec![
            CellNote {
                text: "r".into(),
                mark: CellMark::Fine,
            },
            CellNote {
                text: "g".into(),
                mark: CellMark::Mismatch,
            },
            CellNote {
                text: "?".into(),
                mark: CellMark::Doubtful,
            },
            CellNote {
                text: "b".into(),
                mark: CellMark::Fine,
            },
        ];
        // 2×2 cells of 100 px starting at (100, 80).
        let to = |[x, y]: [f64; 2]| [100.0 + 100.0 * x as f32, 80.0 + 100.0 * y as f32];
        let grid = GridNote {
            rows: 2,
            cols: 2,
            to_image: &to,
            cells: &cells,
            outline: Rgb([0, 128, 255]),
            caption: Some("stack"),
        };
        let out = annotate(&photo, &[grid], "MISMATCH", CellMark::Mismatch);
        assert_eq!(out.dimensions(), photo.dimensions());
        // The outline runs along the grid's top edge.
        assert_eq!(*out.get_pixel(150, 80), Rgb([0, 128, 255]));
        // The mismatch ring sits inside cell (0, 1): inset 12% from its left edge at x = 200.
        assert_eq!(*out.get_pixel(212, 150), CellMark::Mismatch.colour());
        // The doubtful ring inside cell (1, 0).
        assert_eq!(*out.get_pixel(112, 250), CellMark::Doubtful.colour());
        // No ring inside a fine cell (1, 1).
        assert_eq!(*out.get_pixel(212, 250), Rgb([128, 128, 128]));
        // The banner's bottom rule has the verdict's colour.
        let banner_h = 8 * 2 + 4 * 2;
        assert_eq!(*out.get_pixel(5, banner_h - 1), CellMark::Mismatch.colour());
        // The photo itself is untouched.
        assert_eq!(*photo.get_pixel(150, 80), Rgb([128, 128, 128]));
    }

    #[test]
    fn labels_draw_glyph_pixels() {
        let mut img = plain(100, 100);
        draw_label(&mut img, [50.0, 50.0], "W", Rgb([255, 255, 255]), 2);
        let lit = img.pixels().filter(|p| **p == Rgb([255, 255, 255])).count();
        // The outline box and the W's strokes.
        assert!(lit > 60, "{lit}");
    }
}
