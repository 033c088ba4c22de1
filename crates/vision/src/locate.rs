//! Locating the most prominent R×C grid of coloured cells in a photo.
//!
//! 1. **Detection copy.** The photo is shrunk by an integer factor (`INTER_AREA`) so its long
//!    side is at most [`LocateParams::detect_long_side`]; everything up to scoring runs there.
//! 2. **Quads.** Contours of two binary maps (local-mean threshold of dark parts, and
//!    dilated Canny edges unless [`LocateParams::edges`] is off), all of them, inner
//!    boundaries included (`RETR_LIST`), so a frame's inner edge and a chart body's holes
//!    are found; each is simplified with `approxPolyDP` (or its convex hull when a dark cell
//!    notches a frame's inner edge) to a convex quad.
//! 3. **Hypotheses.** Every large quad is a candidate cell area, in both orientations when
//!    rows ≠ cols, and the largest are also tried as the *outer* edge of a frame or chart body
//!    of 0.1–0.4 cells. Small similar quads (cells) give lattice blocks ([`crate::lattice`]).
//! 4. **Scoring.** A hypothesis whose cells all look alike (one surface: a cloth's check) is
//!    dropped first. Each other hypothesis is warped to a small fronto-parallel patch (a few
//!    pixels per cell plus half a cell around) and scored by how well an R×C lattice explains it:
//!    gradients in bands around the lattice lines rather than in the cell interiors, cell
//!    interiors uniform compared with the contrast between cells, and a surround that does not
//!    look like more cells (so a 4×4 block of a 5×5 grid scores low).
//! 5. **Grids.** Hypotheses are grouped into physical grids (one's centre inside another's
//!    area); each grid keeps its best hypothesis, and grids are ranked by prominence
//!    (quality × √(area fraction)).

use image::RgbImage;
use opencv::core::{Mat, Point, Scalar, Size, Vector, BORDER_CONSTANT, CV_8UC1};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::VisionError;
use crate::geom::{
    centre, convex_hull, dist, homography_4, inside, map_quad, rect, signed_area, turn,
};
use crate::lattice::{lattice_blocks, Blob};
use crate::mat::rgb_view;
use crate::rectify::{apply_homography, Quad};

/// How the locator works.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocateParams {
    /// Detection runs on a copy shrunk so that its long side is at most this many pixels.
    pub detect_long_side: u32,
    /// Pixels per cell of the patches hypotheses are scored on (at least 8).
    pub score_cell_px: u32,
    /// How many of the largest quads are also tried as a frame's outer edge.
    pub max_outlines: usize,
    /// Smallest cell side, in detection pixels, worth considering.
    pub min_cell_px: f32,
    /// Also take quads from the Canny edge map: cells whose colours are alike in grey, a
    /// frame no darker than its surround. Off, only dark parts outline quads (a framed
    /// stack's frame, a chart's body), and a busy table's texture, which gives many edge
    /// contours and hypotheses scored from them, costs much less.
    pub edges: bool,
}

impl Default for LocateParams {
    /// 720 px detection (a 1080p photo becomes 720 × 405), 8 px per scored cell,
    /// 12 outlines (a striped cloth gives many large quads before the frame's), 5 px cells,
    /// both maps.
    fn default() -> Self {
        LocateParams {
            detect_long_side: 720,
            score_cell_px: 8,
            max_outlines: 12,
            min_cell_px: 5.0,
            edges: true,
        }
    }
}

/// Where a hypothesis came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A contour's quad taken as the cell area itself (a frame's inner edge).
    Outline,
    /// A contour's quad taken as the outer edge of a frame or body this many tenths of a cell
    /// wide.
    Shrunk(u8),
    /// A block of a lattice fitted to cell blobs.
    Lattice,
}

/// How well an R×C lattice explains a hypothesis, each part in 0..=1.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Quality {
    /// Gradient concentrated at the lattice lines rather than inside the cells.
    pub edges: f32,
    /// Cell interiors uniform compared with the contrast between cells.
    pub uniform: f32,
    /// The surround does not look like more cells of the same lattice.
    pub surround: f32,
    /// Fraction of interior lattice lines along which some step is seen.
    pub lines: f32,
    /// Fraction of cells inside the photo.
    pub visible: f32,
    /// The outer border is a sharp step exactly where the lattice says, not a fraction of a
    /// cell inside or outside. Not part of `total`: the fine stage ranks near copies of one
    /// lattice by `total × border`.
    pub border: f32,
    /// The hypothesis' quality: `edges × uniform × surround × (1 + lines) / 2`.
    pub total: f32,
}

/// One scored hypothesis of where the grid's cells are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// Outer corners of the cell area in source pixels, clockwise; side 0→1 spans the columns
    /// (the orientation is chosen later, see [`upright`]).
    pub corners: Quad,
    pub source: Source,
    pub quality: Quality,
    /// How much this grid stands out: `min(1, quality.total / 0.3) × √(area / photo area)`.
    /// Quality saturates, so two clearly readable grids of the same size are equally
    /// prominent whatever their patterns.
    pub prominence: f32,
    /// Part of the cell area or its surround lies outside the photo.
    pub touches_border: bool,
    /// Side of a cell's coloured part as a fraction of the lattice pitch: 1 for touching cells,
    /// less for patches separated by gaps.
    pub fill: f32,
}

/// The locator's answer: the distinct grids found, most prominent first.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    /// One candidate per physical grid, most prominent first.
    pub grids: Vec<Candidate>,
    /// The best hypothesis of the winning grid that differs from the winner by more than
    /// 0.45 cells at some corner (another lattice over the same object, not a near copy).
    pub same_grid_runner_up: Option<Candidate>,
    /// How many hypotheses were scored.
    pub considered: usize,
    /// Source pixels per detection pixel.
    pub scale: f32,
}

/// A reusable locator: holds the working buffers, so locating in a loop (video) allocates
/// little.
#[derive(Default)]
pub struct Locator {
    small: Mat,
    tmp: Mat,
    grey: Mat,
    bin: Mat,
    edges: Mat,
    patch: Mat,
    ones: Mat,
    mask: Mat,
    contours: Vector<Vector<Point>>,
    approx: Vector<Point>,
    hull: Vector<Point>,
    points: Vec<[i32; 2]>,
    hull_points: Vec<[i32; 2]>,
}

struct Hyp {
    quad: Quad,
    source: Source,
    fill: f32,
}

impl Locator {
    /// A locator with empty buffers.
    pub fn new() -> Locator {
        Locator::default()
    }

    /// Finds every R×C grid hypothesis in `image` and ranks the distinct grids.
    pub fn locate(
        &mut self,
        image: &RgbImage,
        rows: usize,
        cols: usize,
        params: &LocateParams,
    ) -> Result<Located, VisionError> {
        if rows == 0 || cols == 0 || rows > 64 || cols > 64 {
            return Err(VisionError::Geometry(format!(
                "cannot look for a {rows}x{cols} grid"
            )));
        }
        let scale = self.prepare(image, params)?;
        let (w, h) = (self.small.cols() as f32, self.small.rows() as f32);
        let blobs = self.quads(params)?;
        let hyps = hypotheses(&blobs, rows, cols, w, h, params)?;
        let k = params.score_cell_px.max(8) as i32;
        let mut scored: Vec<Candidate> = Vec::with_capacity(hyps.len());
        for hyp in &hyps {
            // A quad whose cells all look alike (a tablecloth's check) is no grid of coloured
            // cells; most large quads on a checked cloth are such, and warping each to score it
            // was most of the locator's time there.
            if self.cells_alike(&hyp.quad, rows, cols)? {
                continue;
            }
            let (quality, touches) = self.score(&hyp.quad, rows, cols, k, hyp.fill, false)?;
            if quality.total <= 0.0 {
                continue;
            }
            let corners = hyp
                .quad
                .map(|[x, y]| [(x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5]);
            let area = signed_area(&hyp.quad) / (w * h);
            scored.push(Candidate {
                corners,
                source: hyp.source,
                quality,
                prominence: prominence(quality.total, area),
                touches_border: touches,
                fill: hyp.fill,
            });
        }
        let mut groups = group(scored);
        // Fine stage: the leading hypotheses of the leading grids again, at twice the
        // resolution and with the sharpness of the border, which tells a frame's inner edge
        // from a lattice a fifth of a cell outside it.
        let mut same_grid_runner_up = None;
        for (n, (lead, members)) in groups.iter_mut().take(2).enumerate() {
            let mut pool: Vec<Candidate> = std::iter::once(*lead)
                .chain(members.iter().copied())
                .collect();
            pool.sort_by(|a, b| b.quality.total.total_cmp(&a.quality.total));
            let floor = 0.6 * pool[0].quality.total;
            pool.retain(|c| c.quality.total >= floor);
            pool.truncate(5);
            for c in pool.iter_mut() {
                let quad = c
                    .corners
                    .map(|[x, y]| [(x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5]);
                let (q, _) = self.score(&quad, rows, cols, 2 * k, c.fill, true)?;
                let area = signed_area(&quad) / (w * h);
                c.quality = q;
                c.prominence = prominence(q.total, area);
            }
            // The border decides between near copies of one lattice; the quality itself (and
            // so the prominence) stays a measure of how well a lattice explains the cells.
            let fine = |c: &Candidate| c.quality.total * c.quality.border;
            pool.sort_by(|a, b| fine(b).total_cmp(&fine(a)));
            *lead = pool[0];
            if n == 0 {
                same_grid_runner_up = runner_up(lead, &pool[1..], rows, cols);
            }
        }
        groups.sort_by(|a, b| b.0.prominence.total_cmp(&a.0.prominence));
        let grids = groups.into_iter().map(|(g, _)| g).collect();
        Ok(Located {
            grids,
            same_grid_runner_up,
            considered: hyps.len(),
            scale,
        })
    }

    /// Makes the detection copy and its grey version; returns source px per detection px.
    ///
    /// Halvings with `INTER_AREA` (OpenCV's vectorised 2×2 box path) while the long side is
    /// at least twice the target, then one bilinear step for the rest (less than 2×, already
    /// low-passed): a third of the time of one `INTER_AREA` by an odd factor.
    fn prepare(&mut self, image: &RgbImage, params: &LocateParams) -> Result<f32, VisionError> {
        let view = rgb_view(image)?;
        let (w, h) = image.dimensions();
        let target = params.detect_long_side.max(64);
        let cv = VisionError::opencv;
        if w.max(h) >= 2 * target {
            // The first halving reads the photo in place: no full-size copy.
            let size = Size::new((w / 2) as i32, (h / 2) as i32);
            imgproc::resize(&view, &mut self.small, size, 0.0, 0.0, imgproc::INTER_AREA)
                .map_err(cv("resize (halve)"))?;
        } else {
            view.copy_to(&mut self.small)
                .map_err(cv("copying the photo"))?;
        }
        while self.small.cols().max(self.small.rows()) as u32 >= 2 * target {
            let size = Size::new(self.small.cols() / 2, self.small.rows() / 2);
            imgproc::resize(
                &self.small,
                &mut self.tmp,
                size,
                0.0,
                0.0,
                imgproc::INTER_AREA,
            )
            .map_err(cv("resize (halve)"))?;
            std::mem::swap(&mut self.small, &mut self.tmp);
        }
        let long = self.small.cols().max(self.small.rows()) as u32;
        if long > target {
            let f = target as f32 / long as f32;
            let size = Size::new(
                ((self.small.cols() as f32 * f).round() as i32).max(1),
                ((self.small.rows() as f32 * f).round() as i32).max(1),
            );
            imgproc::resize(
                &self.small,
                &mut self.tmp,
                size,
                0.0,
                0.0,
                imgproc::INTER_LINEAR,
            )
            .map_err(cv("resize (rest)"))?;
            std::mem::swap(&mut self.small, &mut self.tmp);
        }
        imgproc::cvt_color_def(&self.small, &mut self.grey, imgproc::COLOR_RGB2GRAY)
            .map_err(cv("cvt_color to grey"))?;
        Ok(w as f32 / self.small.cols() as f32)
    }

    /// Convex quads from the contours of the binary maps of the detection copy.
    fn quads(&mut self, params: &LocateParams) -> Result<Vec<Blob>, VisionError> {
        let long = self.small.cols().max(self.small.rows());
        let min_area = f64::from(params.min_cell_px * params.min_cell_px);
        let mut out = Vec::new();
        let cv = VisionError::opencv;
        // Dark compared with the neighbourhood: frames, a chart's body, dark cells.
        let block = ((long / 16) | 1).max(11);
        imgproc::adaptive_threshold(
            &self.grey,
            &mut self.bin,
            255.0,
            imgproc::ADAPTIVE_THRESH_MEAN_C,
            imgproc::THRESH_BINARY_INV,
            block,
            7.0,
        )
        .map_err(cv("adaptive_threshold"))?;
        self.collect(min_area, &mut out)?;
        if !params.edges {
            return Ok(out);
        }
        // Edges: regions they enclose are cells, however their colours compare in grey.
        imgproc::canny(&self.grey, &mut self.edges, 30.0, 90.0, 3, false).map_err(cv("canny"))?;
        let kernel = imgproc::get_structuring_element_def(imgproc::MORPH_RECT, Size::new(3, 3))
            .map_err(cv("structuring element"))?;
        imgproc::dilate_def(&self.edges, &mut self.bin, &kernel).map_err(cv("dilate"))?;
        self.collect(min_area, &mut out)?;
        Ok(out)
    }

    fn collect(&mut self, min_area: f64, out: &mut Vec<Blob>) -> Result<(), VisionError> {
        let cv = VisionError::opencv;
        imgproc::find_contours_def(
            &self.bin,
            &mut self.contours,
            imgproc::RETR_LIST,
            imgproc::CHAIN_APPROX_SIMPLE,
        )
        .map_err(cv("find_contours"))?;
        // Taken out for the loop, which needs `self` for the approximation buffers.
        let contours = std::mem::take(&mut self.contours);
        for contour in contours.iter() {
            if contour.len() < 4 {
                continue;
            }
            // The bounding box bounds the area from above: a cheap first filter.
            let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
            // A slice, not `iter()`: one FFI call per point would cost more than the rest.
            for p in contour.as_slice() {
                x0 = x0.min(p.x);
                x1 = x1.max(p.x);
                y0 = y0.min(p.y);
                y1 = y1.max(p.y);
            }
            if f64::from((x1 - x0) * (y1 - y0)) < min_area {
                continue;
            }
            let area = imgproc::contour_area_def(&contour).map_err(cv("contour_area"))?;
            if area < min_area {
                continue;
            }
            if let Some(quad) = self.quad_of(&contour)? {
                out.push(Blob {
                    quad,
                    area: signed_area(&quad),
                });
            }
        }
        self.contours = contours;
        Ok(())
    }

    /// A convex quad approximating a contour's convex hull: a dark cell against a dark frame
    /// notches the frame's inner edge, and the hull bridges the notch. (A convex contour is its
    /// own hull, so nothing is lost by skipping the contour itself.)
    fn quad_of(&mut self, contour: &Vector<Point>) -> Result<Option<Quad>, VisionError> {
        let cv = VisionError::opencv;
        self.points.clear();
        self.points
            .extend(contour.as_slice().iter().map(|p| [p.x, p.y]));
        convex_hull(&self.points, &mut self.hull_points);
        self.hull = Vector::from_iter(self.hull_points.iter().map(|&[x, y]| Point::new(x, y)));
        let peri = imgproc::arc_length(&self.hull, true).map_err(cv("arc_length"))?;
        for eps in [0.02, 0.04] {
            imgproc::approx_poly_dp(&self.hull, &mut self.approx, eps * peri, true)
                .map_err(cv("approx_poly_dp"))?;
            if self.approx.len() == 4
                && imgproc::is_contour_convex(&self.approx).map_err(cv("is_contour_convex"))?
            {
                let mut q = [[0.0f32; 2]; 4];
                for (o, p) in q.iter_mut().zip(self.approx.iter()) {
                    *o = [p.x as f32, p.y as f32];
                }
                if signed_area(&q) < 0.0 {
                    q.swap(1, 3);
                }
                return Ok(well_shaped(&q).then_some(q));
            }
        }
        Ok(None)
    }

    /// Whether the cells of the R×C lattice in `quad` all show about the same colour: the
    /// per-channel spread of their means, each from five pixels around the cell's centre, is
    /// under [`ALIKE_RMS`] levels.
    fn cells_alike(&self, quad: &Quad, rows: usize, cols: usize) -> Result<bool, VisionError> {
        let Some(g) = homography_4(&rect(0.0, 0.0, cols as f32, rows as f32), quad) else {
            return Ok(false);
        };
        let px = self
            .small
            .data_bytes()
            .map_err(VisionError::opencv("detection copy bytes"))?;
        let (w, h) = (self.small.cols() as usize, self.small.rows() as usize);
        let mut means = Vec::with_capacity(rows * cols);
        for r in 0..rows {
            for c in 0..cols {
                let (x, y) = (c as f32 + 0.5, r as f32 + 0.5);
                let mut sum = [0.0f32; 3];
                for [dx, dy] in [
                    [0.0, 0.0],
                    [-0.25, -0.25],
                    [0.25, -0.25],
                    [0.25, 0.25],
                    [-0.25, 0.25],
                ] {
                    let Some([sx, sy]) = apply_homography(&g, [x + dx, y + dy]) else {
                        return Ok(false);
                    };
                    let (sx, sy) = (sx.round(), sy.round());
                    if !(sx >= 0.0 && sy >= 0.0 && (sx as usize) < w && (sy as usize) < h) {
                        return Ok(false); // partly outside: leave it to the full score
                    }
                    let i = (sy as usize * w + sx as usize) * 3;
                    for (s, &v) in sum.iter_mut().zip(&px[i..i + 3]) {
                        *s += f32::from(v) / 5.0;
                    }
                }
                means.push(sum);
            }
        }
        Ok(spread(&means) < ALIKE_RMS * ALIKE_RMS)
    }

    /// Scores one hypothesis (see the module docs); also says whether it touches the border.
    fn score(
        &mut self,
        quad: &Quad,
        rows: usize,
        cols: usize,
        k: i32,
        fill: f32,
        with_border: bool,
    ) -> Result<(Quality, bool), VisionError> {
        let (r, c) = (rows as i32, cols as i32);
        let o = k / 2;
        let (pw, ph) = ((c + 1) * k, (r + 1) * k);
        let dst = rect(
            o as f32 - 0.5,
            o as f32 - 0.5,
            (o + c * k) as f32 - 0.5,
            (o + r * k) as f32 - 0.5,
        );
        let Some(hm) = homography_4(quad, &dst) else {
            return Ok((Quality::default(), false));
        };
        let Some(back) = crate::geom::invert(&hm) else {
            return Ok((Quality::default(), false));
        };
        let m = Mat::from_slice_2d(&hm[..]).map_err(VisionError::opencv("homography Mat"))?;
        let cv = VisionError::opencv;
        imgproc::warp_perspective(
            &self.small,
            &mut self.patch,
            &m,
            Size::new(pw, ph),
            imgproc::INTER_LINEAR,
            BORDER_CONSTANT,
            Scalar::all(0.0),
        )
        .map_err(cv("warp_perspective (score)"))?;
        // Does the patch (cells and surround) reach outside the photo?
        let (w, h) = (self.small.cols() as f32, self.small.rows() as f32);
        let whole = map_quad(&back, &rect(-0.5, -0.5, pw as f32 - 0.5, ph as f32 - 0.5));
        let touches = whole.is_none_or(|q| {
            q.iter()
                .any(|p| p[0] < 0.0 || p[1] < 0.0 || p[0] > w - 1.0 || p[1] > h - 1.0)
        });
        let mask = if touches {
            if self.ones.size().map_err(cv("size"))? != self.small.size().map_err(cv("size"))? {
                self.ones = Mat::new_size_with_default(
                    self.small.size().map_err(cv("size"))?,
                    CV_8UC1,
                    Scalar::all(255.0),
                )
                .map_err(cv("allocating a mask"))?;
            }
            imgproc::warp_perspective(
                &self.ones,
                &mut self.mask,
                &m,
                Size::new(pw, ph),
                imgproc::INTER_NEAREST,
                BORDER_CONSTANT,
                Scalar::all(0.0),
            )
            .map_err(cv("warp_perspective (mask)"))?;
            Some(self.mask.data_bytes().map_err(cv("mask bytes"))?)
        } else {
            None
        };
        let px = self.patch.data_bytes().map_err(cv("patch bytes"))?;
        let mut q = lattice_quality(px, mask, rows, cols, k as usize, fill);
        if with_border {
            q.border = border_sharpness(px, mask, rows, cols, k as usize, fill);
        }
        Ok((q, touches))
    }
}

/// Cells whose mean colours spread by less than this (RMS over cells, 8-bit levels, mean over
/// channels) look alike: sensor noise and JPEG blocks on one surface, no printed colours.
const ALIKE_RMS: f32 = 4.0;

/// See [`Candidate::prominence`].
fn prominence(quality: f32, area_fraction: f32) -> f32 {
    (quality / 0.3).min(1.0) * area_fraction.max(0.0).sqrt()
}

/// Angles between 20° and 160°, no side shorter than 3 px.
fn well_shaped(q: &Quad) -> bool {
    (0..4).all(|i| {
        let (a, b, c) = (q[(i + 3) % 4], q[i], q[(i + 1) % 4]);
        let (u, v) = ([a[0] - b[0], a[1] - b[1]], [c[0] - b[0], c[1] - b[1]]);
        let (lu, lv) = (u[0].hypot(u[1]), v[0].hypot(v[1]));
        if lu < 3.0 || lv < 3.0 {
            return false;
        }
        let cos = (u[0] * v[0] + u[1] * v[1]) / (lu * lv);
        cos.abs() < 0.94
    })
}

/// All hypotheses: outlines (both orientations), frame-width shrinks of the largest, lattice
/// blocks; near-duplicates removed.
fn hypotheses(
    blobs: &[Blob],
    rows: usize,
    cols: usize,
    w: f32,
    h: f32,
    params: &LocateParams,
) -> Result<Vec<Hyp>, VisionError> {
    let min_grid = (rows * cols) as f32 * params.min_cell_px * params.min_cell_px;
    let mut outlines: Vec<&Blob> = blobs
        .iter()
        .filter(|b| b.area >= min_grid && b.area < 0.98 * w * h)
        .collect();
    outlines.sort_by(|a, b| b.area.total_cmp(&a.area));
    let turns: &[usize] = if rows == cols { &[0] } else { &[0, 1] };
    // Lattice blocks first: of near-duplicates the first is kept, and a lattice carries the
    // cells' fill (the gap between patches), which an outline does not know.
    let mut hyps: Vec<Hyp> = lattice_blocks(blobs, rows, cols, w, h)?
        .into_iter()
        .map(|b| Hyp {
            quad: b.quad,
            source: Source::Lattice,
            fill: b.fill,
        })
        .collect();
    let want = cols as f32 / rows as f32;
    for (n, b) in outlines.iter().enumerate() {
        for &t in turns {
            let q = turn(&b.quad, t);
            let s01 = (dist(q[0], q[1]) + dist(q[3], q[2])) / 2.0;
            let s12 = (dist(q[1], q[2]) + dist(q[0], q[3])) / 2.0;
            // Up to about 2.8 times foreshortened (a steep tilt) either way.
            let ratio = s01 / s12 / want;
            if !(0.35..2.85).contains(&ratio) {
                continue;
            }
            hyps.push(Hyp {
                quad: q,
                source: Source::Outline,
                fill: 1.0,
            });
            if n < params.max_outlines {
                for tenths in [1u8, 2, 3, 4] {
                    let f = f32::from(tenths) / 10.0;
                    let outer = rect(-f, -f, cols as f32 + f, rows as f32 + f);
                    let Some(hm) = homography_4(&outer, &q) else {
                        continue;
                    };
                    let inner = rect(0.0, 0.0, cols as f32, rows as f32);
                    if let Some(s) = map_quad(&hm, &inner) {
                        hyps.push(Hyp {
                            quad: s,
                            source: Source::Shrunk(tenths),
                            fill: 1.0,
                        });
                    }
                }
            }
        }
    }
    // Near-duplicates (the same quad from two maps) cost time and say nothing new.
    let mut unique: Vec<Hyp> = Vec::with_capacity(hyps.len());
    for hyp in hyps {
        let side = signed_area(&hyp.quad).max(1.0).sqrt();
        let dup = unique
            .iter()
            .any(|u| (0..4).all(|i| dist(u.quad[i], hyp.quad[i]) < 0.01 * side + 0.75));
        if !dup {
            unique.push(hyp);
        }
    }
    Ok(unique)
}

/// Per-channel running mean and variance.
#[derive(Clone, Copy, Default)]
struct Stats {
    n: f32,
    sum: [f32; 3],
    sq: [f32; 3],
}

impl Stats {
    fn add(&mut self, p: &[u8]) {
        self.n += 1.0;
        for ((sum, sq), &v) in self.sum.iter_mut().zip(&mut self.sq).zip(p) {
            let v = f32::from(v);
            *sum += v;
            *sq += v * v;
        }
    }
    fn mean(&self) -> [f32; 3] {
        self.sum.map(|s| s / self.n.max(1.0))
    }
    /// Mean over channels of the per-channel variance.
    fn var(&self) -> f32 {
        let m = self.mean();
        (0..3)
            .map(|c| (self.sq[c] / self.n.max(1.0) - m[c] * m[c]).max(0.0))
            .sum::<f32>()
            / 3.0
    }
}

/// The sum of absolute differences of two byte slices, in integers: exact, and it vectorises.
fn byte_diff(a: &[u8], b: &[u8]) -> u32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| u32::from(p.abs_diff(*q)))
        .sum()
}

/// Mean over channels of the variance of a set of colours.
fn spread(colours: &[[f32; 3]]) -> f32 {
    let mut s = Stats::default();
    let mut sq = [0.0f32; 3];
    for c in colours {
        s.n += 1.0;
        for i in 0..3 {
            s.sum[i] += c[i];
            sq[i] += c[i] * c[i];
        }
    }
    s.sq = sq;
    s.var()
}

/// The lattice quality of a patch: `k` px per cell, half a cell of surround, RGB bytes;
/// `mask` (255 = inside the photo) when part of it lies outside.
fn lattice_quality(
    px: &[u8],
    mask: Option<&[u8]>,
    rows: usize,
    cols: usize,
    k: usize,
    fill: f32,
) -> Quality {
    let o = k / 2;
    let pw = (cols + 1) * k;
    let at = |x: usize, y: usize| &px[(y * pw + x) * 3..(y * pw + x) * 3 + 3];
    let ok = |x: usize, y: usize| mask.is_none_or(|m| m[y * pw + x] == 255);
    // Cell interiors: the central three quarters of each cell's coloured part. Wide on
    // purpose: a lattice off by a fraction of a cell (a frame's outer edge taken for its inner
    // one) then mixes frame into the outer cells and scores low.
    let q = ((k as f32 * (1.0 - 0.75 * fill.clamp(0.3, 1.0)) / 2.0).round() as usize)
        .clamp(1, k / 2 - 1);
    let qs = k / 4;
    let mut means = Vec::with_capacity(rows * cols);
    let mut sigmas = Vec::with_capacity(rows * cols);
    let mut visible = 0usize;
    for r in 0..rows {
        for c in 0..cols {
            let mut s = Stats::default();
            let mut total = 0;
            for y in o + r * k + q..o + r * k + k - q {
                for x in o + c * k + q..o + c * k + k - q {
                    total += 1;
                    if ok(x, y) {
                        s.add(at(x, y));
                    }
                }
            }
            if s.n >= 0.75 * total as f32 {
                visible += 1;
                means.push(s.mean());
                sigmas.push(s.var().sqrt());
            }
        }
    }
    let visible_frac = visible as f32 / (rows * cols) as f32;
    if visible < 2 || visible_frac < 0.3 {
        return Quality {
            visible: visible_frac,
            ..Quality::default()
        };
    }
    // The typical cell's spread, leaving out the worst fifth of the cells: a glare spot or a
    // shadow edge on a few cells does not make a lattice less of a lattice (a lattice off by a
    // fraction of a cell spoils every outer cell, far more than a fifth).
    sigmas.sort_by(f32::total_cmp);
    let kept = &sigmas[..sigmas.len() - sigmas.len() / 5];
    let sigma = kept.iter().sum::<f32>() / kept.len() as f32;
    let contrast = spread(&means).sqrt();
    // Gradients across lattice lines (bands within a quarter cell of a line) and inside cells,
    // summed in integers: f32 sums of them were exact too (below 2²⁴), and these vectorise.
    let (mut band, mut nb, mut inner, mut ni) = (0u32, 0u32, 0u32, 0u32);
    let in_band = |b: usize| {
        // `b` is the position of the boundary between two pixels, in pixels from the lattice
        // origin; bands are within a quarter cell of a multiple of k.
        let m = b % k;
        m.min(k - m) * 4 <= k
    };
    // Band membership of the boundary before pixel index i (relative to the lattice origin).
    let band_at: Vec<bool> = (0..(cols.max(rows) + 1) * k + 1).map(in_band).collect();
    let row = |y: usize| &px[y * pw * 3..(y + 1) * pw * 3];
    // The horizontal pairs (x, x + 1) of a row as runs of x alike in band membership.
    let mut runs: Vec<(usize, usize, bool)> = Vec::new();
    for x in o - 1..o + cols * k {
        let b = band_at[x + 1 - o];
        match runs.last_mut() {
            Some(run) if run.2 == b => run.1 = x + 1,
            _ => runs.push((x, x + 1, b)),
        }
    }
    // Sum and count of the pixel pairs (a[x], b[x]) for x in x0..x1, leaving out pairs that
    // reach outside the photo (where there is a mask).
    fn pairs(
        masked: bool,
        a: &[u8],
        b: &[u8],
        (x0, x1): (usize, usize),
        inside: impl Fn(usize) -> bool,
    ) -> (u32, u32) {
        if !masked {
            return (
                byte_diff(&a[x0 * 3..x1 * 3], &b[x0 * 3..x1 * 3]),
                (x1 - x0) as u32,
            );
        }
        (x0..x1).filter(|&x| inside(x)).fold((0, 0), |(s, n), x| {
            (
                s + byte_diff(&a[x * 3..x * 3 + 3], &b[x * 3..x * 3 + 3]),
                n + 1,
            )
        })
    }
    for y in o..o + rows * k {
        let line = row(y);
        for &(x0, x1, in_b) in &runs {
            let (sum, n) = pairs(mask.is_some(), line, &line[3..], (x0, x1), |x| {
                ok(x, y) && ok(x + 1, y)
            });
            if in_b {
                band += sum;
                nb += n;
            } else {
                inner += sum;
                ni += n;
            }
        }
    }
    for y in o - 1..o + rows * k {
        let (sum, n) = pairs(mask.is_some(), row(y), row(y + 1), (o, o + cols * k), |x| {
            ok(x, y) && ok(x, y + 1)
        });
        if band_at[y + 1 - o] {
            band += sum;
            nb += n;
        } else {
            inner += sum;
            ni += n;
        }
    }
    let (band, nb, inner, ni) = (band as f32, nb as f32, inner as f32, ni as f32);
    let (band, inner) = (band / nb.max(1.0), inner / ni.max(1.0));
    // Line support: an interior lattice line along which there is no step anywhere is what
    // a lattice at half the true pitch looks like (real grids have some such lines too, where
    // whole rows repeat, so this only tempers the score).
    let step_at = |a: &[u8], b: &[u8]| byte_diff(a, b) as f32;
    let mut lines = 0usize;
    let mut supported = 0usize;
    for j in 1..cols {
        let x = o + j * k; // boundary between pixel columns x - 1 and x
        let (mut sum, mut n) = (0.0f32, 0.0f32);
        for y in o..o + rows * k {
            for xx in [x - 1, x] {
                if ok(xx - 1, y) && ok(xx, y) {
                    sum += step_at(at(xx - 1, y), at(xx, y));
                    n += 1.0;
                }
            }
        }
        lines += 1;
        supported += usize::from(n > 0.0 && sum / n >= (3.0 * inner).max(8.0));
    }
    for i in 1..rows {
        let y = o + i * k;
        let (mut sum, mut n) = (0.0f32, 0.0f32);
        for x in o..o + cols * k {
            for yy in [y - 1, y] {
                if ok(x, yy - 1) && ok(x, yy) {
                    sum += step_at(at(x, yy - 1), at(x, yy));
                    n += 1.0;
                }
            }
        }
        lines += 1;
        supported += usize::from(n > 0.0 && sum / n >= (3.0 * inner).max(8.0));
    }
    let line_support = if lines == 0 {
        1.0
    } else {
        supported as f32 / lines as f32
    };
    let edges = ((band - inner) / (band + 6.0)).clamp(0.0, 1.0);
    let uniform = ((contrast - 2.0 * sigma) / (contrast + 4.0)).clamp(0.0, 1.0);
    // The surround: per-cell segments of a strip 0.1–0.4 cells outside each side.
    let mut segs: Vec<[f32; 3]> = Vec::new();
    let (s0, s1) = (o - (2 * k) / 5, o - k / 10);
    let mut seg = |xs: std::ops::Range<usize>, ys: std::ops::Range<usize>| {
        let mut s = Stats::default();
        for y in ys {
            for x in xs.clone() {
                if ok(x, y) {
                    s.add(at(x, y));
                }
            }
        }
        if s.n > 0.0 {
            segs.push(s.mean());
        }
    };
    let far = |n: usize| o + n * k + k / 10;
    for c in 0..cols {
        let xs = o + c * k + qs..o + c * k + k - qs;
        seg(xs.clone(), s0..s1);
        seg(xs, far(rows)..far(rows) + (s1 - s0));
    }
    for r in 0..rows {
        let ys = o + r * k + qs..o + r * k + k - qs;
        seg(s0..s1, ys.clone());
        seg(far(cols)..far(cols) + (s1 - s0), ys);
    }
    let ring = spread(&segs);
    let surround = 1.0 / (1.0 + 2.0 * ring / (contrast * contrast + 16.0));
    Quality {
        edges,
        uniform,
        surround,
        visible: visible_frac,
        border: 0.0,
        lines: line_support,
        total: edges * uniform * surround * (0.5 + 0.5 * line_support),
    }
}

/// How much of the step across the outer border happens within an eighth of a cell of where
/// the lattice puts the coloured area's edge (for gapped patches, half a gap inside the
/// lattice) rather than a fifth to a quarter of a cell inside or outside it.
fn border_sharpness(
    px: &[u8],
    mask: Option<&[u8]>,
    rows: usize,
    cols: usize,
    k: usize,
    fill: f32,
) -> f32 {
    let o = (k / 2) as isize;
    let pw = (cols + 1) * k;
    let ph = (rows + 1) * k;
    let inset = ((1.0 - fill.clamp(0.3, 1.0)) / 2.0 * k as f32).round() as isize;
    let ok = |x: isize, y: isize| {
        x >= 0
            && y >= 0
            && (x as usize) < pw
            && (y as usize) < ph
            && mask.is_none_or(|m| m[y as usize * pw + x as usize] == 255)
    };
    let at = |x: isize, y: isize| {
        let i = (y as usize * pw + x as usize) * 3;
        &px[i..i + 3]
    };
    // Mean step across the border at offset t (pixels, positive inward) over one side.
    let (kk, r, c) = (k as isize, rows as isize, cols as isize);
    let side_step = |side: usize, t: isize| -> Option<f32> {
        let (mut sum, mut n) = (0.0f32, 0.0f32);
        let len = if side % 2 == 0 { c * kk } else { r * kk };
        for s in kk / 4..len - kk / 4 {
            // (a, b): the two pixels either side of the boundary at offset t.
            let (a, b) = match side {
                0 => ((o + s, o + inset + t - 1), (o + s, o + inset + t)),
                1 => (
                    (o + c * kk - inset - t, o + s),
                    (o + c * kk - inset - t - 1, o + s),
                ),
                2 => (
                    (o + s, o + r * kk - inset - t),
                    (o + s, o + r * kk - inset - t - 1),
                ),
                _ => ((o + inset + t - 1, o + s), (o + inset + t, o + s)),
            };
            if ok(a.0, a.1) && ok(b.0, b.1) {
                let (pa, pb) = (at(a.0, a.1), at(b.0, b.1));
                sum += (0..3)
                    .map(|i| f32::from(pa[i].abs_diff(pb[i])))
                    .sum::<f32>();
                n += 1.0;
            }
        }
        (n > 0.0).then(|| sum / n)
    };
    let near = (kk / 5).max(2);
    let far = (kk / 4).max(near + 1);
    let (mut line, mut off) = (0.0f32, 0.0f32);
    for side in 0..4 {
        let best = |ts: &[isize]| {
            ts.iter()
                .filter_map(|&t| side_step(side, t))
                .fold(0.0f32, f32::max)
        };
        line += best(&[-1, 0, 1]);
        off += best(&[-far, -near, near, far]);
    }
    line / (line + off + 6.0)
}

/// Groups candidates into physical grids (one's centre inside the other's cell area): each
/// grid's best candidate and the others, grids by prominence.
fn group(mut all: Vec<Candidate>) -> Vec<(Candidate, Vec<Candidate>)> {
    // A lattice of separately detected patches with gaps between them pins the pitch; an
    // outline drawn around the same patches is half a gap short on every side and scores
    // about as well, so gapped lattices are preferred by a margin.
    let rank = |c: &Candidate| {
        let gapped = c.source == Source::Lattice && c.fill < 0.95;
        c.quality.total * if gapped { 1.25 } else { 1.0 }
    };
    all.sort_by(|a, b| rank(b).total_cmp(&rank(a)));
    let mut grids: Vec<(Candidate, Vec<Candidate>)> = Vec::new();
    for c in all {
        let cc = centre(&c.corners);
        let home = grids
            .iter_mut()
            .find(|(g, _)| inside(&g.corners, cc) || inside(&c.corners, centre(&g.corners)));
        match home {
            Some((_, members)) => members.push(c),
            None => grids.push((c, Vec::new())),
        }
    }
    grids.sort_by(|a, b| b.0.prominence.total_cmp(&a.0.prominence));
    grids
}

/// The best member that is a substantially different lattice from `lead`.
fn runner_up(
    lead: &Candidate,
    members: &[Candidate],
    rows: usize,
    cols: usize,
) -> Option<Candidate> {
    let cell = (signed_area(&lead.corners).max(1.0) / (rows * cols) as f32).sqrt();
    members
        .iter()
        .filter(|m| {
            // Compare in every corner order: the same quad listed from another corner is
            // the same lattice.
            (0..4).all(|t| {
                let q = turn(&m.corners, t);
                (0..4).any(|i| dist(q[i], lead.corners[i]) > 0.45 * cell)
            })
        })
        .max_by(|a, b| a.quality.total.total_cmp(&b.quality.total))
        .copied()
}

/// The corner order that shows the grid most upright: among the orders that keep side 0→1
/// spanning the columns (two, or four for a square grid), the one whose row-0 edge is most
/// nearly above the centre. Returns the turned corners and how many quarter turns clockwise
/// the cell grid was turned (0..=3) relative to `corners`' order.
pub fn upright(corners: &Quad, rows: usize, cols: usize) -> (Quad, usize) {
    let steps: &[usize] = if rows == cols { &[0, 1, 2, 3] } else { &[0, 2] };
    let c = centre(corners);
    let mut best = (*corners, 0);
    let mut best_up = f32::NEG_INFINITY;
    for &t in steps {
        let q = turn(corners, t);
        let mid = [(q[0][0] + q[1][0]) / 2.0, (q[0][1] + q[1][1]) / 2.0];
        let (dx, dy) = (mid[0] - c[0], mid[1] - c[1]);
        let up = -dy / dx.hypot(dy).max(1e-6);
        if up > best_up + 1e-4 {
            best_up = up;
            best = (q, t);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_scene;
    use image::Rgb;
    use tablejudge_rules::{Grid, Srgb};

    #[test]
    fn the_dark_parts_alone_find_a_framed_grid_on_a_busy_cloth_from_fewer_hypotheses() {
        // A framed 4×4 stack on its card, turned and tilted, on a plaid tablecloth.
        let mut img = test_scene::tablecloth(960, 540, 3);
        let colours = Grid::parse_rows(&["rrgw", "rbbw", "yyop", "gpoo"])
            .unwrap()
            .map(|&c| match c {
                'r' => Srgb::new(0xd6, 0x28, 0x39),
                'g' => Srgb::new(0x2e, 0x9e, 0x4f),
                'b' => Srgb::new(0x2f, 0x5f, 0xb3),
                'y' => Srgb::new(0xf2, 0xc1, 0x2e),
                'o' => Srgb::new(0xe8, 0x77, 0x2e),
                'p' => Srgb::new(0x7b, 0x3f, 0xa0),
                _ => Srgb::new(0xf2, 0xef, 0xe6),
            });
        let truth = test_scene::view(450.0, 280.0, 130.0, 1.0, 20.0, 25.0);
        test_scene::place(&mut img, &colours, &test_scene::layer_style(40), truth);
        let mut locator = Locator::new();
        let mut locate = |edges: bool| {
            let params = LocateParams {
                detect_long_side: 480,
                min_cell_px: 3.5,
                edges,
                ..LocateParams::default()
            };
            locator.locate(&img, 4, 4, &params).unwrap()
        };
        let (both, dark) = (locate(true), locate(false));
        // Both searches put the stack first, its corners within a fifth of a cell (13 px).
        for found in [&both, &dark] {
            let corners = found.grids[0].corners;
            let error = (0..4)
                .map(|t| {
                    (0..4)
                        .map(|i| dist(corners[i], truth[(i + t) % 4]))
                        .fold(0.0, f32::max)
                })
                .fold(f32::INFINITY, f32::min);
            assert!(error < 13.0, "{corners:?} against {truth:?}");
        }
        // The cloth's stripes give many of the edge map's quads.
        assert!(
            dark.considered < both.considered,
            "{} hypotheses from dark parts, {} with edges",
            dark.considered,
            both.considered
        );
    }

    #[test]
    fn cells_of_one_surface_look_alike_and_a_coloured_grid_does_not() {
        // A plain surface with a little texture, and a 4×4 grid of printed colours on it.
        let mut img = RgbImage::from_fn(480, 270, |x, y| {
            let t = ((x * 7 + y * 13) % 7) as u8;
            Rgb([125 + t, 117 + t, 107 + t])
        });
        let colours = [[200, 40, 40], [40, 160, 60], [40, 80, 180], [230, 200, 50]];
        for y in 100..180u32 {
            for x in 300..380u32 {
                let (r, c) = ((y - 100) / 20, (x - 300) / 20);
                img.put_pixel(x, y, Rgb(colours[((r + c) % 4) as usize]));
            }
        }
        let mut locator = Locator::new();
        let params = LocateParams {
            detect_long_side: 480,
            ..LocateParams::default()
        };
        locator.prepare(&img, &params).unwrap();
        let plain = rect(40.0, 40.0, 120.0, 120.0);
        assert!(locator.cells_alike(&plain, 4, 4).unwrap());
        let grid = rect(300.0, 100.0, 380.0, 180.0);
        assert!(!locator.cells_alike(&grid, 4, 4).unwrap());
        // Partly outside the photo: left to the full score.
        let cut = rect(440.0, 40.0, 520.0, 120.0);
        assert!(!locator.cells_alike(&cut, 4, 4).unwrap());
    }
}
