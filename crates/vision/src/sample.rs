//! Sampling each cell of a rectified grid: a robust colour of its inner region.
//!
//! Only the central part of each cell is used, so frame edges, cell borders and a slightly
//! wrong rectification do not leak in. Within it, glare pixels (all three channels near
//! saturation: a specular highlight, not a bright colour, which saturates one or two) are
//! dropped, and the per-channel median of the rest is the cell's colour.

use image::RgbImage;
use tablejudge_rules::{Grid, Pos, Srgb};

use crate::error::VisionError;

/// How cells are sampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleParams {
    /// Side of the sampled central square as a fraction of the cell side, in (0, 1].
    pub inner: f32,
    /// A pixel whose smallest channel is at least this is glare.
    pub glare_min: u8,
    /// If less than this fraction of the inner pixels is not glare, the cell is taken to be
    /// a genuinely bright colour (a white card in a bright photo) and all pixels are used.
    pub min_coverage: f32,
}

impl Default for SampleParams {
    /// The central 55% of the side (30% of the area), glare at 250, at least 20% usable.
    fn default() -> Self {
        SampleParams {
            inner: 0.55,
            glare_min: 250,
            min_coverage: 0.2,
        }
    }
}

/// One sampled cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellSample {
    /// The per-channel median of the usable inner pixels.
    pub srgb: Srgb,
    /// The fraction of inner pixels that were not glare, 0..=1: low values say "retake
    /// without the reflection".
    pub coverage: f32,
}

/// Samples every cell of a rectified image split into `rows × cols` equal cells.
pub fn sample_cells(
    image: &RgbImage,
    rows: usize,
    cols: usize,
    params: &SampleParams,
) -> Result<Grid<CellSample>, VisionError> {
    let (w, h) = image.dimensions();
    if rows == 0 || cols == 0 || w == 0 || h == 0 {
        return Err(VisionError::Geometry(format!(
            "cannot sample a {rows}x{cols} grid from a {w}x{h} image"
        )));
    }
    if !(params.inner > 0.0 && params.inner <= 1.0) {
        return Err(VisionError::Geometry(format!(
            "inner fraction {} is not in (0, 1]",
            params.inner
        )));
    }
    let (cw, ch) = (w as f32 / cols as f32, h as f32 / rows as f32);
    let mut cells = Vec::with_capacity(rows * cols);
    for row in 0..rows {
        for col in 0..cols {
            let xs = span(col, cw, params.inner, w);
            let ys = span(row, ch, params.inner, h);
            cells.push(sample_region(image, xs, ys, params));
        }
    }
    // `cells` holds exactly rows × cols entries in row-major order.
    Ok(Grid::from_fn(rows, cols, |p: Pos| {
        cells[p.row * cols + p.col]
    }))
}

/// Samples every cell and keeps only the colours.
pub fn sample_colours(
    image: &RgbImage,
    rows: usize,
    cols: usize,
    params: &SampleParams,
) -> Result<Grid<Srgb>, VisionError> {
    Ok(sample_cells(image, rows, cols, params)?.map(|s| s.srgb))
}

/// The pixel indices whose centres lie in the central `inner` part of cell `i` of size `size`
/// (pixel p covers [p, p + 1)); never empty, never past `limit`.
fn span(i: usize, size: f32, inner: f32, limit: u32) -> std::ops::Range<u32> {
    let centre = (i as f32 + 0.5) * size;
    let half = inner * size / 2.0;
    let lo = (centre - half - 0.5).ceil().max(0.0) as u32;
    let hi = ((centre + half - 0.5).ceil().max(0.0) as u32).min(limit);
    let lo = lo.min(limit.saturating_sub(1));
    lo..hi.max(lo + 1)
}

fn sample_region(
    image: &RgbImage,
    xs: std::ops::Range<u32>,
    ys: std::ops::Range<u32>,
    params: &SampleParams,
) -> CellSample {
    let pixels: Vec<[u8; 3]> = ys
        .flat_map(|y| xs.clone().map(move |x| (x, y)))
        .map(|(x, y)| image.get_pixel(x, y).0)
        .collect();
    let usable: Vec<[u8; 3]> = pixels
        .iter()
        .copied()
        .filter(|p| p.iter().min().is_some_and(|&m| m < params.glare_min))
        .collect();
    let coverage = usable.len() as f32 / pixels.len() as f32;
    let chosen = if coverage >= params.min_coverage {
        usable
    } else {
        pixels
    };
    let [r, g, b] = [0, 1, 2].map(|c| median(chosen.iter().map(|p| p[c]).collect()));
    CellSample {
        srgb: Srgb::new(r, g, b),
        coverage,
    }
}

/// The median (the upper one for an even count); 0 for no values, which `span` prevents.
fn median(mut v: Vec<u8>) -> u8 {
    if v.is_empty() {
        return 0;
    }
    let mid = v.len() / 2;
    *v.select_nth_unstable(mid).1
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A picture drawn one character per pixel.
    fn picture(rows: &[&str]) -> RgbImage {
        let colour = |ch: char| match ch {
            'k' => [20, 20, 24],    // frame and cell borders
            'r' => [200, 40, 50],   // red cell
            'R' => [230, 60, 70],   // a lighter red speck
            'g' => [40, 150, 70],   // green cell
            'w' => [255, 255, 255], // glare
            'y' => [255, 255, 30],  // a saturated yellow: bright, but not glare
            _ => panic!("no colour for {ch:?}"),
        };
        RgbImage::from_fn(rows[0].len() as u32, rows.len() as u32, |x, y| {
            Rgb(colour(rows[y as usize].as_bytes()[x as usize] as char))
        })
    }

    #[test]
    fn inner_region_median_ignores_edges_and_glare() {
        // Two 8x8 cells with dark borders; the left one has a glare blob that covers half of
        // its 4x4 inner region, and a lighter speck.
        let img = picture(&[
            "kkkkkkkkkkkkkkkk",
            "krrrrrrkkggggggk",
            "krrrrrrkkggggggk",
            "krrwwwwkkggggggk",
            "krrwwwwkkggggggk",
            "krrwwRrkkggggggk",
            "krrrrrrkkggggggk",
            "kkkkkkkkkkkkkkkk",
        ]);
        let p = SampleParams {
            inner: 0.5,
            ..SampleParams::default()
        };
        let g = sample_cells(&img, 1, 2, &p).unwrap();
        let left = g[Pos::new(0, 0)];
        assert_eq!(left.srgb, Srgb::new(200, 40, 50));
        // Inner region is x 2..6, y 2..6: 16 pixels, 8 of them glare.
        assert_eq!(left.coverage, 8.0 / 16.0);
        let right = g[Pos::new(0, 1)];
        assert_eq!(right.srgb, Srgb::new(40, 150, 70));
        assert_eq!(right.coverage, 1.0);
        // Without the glare test (no coverage is ever enough, so every pixel is used) the
        // blob wins the median.
        let no_glare_test = SampleParams {
            min_coverage: f32::INFINITY,
            ..p
        };
        let naive = sample_cells(&img, 1, 2, &no_glare_test).unwrap();
        assert_eq!(naive[Pos::new(0, 0)].srgb, Srgb::new(255, 255, 255));
    }

    #[test]
    fn a_saturated_colour_is_not_glare_and_an_all_white_cell_stays_white() {
        let img = picture(&["yyyyww", "yyyyww", "yyyyww"]);
        let g = sample_cells(&img, 1, 2, &SampleParams::default()).unwrap();
        assert_eq!(g[Pos::new(0, 0)].srgb, Srgb::new(255, 255, 30));
        assert_eq!(g[Pos::new(0, 0)].coverage, 1.0);
        // Every pixel is "glare": too little left, so the cell is read as the white it is.
        assert_eq!(g[Pos::new(0, 1)].srgb, Srgb::new(255, 255, 255));
        assert_eq!(g[Pos::new(0, 1)].coverage, 0.0);
    }

    #[test]
    fn cells_of_a_grid_land_in_the_right_positions() {
        let g = Grid::from_fn(3, 4, |p| Srgb::new(p.row as u8 * 80, p.col as u8 * 60, 7));
        // 7 px cells: not a multiple of anything convenient.
        let img = RgbImage::from_fn(28, 21, |x, y| {
            Rgb(g[Pos::new(y as usize / 7, x as usize / 7)].to_array())
        });
        assert_eq!(
            sample_colours(&img, 3, 4, &SampleParams::default()).unwrap(),
            g
        );
        // Tiny cells still get at least one pixel each.
        let one = RgbImage::from_fn(4, 3, |x, y| {
            Rgb(g[Pos::new(y as usize, x as usize)].to_array())
        });
        assert_eq!(
            sample_colours(&one, 3, 4, &SampleParams::default()).unwrap(),
            g
        );
    }

    #[test]
    fn bad_requests_are_errors() {
        let img = RgbImage::new(8, 8);
        assert!(sample_cells(&img, 0, 2, &SampleParams::default()).is_err());
        let bad = SampleParams {
            inner: 0.0,
            ..SampleParams::default()
        };
        assert!(sample_cells(&img, 1, 1, &bad).is_err());
    }
}
