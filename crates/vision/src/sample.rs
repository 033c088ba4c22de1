//! Sampling each cell of a rectified grid: a robust colour of its inner region.
//!
//! Only the central part of each cell is used, so frame edges, cell borders and a slightly
//! wrong rectification do not leak in. Within it, glare pixels (all three channels near
//! saturation: a specular highlight, not a bright colour, which saturates one or two) are
//! dropped. So is a softer glare veil: by the dichromatic reflection model a highlight *adds*
//! light of the lamp's colour to every channel, while a shadow *scales* them, so the pixels
//! least touched by glare are those whose smallest linear channel is lowest, up to the
//! spread a shadow or noise makes ([`SampleParams::veil_ratio`]). The per-channel median of
//! those is the cell's colour (of all the pixels, where the brighter ones are the darker ones
//! scaled: shade across the cell, not a veil). When what is left out is most of the cell and
//! sets itself apart in two tight clusters rather than a veil's falloff, the cell shows two
//! surfaces (a sliver of card past a shifted layer) and the other one's colour is kept too
//! ([`CellSample::other`]): the pixels cannot say which is the cell's.

use image::{GrayImage, Luma, RgbImage};
use imageproc::filter::box_filter;
use tablejudge_rules::{Grid, Pos, Srgb};

use crate::colour::{Clipped, LinRgb};
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
    /// Pixels whose smallest linear channel exceeds this multiple of the lowest tenth's
    /// (plus sensor noise) lie under a glare veil and are left out. A shadow or a light
    /// gradient across a cell's centre changes brightness by a few percent; a veil that
    /// moves a colour by a just-noticeable difference adds a fifth or more to its smallest
    /// channel.
    pub veil_ratio: f32,
}

impl Default for SampleParams {
    /// The central 65% of the side (42% of the area: the veil test keeps only part of it, and
    /// the edges are still clear of the borders), glare at 250, at least 20% usable, a veil
    /// at 15% over the lowest tenth.
    fn default() -> Self {
        SampleParams {
            inner: 0.65,
            glare_min: 250,
            min_coverage: 0.2,
            veil_ratio: 1.15,
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
    /// The fraction of the usable pixels left out as lying under a glare veil, 0..=1: 0 when
    /// what sets them apart is as coloured as the cell (the lit side of a shadow's edge, not
    /// added light). Over a half, the veil may cover the whole cell, and even its least
    /// veiled pixels may be lighter than the print.
    pub veiled: f32,
    /// Most of the cell, when its pixels fall into two tight clusters far apart (see
    /// `SURFACES_APART`) rather than a veil's falloff: two surfaces (a sliver of card past a
    /// shifted layer, a shadow's sharp edge, a reflection's). Which one the cell shows cannot
    /// be told from the pixels.
    pub other: Option<Srgb>,
    /// For a cell that is mostly glare (coverage under [`SampleParams::min_coverage`]): the
    /// per-channel median of its few pixels below the glare level, when every one of them is
    /// still clipped in every channel (in the camera's highlight roll-off). A highlight over a
    /// colour shows that colour at its edge (then `None`); a bright surface, such as an
    /// over-exposed hole, shows only more of itself.
    pub fringe: Option<Srgb>,
    /// The light a glare veil adds to this cell, as its pixels show it: the veiled pixels'
    /// median less the kept ones', in the camera's linear channels (`None` without a veil).
    /// Its colour is the lamp's, which need not be the light the white balance corrects for.
    pub veil_light: Option<VeilLight>,
}

#[cfg(test)]
impl CellSample {
    /// A cell seen plainly as `srgb`: all of it usable, no veil, one surface.
    pub(crate) fn plain(srgb: Srgb) -> CellSample {
        CellSample {
            srgb,
            coverage: 1.0,
            veiled: 0.0,
            other: None,
            fringe: None,
            veil_light: None,
        }
    }
}

/// Light added by a glare veil (see [`CellSample::veil_light`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VeilLight {
    /// Per channel, linear; a compressed channel's is a lower bound.
    pub added: LinRgb,
    /// The channels in which the veiled pixels reach the camera's highlight roll-off, where
    /// added light no longer adds linearly (from [`VeilLight::ROLL_OFF`]).
    pub compressed: Clipped,
}

impl VeilLight {
    /// Least added light, linear, in green after the balance, for its colour to count.
    const MEASURABLE: f32 = 0.02;
    /// Linear level (sRGB 203) from which a camera's tone curve may compress highlights.
    pub const ROLL_OFF: f32 = 0.6;

    /// The veil's blue/red tilt after the white balance `gains`, as `ln(b/g)` (or `−ln(r/g)`;
    /// their mean when both are measured): the tint [`crate::classify`] models veils with.
    /// `None` when the green channel or both others are compressed, or the veil is too faint
    /// to tell.
    pub fn tilt(&self, gains: [f32; 3]) -> Option<f32> {
        let a = self.added.to_array();
        let v: [f32; 3] = std::array::from_fn(|c| a[c] * gains[c]);
        let clipped = self.compressed.0;
        if clipped[1] || v[1] < Self::MEASURABLE || v.iter().any(|&x| x <= 0.0) {
            return None;
        }
        let from_blue = (!clipped[2]).then(|| (v[2] / v[1]).ln());
        let from_red = (!clipped[0]).then(|| -(v[0] / v[1]).ln());
        match (from_blue, from_red) {
            (Some(b), Some(r)) => Some((b + r) / 2.0),
            (one, other) => one.or(other),
        }
    }
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

/// A cell with more than this fraction of its usable pixels under a glare veil may be a
/// darker colour beneath it ([`CellSample::veiled`]).
pub(crate) const MOSTLY_VEILED: f32 = 0.5;

/// The cells that may lie under a glare veil: mostly veiled, or beside a cell that is (or
/// that glare clips). A highlight larger than a cell veils it evenly, leaving nothing within
/// it to tell; its edge shows in a neighbour.
pub fn may_be_veiled(samples: &Grid<CellSample>) -> Grid<bool> {
    may_be_veiled_except(samples, &samples.map(|_| false))
}

/// [`may_be_veiled`], where the cells marked in `no_glare` show no glare of their own (their
/// "veil" has another explanation, such as shade across part of a hole): they are veiled
/// only beside a cell that shows glare.
pub fn may_be_veiled_except(samples: &Grid<CellSample>, no_glare: &Grid<bool>) -> Grid<bool> {
    let glare = |p: Pos| {
        samples
            .get(p)
            .is_some_and(|s| (s.veiled > MOSTLY_VEILED || s.coverage < 1.0) && !no_glare[p])
    };
    Grid::from_fn(samples.rows(), samples.cols(), |p: Pos| {
        let (r0, c0) = (p.row.saturating_sub(1), p.col.saturating_sub(1));
        (r0..=p.row + 1).any(|row| (c0..=p.col + 1).any(|col| glare(Pos::new(row, col))))
    })
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
    if coverage < params.min_coverage {
        // What shows below the glare level, when all of it is still in the roll-off.
        let in_roll_off = |&[r, g, b]: &[u8; 3]| all_clipped(Srgb::new(r, g, b));
        let fringe = (!usable.is_empty() && usable.iter().all(in_roll_off))
            .then(|| per_channel_median(&usable));
        return CellSample {
            srgb: per_channel_median(&pixels),
            coverage,
            veiled: 0.0,
            other: None,
            fringe,
            veil_light: None,
        };
    }
    let (kept, left_out) = least_veiled(usable, params.veil_ratio);
    let least = per_channel_median(&kept);
    let other = (left_out.len() > kept.len())
        .then(|| two_surfaces(&kept, &left_out))
        .flatten();
    let veil_light = added_light(least, &left_out).then(|| {
        let extra = LinRgb::from_srgb(per_channel_median(&left_out));
        let base = LinRgb::from_srgb(least).to_array();
        VeilLight {
            added: LinRgb::from_array(std::array::from_fn(|c| extra.to_array()[c] - base[c])),
            compressed: Clipped(extra.to_array().map(|v| v >= VeilLight::ROLL_OFF)),
        }
    });
    // Where the brighter pixels are the darker ones scaled (shade across the cell: the
    // bottom of a well, partly in its walls' shadow), every pixel is the cell's: its darkest
    // part would read a shaded colour as its darker twin.
    let srgb = if veil_light.is_none() && other.is_none() && shade_only(least, &left_out) {
        per_channel_median(&[kept.as_slice(), left_out.as_slice()].concat())
    } else {
        least
    };
    // How much of the cell the veil covers, from each pixel's smallest channel averaged over
    // its 3×3 neighbourhood: a veil is smooth across a cell, sensor noise is not, and noise
    // alone spreads the darkest tenth below the rest as a veil's falloff does.
    let veiled = if veil_light.is_some() {
        smoothly_veiled(&pixels, xs.len(), params)
    } else {
        0.0
    };
    // What is seen of the cell is itself clipped in every channel: the cell is a bright
    // surface (a white card one stop over), and the pixels taken for glare are more of it,
    // hiding nothing. (A highlight over a colour leaves that colour around it.)
    let bright = all_clipped(srgb);
    CellSample {
        srgb,
        coverage: if bright { 1.0 } else { coverage },
        veiled,
        other,
        fringe: None,
        veil_light,
    }
}

fn all_clipped(c: Srgb) -> bool {
    Clipped::of(LinRgb::from_srgb(c)).0.iter().all(|&c| c)
}

fn per_channel_median(pixels: &[[u8; 3]]) -> Srgb {
    let [r, g, b] = [0, 1, 2].map(|c| median(pixels.iter().map(|p| p[c]).collect()));
    Srgb::new(r, g, b)
}

/// Sensor noise floor in linear light: dark colours are never cut on noise alone.
const NOISE_FLOOR: f32 = 0.004;

/// The pixels least touched by a glare veil (see the module docs): those whose smallest
/// linear channel is at most `ratio` times the lowest tenth's, plus the noise floor; and the
/// rest.
fn least_veiled(pixels: Vec<[u8; 3]>, ratio: f32) -> (Vec<[u8; 3]>, Vec<[u8; 3]>) {
    if pixels.len() < 4 {
        return (pixels, Vec::new());
    }
    let mut lows: Vec<f32> = pixels.iter().map(smallest_linear).collect();
    let low_decile = *lows
        .select_nth_unstable_by(pixels.len() / 10, f32::total_cmp)
        .1;
    let limit = low_decile * ratio + NOISE_FLOOR;
    pixels
        .into_iter()
        .partition(|p| smallest_linear(p) <= limit)
}

/// The fraction of the usable pixels (under the glare level) of a `width`-wide region whose
/// smallest channel, averaged over their 3×3 neighbourhood, lies past the veil limit of
/// [`least_veiled`] set by the averaged values' lowest tenth.
fn smoothly_veiled(pixels: &[[u8; 3]], width: usize, params: &SampleParams) -> f32 {
    let height = pixels.len() / width.max(1);
    let lows = GrayImage::from_fn(width as u32, height as u32, |x, y| {
        let p = pixels[y as usize * width + x as usize];
        Luma([p[0].min(p[1]).min(p[2])])
    });
    let smooth = box_filter(&lows, 1, 1);
    let mut usable: Vec<f32> = pixels
        .iter()
        .zip(smooth.as_raw())
        .filter(|(p, _)| p.iter().min().is_some_and(|&m| m < params.glare_min))
        .map(|(_, &low)| LinRgb::from_srgb(Srgb::new(low, low, low)).r)
        .collect();
    if usable.len() < 4 {
        return 0.0;
    }
    let n = usable.len();
    let low_decile = *usable.select_nth_unstable_by(n / 10, f32::total_cmp).1;
    let limit = low_decile * params.veil_ratio + NOISE_FLOOR;
    usable.iter().filter(|&&v| v > limit).count() as f32 / n as f32
}

/// A pixel's smallest channel, linear.
fn smallest_linear(p: &[u8; 3]) -> f32 {
    let m = p[0].min(p[1]).min(p[2]);
    LinRgb::from_srgb(Srgb::new(m, m, m)).r
}

/// How far apart, in pooled standard deviations of the log of their smallest channel, two
/// groups of a cell's pixels must lie to be two surfaces: a veil's falloff spreads its pixels
/// evenly over the range (about 3), a sharp edge between two surfaces leaves two tight
/// clusters (20 and more), whatever blur or noise smooths it.
const SURFACES_APART: f32 = 8.0;

/// The colour of the brighter of two surfaces in a cell, when its pixels (`kept` and
/// `left_out` by the veil test) fall into two groups set far apart in their smallest
/// channel (Otsu's split of its log, each group at least a tenth of the pixels).
fn two_surfaces(kept: &[[u8; 3]], left_out: &[[u8; 3]]) -> Option<Srgb> {
    let mut all: Vec<(f32, [u8; 3])> = kept
        .iter()
        .chain(left_out)
        .map(|p| ((smallest_linear(p) + NOISE_FLOOR).ln(), *p))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = all.len();
    if n < 20 {
        return None;
    }
    let (mut sum, mut sq) = (0.0f64, 0.0f64);
    let prefix: Vec<(f64, f64)> = std::iter::once((0.0, 0.0))
        .chain(all.iter().map(|&(x, _)| {
            sum += f64::from(x);
            sq += f64::from(x) * f64::from(x);
            (sum, sq)
        }))
        .collect();
    let (total, total_sq) = prefix[n];
    let means = |k: usize| {
        (
            prefix[k].0 / k as f64,
            (total - prefix[k].0) / (n - k) as f64,
        )
    };
    let (k, _) = (n / 10..=n - n / 10)
        .map(|k| {
            let (m0, m1) = means(k);
            (k, (k * (n - k)) as f64 * (m1 - m0) * (m1 - m0))
        })
        .max_by(|x, y| x.1.total_cmp(&y.1))?;
    let (a, b) = (k as f64, (n - k) as f64);
    let (m0, m1) = means(k);
    let within = ((prefix[k].1 - a * m0 * m0) + (total_sq - prefix[k].1 - b * m1 * m1)) / n as f64;
    let apart = (m1 - m0) / within.max(1e-6).sqrt();
    (apart >= f64::from(SURFACES_APART)).then(|| {
        let upper: Vec<[u8; 3]> = all[k..].iter().map(|&(_, p)| p).collect();
        per_channel_median(&upper)
    })
}

/// The least share of the brightest channel's extra light that the others must get for the
/// pixels left out to be under a veil (neutral light added) rather than lit where the kept
/// ones are shadowed (light scaled, as coloured as the surface).
const NEUTRAL_SHARE: f32 = 0.6;

/// Whether the pixels `left_out` of a cell read as `kept` differ from it by added neutral
/// light, in the channels neither clips: a veil, not the lit side of a shadow's edge.
fn added_light(kept: Srgb, left_out: &[[u8; 3]]) -> bool {
    if left_out.is_empty() {
        return false;
    }
    let extra = LinRgb::from_srgb(per_channel_median(left_out));
    let base = LinRgb::from_srgb(kept);
    let clipped = Clipped::of(extra).0;
    let added: Vec<f32> = (0..3)
        .filter(|&c| !clipped[c])
        .map(|c| extra.to_array()[c] - base.to_array()[c])
        .collect();
    let most = added.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let least = added.iter().copied().fold(f32::INFINITY, f32::min);
    added.len() >= 2 && most > 0.0 && least >= NEUTRAL_SHARE * most
}

/// Most that shade within one cell darkens part of it (linear).
const MAX_SHADE: f32 = 4.0;
/// Largest difference of linear chromaticity (a channel's share of the sum) between a cell's
/// shaded and lit parts: noise and JPEG, not another colour.
const SHADE_CHROMATICITY: f32 = 0.02;

/// Whether the pixels left out as veiled (`left_out`) are the kept ones (median `kept`)
/// scaled up, as light falling past a shadow's edge makes them, rather than light added.
fn shade_only(kept: Srgb, left_out: &[[u8; 3]]) -> bool {
    if left_out.is_empty() {
        return false;
    }
    let dark = LinRgb::from_srgb(kept).to_array();
    let lit = LinRgb::from_srgb(per_channel_median(left_out)).to_array();
    if Clipped::of(LinRgb::from_array(lit)).any() {
        return false;
    }
    let (sd, sl) = (dark.iter().sum::<f32>(), lit.iter().sum::<f32>());
    sd > 0.0
        && sl <= MAX_SHADE * sd
        && (0..3).all(|c| (dark[c] / sd - lit[c] / sl).abs() <= SHADE_CHROMATICITY)
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
        assert_eq!(g[Pos::new(0, 1)].fringe, None);
    }

    #[test]
    fn a_mostly_glare_cell_keeps_its_fringe_only_when_all_of_it_is_in_the_roll_off() {
        // 100 pixels: 95 at full scale, 5 just below the glare level, still in the camera's
        // highlight roll-off (an over-exposed white).
        let mut img = RgbImage::from_pixel(10, 10, image::Rgb([255, 255, 255]));
        for x in 0..5 {
            img.put_pixel(x, 9, image::Rgb([246, 248, 252]));
        }
        let p = SampleParams {
            inner: 1.0,
            ..SampleParams::default()
        };
        let cell = sample_cells(&img, 1, 1, &p).unwrap()[Pos::new(0, 0)];
        assert_eq!(cell.coverage, 0.05);
        assert_eq!(cell.srgb, Srgb::new(255, 255, 255));
        assert_eq!(cell.fringe, Some(Srgb::new(246, 248, 252)));
        // One pixel at the highlight's edge shows the salmon beneath it: no fringe to trust.
        img.put_pixel(5, 9, image::Rgb([255, 247, 230]));
        let cell = sample_cells(&img, 1, 1, &p).unwrap()[Pos::new(0, 0)];
        assert_eq!(cell.coverage, 0.06);
        assert_eq!(cell.fringe, None);
    }

    /// A 40×40 cell of `colour` whose linear light is scaled by `shade(x, y)` and then gets
    /// `veil(x, y)` of white added (a highlight), with ±2 levels of deterministic noise.
    fn lit_cell(
        colour: [u8; 3],
        shade: impl Fn(f32, f32) -> f32,
        veil: impl Fn(f32, f32) -> f32,
    ) -> RgbImage {
        let lin = LinRgb::from_srgb(Srgb::new(colour[0], colour[1], colour[2]));
        RgbImage::from_fn(40, 40, |x, y| {
            let (u, v) = (x as f32 / 39.0, y as f32 / 39.0);
            let (s, w) = (shade(u, v), veil(u, v));
            let c = LinRgb::new(lin.r * s + w, lin.g * s + w, lin.b * s + w).to_srgb();
            let noise = ((x * 7 + y * 13) % 5) as i16 - 2;
            Rgb(c
                .to_array()
                .map(|v| (i16::from(v) + noise).clamp(0, 255) as u8))
        })
    }

    fn distance(a: Srgb, b: [u8; 3]) -> i16 {
        a.to_array()
            .iter()
            .zip(b)
            .map(|(&x, y)| (i16::from(x) - i16::from(y)).abs())
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_glare_veil_over_the_centre_is_left_out() {
        // A soft highlight, strongest at the centre and fading out by the cell's corners:
        // nowhere clipped, so the plain glare test keeps it all.
        let green = [56, 212, 83];
        let veil = |u: f32, v: f32| 0.8 * (-((u - 0.5).powi(2) + (v - 0.5).powi(2)) / 0.03).exp();
        let img = lit_cell(green, |_, _| 1.0, veil);
        let p = SampleParams::default();
        let got = sample_cells(&img, 1, 1, &p).unwrap()[Pos::new(0, 0)];
        assert!(distance(got.srgb, green) <= 8, "{got:?}");
        // Most of the central region lies under the veil.
        assert!(got.veiled > 0.5, "{got:?}");
        let plain = SampleParams {
            veil_ratio: f32::INFINITY,
            ..p
        };
        let veiled = sample_cells(&img, 1, 1, &plain).unwrap()[Pos::new(0, 0)];
        assert!(distance(veiled.srgb, green) >= 30, "{veiled:?}");
        // A veil's falloff is one surface, however much of the cell it covers.
        assert_eq!(got.other, None);
    }

    #[test]
    fn the_colour_of_a_veil_is_measured_from_the_cells_pixels() {
        // A highlight of a cool lamp (blue 1.25, red 0.8 of green) over a dull red.
        let red = LinRgb::from_srgb(Srgb::new(150, 40, 50)).to_array();
        let lamp = [0.8, 1.0, 1.25];
        let img = RgbImage::from_fn(40, 40, |x, y| {
            let (u, v) = (x as f32 / 39.0, y as f32 / 39.0);
            let w = 0.5 * (-((u - 0.5).powi(2) + (v - 0.5).powi(2)) / 0.03).exp();
            let c = LinRgb::from_array(std::array::from_fn(|i| red[i] + w * lamp[i])).to_srgb();
            Rgb(c.to_array())
        });
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        let light = got.veil_light.expect("a veil");
        let tilt = light.tilt([1.0; 3]).expect("a measurable veil");
        assert!((tilt - 1.25f32.ln()).abs() < 0.1, "{tilt} from {light:?}");
        // After a white balance that makes that lamp neutral, the veil is neutral.
        let balanced = light.tilt([1.25, 1.0, 0.8]).expect("a measurable veil");
        assert!(balanced.abs() < 0.1, "{balanced}");
        // A plain cell shows no veil; a veil that
        // compresses green shows no measurable colour.
        let plain = lit_cell([150, 40, 50], |_, _| 1.0, |_, _| 0.0);
        let got = sample_cells(&plain, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert_eq!(got.veil_light, None);
        let clipped = VeilLight {
            added: LinRgb::new(0.3, 0.5, 0.4),
            compressed: Clipped([false, true, false]),
        };
        assert_eq!(clipped.tilt([1.0; 3]), None);
    }

    #[test]
    fn a_sliver_of_another_surface_is_told_from_a_veil() {
        // A lavender cell whose layer is shifted: along its left edge a sliver of the navy
        // card below shows, a seventh of the sampled region, its edge blurred over a few
        // pixels. The veil test keeps the darkest pixels, the sliver; the rest is lavender.
        let lavender = [163, 156, 218];
        let sliver = |u: f32, _: f32| 0.04 + 0.96 * ((u - 0.22) / 0.06).clamp(0.0, 1.0);
        let img = lit_cell(lavender, sliver, |_, _| 0.0);
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert!(distance(got.srgb, lavender) >= 100, "{got:?}");
        let other = got.other.expect("two surfaces");
        assert!(distance(other, lavender) <= 6, "{got:?}");
    }

    #[test]
    fn a_shadow_or_noise_is_not_taken_for_a_veil() {
        let sky = [141, 188, 223];
        // Noise only: the whole cell counts.
        let img = lit_cell(sky, |_, _| 1.0, |_, _| 0.0);
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert!(distance(got.srgb, sky) <= 2, "{got:?}");
        assert!(got.veiled < 0.05, "{got:?}");
        // A shadow's soft edge across the cell, 12% darker on the right: the middle of the
        // cell, not its darkest part.
        let img = lit_cell(sky, |u, _| 1.0 - 0.12 * u, |_, _| 0.0);
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        let middle = lit_cell(sky, |_, _| 0.94, |_, _| 0.0).get_pixel(0, 2).0;
        assert!(distance(got.srgb, middle) <= 3, "{got:?} vs {middle:?}");
    }

    #[test]
    fn a_cell_partly_in_shade_reads_as_its_lit_part_not_its_darker_twin() {
        // Aqua at the bottom of a well, the wall's soft shadow over a third of it, down to
        // 30% of the light: aqua so dimmed is teal, another colour of the set. (A hard
        // shadow edge is two surfaces, which leave the cell doubtful.)
        let aqua = [44, 225, 233];
        let shade = |u: f32, _| 0.3 + 0.7 * ((u - 0.2) / 0.3).clamp(0.0, 1.0);
        let img = lit_cell(aqua, shade, |_, _| 0.0);
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert_eq!(got.veil_light, None, "{got:?}");
        assert!(distance(got.srgb, aqua) <= 4, "{got:?}");
    }

    #[test]
    fn sensor_noise_on_two_dark_channels_is_no_veil() {
        // Bright green (green near clipping), whose red and blue are both dark, with ±16
        // levels of brightness noise per pixel (a small sensor in dim light; JPEG's halved
        // chroma keeps the noise in brightness): the pixels with the higher smallest channel
        // are lighter in red and blue alike, as under neutral light added, and the darkest
        // tenth lies well below the rest. A veil is smooth across the cell; the noise is
        // pixel by pixel. (Pixel by pixel, 71% of the cell would count as veiled.)
        let green = [76u8, 246, 66];
        let mut state = 12345u32;
        let img = RgbImage::from_fn(40, 40, |_, _| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let noise = ((state >> 16) % 33) as i16 - 33 / 2;
            Rgb(green.map(|v| (i16::from(v) + noise).clamp(0, 255) as u8))
        });
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert!(got.veiled <= MOSTLY_VEILED, "{got:?}");
    }

    #[test]
    fn a_veil_may_reach_the_neighbours_of_a_veiled_or_clipped_cell() {
        let clear = CellSample::plain(Srgb::new(120, 40, 160));
        let mut samples = Grid::filled(4, 4, clear);
        samples[Pos::new(1, 1)].veiled = 0.7;
        samples[Pos::new(3, 3)].coverage = 0.9;
        let veil = may_be_veiled(&samples);
        let flagged: Vec<Pos> = veil.positions().filter(|&p| veil[p]).collect();
        let mut expected: Vec<Pos> = (0..3)
            .flat_map(|r| (0..3).map(move |c| Pos::new(r, c)))
            .chain([
                Pos::new(2, 2),
                Pos::new(2, 3),
                Pos::new(3, 2),
                Pos::new(3, 3),
            ])
            .collect();
        expected.sort();
        expected.dedup();
        let mut flagged = flagged;
        flagged.sort();
        assert_eq!(flagged, expected);
    }

    #[test]
    fn the_lit_side_of_a_shadow_edge_is_no_veil() {
        // A hard shadow over the left 60% of a lavender cell: the lit part is left out of
        // the sample, but its extra light is lavender, not white.
        let lavender = [163, 156, 218];
        let img = lit_cell(
            lavender,
            |u, _| if u < 0.6 { 0.55 } else { 1.0 },
            |_, _| 0.0,
        );
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert_eq!(got.veiled, 0.0, "{got:?}");
        // The same cell under a highlight as large: that is a veil.
        let veil = |u: f32, _| if u < 0.6 { 0.0 } else { 0.3 };
        let img = lit_cell(lavender, |_, _| 0.55, veil);
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert!(got.veiled > 0.2, "{got:?}");
    }

    #[test]
    fn an_over_exposed_white_card_is_a_bright_surface_not_glare() {
        // The card reads (254, 255, 250) ± 4: about half its pixels reach the glare
        // level, and the rest are just as white.
        let img = RgbImage::from_fn(40, 40, |x, y| {
            let noise = ((x * 7 + y * 13) % 9) as u8;
            Rgb([254, 255, 246 + noise])
        });
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert_eq!(got.coverage, 1.0, "{got:?}");
        // Brighter still, only a seventh of it under the glare level: that could as well be
        // a highlight that clipped a violet cell, so it stays "mostly glare".
        let img = RgbImage::from_fn(40, 40, |x, y| {
            let noise = ((x * 7 + y * 13) % 7) as u8;
            Rgb([254, 255, 249 + noise])
        });
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert!(got.coverage < 0.2, "{got:?}");
        // A sky-blue cell under a highlight that clips its middle is not: what is left of it
        // is blue, and the clipped part hides the cell.
        let sky = [141, 188, 223];
        let veil = |u: f32, v: f32| 2.0 * (-((u - 0.5).powi(2) + (v - 0.5).powi(2)) / 0.03).exp();
        let img = lit_cell(sky, |_, _| 1.0, veil);
        let got = sample_cells(&img, 1, 1, &SampleParams::default()).unwrap()[Pos::new(0, 0)];
        assert!(got.coverage < 0.9, "{got:?}");
        assert!(distance(got.srgb, sky) <= 12, "{got:?}");
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
