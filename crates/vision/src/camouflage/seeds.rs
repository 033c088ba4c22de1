//! Seeds of the lattice: card centres found without knowing the lattice, and the test that a
//! lattice square is a card centre.
//!
//! A centre is a square of light card stock with dark ink in its middle (the deck's symbol),
//! bordered by pattern squares. Thresholded against its neighbourhood it is a light convex
//! quad with dark holes near its middle only: a table's light tiles have no holes, textured
//! patterns have holes everywhere. The thresholds run at several window sizes, ArUco-style,
//! because the size of a square in the photo is not known yet.

use image::RgbImage;
use opencv::core::{Mat, Point, Vector};
use opencv::imgproc;

use crate::error::VisionError;
use crate::geom::{centre, inside, signed_area};
use crate::mat::rgb_to_mat;
use crate::rectify::{apply_homography, Homography, Quad};
use crate::refine::Lookup;

/// A light quad with ink near its middle: probably a card centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Seed {
    /// Clockwise on screen, starting at the corner nearest the photo's top-left.
    pub quad: Quad,
    pub area: f32,
}

/// Light quads with holes near their middle, at every threshold window; duplicates merged.
pub(crate) fn find_seeds(image: &RgbImage) -> Result<Vec<Seed>, VisionError> {
    let cv = VisionError::opencv;
    let rgb = rgb_to_mat(image)?;
    let mut grey = Mat::default();
    imgproc::cvt_color_def(&rgb, &mut grey, imgproc::COLOR_RGB2GRAY).map_err(cv("cvt_color"))?;
    let short = image.width().min(image.height()) as i32;
    let min_area = (short as f32 / 80.0).max(6.0).powi(2);
    let max_area = (short as f32 / 3.0).powi(2);
    let mut seeds: Vec<Seed> = Vec::new();
    let mut bin = Mat::default();
    // Windows from about two squares of a small board to two of a close-up one; at each,
    // stricter and stricter levels of light, which part a centre from a light neighbour.
    for (div, level) in [24, 12, 6]
        .into_iter()
        .flat_map(|d| [4.0, 12.0, 20.0, 30.0].map(|l| (d, l)))
    {
        let block = ((short / div) | 1).max(11);
        imgproc::adaptive_threshold(
            &grey,
            &mut bin,
            255.0,
            imgproc::ADAPTIVE_THRESH_MEAN_C,
            imgproc::THRESH_BINARY,
            block,
            -level,
        )
        .map_err(cv("adaptive_threshold"))?;
        let mut contours: Vector<Vector<Point>> = Vector::new();
        let mut hierarchy: Vector<opencv::core::Vec4i> = Vector::new();
        imgproc::find_contours_with_hierarchy_def(
            &bin,
            &mut contours,
            &mut hierarchy,
            imgproc::RETR_CCOMP,
            imgproc::CHAIN_APPROX_SIMPLE,
        )
        .map_err(cv("find_contours"))?;
        for (i, contour) in contours.iter().enumerate() {
            let h = hierarchy.get(i).map_err(cv("hierarchy"))?;
            // Outer boundaries only (their holes are listed as children).
            if h[3] >= 0 || h[2] < 0 {
                continue;
            }
            let area = imgproc::contour_area_def(&contour).map_err(cv("contour_area"))? as f32;
            if area < min_area || area > max_area {
                continue;
            }
            let Some(quad) = quad_of(&contour)? else {
                continue;
            };
            let quad_area = signed_area(&quad).abs();
            if area < 0.8 * quad_area {
                continue;
            }
            if !holes_in_middle(&contours, &hierarchy, h[2], &quad, quad_area)? {
                continue;
            }
            let c = centre(&quad);
            let side = quad_area.sqrt();
            if seeds
                .iter()
                .all(|s| crate::geom::dist(centre(&s.quad), c) > 0.3 * side)
            {
                seeds.push(Seed {
                    quad,
                    area: quad_area,
                });
            }
        }
    }
    Ok(seeds)
}

/// The contour as a convex quad, clockwise from its top-left-most corner, if it is one.
fn quad_of(contour: &Vector<Point>) -> Result<Option<Quad>, VisionError> {
    let cv = VisionError::opencv;
    let peri = imgproc::arc_length(contour, true).map_err(cv("arc_length"))?;
    let mut approx: Vector<Point> = Vector::new();
    imgproc::approx_poly_dp(contour, &mut approx, 0.05 * peri, true)
        .map_err(cv("approx_poly_dp"))?;
    if approx.len() != 4 || !imgproc::is_contour_convex(&approx).map_err(cv("convex"))? {
        return Ok(None);
    }
    let mut q: Quad = [[0.0; 2]; 4];
    for (o, p) in q.iter_mut().zip(approx.iter()) {
        *o = [p.x as f32, p.y as f32];
    }
    if signed_area(&q) < 0.0 {
        q.reverse();
    }
    // A square seen at up to ~50° of tilt: its two pairs of sides within a factor of 1.7 (a
    // centre merged with a light neighbour into a 1 × 2 block is twice as long).
    let len = |i: usize| crate::geom::dist(q[i], q[(i + 1) % 4]);
    let (a, b) = (len(0) + len(2), len(1) + len(3));
    if a.max(b) > 1.7 * a.min(b) {
        return Ok(None);
    }
    let first = (0..4)
        .min_by(|&i, &j| (q[i][0] + q[i][1]).total_cmp(&(q[j][0] + q[j][1])))
        .unwrap_or(0);
    Ok(Some(crate::geom::turn(&q, first)))
}

/// Whether the holes of a light region (its children, from `first`) are ink of a symbol: all
/// in the quad's middle, covering between 3% and 60% of it.
fn holes_in_middle(
    contours: &Vector<Vector<Point>>,
    hierarchy: &Vector<opencv::core::Vec4i>,
    first: i32,
    quad: &Quad,
    quad_area: f32,
) -> Result<bool, VisionError> {
    let cv = VisionError::opencv;
    let c = centre(quad);
    // The quad shrunk to 80% about its centre: ink stays inside it.
    let inner: Quad = quad.map(|p| [c[0] + 0.8 * (p[0] - c[0]), c[1] + 0.8 * (p[1] - c[1])]);
    let mut hole_area = 0.0;
    let mut child = first;
    while child >= 0 {
        let hole = contours.get(child as usize).map_err(cv("hole"))?;
        let a = imgproc::contour_area_def(&hole).map_err(cv("contour_area"))? as f32;
        // Speckles of noise are not ink.
        if a >= 0.002 * quad_area {
            if !hole
                .iter()
                .all(|p| inside(&inner, [p.x as f32, p.y as f32]))
            {
                return Ok(false);
            }
            hole_area += a;
        }
        child = hierarchy.get(child as usize).map_err(cv("hierarchy"))?[0];
    }
    Ok((0.03..=0.6).contains(&(hole_area / quad_area)))
}

/// What a lattice square looks like as a possible centre (see [`CentreLook::is_centre`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CentreLook {
    /// Mean of the stock ring just inside the square's edge, sRGB 0..255 per channel.
    pub ring: [f32; 3],
    /// Median luma of the ring.
    pub ring_luma: f32,
    /// Share of ring samples much darker than the ring's median (texture, ink, edges).
    pub ring_dark: f32,
    /// Share of the middle's samples much darker than the ring: the symbol's ink.
    pub ink: f32,
    /// How coloured the ink is against the stock: 0 for grey or black ink.
    pub ink_tint: f32,
    /// The ink map of the middle, [`SYMBOL_SIDE`]² values in 0..1, row-major in the lattice
    /// frame.
    pub symbol: [f32; SYMBOL_CELLS],
}

/// Side of a symbol's ink map.
pub(crate) const SYMBOL_SIDE: usize = 12;
const SYMBOL_CELLS: usize = SYMBOL_SIDE * SYMBOL_SIDE;

fn luma(p: [f32; 3]) -> f32 {
    0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]
}

impl CentreLook {
    /// Measures the square whose unit square `[0,1]²` the homography `h` maps into the photo.
    pub fn measure(lookup: &Lookup, h: &Homography) -> Option<CentreLook> {
        const N: usize = 24;
        let mut ring = Vec::with_capacity(N * 4);
        let mut ring_sum = [0.0f32; 3];
        let mut middle: Vec<[f32; 3]> = Vec::with_capacity(N * N / 2);
        for i in 0..N {
            for j in 0..N {
                let (x, y) = ((j as f32 + 0.5) / N as f32, (i as f32 + 0.5) / N as f32);
                let d = (x - 0.5).abs().max((y - 0.5).abs());
                if !(d < 0.36 || (0.38..0.45).contains(&d)) {
                    continue;
                }
                let p = lookup.rgb(apply_homography(h, [x, y])?)?;
                if d < 0.36 {
                    middle.push(p);
                } else {
                    ring.push(luma(p));
                    for c in 0..3 {
                        ring_sum[c] += p[c];
                    }
                }
            }
        }
        let n = ring.len() as f32;
        let mut sorted = ring.clone();
        sorted.sort_by(f32::total_cmp);
        let ring_luma = sorted[sorted.len() / 2];
        let ring_dark = ring.iter().filter(|&&l| l < 0.8 * ring_luma).count() as f32 / n;
        let ring_mean = ring_sum.map(|s| s / n);
        let mut ink_sum = [0.0f32; 3];
        let mut ink_count = 0;
        for p in middle.iter().filter(|&&p| luma(p) < 0.6 * ring_luma) {
            ink_count += 1;
            for c in 0..3 {
                ink_sum[c] += p[c];
            }
        }
        let ink = ink_count as f32 / middle.len() as f32;
        // The ink's colour relative to the stock's: equal ratios for grey or black ink under
        // any light; a red or blue mark (a table's check, a pattern's spot) differs.
        let ratios: [f32; 3] = std::array::from_fn(|c| ink_sum[c] / ring_mean[c].max(1.0));
        let mean_ratio = (ratios[0] + ratios[1] + ratios[2]) / 3.0;
        let ink_tint = if ink_count == 0 {
            0.0
        } else {
            (ratios.iter().fold(f32::MIN, |a, &b| a.max(b))
                - ratios.iter().fold(f32::MAX, |a, &b| a.min(b)))
                / mean_ratio.max(1e-3)
        };
        let mut symbol = [0.0f32; SYMBOL_CELLS];
        const S: usize = SYMBOL_SIDE;
        for (k, v) in symbol.iter_mut().enumerate() {
            // The middle 0.72 of the square, where symbols are printed.
            let x = 0.14 + 0.72 * ((k % S) as f32 + 0.5) / S as f32;
            let y = 0.14 + 0.72 * ((k / S) as f32 + 0.5) / S as f32;
            let l = luma(lookup.rgb(apply_homography(h, [x, y])?)?);
            *v = (1.0 - l / ring_luma.max(1.0)).clamp(0.0, 1.0);
        }
        Some(CentreLook {
            ring: ring_mean,
            ink_tint,
            ring_luma,
            ring_dark,
            ink,
            symbol,
        })
    }

    /// Dark, uncoloured ink in the middle of something light: worth a closer look (the ring
    /// may still straddle the square's edge).
    pub fn may_be_centre(&self) -> bool {
        (0.04..0.65).contains(&self.ink) && self.ink_tint < 0.5 && self.ring_luma > 40.0
    }

    /// Light, even stock around dark, uncoloured ink in the middle. `stock_luma` is the typical centre's ring
    /// luma in this photo (0 when none is known yet): a centre is not much darker than the
    /// others, which tells it from a mid-tone pattern square with a dark spot.
    pub fn is_centre(&self, stock_luma: f32) -> bool {
        self.ring_dark < 0.1
            && (0.04..0.65).contains(&self.ink)
            && self.ink_tint < 0.5
            && self.ring_luma > 40.0
            && self.ring_luma > 0.6 * stock_luma
    }
}
