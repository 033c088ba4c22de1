//! Reading a Layers+ stack (and its mission card) from a photo.
//!
//! The locator finds every framed `rows × cols` grid, first on a coarse copy of the photo from
//! its dark parts alone (every stack has a dark frame; a busy table's edges cost the most) and,
//! when that finds nothing to read, with edges too, then on a finer copy (a stack far from
//! the camera); each complete grid is then judged by physical cues that hold for any printing
//! of any set (formats.md §2):
//!
//! - **the stack** lies on its player card, which is larger than a layer: just outside the
//!   frame, on all four sides, is card colour;
//! - **a mission card** prints its `layers` number beside the grid: a compact glyph in one
//!   margin, which a player card never shows;
//! - **a loose layer** lies on the table: outside its frame (and in its holes) is tablecloth,
//!   not card colour;
//! - **a grid touching the picture's edge** is incomplete (another player's stack).
//!
//! Colours are judged relative to the known parts of the same photo: the frame ring and the
//! player-card surround give a von Kries white balance ([`ColourCorrection::References`]
//! semantics), with a fit to the palette as a whole as the fallback. When two grids are equally
//! plausible as the stack the answer is an error (undecided), never a guess.

mod cells;
mod complete;
mod glyph;
pub mod judge;
#[cfg(test)]
pub(crate) mod tests;
mod wells;

use image::RgbImage;
use serde::Serialize;
use tablejudge_rules::layers::{LayersSet, Solver};
use tablejudge_rules::{Grid, Key, Pos, Srgb, Turn};
use thiserror::Error;

use crate::camera::Camera;
use crate::classify::{
    best_under_veil, classify_in_shade, classify_under_veil, nearest_under_veil, rival_in_shade,
    rival_under_veil, under_veil_delta_e, veil_tints, Classifier, ClassifierParams, Reading,
};
use crate::colour::{Clipped, Lab, LinRgb, Measured};
use crate::error::VisionError;
use crate::geom::{homography_4, rect};
use crate::locate::{upright, Candidate, LocateParams, Locator};
use crate::read::{glare_factor, look_upright, match_order, sample_grid, ReadOptions};
use crate::rectify::{apply_homography, Quad};
use crate::refine::{refine, Lookup, RefineParams};
use crate::sample::{may_be_veiled_except, CellSample, SampleParams, MOSTLY_VEILED};
use crate::white_balance::WhiteBalance;

pub use judge::{judge, judge_against_photo, Doubt, DoubtfulCell, JudgeOptions, Judgement};

/// Everything [`read_layers`] can be told.
#[derive(Clone, Debug, PartialEq)]
pub struct LayersReadOptions {
    /// The searches, in order: each runs only when those before it found nothing to read
    /// (no stack, no mission card). Cheap ones first; the last, finest finds a grid far from
    /// the camera whose cells are a few pixels on a coarse copy.
    pub locate: Vec<LocateParams>,
    pub refine: Option<RefineParams>,
    pub sample: SampleParams,
    pub classifier: ClassifierParams,
    /// A calibrated camera: geometry is then found in undistorted coordinates.
    pub camera: Option<Camera>,
    /// How many of the most prominent grids are examined.
    pub max_grids: usize,
    /// A surround sample within this ΔE₀₀ of the card colour counts as card.
    pub card_delta_e: f32,
    /// Least fraction of card-coloured surround samples, on every side but one, for "lies on
    /// a card" (a stack may lie at its card's very edge). 0.8, not less: a loose layer on a
    /// cream cloth with flowers meets cloth that looks like card in two thirds of its columns,
    /// and its cells would be judged as the stack's.
    pub min_card_fraction: f32,
    /// Least number score (the `glyph` module: 1 for one clear number, ½ for an unclear one)
    /// for "may be a mission card".
    pub min_glyph: f32,
    /// Most upper-quartile ΔE₀₀ from the cells to the palette under the frame/card balance (a
    /// stack shows palette colours), and most by which it may exceed the palette's own fit's,
    /// for "lies on a card". (The palette's own fit may miss where the frame and card hit: a
    /// fit to the cells alone is led astray by shaded wells and glare.)
    pub max_misfit: f32,
    pub max_extra_misfit: f32,
    /// Most |ln| by which the measured frame/card ratio may differ from the printed one in any
    /// channel, for "lies on a card".
    pub max_frame_card_ratio: f32,
}

impl Default for LayersReadOptions {
    /// ΔE 15 for "card coloured" (printing and light vary; a table is usually much further),
    /// 80% of every side on card, a mission card at any hint of a number; the first 6 grids.
    /// Three searches: at 480 px (a 1080p photo shrinks by exactly 4) with cells of at least
    /// 3.5 px there (14 photo px, as the 5 px at 720), first from dark parts alone (every
    /// stack has its dark frame), then with edges too, then both at 720 px.
    fn default() -> Self {
        let coarse = LocateParams {
            detect_long_side: 480,
            min_cell_px: 3.5,
            ..LocateParams::default()
        };
        LayersReadOptions {
            locate: vec![
                LocateParams {
                    edges: false,
                    ..coarse
                },
                coarse,
                LocateParams::default(),
            ],
            refine: Some(RefineParams::default()),
            sample: SampleParams::default(),
            // "None of them" at 4.5σ = 18 ΔE₀₀: a colour that far from every palette entry is
            // not a stack colour, and a clean read is not capped by the outlier prior.
            classifier: ClassifierParams {
                sigma: 4.0,
                outlier_sigmas: 4.5,
            },
            camera: None,
            max_grids: 6,
            card_delta_e: 15.0,
            min_card_fraction: 0.8,
            min_glyph: 0.5,
            max_misfit: 10.0,
            max_extra_misfit: 4.0,
            // A factor of 4: flare on a dark frame, a clipped white card and glare stay inside.
            max_frame_card_ratio: 4f32.ln(),
        }
    }
}

/// What a framed grid in the photo was judged to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GridKind {
    /// A stack on its player card.
    Stack,
    /// A mission card (a glyph beside the grid).
    MissionCard,
    /// A grid not on a player card (a loose layer, or something else on the table; when only
    /// the stack is wanted, a mission card off any player card too).
    NotOnCard,
    /// Part of it or its surround lies outside the picture.
    CutOff,
    /// Not examined (beyond `max_grids`) or too degenerate to examine.
    Unexamined,
}

/// One framed grid found in the photo, with the evidence it was judged on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FoundGrid {
    /// Outer corners of the cell area in source pixels, clockwise (as located).
    pub corners: Quad,
    pub kind: GridKind,
    /// Lattice prominence (see [`Candidate::prominence`]).
    pub prominence: f32,
    /// A printed number beside the grid (see the `glyph` module): 1 for exactly one compact
    /// island of ink enclosed by card and inside the card's edge, ½ for several (a pattern),
    /// 0 for none, and 0 untested (a grid off any player card when only the stack is wanted).
    pub glyph: f32,
    /// Number-like islands (enclosed by card, compact, not one of a repeated motif) anywhere in
    /// the margin, before the card-edge test.
    pub glyph_islands: usize,
    /// Part of the card around the grid lies outside the picture, where a number may hide.
    pub card_cut: bool,
    /// Fraction of positions along a side (the worst side but one: a stack may lie at its
    /// card's very edge) where the first material past the frame is card coloured, when the
    /// frame and the surround are taken as the white-balance references (the stack
    /// hypothesis); see `card_columns`.
    pub card_surround_refs: f32,
    /// The largest, over channels, |ln| of the measured frame/surround ratio over the printed
    /// frame/card ratio: near 0 for a frame on its card under any light.
    pub frame_card_ratio: f32,
    /// Upper-quartile ΔE₀₀ from the cells to their nearest stack colour under the stack hypothesis's
    /// balance, and under the palette's own fit: far apart when the surround is not card.
    pub misfit_refs: f32,
    pub misfit_palette: f32,
}

impl FoundGrid {
    /// A grid as located, before any evidence is gathered.
    pub fn located(corners: Quad, kind: GridKind, prominence: f32) -> FoundGrid {
        FoundGrid {
            corners,
            kind,
            prominence,
            glyph: 0.0,
            glyph_islands: 0,
            card_cut: false,
            card_surround_refs: 0.0,
            frame_card_ratio: 0.0,
            misfit_refs: 0.0,
            misfit_palette: 0.0,
        }
    }
}

/// The stack as read.
#[derive(Clone, Debug, PartialEq)]
pub struct LayersReading {
    /// Outer corners of the cell area in source pixels, clockwise from the cell that became
    /// row 0, column 0 (formats.md §4).
    pub corners: Quad,
    /// Per cell: label (a key a stack can show: a layer colour or the card), colour after
    /// white balance, calibrated confidence.
    pub cells: Grid<Reading>,
    /// The raw samples, with their glare-free coverage.
    pub samples: Grid<CellSample>,
    /// The correction applied (from the frame ring and the player-card surround).
    pub white_balance: WhiteBalance,
    /// The fewest layers that show the read grid; `None` when no stack of the set can show it
    /// (then some cell is misread, and the least confident cells were marked doubtful).
    pub min_layers: Option<usize>,
    /// Cells the photo could not show (glare, shadow) that the rules filled in: the only
    /// colouring of them that a stack of the set can show (see `complete`).
    pub inferred: Vec<Pos>,
    /// Every framed grid found, the stack included, with what it was judged to be.
    pub grids: Vec<FoundGrid>,
}

impl LayersReading {
    /// The read labels (`None` nowhere: every cell gets its nearest key).
    pub fn keys(&self) -> Grid<Option<Key>> {
        self.cells.map(|r| r.label)
    }

    /// The `tablejudge/observation@1` form (formats.md §4).
    pub fn to_observation(&self, source: impl Into<String>) -> crate::Observation {
        crate::Observation::new(source, self.corners, &self.cells)
    }
}

/// A mission card as read.
#[derive(Clone, Debug, PartialEq)]
pub struct MissionReading {
    pub corners: Quad,
    /// Per cell: label from the set palette (layer colours and card), calibrated confidence.
    pub cells: Grid<Reading>,
    pub white_balance: WhiteBalance,
    /// The set mission whose pattern this is (up to a quarter-turn), when exactly one is, and
    /// every cell is confident.
    pub mission: Option<IdentifiedMission>,
    pub grids: Vec<FoundGrid>,
}

/// A set mission recognised on a mission card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IdentifiedMission {
    pub id: String,
    /// Clockwise quarter-turns that take the read grid to the mission's pattern.
    pub quarter_turns: Turn,
}

/// Why no stack (or mission card) could be read; each message says what to retake.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum LayersError {
    #[error("invalid request: {0}")]
    Request(String),
    #[error(transparent)]
    Vision(#[from] VisionError),
    #[error(
        "no {what} found: {reason}; retake with the whole {what} in the picture, well lit, \
         filling a good part of it"
    )]
    NotFound {
        what: &'static str,
        reason: String,
        grids: Vec<FoundGrid>,
    },
    #[error(
        "{count} grids look equally like the {what}: retake with only the {what} in the \
         picture (or move the camera so it clearly dominates)"
    )]
    Ambiguous {
        what: &'static str,
        count: usize,
        grids: Vec<FoundGrid>,
    },
    #[error(
        "the {what} is cut by the edge of the picture: move the camera so the whole {what} \
         (with a margin around it) is in the picture"
    )]
    CutOff {
        what: &'static str,
        grids: Vec<FoundGrid>,
    },
}

impl LayersError {
    /// Every framed grid that was found, when locating succeeded.
    pub fn grids(&self) -> &[FoundGrid] {
        match self {
            LayersError::NotFound { grids, .. }
            | LayersError::Ambiguous { grids, .. }
            | LayersError::CutOff { grids, .. } => grids,
            _ => &[],
        }
    }
}

/// The keys a stack of `set` can show: every layer colour, and the card.
pub fn stack_keys(set: &LayersSet) -> Vec<Key> {
    let mut keys: Vec<Key> = set
        .layers()
        .iter()
        .flat_map(|l| {
            l.front()
                .cells()
                .iter()
                .chain(l.back().cells())
                .flatten()
                .copied()
                .collect::<Vec<_>>()
        })
        .chain([set.card()])
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// The point, in cell units, at fraction `t` along side `side` of a `r` × `c` grid (0 top,
/// 1 right, 2 bottom, 3 left, each walked clockwise) and `out` cells outside it.
pub(crate) fn beside_side(side: usize, t: f32, out: f32, r: f32, c: f32) -> [f32; 2] {
    match side {
        0 => [t * c, -out],
        1 => [c + out, t * r],
        2 => [(1.0 - t) * c, r + out],
        _ => [-out, (1.0 - t) * r],
    }
}

/// Reads the stack on its player card (see the module docs).
pub fn read_layers(
    image: &RgbImage,
    set: &LayersSet,
    options: &LayersReadOptions,
) -> Result<LayersReading, LayersError> {
    LayersReader::new(set)?.read(image, options)
}

/// Reads a photo of a mission card alone (`--mission-photo`).
pub fn read_mission_card(
    image: &RgbImage,
    set: &LayersSet,
    options: &LayersReadOptions,
) -> Result<MissionReading, LayersError> {
    LayersReader::new(set)?.read_mission(image, options)
}

/// Reads the stack and the mission card lying beside it in one photo (`--mission-in-photo`),
/// both under one white balance (the stack's: its frame and player card are known colours).
pub fn read_stack_and_mission(
    image: &RgbImage,
    set: &LayersSet,
    options: &LayersReadOptions,
) -> Result<(LayersReading, MissionReading), LayersError> {
    LayersReader::new(set)?.read_both(image, options)
}

/// A reader for one set; keeps the locator's buffers and the set's solver between photos.
pub struct LayersReader {
    set: LayersSet,
    solver: Solver,
    locator: Locator,
    keys: Vec<Key>,
}

/// A cell brighter than the best-lit card around the grid by more than this factor (linear,
/// in a channel neither clips) cannot be a hole showing that card: light was added to it.
const WASHED_PAST_CARD: f32 = 1.05;

/// ΔE (a*b* plane) by which the fringe of an over-exposed hole may be tinted against the
/// best-lit card other than towards the card's own hue: one just-noticeable difference.
const FRINGE_TINT: f32 = 1.0;

/// A balanced linear level past white by more than rounding and noise.
const PAST_WHITE: f32 = 1.02;

/// Whether the fringe of a mostly-glare cell ([`CellSample::fringe`], all in the highlight
/// roll-off) is the card around the grid: white-balanced, tinted against the best-lit card by
/// at most [`FRINGE_TINT`] except towards the card's printed hue (`card_chroma`, its a* and
/// b*): as a tinted white dims in the roll-off, the channel it has least of drops first. A
/// highlight over a colour tints its fringe with that colour.
fn card_in_roll_off(
    fringe: Srgb,
    card_lit: Srgb,
    balance: &WhiteBalance,
    card_chroma: [f32; 2],
) -> bool {
    let (f, c) = (
        Lab::from_srgb(balance.apply(fringe)),
        Lab::from_srgb(balance.apply(card_lit)),
    );
    let tint = [f.a - c.a, f.b - c.b];
    let norm = card_chroma[0].hypot(card_chroma[1]);
    let towards_card = if norm > 0.0 {
        ((tint[0] * card_chroma[0] + tint[1] * card_chroma[1]) / norm).max(0.0)
    } else {
        0.0
    };
    let elsewhere = (tint[0].hypot(tint[1]).powi(2) - towards_card.powi(2))
        .max(0.0)
        .sqrt();
    elsewhere <= FRINGE_TINT
}

/// Whether what looks like glare in a cell may be the card itself, lit and in shade: its
/// brighter pixels (the veil's, [`CellSample::veil_light`], or else its median) are no
/// brighter than the best-lit card around the grid (`card_lit`) in any channel, and any pixels
/// at the glare level are as bright as that card is anyway. The darker pixels of such a
/// "veil" are the shade of the layers around a hole; nothing shows that light was added.
/// (Glare over a darker colour can look the same within one cell; a highlight that strong
/// spreads past it, which [`may_be_veiled_except`] looks for in the neighbours.)
fn card_in_shade(s: &CellSample, card_lit: Srgb, glare_min: u8) -> bool {
    let lit = LinRgb::from_srgb(card_lit).to_array();
    let card_at_glare_level = card_lit.r.min(card_lit.g).min(card_lit.b) >= glare_min;
    if s.coverage < 1.0 && !card_at_glare_level {
        return false;
    }
    let base = LinRgb::from_srgb(s.srgb).to_array();
    let added = s.veil_light.map_or([0.0; 3], |v| v.added.to_array());
    (0..3).all(|c| base[c] + added[c] <= WASHED_PAST_CARD * lit[c])
}

/// Levels by which a cell's channel in the highlight roll-off may exceed the best-lit card's
/// before light was added to it (a median over a cell against the card's upper tenth).
const ROLL_OFF_NOISE: u8 = 2;

/// How much darker a shadow may leave the cells than the card around them (1 EV).
const MAX_SHADOW_GAIN: f32 = 2.0;

/// One examined candidate.
struct Examined {
    found: FoundGrid,
    /// Refined ideal corners, upright.
    ideal: Quad,
    samples: Grid<CellSample>,
    /// White balance from frame ring + surround (when the surround is card) or frame + cells.
    balance: WhiteBalance,
    /// The best-lit card around the grid (per-channel upper tenth of the surround): a hole
    /// shows the card, no brighter than where the light falls best on it, while the median
    /// may lie in the stack's own shadow.
    card_lit: Option<Srgb>,
}

impl LayersReader {
    /// A reader for `set`.
    pub fn new(set: &LayersSet) -> Result<LayersReader, LayersError> {
        Ok(LayersReader {
            set: set.clone(),
            solver: Solver::new(set),
            locator: Locator::new(),
            keys: stack_keys(set),
        })
    }

    fn printed(&self, k: Key) -> Option<Srgb> {
        self.set.colors().get(&k).map(|s| s.srgb)
    }

    /// Every stack colour's key and printed colour in linear light.
    fn printed_linear(&self) -> Vec<(Key, LinRgb)> {
        self.keys
            .iter()
            .filter_map(|&k| self.printed(k).map(|c| (k, LinRgb::from_srgb(c))))
            .collect()
    }

    fn classifier(&self, options: &LayersReadOptions) -> Result<Classifier, LayersError> {
        let sw: Vec<(Key, Srgb)> = self
            .keys
            .iter()
            .filter_map(|&k| self.printed(k).map(|c| (k, c)))
            .collect();
        Classifier::from_swatches(sw, options.classifier)
            .map_err(|e| LayersError::Request(format!("palette: {e}")))
    }

    /// Locates and examines every complete grid with each of `options.locate` in turn, until
    /// what a search found is `enough`; the last search's findings otherwise.
    fn examine(
        &mut self,
        image: &RgbImage,
        options: &LayersReadOptions,
        wanted: Wanted,
        enough: impl Fn(&[Option<Examined>]) -> bool,
    ) -> Result<Vec<Option<Examined>>, LayersError> {
        let mut found = Vec::new();
        for locate in &options.locate {
            found = self.examine_with(image, options, locate, wanted)?;
            if enough(&found) {
                break;
            }
        }
        Ok(found)
    }

    /// Locates with `locate` and examines every complete grid.
    fn examine_with(
        &mut self,
        image: &RgbImage,
        options: &LayersReadOptions,
        locate: &LocateParams,
        wanted: Wanted,
    ) -> Result<Vec<Option<Examined>>, LayersError> {
        let (rows, cols) = (self.set.rows(), self.set.cols());
        let located = self
            .locator
            .locate(image, rows, cols, locate)
            .map_err(LayersError::Vision)?;
        let mut out = Vec::new();
        for (i, c) in located.grids.iter().enumerate() {
            let kind = if c.touches_border {
                GridKind::CutOff
            } else {
                GridKind::Unexamined
            };
            let found = FoundGrid::located(c.corners, kind, c.prominence);
            // Weak lattices are not grids at all; cut ones are reported but never read.
            if c.quality.total < ReadOptions::default().min_quality {
                continue;
            }
            if c.touches_border || i >= options.max_grids {
                out.push(Some(Examined {
                    found,
                    ideal: c.corners,
                    samples: Grid::filled(
                        rows,
                        cols,
                        CellSample {
                            srgb: Srgb::new(0, 0, 0),
                            coverage: 0.0,
                            veiled: 0.0,
                            other: None,
                            fringe: None,
                            veil_light: None,
                        },
                    ),
                    balance: WhiteBalance::IDENTITY,
                    card_lit: None,
                }));
                continue;
            }
            out.push(self.examine_one(image, c, found, options, wanted));
        }
        // On a card-coloured surround are the stack and possibly a mission card printed on
        // card-coloured stock. Any on-card grid that may have a number beside it is a mission
        // card, alone or not: taking a mission card for the stack would judge the mission
        // against itself, a certain false match, and a number test that cannot tell card from
        // table (both clipped white) finds "numbers" around the stack as well.
        for e in out.iter_mut().flatten() {
            if e.found.kind == GridKind::Stack && e.found.glyph >= options.min_glyph {
                e.found.kind = GridKind::MissionCard;
            }
        }
        Ok(out)
    }

    fn examine_one(
        &self,
        image: &RgbImage,
        c: &Candidate,
        mut found: FoundGrid,
        options: &LayersReadOptions,
        wanted: Wanted,
    ) -> Option<Examined> {
        let (rows, cols) = (self.set.rows(), self.set.cols());
        let camera = options.camera.as_ref();
        let look = Lookup::new(image, camera);
        let ideal = match camera {
            Some(cam) => c.corners.map(|p| {
                let q = cam.undistort([f64::from(p[0]), f64::from(p[1])]);
                [q[0] as f32, q[1] as f32]
            }),
            None => c.corners,
        };
        let refined = match &options.refine {
            Some(params) => refine(&look, &ideal, rows, cols, c.fill, params),
            None => ideal,
        };
        let (chosen, _) = upright(&look_upright(&look, &refined), rows, cols);
        let ideal = match_order(&refined, &chosen, &look);
        let fw = self.set.frame_width() as f32;
        let frame_printed = self.printed(self.set.frame())?;
        let card_printed = self.printed(self.set.card())?;
        // On the frame's outer edge, the frame ring and the surround would both land on the
        // card: settle the cell area before judging what lies around it.
        let (ideal, _) =
            cells::settle_cell_area(&look, &ideal, rows, cols, fw, frame_printed, card_printed);
        let read_options = ReadOptions {
            sample: options.sample,
            camera: options.camera,
            ..ReadOptions::default()
        };
        let samples = sample_grid(image, camera, &ideal, rows, cols, &read_options).ok()?;
        let frame_px = ring(&look, &ideal, rows, cols, 0.3 * fw, 0.7 * fw, 3);
        let frame = median(frame_px.iter().flatten())?;
        // A first balance that does not assume what surrounds the frame: frame + cells against
        // the palette as a whole.
        let palette: Vec<Srgb> = self
            .keys
            .iter()
            .chain([&self.set.frame()])
            .filter_map(|&k| self.printed(k))
            .collect();
        let mut measured: Vec<Srgb> = samples.cells().iter().map(|s| s.srgb).collect();
        // The frame ring is a known part: weigh it like a few cells.
        measured.extend(std::iter::repeat_n(frame, 3));
        let by_palette = WhiteBalance::from_palette(&measured, &palette)
            .ok()?
            .balance;

        // The surround just outside the frame: card colour on every side for a stack.
        let near = ring(&look, &ideal, rows, cols, fw + 0.08, fw + 0.3, 3);
        let surround = card_sides_median(&near, &by_palette, card_printed, options.card_delta_e);
        let card_lit = quantile(near.iter().flatten(), 0.9);
        // With the frame and the surround as references (the stack hypothesis).
        let by_refs = surround.and_then(|s| {
            balance_from_frame_and_card((frame, frame_printed), (s, card_printed), &by_palette)
        });
        found.frame_card_ratio = surround.map_or(f32::INFINITY, |s| {
            cells::frame_card_ratio(frame, s, frame_printed, card_printed)
        });
        if let Some(b) = &by_refs {
            found.card_surround_refs = card_columns(
                &look,
                &ideal,
                rows,
                cols,
                fw,
                b,
                frame_printed,
                card_printed,
                options.card_delta_e,
            );
            // A shadow over the stack (an arm, the lamp's angle) darkens the cells but not the
            // card around them: a scale, no change of hue. The references may explain the
            // cells with their gain raised by up to a shadow's depth (never lowered: a cloth
            // darker than the card, taken for it, raises the gain and stays a misfit).
            let sum = |w: &WhiteBalance| w.gains.iter().sum::<f32>();
            let k = (sum(&by_palette) / sum(b)).clamp(1.0, MAX_SHADOW_GAIN);
            let shaded = WhiteBalance {
                gains: b.gains.map(|g| g * k),
            };
            found.misfit_refs = self
                .misfit_allowing_glare(&samples, b)
                .min(self.misfit_allowing_glare(&samples, &shaded));
        }
        found.misfit_palette = self.misfit_allowing_glare(&samples, &by_palette);
        // On a card: card colour right past the frame all around (but at the card's edge),
        // and the frame and card as references explain the cells as palette colours, about
        // as well as the palette's own fit does (a tablecloth taken for card bends every
        // colour away from the palette).
        let on_card = by_refs.is_some()
            && found.frame_card_ratio <= options.max_frame_card_ratio
            && found.card_surround_refs >= options.min_card_fraction
            && found.misfit_refs <= options.max_misfit
            && found.misfit_refs <= found.misfit_palette + options.max_extra_misfit;
        // The number test is the costliest step; off a player card it only names a grid that
        // is no stack anyway, so it runs there only when a mission card is wanted.
        if on_card || wanted == Wanted::StackAndMissionCards {
            let glyph = glyph::glyph_score(&look, &ideal, rows, cols, fw, &by_palette);
            (found.glyph, found.glyph_islands, found.card_cut) =
                (glyph.score, glyph.islands, glyph.card_cut);
        }
        // Provisional: `examine` settles stack vs mission card by comparing glyphs.
        found.kind = if on_card {
            GridKind::Stack
        } else if found.glyph >= options.min_glyph {
            GridKind::MissionCard
        } else {
            GridKind::NotOnCard
        };
        let balance = match (found.kind, by_refs) {
            (GridKind::Stack, Some(b)) => b,
            _ => by_palette,
        };
        Some(Examined {
            found,
            ideal,
            samples,
            balance,
            card_lit,
        })
    }

    /// The upper quartile of the ΔE₀₀ from each balanced cell to its nearest printed stack
    /// colour: how well a correction explains the cells. A quartile, not the median, so that
    /// the coloured cells must fit too, not only the holes (a loose layer's holes show the table,
    /// which a balance from its surround turns into card colour).
    fn misfit(&self, samples: &Grid<CellSample>, balance: &WhiteBalance) -> f32 {
        self.misfit_with(samples, balance, false)
    }

    /// [`Self::misfit`], but a cell that glare mostly covers or veils counts as the printed
    /// colour that a veil over it explains best: light added to a colour is no fault of the
    /// balance. For the on-card test, where a highlight over a few cells must not move the
    /// stack off its card; not for comparing two balances, since a veil explains a cast
    /// that lightens cells as well as it explains glare.
    fn misfit_allowing_glare(&self, samples: &Grid<CellSample>, balance: &WhiteBalance) -> f32 {
        self.misfit_with(samples, balance, true)
    }

    fn misfit_with(&self, samples: &Grid<CellSample>, balance: &WhiteBalance, glare: bool) -> f32 {
        let printed: Vec<(LinRgb, Lab)> = self
            .keys
            .iter()
            .filter_map(|&k| self.printed(k))
            .map(|c| (LinRgb::from_srgb(c), Lab::from_srgb(c)))
            .collect();
        let quartile = |d: &[f32]| {
            let mut d = d.to_vec();
            d.sort_by(f32::total_cmp);
            d.get(3 * d.len() / 4).copied().unwrap_or(f32::INFINITY)
        };
        let measured: Vec<Measured> = samples
            .cells()
            .iter()
            .map(|s| {
                let raw = LinRgb::from_srgb(s.srgb);
                Measured::new(balance.apply_linear(raw), Clipped::of(raw))
            })
            .collect();
        let mut d: Vec<f32> = measured
            .iter()
            .map(|m| m.nearest(&printed).map_or(f32::INFINITY, |(_, d)| d))
            .collect();
        if glare {
            // Lowering a distance under the quartile leaves the quartile where it is: glared
            // cells get the (costlier) fit under a veil from the farthest down, while they
            // lie at or above the quartile so far.
            let min_coverage = SampleParams::default().min_coverage;
            let mut glared: Vec<usize> = (0..d.len())
                .filter(|&i| {
                    let s = &samples.cells()[i];
                    s.veiled > MOSTLY_VEILED || s.coverage < min_coverage
                })
                .collect();
            glared.sort_by(|&i, &j| d[j].total_cmp(&d[i]));
            let any_tint = veil_tints(None);
            for i in glared {
                if d[i] < quartile(&d) {
                    break;
                }
                let lin = printed.iter().map(|&(l, _)| l);
                d[i] = nearest_under_veil(&measured[i], lin, d[i], &any_tint);
            }
        }
        quartile(&d)
    }

    /// Classifies sampled cells under `balance`; `card_lit` is the best-lit card around them
    /// as photographed.
    fn classify(
        &self,
        classifier: &Classifier,
        samples: &Grid<CellSample>,
        balance: &WhiteBalance,
        card_lit: Option<Srgb>,
    ) -> Grid<Reading> {
        let printed = self.printed_linear();
        let any_tint = veil_tints(None);
        let card = card_lit.map(LinRgb::from_srgb);
        let card_lin = card.map_or([f32::INFINITY; 3], |c| c.to_array());
        let card_srgb = card_lit.map_or([u8::MAX; 3], |c| c.to_array());
        let card_clipped = card.map_or(Clipped([false; 3]), Clipped::of);
        let card_chroma = self.printed(self.set.card()).map_or([0.0; 2], |c| {
            let lab = Lab::from_srgb(c);
            [lab.a, lab.b]
        });
        // First each cell's plain reading: balanced, with the channels whose level is unknown.
        let plain = samples.map(|s| {
            let raw = LinRgb::from_srgb(s.srgb);
            // A channel the balance lifts past white is brighter than any printed surface can
            // be under this light: a highlight, whose true level is unknown, like a clipped
            // channel's (the balance would otherwise clamp it to white, and a lit colour would
            // read as the card).
            let balanced = balance.apply_linear(raw);
            let lifted = balanced.to_array();
            let camera_clipped = Clipped::of(raw).0;
            let clipped = Clipped(std::array::from_fn(|c| {
                camera_clipped[c] || lifted[c] > PAST_WHITE
            }));
            let r = classifier.classify_clipped(balance.apply(s.srgb), clipped);
            (raw, balanced, clipped, r)
        });
        let glare_min = SampleParams::default().glare_min;
        let shaded_hole = Grid::from_fn(samples.rows(), samples.cols(), |p| {
            plain[p].3.label == Some(self.set.card())
                && card_lit.is_some_and(|c| card_in_shade(&samples[p], c, glare_min))
        });
        let veil = may_be_veiled_except(samples, &shaded_hole);
        Grid::from_fn(samples.rows(), samples.cols(), |p| {
            let s = &samples[p];
            let (raw, balanced, clipped, r) = plain[p];
            // Mostly glare, but what shows at its edge is the card in the highlight roll-off
            // (an over-exposed hole): the glare is more of that card and hides nothing.
            let coverage = match (s.fringe, card_lit) {
                (Some(f), Some(c)) if card_in_roll_off(f, c, balance, card_chroma) => 1.0,
                _ => s.coverage,
            };
            let mut confidence = r.confidence * glare_factor(coverage.clamp(0.0, 1.0));
            // Washed out: two or more channels clipped, and brighter than the best-lit card
            // around the grid in some channel (a hole clips like its card, and is no brighter).
            // Where both lie in the camera's highlight roll-off, its 8-bit values still rise
            // with the light until full scale, if only by a few levels.
            let brighter = |c: usize| match (clipped.0[c], card_clipped.0[c]) {
                (true, false) => true,
                (false, false) => raw.to_array()[c] > WASHED_PAST_CARD * card_lin[c],
                (true, true) => s.srgb.to_array()[c] > card_srgb[c].saturating_add(ROLL_OFF_NOISE),
                (false, true) => false,
            };
            let washed = clipped.0.iter().filter(|&&c| c).count() >= 2 && (0..3).any(brighter);
            let measured = Measured::new(balanced, clipped);
            // A hole is a well through the stack, and the card at its bottom lies in its
            // walls' shade, duller than the card around the grid. Where no colour explains the
            // cell in any shade a well allows as well as the card does, it is the card,
            // however dim (a plain read takes a grey for "none of them").
            if r.label == Some(self.set.card()) && !veil[p] && !clipped.any() {
                let shaded =
                    classify_in_shade(&measured, &printed, MIN_WELL_LIGHT, classifier.params());
                if let Some((_, c)) = shaded.filter(|&(k, _)| Some(k) == r.label) {
                    confidence = confidence.max(c * glare_factor(coverage.clamp(0.0, 1.0)));
                }
            }
            let mut label = r.label;
            if let (true, Some(l)) = (veil[p], r.label) {
                // Under a veil a darker colour may lie beneath; where one explains a coloured
                // cell clearly better than its label, it is the likelier reading. (Not so for
                // the card: the lightest surface, any darker colour under a veil of the right
                // tint mimics it.)
                if rival_under_veil(&measured, &printed, l, washed, &any_tint) {
                    confidence = confidence.min(0.5);
                    if l != self.set.card() {
                        label = best_under_veil(&measured, &printed, l, &any_tint).or(label);
                    }
                }
            }
            // Mostly veiled, and its least veiled pixels fit no printed colour plainly: they
            // carry some of the veil too. Where the pixels show the veil's colour, read the
            // colour that such a veil explains, as surely as the distances under it allow.
            // (A plain fit stays: a veil that moves a darker colour exactly onto another
            // printed one is a coincidence the rival test above looks for. Clipped channels
            // hide how much veil there is.)
            let rescue = 1.0 - JudgeOptions::default().max_cell_error;
            // The veil's tilt after the balance, as the cell's pixels show it (the lamp's
            // colour need not be the light the balance corrected for).
            let own_tilt = s
                .veil_light
                .filter(|_| veil[p] && s.veiled > MOSTLY_VEILED && !clipped.any())
                .and_then(|v| v.tilt(balance.gains));
            if let (Some(tilt), true) = (own_tilt, confidence < rescue) {
                if let Some((k, c)) = classify_under_veil(
                    &measured,
                    &printed,
                    &veil_tints(Some(tilt)),
                    classifier.params(),
                ) {
                    let c = c * glare_factor(coverage.clamp(0.0, 1.0));
                    if c > confidence {
                        label = Some(k);
                        confidence = c;
                    }
                }
            }
            // In shade (the bottom of a deep well, a shadow the card around escapes), a lighter
            // colour may lie there; where one explains the cell clearly better than its label,
            // the label is a guess. (Veiled cells had their own test: light was added there.)
            if let (false, Some(l)) = (veil[p], label) {
                if rival_in_shade(&measured, &printed, l) {
                    confidence = confidence.min(0.5);
                }
            }
            // Two surfaces in one cell: doubtful unless both read the same.
            if let Some(other) = s.other {
                let o = classifier
                    .classify_clipped(balance.apply(other), Clipped::of(LinRgb::from_srgb(other)));
                if o.label != r.label {
                    confidence = confidence.min(0.5);
                }
            }
            Reading {
                label,
                confidence,
                ..r
            }
        })
    }

    fn corners(&self, ideal: &Quad, options: &LayersReadOptions) -> Quad {
        match options.camera.as_ref() {
            Some(cam) => ideal.map(|p| {
                let q = cam.distort([f64::from(p[0]), f64::from(p[1])]);
                [q[0] as f32, q[1] as f32]
            }),
            None => *ideal,
        }
    }

    fn pick_stack(
        &self,
        examined: &[Option<Examined>],
        grids: &[FoundGrid],
    ) -> Result<usize, LayersError> {
        let stacks: Vec<usize> = examined
            .iter()
            .enumerate()
            .filter(|(_, e)| e.as_ref().is_some_and(|e| e.found.kind == GridKind::Stack))
            .map(|(i, _)| i)
            .collect();
        match stacks.as_slice() {
            [one] => Ok(*one),
            [] => {
                // "Cut off" only when a cut grid is all there is: beside a whole grid taken for
                // a mission card, the stack may be that grid (a cloth motif by it looked like
                // a number) as well as the cut one, and "move the camera" would mislead.
                if grids.iter().any(|g| g.kind == GridKind::CutOff)
                    && grids.iter().all(|g| g.kind == GridKind::CutOff)
                {
                    return Err(LayersError::CutOff {
                        what: "stack",
                        grids: grids.to_vec(),
                    });
                }
                let reason = if grids.is_empty() {
                    format!("no {}x{} grid", self.set.rows(), self.set.cols())
                } else {
                    let kinds: Vec<String> =
                        grids.iter().map(|g| format!("{:?}", g.kind)).collect();
                    let cut = if grids.iter().any(|g| g.card_cut) {
                        "; a card runs out of the picture, and a number may hide there"
                    } else {
                        ""
                    };
                    format!(
                        "no grid lies on a player card (found: {}){cut}",
                        kinds.join(", ")
                    )
                };
                Err(LayersError::NotFound {
                    what: "stack",
                    reason,
                    grids: grids.to_vec(),
                })
            }
            many => {
                let found: Vec<&FoundGrid> = many
                    .iter()
                    .filter_map(|&i| examined[i].as_ref().map(|e| &e.found))
                    .collect();
                match clearly_the_stack(&found) {
                    Some(k) => Ok(many[k]),
                    None => Err(LayersError::Ambiguous {
                        what: "stack",
                        count: many.len(),
                        grids: grids.to_vec(),
                    }),
                }
            }
        }
    }

    /// [`read_layers`] with this reader's buffers.
    pub fn read(
        &mut self,
        image: &RgbImage,
        options: &LayersReadOptions,
    ) -> Result<LayersReading, LayersError> {
        let examined = self.examine(image, options, Wanted::Stack, |ex| {
            any_of(ex, &[GridKind::Stack])
        })?;
        let grids: Vec<FoundGrid> = examined.iter().flatten().map(|e| e.found.clone()).collect();
        let i = self.pick_stack(&examined, &grids)?;
        // `pick_stack` returns the index of an examined (Some) entry.
        let Some(e) = examined[i].as_ref() else {
            return Err(LayersError::Request("internal: stack not examined".into()));
        };
        self.finish_stack(e, grids, options)
    }

    fn finish_stack(
        &self,
        e: &Examined,
        grids: Vec<FoundGrid>,
        options: &LayersReadOptions,
    ) -> Result<LayersReading, LayersError> {
        let classifier = self.classifier(options)?;
        let mut cells = self.classify(&classifier, &e.samples, &e.balance, e.card_lit);
        self.doubt_where_normalisations_disagree(&classifier, e, &mut cells);
        let keys = cells.map(|r| r.label.unwrap_or(self.set.card()));
        let printed = self.printed_linear();
        let depths = || wells::well_depths(&self.set, &self.solver, &keys);
        wells::doubt_shaded_twins(&mut cells, &e.samples, depths, &printed);
        complete::doubt_what_no_stack_shows(&mut cells, &keys, &self.solver, &self.keys);
        // The card first: unread cells default to it.
        let card = self.set.card();
        let palette: Vec<(Key, Srgb)> = std::iter::once(card)
            .chain(self.keys.iter().copied().filter(|&k| k != card))
            .filter_map(|k| self.printed(k).map(|c| (k, c)))
            .collect();
        let inferred = complete::complete_by_rules(
            &mut cells,
            &e.samples,
            &self.solver,
            &palette,
            JudgeOptions::default().max_cell_error,
        );
        let min_layers = self
            .solver
            .min_layers(&cells.map(|r| r.label.unwrap_or(self.set.card())));
        Ok(LayersReading {
            corners: self.corners(&e.ideal, options),
            cells,
            samples: e.samples.clone(),
            white_balance: e.balance,
            min_layers,
            inferred,
            grids,
        })
    }

    /// Cross-checks the colour normalisation. The stack's cells were corrected from its frame
    /// and player card; the palette as a whole gives a second, independent correction. A cell
    /// whose label depends on which one is used was not read confidently, whatever either
    /// says: a wrong reference (a shadow on the card, glare on the frame) shifts every colour
    /// the same way and can push one shade into its neighbour.
    fn doubt_where_normalisations_disagree(
        &self,
        classifier: &Classifier,
        e: &Examined,
        cells: &mut Grid<Reading>,
    ) {
        let printed: Vec<Srgb> = self.keys.iter().filter_map(|&k| self.printed(k)).collect();
        let measured: Vec<Srgb> = e.samples.cells().iter().map(|s| s.srgb).collect();
        let Ok(fit) = WhiteBalance::from_palette(&measured, &printed) else {
            return;
        };
        let other = self.classify(classifier, &e.samples, &fit.balance, e.card_lit);
        // A palette fit to a few distinct colours can lock onto an absurd cast (sky blue and
        // red read as holes): an alternative that explains the cells worse than the
        // references do and shows no stack of the set is no witness against them.
        let possible = self
            .solver
            .min_layers(&other.map(|r| r.label.unwrap_or(self.set.card())))
            .is_some();
        if !possible && self.misfit(&e.samples, &fit.balance) > self.misfit(&e.samples, &e.balance)
        {
            return;
        }
        // Where the alternative shows no stack either, it is a witness only where it reads
        // another colour as surely as a mismatch needs: a cast that leaves two printed colours
        // alike (orchid pink and salmon with blue gone) disagrees by a coin's toss.
        let witness = JudgeOptions::default().mismatch_confidence;
        for (p, r) in other.iter() {
            if r.label != cells[p].label && (possible || r.confidence >= witness) {
                cells[p].confidence = cells[p].confidence.min(0.5);
            }
        }
    }

    fn finish_mission(
        &self,
        e: &Examined,
        balance: WhiteBalance,
        grids: Vec<FoundGrid>,
        options: &LayersReadOptions,
    ) -> Result<MissionReading, LayersError> {
        let classifier = self.classifier(options)?;
        let cells = self.classify(&classifier, &e.samples, &balance, e.card_lit);
        let keys = cells.map(|r| r.label.unwrap_or(self.set.card()));
        let sure = cells
            .cells()
            .iter()
            .all(|r| r.confidence >= JudgeOptions::default().mismatch_confidence);
        let hits: Vec<IdentifiedMission> = self
            .set
            .missions()
            .iter()
            .filter_map(|m| {
                keys.turn_to(m.pattern()).map(|t| IdentifiedMission {
                    id: m.id().to_string(),
                    quarter_turns: t,
                })
            })
            .collect();
        let mission = match hits.as_slice() {
            [one] if sure => Some(one.clone()),
            _ => None,
        };
        Ok(MissionReading {
            corners: self.corners(&e.ideal, options),
            cells,
            white_balance: balance,
            mission,
            grids,
        })
    }

    /// [`read_mission_card`] with this reader's buffers.
    pub fn read_mission(
        &mut self,
        image: &RgbImage,
        options: &LayersReadOptions,
    ) -> Result<MissionReading, LayersError> {
        let complete = [GridKind::Stack, GridKind::MissionCard, GridKind::NotOnCard];
        let examined = self.examine(image, options, Wanted::StackAndMissionCards, |ex| {
            any_of(ex, &complete)
        })?;
        let grids: Vec<FoundGrid> = examined.iter().flatten().map(|e| e.found.clone()).collect();
        let complete: Vec<&Examined> = examined
            .iter()
            .flatten()
            .filter(|e| !matches!(e.found.kind, GridKind::CutOff | GridKind::Unexamined))
            .collect();
        let marked: Vec<&Examined> = complete
            .iter()
            .copied()
            .filter(|e| e.found.kind == GridKind::MissionCard)
            .collect();
        // Alone in the photo, the one complete grid is the card even if its glyph was missed.
        let e = match (marked.as_slice(), complete.as_slice()) {
            ([one], _) | ([], [one]) => *one,
            ([], []) => {
                return Err(if grids.iter().any(|g| g.kind == GridKind::CutOff) {
                    LayersError::CutOff {
                        what: "mission card",
                        grids,
                    }
                } else {
                    LayersError::NotFound {
                        what: "mission card",
                        reason: format!("no {}x{} grid", self.set.rows(), self.set.cols()),
                        grids,
                    }
                })
            }
            (m, c) => {
                return Err(LayersError::Ambiguous {
                    what: "mission card",
                    count: if m.is_empty() { c.len() } else { m.len() },
                    grids,
                })
            }
        };
        self.finish_mission(e, e.balance, grids, options)
    }

    /// [`read_stack_and_mission`] with this reader's buffers.
    pub fn read_both(
        &mut self,
        image: &RgbImage,
        options: &LayersReadOptions,
    ) -> Result<(LayersReading, MissionReading), LayersError> {
        let examined = self.examine(image, options, Wanted::StackAndMissionCards, |ex| {
            any_of(ex, &[GridKind::Stack]) && any_of(ex, &[GridKind::MissionCard])
        })?;
        let grids: Vec<FoundGrid> = examined.iter().flatten().map(|e| e.found.clone()).collect();
        let i = self.pick_stack(&examined, &grids)?;
        let Some(stack) = examined[i].as_ref() else {
            return Err(LayersError::Request("internal: stack not examined".into()));
        };
        let missions: Vec<&Examined> = examined
            .iter()
            .flatten()
            .filter(|e| e.found.kind == GridKind::MissionCard)
            .collect();
        let m = match missions.as_slice() {
            [one] => *one,
            [] => {
                return Err(LayersError::NotFound {
                    what: "mission card",
                    reason: "no grid beside the stack has a printed number beside it".into(),
                    grids,
                })
            }
            many => {
                return Err(LayersError::Ambiguous {
                    what: "mission card",
                    count: many.len(),
                    grids,
                })
            }
        };
        let reading = self.finish_stack(stack, grids.clone(), options)?;
        // One light: the stack's balance (its frame and card are known colours) for both.
        let mission = self.finish_mission(m, stack.balance, grids, options)?;
        Ok((reading, mission))
    }
}

/// What a command looks for, and so which grids the number test must judge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wanted {
    /// The stack alone: only grids on a player card are tested for a number (a mission card
    /// lying on one must not pass for the stack); a grid off any card is `NotOnCard`, mission
    /// card or not.
    Stack,
    /// Mission cards too: every complete grid is tested.
    StackAndMissionCards,
}

/// Of several grids that each look like a stack on its card, the one that is clearly the stack:
/// its frame and card explain its cells at least [`RIVAL_MISFIT_FACTOR`] times and
/// [`RIVAL_MISFIT_MARGIN`] ΔE₀₀ better than they explain any other's, and it is at least as
/// prominent as each. A loose layer on a table that looks like card passes the on-card test
/// with the table taken for card, which bends its colours away from the printed ones: it is
/// explained far worse than the stack on its real card. Grids explained about as well (two
/// stacks, or a loose layer on a table just like the card) stay a tie: undecided.
fn clearly_the_stack(found: &[&FoundGrid]) -> Option<usize> {
    let (best, b) = found
        .iter()
        .enumerate()
        .min_by(|x, y| x.1.misfit_refs.total_cmp(&y.1.misfit_refs))?;
    let dominates = |o: &FoundGrid| {
        o.misfit_refs
            >= (RIVAL_MISFIT_FACTOR * b.misfit_refs).max(b.misfit_refs + RIVAL_MISFIT_MARGIN)
            && b.prominence >= o.prominence
    };
    found
        .iter()
        .enumerate()
        .all(|(i, o)| i == best || dominates(o))
        .then_some(best)
}

/// See [`clearly_the_stack`]: a rival explained this many times worse, and by this much more
/// than the stack (more than a σ of a read colour past the stack's own fit), is no rival.
const RIVAL_MISFIT_FACTOR: f32 = 2.0;
const RIVAL_MISFIT_MARGIN: f32 = 5.0;

/// Whether some examined grid is of one of `kinds`.
fn any_of(examined: &[Option<Examined>], kinds: &[GridKind]) -> bool {
    examined
        .iter()
        .flatten()
        .any(|e| kinds.contains(&e.found.kind))
}

/// Samples a band `d0..d1` cell sizes outside the cell area, per side (top, right, bottom,
/// left), `per_cell` positions along each cell of a side at each of three depths.
fn ring(
    look: &Lookup<'_>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    d0: f32,
    d1: f32,
    per_cell: usize,
) -> [Vec<Srgb>; 4] {
    let (r, c) = (rows as f32, cols as f32);
    let mut out: [Vec<Srgb>; 4] = Default::default();
    let Some(g) = homography_4(&rect(0.0, 0.0, c, r), ideal) else {
        return out;
    };
    for (side, v) in out.iter_mut().enumerate() {
        let len = if side % 2 == 0 { cols } else { rows };
        let n = len * per_cell;
        for depth in 0..3 {
            let d = d0 + (d1 - d0) * (depth as f32 + 0.5) / 3.0;
            for i in 0..n {
                // Stay clear of the corners, where rounded card corners and seams are.
                let t = 0.1 + 0.8 * (i as f32 + 0.5) / n as f32;
                let lp = beside_side(side, t, d, r, c);
                if let Some(px) = apply_homography(&g, lp).and_then(|p| look.srgb(p)) {
                    v.push(px);
                }
            }
        }
    }
    out
}

/// The white balance that makes the measured frame and card their printed colours, each pair
/// `(measured, printed)`. Where the lighter of the two is clipped (a white card; an ivory frame
/// on a dark card) only the darker would set the gain, and flare on it bends the gain: there
/// `fallback`'s gain is taken, within the bounds the two give (see
/// [`WhiteBalance::past_clipped_reference`]).
fn balance_from_frame_and_card(
    frame: (Srgb, Srgb),
    card: (Srgb, Srgb),
    fallback: &WhiteBalance,
) -> Option<WhiteBalance> {
    let fit = WhiteBalance::from_references(&[frame, card]).ok()?;
    Some(
        fit.past_clipped_reference(card.0, card.1, fallback)
            .past_clipped_reference(frame.0, frame.1, fallback),
    )
}

/// The fraction of positions along a side (the worst side but one: a stack may lie at its
/// card's very edge) where, walking outward past the frame (and past any lower layer's frame
/// peeking out from under the top one), the first material met is card coloured, under `wb`.
/// A blurred seam is neither, so the first third of a cell past the frame is looked at, and
/// a third past the stack's side walls and its shadow on the card too (the frame or the card
/// in other light: thick layers seen at a tilt hide the card near the frame). On a side that
/// is card for at least half its length, card beneath a veil of glare counts too: a highlight
/// on a dark card adds light to part of a side, and spares more of it than it covers (a
/// loose layer on a light table is not card along half a side).
#[allow(clippy::too_many_arguments)]
fn card_columns(
    look: &Lookup<'_>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    fw: f32,
    wb: &WhiteBalance,
    frame: Srgb,
    card: Srgb,
    within: f32,
) -> f32 {
    const STEP: f32 = 0.06;
    let [frame, card] = [frame, card].map(|c| (LinRgb::from_srgb(c), Lab::from_srgb(c)));
    // Judged by ΔE₀₀ to the frame and to the card; a clipped channel counts only where the
    // printed colour is darker (a white card in a bright photo is as card-like as it can look).
    let measure = |px: Srgb| {
        let raw = LinRgb::from_srgb(px);
        Measured::new(wb.apply_linear(raw), Clipped::of(raw))
    };
    const REACH: f32 = 1.0;
    const PER_CELL: usize = 4;
    let any_veil = veil_tints(None);
    let (r, c) = (rows as f32, cols as f32);
    let Some(g) = homography_4(&rect(0.0, 0.0, c, r), ideal) else {
        return 0.0;
    };
    let mut fractions = [0.0f32; 4];
    for (side, fraction) in fractions.iter_mut().enumerate() {
        let n = PER_CELL * if side % 2 == 0 { cols } else { rows };
        // Per position, the first material past the frame (up to six samples).
        let card_like = |m: &Measured| m.delta_e(card.0, card.1) <= within;
        let wall_or_shadow = |m: &Measured| {
            m.delta_e_relit(frame.0, MAX_WALL_LIGHT) <= within
                || m.delta_e_relit(card.0, 1.0) <= within
        };
        // Per position, walking out: the first material past the frame, and the first past
        // the walls and shadow too (up to six samples each); card in either is enough.
        let walks: Vec<Walk> = (0..n)
            .map(|i| {
                // Clear of the corners, where rounded card corners and seams are.
                let t = 0.1 + 0.8 * (i as f32 + 0.5) / n as f32;
                let mut walk = Walk::default();
                let mut past_walls = 0;
                for k in 0..(REACH / STEP) as usize {
                    let d = fw + 0.05 + STEP * k as f32;
                    let Some(px) = apply_homography(&g, beside_side(side, t, d, r, c))
                        .and_then(|p| look.srgb(p))
                    else {
                        continue;
                    };
                    let m = measure(px);
                    let card_here = card_like(&m);
                    let in_first = walk.first.len() < 6
                        && (!walk.first.is_empty() || m.delta_e(frame.0, frame.1) > within);
                    let in_past =
                        past_walls < 6 && (past_walls > 0 || card_here || !wall_or_shadow(&m));
                    if card_here && (in_first || in_past) {
                        walk.card = true;
                        break;
                    }
                    past_walls += usize::from(in_past);
                    if in_first {
                        walk.first.push(m);
                    }
                    if walk.first.len() == 6 && past_walls == 6 {
                        break;
                    }
                }
                walk
            })
            .collect();
        let (clean, rest): (Vec<_>, Vec<_>) = walks.iter().partition(|w| w.card);
        let veiled = if 2 * clean.len() >= n {
            rest.iter()
                .filter(|w| {
                    w.first
                        .iter()
                        .any(|m| under_veil_delta_e(m, card.0, &any_veil) <= within)
                })
                .count()
        } else {
            0
        };
        *fraction = (clean.len() + veiled) as f32 / n as f32;
    }
    // A stack may lie at its card's very edge, with no card past one side.
    fractions.sort_by(f32::total_cmp);
    fractions[1]
}

/// One position's walk out past the frame (see [`card_columns`]).
#[derive(Default)]
struct Walk {
    /// Card was met past the frame, or past the walls and shadow.
    card: bool,
    /// The first material past the frame, up to six samples (until card was met).
    first: Vec<Measured>,
}

/// The card as photographed just past the frame: the median over the sides that look like
/// card under `balance` (a first balance that does not assume the surround), when at least
/// two do, else over every side. A stack's side walls and drop shadow darken the two sides
/// turned towards the camera's or away from the lamp, and the median of all four would take
/// them for the card.
fn card_sides_median(
    sides: &[Vec<Srgb>; 4],
    balance: &WhiteBalance,
    card: Srgb,
    within: f32,
) -> Option<Srgb> {
    let card_lab = Lab::from_srgb(card);
    let looks_like_card = |v: &&Vec<Srgb>| {
        median(v.iter()).is_some_and(|m| {
            let raw = LinRgb::from_srgb(m);
            let measured = Measured::new(balance.apply_linear(raw), Clipped::of(raw));
            measured.delta_e(LinRgb::from_srgb(card), card_lab) <= within
        })
    };
    let card_sides: Vec<&Vec<Srgb>> = sides.iter().filter(looks_like_card).collect();
    if card_sides.len() >= 2 {
        median(card_sides.into_iter().flatten())
    } else {
        median(sides.iter().flatten())
    }
}

/// The least light at the bottom of a well, relative to the card around the grid: a well
/// no deeper than it is wide sees at least a third of the sky the open card sees.
const MIN_WELL_LIGHT: f32 = 0.3;

/// Most light on a stack's side wall, relative to the frame's top: a wall may face a low
/// lamp.
const MAX_WALL_LIGHT: f32 = 2.0;

/// Per-channel median.
fn median<'a>(it: impl Iterator<Item = &'a Srgb>) -> Option<Srgb> {
    quantile(it, 0.5)
}

/// Per-channel quantile `q` in 0..=1 (the median at ½).
fn quantile<'a>(it: impl Iterator<Item = &'a Srgb>, q: f32) -> Option<Srgb> {
    let mut ch: [Vec<u8>; 3] = Default::default();
    for c in it {
        ch[0].push(c.r);
        ch[1].push(c.g);
        ch[2].push(c.b);
    }
    if ch[0].is_empty() {
        return None;
    }
    let m = |v: &mut Vec<u8>| {
        v.sort_unstable();
        v[((v.len() as f32 * q) as usize).min(v.len() - 1)]
    };
    let [a, b, c] = &mut ch;
    Some(Srgb::new(m(a), m(b), m(c)))
}
