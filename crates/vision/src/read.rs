//! Reading a grid from a photo: locate → refine → (undistort) → rectify → sample → white
//! balance → classify, with typed errors that say what to retake.
//!
//! # Orientation
//!
//! The returned corners are clockwise from the corner of the cell that became row 0,
//! column 0, and the grid is read in the orientation in which it is **most upright in the
//! photo**: of the corner orders that keep `cols` cells along the first side (two orders, or
//! four for a square grid), the one whose row-0 edge lies most nearly straight above the
//! grid's centre. A grid turned by more than 90° is therefore read turned; the rules compare
//! missions up to quarter turns anyway, and a chart whose orientation matters should be
//! photographed roughly upright.

use image::RgbImage;
use opencv::core::{Mat, Scalar, Size, Vec2f, BORDER_CONSTANT};
use opencv::imgproc;
use tablejudge_rules::{Grid, Palette, Pos, Srgb};
use thiserror::Error;

use crate::camera::Camera;
use crate::classify::{Classifier, ClassifierParams, ClassifyError, Reading};
use crate::colour::{Clipped, LinRgb};
use crate::error::VisionError;
use crate::geom::{homography_4, invert, rect};
use crate::locate::{upright, Candidate, LocateParams, Located, Locator};
use crate::mat::{rgb_mat_to_image, rgb_view};
use crate::observation::Observation;
use crate::rectify::{apply_homography, Quad};
use crate::refine::{refine, Lookup, RefineParams};
use crate::sample::{sample_cells, CellSample, SampleParams};
use crate::white_balance::{WhiteBalance, WhiteBalanceError};

/// How measured colours are corrected before classification.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum ColourCorrection {
    /// Fit a von Kries correction from the palette as a whole (every cell is assumed to be
    /// some palette colour); no correction when no palette is given.
    #[default]
    FromPalette,
    /// Fit from parts whose printed colour is known: cells, and/or the surround of the cell
    /// area (a layer's frame, a chart's body).
    References {
        cells: Vec<(Pos, Srgb)>,
        surround: Option<Srgb>,
    },
    /// Apply these gains.
    Fixed(WhiteBalance),
    /// Report colours as measured.
    None,
}

/// Everything [`read_grid`] can be told.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadOptions {
    pub locate: LocateParams,
    pub refine: Option<RefineParams>,
    pub sample: SampleParams,
    pub classifier: ClassifierParams,
    pub colour: ColourCorrection,
    /// A calibrated camera: corners and cells are then found in undistorted coordinates.
    pub camera: Option<Camera>,
    /// Side of a cell in the rectified image the cells are sampled from.
    pub cell_px: u32,
    /// Below this lattice quality nothing counts as found.
    pub min_quality: f32,
    /// A lattice quality at or above which geometry confidence is full.
    pub good_quality: f32,
    /// A different grid at least this prominent relative to the best makes the read ambiguous.
    pub ambiguity_ratio: f32,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            locate: LocateParams::default(),
            refine: Some(RefineParams::default()),
            sample: SampleParams::default(),
            classifier: ClassifierParams::default(),
            colour: ColourCorrection::default(),
            camera: None,
            cell_px: 16,
            min_quality: 0.12,
            good_quality: 0.3,
            ambiguity_ratio: 0.8,
        }
    }
}

/// What the reader considered and why it chose as it did.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostics {
    /// How many hypotheses were scored.
    pub considered: usize,
    /// One candidate per distinct physical grid, most prominent first (corners as located,
    /// before refinement and orientation). A different grid of the same size (a mission card
    /// beside a stack) appears here.
    pub grids: Vec<Candidate>,
    /// The best other lattice over the winning grid (a shifted or differently sized block).
    pub same_grid_runner_up: Option<Candidate>,
    /// The runner-up's prominence over the winner's (0 when there is none).
    pub runner_up_ratio: f32,
    /// Why the winner won, in words.
    pub reason: String,
}

/// A grid as read.
#[derive(Clone, Debug, PartialEq)]
pub struct GridReading {
    /// Outer corners of the cell area in source pixels, clockwise from the cell that became
    /// row 0, column 0 (see the module docs for the orientation).
    pub corners: Quad,
    /// Per cell: colour after white balance, label and confidence when a palette was given
    /// (otherwise the confidence is the glare-free fraction of the cell).
    pub cells: Grid<Reading>,
    /// The raw samples (before white balance), with their glare-free coverage.
    pub samples: Grid<CellSample>,
    /// The correction applied.
    pub white_balance: WhiteBalance,
    /// Overall confidence in 0..=1: geometry (lattice quality and margin to the runner-up)
    /// times the least confident cell.
    pub confidence: f32,
    pub diagnostics: Diagnostics,
}

impl GridReading {
    /// The `tablejudge/observation@1` form (formats.md §4).
    pub fn to_observation(&self, source: impl Into<String>) -> Observation {
        Observation::new(source, self.corners, &self.cells)
    }
}

/// Why a grid could not be read; each variant's message says what to retake.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ReadError {
    #[error("invalid request: {0}")]
    Request(String),
    #[error(transparent)]
    Vision(#[from] VisionError),
    #[error(
        "no {rows}x{cols} grid found (best lattice quality {best:.2}): make sure the whole grid \
         is in the picture, well lit and not too small, and that it has {rows}x{cols} cells"
    )]
    NotFound {
        rows: usize,
        cols: usize,
        best: f32,
        diagnostics: Box<Diagnostics>,
    },
    #[error(
        "the {rows}x{cols} grid is cut by the edge of the picture: move the camera so the \
         whole grid is in the picture"
    )]
    CutOff {
        rows: usize,
        cols: usize,
        diagnostics: Box<Diagnostics>,
    },
    #[error(
        "{count} {rows}x{cols} grids are about equally prominent (runner-up {ratio:.2} of the \
         best): show only the one to read, or move the camera so it fills more of the picture"
    )]
    Ambiguous {
        rows: usize,
        cols: usize,
        count: usize,
        ratio: f32,
        diagnostics: Box<Diagnostics>,
    },
    #[error("glare over {place}: tilt the card or move the light")]
    Glare {
        place: String,
        cells: Vec<Pos>,
        diagnostics: Box<Diagnostics>,
    },
    #[error("colour correction failed: {0}")]
    Colour(#[from] WhiteBalanceError),
    #[error("palette: {0}")]
    Palette(#[from] ClassifyError),
}

impl ReadError {
    /// The diagnostics, for errors that come after locating.
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        match self {
            ReadError::NotFound { diagnostics, .. }
            | ReadError::CutOff { diagnostics, .. }
            | ReadError::Ambiguous { diagnostics, .. }
            | ReadError::Glare { diagnostics, .. } => Some(diagnostics),
            _ => None,
        }
    }
}

/// Finds and reads the most prominent `rows × cols` grid in `image` (see the module docs).
pub fn read_grid(
    image: &RgbImage,
    rows: usize,
    cols: usize,
    palette: Option<&Palette>,
    options: &ReadOptions,
) -> Result<GridReading, ReadError> {
    GridReader::new().read(image, rows, cols, palette, options)
}

/// A reader that keeps its buffers between photos (video, folders).
#[derive(Default)]
pub struct GridReader {
    locator: Locator,
}

impl GridReader {
    /// A reader with empty buffers.
    pub fn new() -> GridReader {
        GridReader::default()
    }

    /// [`read_grid`] with this reader's buffers.
    pub fn read(
        &mut self,
        image: &RgbImage,
        rows: usize,
        cols: usize,
        palette: Option<&Palette>,
        options: &ReadOptions,
    ) -> Result<GridReading, ReadError> {
        if !(1..=64).contains(&rows) || !(1..=64).contains(&cols) {
            return Err(ReadError::Request(format!(
                "cannot read a {rows}x{cols} grid"
            )));
        }
        let classifier = palette
            .map(|p| Classifier::new(p, options.classifier))
            .transpose()?;
        let located = self.locator.locate(image, rows, cols, &options.locate)?;
        let (winner, diagnostics) = judge(&located, rows, cols, options)?;
        let camera = options.camera.as_ref();
        let look = Lookup::new(image, camera);
        let ideal = match camera {
            Some(cam) => winner.corners.map(|p| {
                let q = cam.undistort([f64::from(p[0]), f64::from(p[1])]);
                [q[0] as f32, q[1] as f32]
            }),
            None => winner.corners,
        };
        let refined = match &options.refine {
            Some(params) => refine(&look, &ideal, rows, cols, winner.fill, params),
            None => ideal,
        };
        let (ideal, _) = upright(&look_upright(&look, &refined), rows, cols);
        // `upright` chose on source positions; map the choice back to ideal corners.
        let ideal = match_order(&refined, &ideal, &look);
        let samples = sample_grid(image, camera, &ideal, rows, cols, options)?;
        let measured = samples.map(|s| s.srgb);
        let white_balance = match (&options.colour, palette) {
            (ColourCorrection::FromPalette, Some(p)) => {
                let colours: Vec<Srgb> = p.colors.values().map(|s| s.srgb).collect();
                WhiteBalance::from_palette(measured.cells(), &colours)?.balance
            }
            (ColourCorrection::FromPalette | ColourCorrection::None, _) => WhiteBalance::IDENTITY,
            (ColourCorrection::Fixed(wb), _) => *wb,
            (ColourCorrection::References { cells, surround }, _) => {
                let mut pairs: Vec<(Srgb, Srgb)> = Vec::new();
                for &(pos, printed) in cells {
                    let got = measured.get(pos).ok_or_else(|| {
                        ReadError::Request(format!("reference cell {pos:?} is outside the grid"))
                    })?;
                    pairs.push((*got, printed));
                }
                if let Some(printed) = surround {
                    if let Some(got) = surround_colour(&look, &ideal, rows, cols) {
                        pairs.push((got, *printed));
                    }
                }
                WhiteBalance::from_references(&pairs)?
            }
        };
        let balanced = white_balance.apply_grid(&measured);
        let cells = Grid::from_fn(rows, cols, |p| {
            let coverage = samples[p].coverage.clamp(0.0, 1.0);
            match &classifier {
                Some(c) => {
                    let clipped = Clipped::of(LinRgb::from_srgb(measured[p]));
                    let r = c.classify_clipped(balanced[p], clipped);
                    Reading {
                        confidence: r.confidence * glare_factor(coverage),
                        ..r
                    }
                }
                None => Reading {
                    label: None,
                    srgb: balanced[p],
                    confidence: glare_factor(coverage),
                },
            }
        });
        let glared: Vec<Pos> = samples
            .iter()
            .filter(|(_, s)| s.coverage > 0.02 && s.coverage < 0.5)
            .map(|(p, _)| p)
            .collect();
        if !glared.is_empty() {
            return Err(ReadError::Glare {
                place: describe(&glared, rows, cols),
                cells: glared,
                diagnostics: Box::new(diagnostics),
            });
        }
        let geometry = geometry_confidence(&winner, &diagnostics, options);
        let least = cells
            .cells()
            .iter()
            .map(|r| r.confidence)
            .fold(1.0f32, f32::min);
        let corners = ideal.map(|p| look.source(p));
        Ok(GridReading {
            corners,
            cells,
            samples,
            white_balance,
            confidence: (geometry * least).clamp(0.0, 1.0),
            diagnostics,
        })
    }
}

/// Source positions of ideal corners (identity without a camera).
pub(crate) fn look_upright(look: &Lookup<'_>, q: &Quad) -> Quad {
    q.map(|p| look.source(p))
}

/// The turn of `ideal` whose source positions are `chosen` (as picked by [`upright`]).
pub(crate) fn match_order(ideal: &Quad, chosen: &Quad, look: &Lookup<'_>) -> Quad {
    let src = look_upright(look, ideal);
    let t = (0..4)
        .min_by(|&a, &b| {
            let d = |t: usize| crate::geom::dist(src[t], chosen[0]);
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(0);
    crate::geom::turn(ideal, t)
}

/// A cell whose inner region is half or more glare is read with less confidence.
pub(crate) fn glare_factor(coverage: f32) -> f32 {
    (coverage / 0.5)
        .clamp(0.0, 1.0)
        .max(if coverage < 0.02 { 1.0 } else { 0.0 })
}

/// Picks the winning grid or says why there is none.
fn judge(
    located: &Located,
    rows: usize,
    cols: usize,
    options: &ReadOptions,
) -> Result<(Candidate, Diagnostics), ReadError> {
    let best = located.grids.first().copied();
    let runner_up_ratio = match (best, located.grids.get(1)) {
        (Some(b), Some(s)) if b.prominence > 0.0 => s.prominence / b.prominence,
        _ => 0.0,
    };
    let mut diagnostics = Diagnostics {
        considered: located.considered,
        grids: located.grids.clone(),
        same_grid_runner_up: located.same_grid_runner_up,
        runner_up_ratio,
        reason: String::new(),
    };
    let Some(best) = best.filter(|b| b.quality.total >= options.min_quality) else {
        let best_q = best.map_or(0.0, |b| b.quality.total);
        // A grid-like thing at the border that is not good enough as a whole: it is cut.
        if best.is_some_and(|b| b.touches_border && b.quality.total >= 0.5 * options.min_quality) {
            diagnostics.reason = "the best lattice runs off the picture".into();
            return Err(ReadError::CutOff {
                rows,
                cols,
                diagnostics: Box::new(diagnostics),
            });
        }
        diagnostics.reason = format!(
            "no hypothesis reached lattice quality {:.2} (best {best_q:.2})",
            options.min_quality
        );
        return Err(ReadError::NotFound {
            rows,
            cols,
            best: best_q,
            diagnostics: Box::new(diagnostics),
        });
    };
    let q = best.quality;
    diagnostics.reason = format!(
        "{:?} hypothesis with lattice quality {:.2} (edges {:.2}, uniform cells {:.2}, \
         surround {:.2}), prominence {:.3}; the next grid has {:.2} of its prominence",
        best.source, q.total, q.edges, q.uniform, q.surround, best.prominence, runner_up_ratio
    );
    if best.touches_border {
        return Err(ReadError::CutOff {
            rows,
            cols,
            diagnostics: Box::new(diagnostics),
        });
    }
    if runner_up_ratio >= options.ambiguity_ratio {
        let count = 1 + located
            .grids
            .iter()
            .skip(1)
            .filter(|g| g.prominence >= options.ambiguity_ratio * best.prominence)
            .count();
        return Err(ReadError::Ambiguous {
            rows,
            cols,
            count,
            ratio: runner_up_ratio,
            diagnostics: Box::new(diagnostics),
        });
    }
    Ok((best, diagnostics))
}

/// Geometry confidence: lattice quality between `min_quality` and `good_quality`, reduced when
/// another grid or another lattice over the same grid comes close.
fn geometry_confidence(winner: &Candidate, d: &Diagnostics, o: &ReadOptions) -> f32 {
    let span = (o.good_quality - o.min_quality).max(1e-3);
    let quality = ((winner.quality.total - o.min_quality) / span).clamp(0.0, 1.0);
    let same = d
        .same_grid_runner_up
        .map_or(0.0, |s| s.quality.total / winner.quality.total.max(1e-6));
    let rival = d.runner_up_ratio.max(same);
    // Full confidence while the rival is at most 60% as good, none when it is as good.
    let margin = ((1.0 - rival) / 0.4).clamp(0.0, 1.0);
    quality * margin
}

/// Rectifies the cell area (ideal corners) at `cell_px` per cell and samples each cell.
pub(crate) fn sample_grid(
    image: &RgbImage,
    camera: Option<&Camera>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    options: &ReadOptions,
) -> Result<Grid<CellSample>, ReadError> {
    let rectified = rectify_grid(image, camera, ideal, rows, cols, options.cell_px)?;
    Ok(sample_cells(&rectified, rows, cols, &options.sample)?)
}

/// The cell area (ideal corners) warped to `cols × rows` square cells of `cell_px` pixels.
pub(crate) fn rectify_grid(
    image: &RgbImage,
    camera: Option<&Camera>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    cell_px: u32,
) -> Result<RgbImage, ReadError> {
    let k = cell_px.max(4) as f32;
    let (w, h) = ((cols as f32 * k) as i32, (rows as f32 * k) as i32);
    let target = rect(-0.5, -0.5, w as f32 - 0.5, h as f32 - 0.5);
    let geometry = || VisionError::Geometry(format!("corners {ideal:?} are degenerate"));
    let to_target = homography_4(ideal, &target).ok_or_else(geometry)?;
    let view = rgb_view(image)?;
    let mut out = Mat::default();
    let cv = VisionError::opencv;
    match camera {
        None => {
            let m = Mat::from_slice_2d(&to_target[..]).map_err(cv("homography Mat"))?;
            imgproc::warp_perspective(
                &view,
                &mut out,
                &m,
                Size::new(w, h),
                imgproc::INTER_LINEAR,
                BORDER_CONSTANT,
                Scalar::all(0.0),
            )
            .map_err(cv("warp_perspective (sample)"))?;
        }
        Some(cam) => {
            // rectified pixel → ideal pixel → distorted source pixel, then one remap.
            let back = invert(&to_target).ok_or_else(geometry)?;
            let mut map: Vec<Vec2f> = Vec::with_capacity((w * h) as usize);
            for y in 0..h {
                for x in 0..w {
                    let p = apply_homography(&back, [x as f32, y as f32]).unwrap_or([-1e6, -1e6]);
                    let s = cam.distort([f64::from(p[0]), f64::from(p[1])]);
                    map.push(Vec2f::from([s[0] as f32, s[1] as f32]));
                }
            }
            let map = Mat::new_rows_cols_with_data(h, w, &map).map_err(cv("map Mat"))?;
            imgproc::remap(
                &view,
                &mut out,
                &map,
                &Mat::default(),
                imgproc::INTER_LINEAR,
                BORDER_CONSTANT,
                Scalar::all(0.0),
            )
            .map_err(cv("remap (sample)"))?;
        }
    }
    Ok(rgb_mat_to_image(&out)?)
}

/// The median colour of a thin strip just outside the cell area (a frame or chart body).
fn surround_colour(look: &Lookup<'_>, ideal: &Quad, rows: usize, cols: usize) -> Option<Srgb> {
    let (r, c) = (rows as f32, cols as f32);
    let g = homography_4(&rect(0.0, 0.0, c, r), ideal)?;
    let mut vals: [Vec<f32>; 3] = Default::default();
    let n = 8 * (rows + cols);
    for i in 0..n {
        let t = (i as f32 + 0.5) / n as f32;
        // Walk the perimeter clockwise, 0.15 cells outside the cell area.
        let s = t * 2.0 * (r + c);
        let lp = if s < c {
            [s, -0.15]
        } else if s < c + r {
            [c + 0.15, s - c]
        } else if s < 2.0 * c + r {
            [c - (s - c - r), r + 0.15]
        } else {
            [-0.15, r - (s - 2.0 * c - r)]
        };
        if let Some(v) = apply_homography(&g, lp).and_then(|p| look.rgb(p)) {
            for ch in 0..3 {
                vals[ch].push(v[ch]);
            }
        }
    }
    let med = |v: &mut Vec<f32>| -> Option<u8> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f32::total_cmp);
        Some(v[v.len() / 2].round().clamp(0.0, 255.0) as u8)
    };
    let [a, b, cc] = &mut vals;
    Some(Srgb::new(med(a)?, med(b)?, med(cc)?))
}

/// Where `cells` of a `rows`×`cols` grid lie, 1-based as people count: "cell (2, 4)", "row 2"
/// or "column 3" when they fill it, else "cells (1, 2), (3, 4)". A row is named only when
/// every cell of it is meant: a player told "row 2" looks at the whole row.
pub(crate) fn describe(cells: &[Pos], rows: usize, cols: usize) -> String {
    let mut cells = cells.to_vec();
    cells.sort_by_key(|p| (p.row, p.col));
    cells.dedup();
    let one_row = cells.windows(2).all(|w| w[0].row == w[1].row);
    let one_col = cells.windows(2).all(|w| w[0].col == w[1].col);
    match cells.as_slice() {
        [p] => format!("cell ({}, {})", p.row + 1, p.col + 1),
        [p, ..] if one_row && cells.len() == cols => format!("row {}", p.row + 1),
        [p, ..] if one_col && cells.len() == rows => format!("column {}", p.col + 1),
        _ => {
            let list: Vec<String> = cells
                .iter()
                .map(|p| format!("({}, {})", p.row + 1, p.col + 1))
                .collect();
            format!("cells {}", list.join(", "))
        }
    }
}
