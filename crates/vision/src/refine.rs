//! Sub-pixel refinement of a located grid at full resolution, touching only pixels near its
//! four sides.
//!
//! Along each side of the coloured area (the cell area itself for touching cells; the outer
//! edges of the outer patches for a gapped chart), the colour profile across the side is read
//! at a few points per cell; the strongest step in each profile (sum over channels of the
//! derivative, with a parabola through the peak for sub-pixel position) is an edge point.
//! A line is fitted to each side's points (least squares, then again without outliers, so a
//! dark cell against a dark frame or a speck of glare does not pull it), and adjacent lines
//! are intersected. Works in ideal (undistorted) coordinates when a [`Camera`] is given.

use std::sync::OnceLock;

use image::RgbImage;
use tablejudge_rules::Srgb;

use crate::camera::Camera;
use crate::geom::{dist, homography_4, map_quad, rect, signed_area, Line};
use crate::rectify::{apply_homography, Quad};

/// How refinement searches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefineParams {
    /// Rounds of search and fit; each halves the search window.
    pub iterations: usize,
    /// Half-width of the first search window, in cells along the lattice normal.
    pub window: f32,
    /// Smallest step, summed over channels per pixel, that counts as an edge.
    pub min_step: f32,
}

impl Default for RefineParams {
    /// Two rounds, starting ±0.2 cells, steps of at least 12 levels per pixel.
    fn default() -> Self {
        RefineParams {
            iterations: 2,
            window: 0.2,
            min_step: 12.0,
        }
    }
}

/// Reads an RGB photo at sub-pixel positions given in ideal coordinates.
pub struct Lookup<'a> {
    image: &'a RgbImage,
    camera: Option<&'a Camera>,
    /// R + G + B of every pixel, made on the first [`Lookup::brightness`].
    sums: OnceLock<Vec<u16>>,
}

impl<'a> Lookup<'a> {
    /// Looks `image` up directly, or through `camera`'s distortion.
    pub fn new(image: &'a RgbImage, camera: Option<&'a Camera>) -> Lookup<'a> {
        Lookup {
            image,
            camera,
            sums: OnceLock::new(),
        }
    }

    /// Where ideal point `p` lies in the photo.
    pub fn source(&self, p: [f32; 2]) -> [f32; 2] {
        match self.camera {
            Some(c) => {
                let q = c.distort([f64::from(p[0]), f64::from(p[1])]);
                [q[0] as f32, q[1] as f32]
            }
            None => p,
        }
    }

    /// The bilinear colour at ideal point `p`, rounded to 8 bits; `None` outside the photo.
    pub fn srgb(&self, p: [f32; 2]) -> Option<Srgb> {
        self.rgb(p).map(|px| {
            let [r, g, b] = px.map(round_to_u8);
            Srgb::new(r, g, b)
        })
    }

    /// The bilinear RGB value at ideal point `p`; `None` outside the photo.
    pub fn rgb(&self, p: [f32; 2]) -> Option<[f32; 3]> {
        let [x, y] = self.source(p);
        let (w, h) = self.image.dimensions();
        if !(x >= 0.0 && y >= 0.0 && x <= (w - 1) as f32 && y <= (h - 1) as f32) {
            return None;
        }
        // Both are at least 0, so truncation is the floor (and no call into libm, which
        // `floor` is without SSE4.1; this is the hot loop of the number test).
        let (x0, y0) = (x as u32, y as u32);
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let raw = self.image.as_raw();
        let row = w as usize * 3;
        let at = y0 as usize * row + x0 as usize * 3;
        // The right and lower neighbours; on the last column or row, the pixel itself.
        let right = if x0 + 1 < w { 3 } else { 0 };
        let below = if y0 + 1 < h { row } else { 0 };
        // One bounds check per pixel, not per channel: this runs for every margin sample.
        let px = |i: usize| -> [f32; 3] {
            let s = &raw[i..i + 3];
            [f32::from(s[0]), f32::from(s[1]), f32::from(s[2])]
        };
        let (p00, p10) = (px(at), px(at + right));
        let (p01, p11) = (px(at + below), px(at + below + right));
        Some(std::array::from_fn(|c| {
            let top = p00[c] * (1.0 - fx) + p10[c] * fx;
            let bot = p01[c] * (1.0 - fx) + p11[c] * fx;
            top * (1.0 - fy) + bot * fy
        }))
    }

    /// The bilinear R + G + B at ideal point `p`, as the sum of [`Lookup::rgb`]'s channels
    /// (equal but for rounding) at a third of its cost; `None` outside the photo.
    #[inline]
    pub fn brightness(&self, p: [f32; 2]) -> Option<f32> {
        let [x, y] = self.source(p);
        let (w, h) = self.image.dimensions();
        if !(x >= 0.0 && y >= 0.0 && x <= (w - 1) as f32 && y <= (h - 1) as f32) {
            return None;
        }
        let sums = self.sums.get_or_init(|| {
            self.image
                .as_raw()
                .chunks_exact(3)
                .map(|px| u16::from(px[0]) + u16::from(px[1]) + u16::from(px[2]))
                .collect()
        });
        // Both are at least 0, so truncation is the floor (as in `rgb`).
        let (x0, y0) = (x as u32, y as u32);
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let at = y0 as usize * w as usize + x0 as usize;
        let right = usize::from(x0 + 1 < w);
        let below = if y0 + 1 < h { w as usize } else { 0 };
        let v = |i: usize| f32::from(sums[i]);
        let top = v(at) * (1.0 - fx) + v(at + right) * fx;
        let bot = v(at + below) * (1.0 - fx) + v(at + below + right) * fx;
        Some(top * (1.0 - fy) + bot * fy)
    }
}

/// `v` (within 0..=255) rounded half away from zero like `f32::round`, without its libm call.
fn round_to_u8(v: f32) -> u8 {
    let v = v.clamp(0.0, 255.0);
    let t = v as u8;
    // `v - t` is exact (Sterbenz), so this is round's own test.
    if v - f32::from(t) >= 0.5 {
        t + 1
    } else {
        t
    }
}

/// Refines the cell-area `corners` (ideal coordinates, side 0→1 spanning the `cols`) of a grid
/// whose coloured parts fill `fill` of each cell's side. Returns the refined corners, or the
/// given ones when the edges do not support a change (too few edge points, or a jump of more
/// than half a cell).
pub fn refine(
    look: &Lookup<'_>,
    corners: &Quad,
    rows: usize,
    cols: usize,
    fill: f32,
    params: &RefineParams,
) -> Quad {
    let mut quad = *corners;
    let (r, c) = (rows as f32, cols as f32);
    let mut fill = fill;
    let cell = (signed_area(corners).max(1.0) / (r * c)).sqrt();
    let mut window = params.window;
    for _ in 0..params.iterations {
        let Some(g) = homography_4(&rect(0.0, 0.0, c, r), &quad) else {
            return quad;
        };
        // Patches with gaps: measure the gap where two patches face each other, so the
        // lattice is placed half a gap outside the outer patches' edges whatever the gap.
        if fill < 0.98 {
            if let Some(f) = measure_fill(look, &g, rows, cols, params.min_step) {
                fill = f;
            }
        }
        let d = ((1.0 - fill) / 2.0).clamp(0.0, 0.4);
        let edge_box = rect(d, d, c - d, r - d);
        let mut lines: [Option<Line>; 4] = [None; 4];
        for (side, line) in lines.iter_mut().enumerate() {
            let (a, b) = (edge_box[side], edge_box[(side + 1) % 4]);
            let normal = match side {
                0 => [0.0, -1.0],
                1 => [1.0, 0.0],
                2 => [0.0, 1.0],
                _ => [-1.0, 0.0],
            };
            let n_cells = if side % 2 == 0 { cols } else { rows };
            let mut pts = Vec::with_capacity(n_cells * 6);
            for i in 0..n_cells {
                for t in [0.15, 0.3, 0.45, 0.6, 0.75, 0.9] {
                    // Positions inside cell i's part of the side (away from the corners of
                    // patches, where a gapped chart's edges turn).
                    let s = (i as f32 + d + t * (1.0 - 2.0 * d)) / n_cells as f32;
                    let lp = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s];
                    if let Some(p) = edge_point(look, &g, lp, normal, window, params.min_step) {
                        pts.push(p);
                    }
                }
            }
            *line = robust_line(&pts);
        }
        let fallback = map_quad(&g, &edge_box);
        let side_line = |i: usize| -> Option<Line> {
            lines[i].or_else(|| {
                let q = fallback?;
                let (a, b) = (q[i], q[(i + 1) % 4]);
                Line::fit(&[
                    [f64::from(a[0]), f64::from(a[1])],
                    [f64::from(b[0]), f64::from(b[1])],
                ])
            })
        };
        let mut found = [[0.0f32; 2]; 4];
        for (k, corner) in found.iter_mut().enumerate() {
            // Corner k is where side k-1 (before it) meets side k (after it).
            let (Some(l0), Some(l1)) = (side_line((k + 3) % 4), side_line(k)) else {
                return quad;
            };
            let Some(p) = l0.intersect(&l1) else {
                return quad;
            };
            *corner = [p[0] as f32, p[1] as f32];
        }
        let Some(back) = homography_4(&edge_box, &found) else {
            return quad;
        };
        let Some(next) = map_quad(&back, &rect(0.0, 0.0, c, r)) else {
            return quad;
        };
        if signed_area(&next) <= 0.0 || (0..4).any(|i| dist(next[i], corners[i]) > 0.5 * cell) {
            return quad;
        }
        quad = next;
        // Narrower next time, but never under about two pixels.
        window = (window / 2.0).max(2.0 / cell);
    }
    quad
}

/// The strongest colour step across the side at lattice point `lp`, searched along the
/// lattice normal within ±`window` **cells** (so a foreshortened side is searched over a
/// foreshortened width and never reaches a frame's outer edge); steps far from the expected
/// position count a little less. `None` when the step is weaker than `min_step`.
fn edge_point(
    look: &Lookup<'_>,
    g: &crate::rectify::Homography,
    lp: [f32; 2],
    normal: [f32; 2],
    window: f32,
    min_step: f32,
) -> Option<[f64; 2]> {
    let at = |s: f32| apply_homography(g, [lp[0] + s * normal[0], lp[1] + s * normal[1]]);
    let (lo, hi) = (at(-window)?, at(window)?);
    let len = dist(lo, hi);
    if len < 2.0 {
        return None;
    }
    const STEP: f32 = 0.5;
    let n_steps = (len / STEP).ceil() as usize;
    let dir = [(hi[0] - lo[0]) / len, (hi[1] - lo[1]) / len];
    let step = len / n_steps as f32;
    let mut profile = Vec::with_capacity(n_steps + 1);
    for i in 0..=n_steps {
        let s = i as f32 * step;
        profile.push(look.rgb([lo[0] + s * dir[0], lo[1] + s * dir[1]])?);
    }
    // Derivative per pixel, summed over channels, at each interior sample.
    let grad: Vec<f32> = (1..profile.len() - 1)
        .map(|i| {
            (0..3)
                .map(|c| (profile[i + 1][c] - profile[i - 1][c]).abs())
                .sum::<f32>()
                / (2.0 * step)
        })
        .collect();
    let mid = grad.len() as f32 / 2.0;
    let weight = |i: usize| 1.0 - 0.4 * ((i as f32 - mid) / mid).powi(2);
    let best =
        (0..grad.len()).max_by(|&a, &b| (grad[a] * weight(a)).total_cmp(&(grad[b] * weight(b))))?;
    let peak = grad[best];
    if peak < min_step || best == 0 || best + 1 == grad.len() {
        return None;
    }
    let (l, r) = (grad[best - 1], grad[best + 1]);
    let denom = l - 2.0 * peak + r;
    let offset = if denom.abs() > 1e-6 {
        0.5 * (l - r) / denom
    } else {
        0.0
    };
    // grad[i] sits at profile[i + 1].
    let s = (best as f32 + 1.0 + offset.clamp(-0.5, 0.5)) * step;
    Some([f64::from(lo[0] + s * dir[0]), f64::from(lo[1] + s * dir[1])])
}

/// The fraction of the pitch a patch fills, from the gaps on interior lattice lines: across
/// each line, in every cell row (or column), the strongest step on either side of the line
/// is a patch edge; the median distance between the two is the gap.
fn measure_fill(
    look: &Lookup<'_>,
    g: &crate::rectify::Homography,
    rows: usize,
    cols: usize,
    min_step: f32,
) -> Option<f32> {
    let mut gaps = Vec::new();
    let mut probe = |a: [f32; 2], b: [f32; 2]| {
        // Lattice points a → b, 0.8 cells apart, centred on the line.
        let (pa, pb) = (apply_homography(g, a)?, apply_homography(g, b)?);
        let len = dist(pa, pb);
        let n = (len / 0.5).ceil().max(8.0) as usize;
        let prof: Option<Vec<[f32; 3]>> = (0..=n)
            .map(|i| {
                let t = i as f32 / n as f32;
                look.rgb([pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1])])
            })
            .collect();
        let prof = prof?;
        let step = len / n as f32;
        let grad: Vec<f32> = (1..n)
            .map(|i| {
                (0..3)
                    .map(|ch| (prof[i + 1][ch] - prof[i - 1][ch]).abs())
                    .sum::<f32>()
                    / (2.0 * step)
            })
            .collect();
        let half = grad.len() / 2;
        let peak = |range: std::ops::Range<usize>| {
            range
                .max_by(|&x, &y| grad[x].total_cmp(&grad[y]))
                .filter(|&i| grad[i] >= min_step)
        };
        let (l, r) = (peak(0..half)?, peak(half..grad.len())?);
        // grad[i] is at profile index i + 1; the probe spans 0.8 cells.
        gaps.push((r - l) as f32 / n as f32 * 0.8);
        Some(())
    };
    for j in 1..cols {
        for i in 0..rows {
            let (x, y) = (j as f32, i as f32 + 0.5);
            probe([x - 0.4, y], [x + 0.4, y]);
        }
    }
    for i in 1..rows {
        for j in 0..cols {
            let (x, y) = (j as f32 + 0.5, i as f32);
            probe([x, y - 0.4], [x, y + 0.4]);
        }
    }
    if gaps.len() < 3 {
        return None;
    }
    gaps.sort_by(f32::total_cmp);
    let gap = gaps[gaps.len() / 2];
    (0.0..0.6).contains(&gap).then_some(1.0 - gap)
}

/// A line through the points, refitted without those more than 2.5 robust deviations (at least
/// a pixel) away; `None` with fewer than three points.
fn robust_line(pts: &[[f64; 2]]) -> Option<Line> {
    if pts.len() < 3 {
        return None;
    }
    let mut line = Line::fit(pts)?;
    for _ in 0..2 {
        let mut res: Vec<f64> = pts.iter().map(|&p| line.distance(p).abs()).collect();
        res.sort_by(f64::total_cmp);
        let mad = res[res.len() / 2] * 1.4826;
        let cut = (2.5 * mad).max(1.0);
        let kept: Vec<[f64; 2]> = pts
            .iter()
            .copied()
            .filter(|&p| line.distance(p).abs() <= cut)
            .collect();
        if kept.len() < 3 {
            break;
        }
        line = Line::fit(&kept)?;
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn round_to_u8_rounds_like_f32_round(v in -10.0f32..270.0) {
            proptest::prop_assert_eq!(round_to_u8(v), v.round().clamp(0.0, 255.0) as u8);
        }
    }

    #[test]
    fn round_to_u8_at_the_halves() {
        for v in [0.0, 0.5, 0.499_999_97, 1.5, 2.5, 254.5, 254.499_98, 255.0] {
            assert_eq!(round_to_u8(v), v.round() as u8, "{v}");
        }
    }

    #[test]
    fn bilinear_lookup_between_four_pixels() {
        let img = RgbImage::from_fn(2, 2, |x, y| image::Rgb([(100 * x + 10 * y) as u8, 0, 255]));
        let look = Lookup::new(&img, None);
        assert_eq!(look.rgb([0.5, 0.5]), Some([55.0, 0.0, 255.0]));
        assert_eq!(look.srgb([0.25, 0.0]), Some(Srgb::new(25, 0, 255)));
        assert_eq!(look.rgb([1.0, 1.0]), Some([110.0, 0.0, 255.0]));
        // On the last row and column, between the pixels along it.
        assert_eq!(look.rgb([0.5, 1.0]), Some([60.0, 0.0, 255.0]));
        assert_eq!(look.rgb([1.0, 0.5]), Some([105.0, 0.0, 255.0]));
        assert_eq!(look.rgb([1.01, 0.0]), None);
        assert_eq!(look.rgb([-0.01, 0.0]), None);
    }

    proptest::proptest! {
        /// Brightness is the channels' sum of the bilinear colour, edges and outside included.
        #[test]
        fn brightness_is_the_sum_of_the_bilinear_channels(
            seed in 0u32..1000,
            x in -1.0f32..6.0,
            y in -1.0f32..5.0,
        ) {
            let img = RgbImage::from_fn(5, 4, |i, j| {
                let v = (i * 37 + j * 91 + seed * 13) % 256;
                image::Rgb([v as u8, (255 - v) as u8, ((v * 7) % 256) as u8])
            });
            let look = Lookup::new(&img, None);
            match (look.brightness([x, y]), look.rgb([x, y])) {
                (Some(b), Some(c)) => proptest::prop_assert!((b - (c[0] + c[1] + c[2])).abs() < 1e-2),
                (b, c) => proptest::prop_assert!(b.is_none() && c.is_none()),
            }
        }
    }
}
