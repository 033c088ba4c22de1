//! Is a number printed beside a grid? (A mission card prints its `layers` number beside its
//! grid; a player card prints nothing.)
//!
//! The margin around the frame is resampled in the grid's own plane (a homography of the
//! card's plane). *Body* is the material right outside the frame on each side (the card);
//! everything far from it is *ink*. A printed number is one compact island of ink **enclosed
//! by card**: it touches neither the frame nor the far end of the margin, and it lies wholly
//! on the card, with card between it and the card's edges. So
//!
//! - the table seen past a card's edge or corner (a stack lying askew near its card's edge)
//!   reaches the end of the margin and is no number, whatever its shape;
//! - a tablecloth motif beyond the card's edge is no number even when the cloth looks like
//!   the card: the edge is found as the straight line along which the margin changes colour;
//!   and a motif showing past a card's rounded corner, inside both edges' lines, still
//!   reaches the edge there; a white card on a white cloth shows its edge only where it cuts
//!   the cloth's motifs, as the straight line at which they begin;
//! - a motif repeated around the grid (checks or flowers on a cloth that looks like the card:
//!   three or more islands alike in colour, size and shape) is a pattern, and none of its
//!   islands is a number; a number is one of a kind, so it still stands out among them;
//! - several islands that are neither (two candidates) are no clear number either way: they
//!   score in between, so that neither rule trusts them.

use image::{GrayImage, Luma};
use imageproc::region_labelling::{connected_components, Connectivity};
use tablejudge_rules::Srgb;

use crate::colour::Lab;
use crate::geom::{homography_4, rect};
use crate::rectify::{apply_homography, Quad};
use crate::refine::Lookup;
use crate::white_balance::WhiteBalance;

/// Samples per cell in the resampled margin.
const PER_CELL: usize = 10;
/// How far out the margin reaches, in cells beyond the frame (a number of up to
/// [`MAX_EXTENT`] cells, set off from the frame, fits inside).
const REACH: f32 = 2.4;
/// Where the margin starts beyond the frame's located edge, cells.
const GAP: f32 = 0.05;
/// ΔE₀₀ within which a sample is body, and beyond which it is ink.
const BODY_DE: f32 = 12.0;
const INK_DE: f32 = 30.0;
/// A number's extent (the larger side of its bounding box), cells.
const MIN_EXTENT: f32 = 0.25;
const MAX_EXTENT: f32 = 2.0;
/// Least ink in a stroke that counts, in cells² (specks of noise and dust are smaller).
const MIN_INK: f32 = 0.02;
/// Least ink of a number, all its strokes together, in cells². A mission card prints 2 to 5
/// (the rules: 2 to 5 layers), and such a numeral has about 2.5 times its height in stroke:
/// 0.4 cells tall in a thin font (strokes a tenth of its height), this much. Specks of a
/// cloth's motif or of a card's edge, a few samples that a misplaced edge line leaves on the
/// card, have less.
const MIN_NUMBER_INK: f32 = 0.04;
/// Islands this close (cells) are parts of one number (strokes, several digits).
const MERGE: f32 = 0.2;

/// Depth samples per column of one side, for the card-edge fit.
const DEPTHS: usize = 16;

/// What the margin shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct GlyphEvidence {
    /// 1 for exactly one number-like island inside the card, ½ for several (a pattern, not a
    /// number: neither rule may rest on it), 0 for none.
    pub score: f32,
    /// Number-like islands (enclosed by body, compact, not one of a repeated motif) anywhere in
    /// the margin, before the card-edge test.
    pub islands: usize,
    /// The card runs out of the picture on some side (then the score is at least ½).
    pub card_cut: bool,
}

/// One sample of the resampled margin.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sample {
    /// The frame or the grid (not margin).
    Inner,
    /// Outside the photo.
    Unknown,
    Seen(Lab),
}

/// The margin of a `rows × cols` grid with frame width `fw`, resampled at [`PER_CELL`]: raster
/// index `(x, y)` is the grid-plane point `(-m + (x + ½) / PER_CELL, -m + (y + ½) / PER_CELL)`.
struct Margin {
    width: usize,
    height: usize,
    /// Frame width plus [`REACH`]: how far the raster extends past the cell area.
    m: f32,
    fw: f32,
    rows: f32,
    cols: f32,
    samples: Vec<Sample>,
    /// Each sample's 8-bit colour as `0xRRGGBB` ([`NOT_SEEN`] where none), for [`ColourMemo`].
    colours: Vec<u32>,
}

/// [`Margin::colours`] of a sample that is inner or outside the photo.
const NOT_SEEN: u32 = u32::MAX;

/// A direct-mapped memo of a pure function of a sample's 8-bit colour (with a small tag in
/// the key's top byte): a card's margin repeats its colours (a clipped white card is one
/// colour throughout), and most samples share theirs with others, so most conversions and
/// colour differences are looked up instead.
struct ColourMemo<T> {
    keys: Vec<u32>,
    values: Vec<T>,
}

impl<T: Copy + Default> ColourMemo<T> {
    const BITS: u32 = 12;

    fn new() -> Self {
        ColourMemo {
            keys: vec![NOT_SEEN; 1 << Self::BITS],
            values: vec![T::default(); 1 << Self::BITS],
        }
    }

    /// `f()`, remembered under `key` (never [`NOT_SEEN`]).
    fn get(&mut self, key: u32, f: impl FnOnce() -> T) -> T {
        // Fibonacci hashing: neighbouring colours land in different slots.
        let slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - Self::BITS)) as usize;
        if self.keys[slot] != key {
            self.keys[slot] = key;
            self.values[slot] = f();
        }
        self.values[slot]
    }
}

/// `v.round()` (half away from zero, up to the sign of a zero) without the libm call that
/// `round` is without SSE4.1: the number test rounds a lattice position for every sample.
/// Exact for |v| < 2³¹.
fn round(v: f32) -> f32 {
    let t = v as i32 as f32;
    // Exact: t is v's integer part.
    let frac = v - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

fn colour_key(c: Srgb) -> u32 {
    let [r, g, b] = c.to_array();
    u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b)
}

impl Margin {
    fn sample(
        look: &Lookup<'_>,
        ideal: &Quad,
        rows: usize,
        cols: usize,
        fw: f32,
        wb: &WhiteBalance,
    ) -> Option<Margin> {
        let (r, c) = (rows as f32, cols as f32);
        let g = homography_4(&rect(0.0, 0.0, c, r), ideal)?;
        let m = fw + REACH;
        let s = PER_CELL as f32;
        let width = ((c + 2.0 * m) * s).round() as usize;
        let height = ((r + 2.0 * m) * s).round() as usize;
        let inner = fw + GAP;
        let mut labs = ColourMemo::new();
        let (mut samples, mut colours) = (
            Vec::with_capacity(width * height),
            Vec::with_capacity(width * height),
        );
        for y in 0..height {
            for x in 0..width {
                let u = -m + (x as f32 + 0.5) / s;
                let v = -m + (y as f32 + 0.5) / s;
                let (sample, colour) = if u > -inner && u < c + inner && v > -inner && v < r + inner
                {
                    (Sample::Inner, NOT_SEEN)
                } else {
                    match apply_homography(&g, [u, v]).and_then(|p| look.srgb(p)) {
                        Some(px) => {
                            let key = colour_key(px);
                            (Sample::Seen(labs.get(key, || wb.apply_lab(px))), key)
                        }
                        None => (Sample::Unknown, NOT_SEEN),
                    }
                };
                samples.push(sample);
                colours.push(colour);
            }
        }
        Some(Margin {
            width,
            height,
            m,
            fw,
            rows: r,
            cols: c,
            samples,
            colours,
        })
    }

    fn at(&self, x: usize, y: usize) -> Sample {
        self.samples[y * self.width + x]
    }

    /// The grid-plane point of raster index `(x, y)`.
    fn point(&self, x: f32, y: f32) -> [f32; 2] {
        let s = PER_CELL as f32;
        [-self.m + (x + 0.5) / s, -self.m + (y + 0.5) / s]
    }

    /// The raster index nearest grid-plane point `p`.
    fn index(&self, p: [f32; 2]) -> Option<(usize, usize)> {
        let s = PER_CELL as f32;
        let x = round((p[0] + self.m) * s - 0.5);
        let y = round((p[1] + self.m) * s - 0.5);
        (x >= 0.0 && y >= 0.0 && (x as usize) < self.width && (y as usize) < self.height)
            .then_some((x as usize, y as usize))
    }

    /// How far beyond the frame `p` lies past each side (0 top, 1 right, 2 bottom, 3 left).
    fn outward(&self, p: [f32; 2]) -> [f32; 4] {
        [
            -p[1] - self.fw,
            p[0] - self.cols - self.fw,
            p[1] - self.rows - self.fw,
            -p[0] - self.fw,
        ]
    }

    /// How many sample columns run along `side` (0 top, 1 right, 2 bottom, 3 left).
    fn columns(&self, side: usize) -> usize {
        let len = if side % 2 == 0 { self.cols } else { self.rows };
        round(len * PER_CELL as f32) as usize
    }

    /// The side's samples as `labs[column][depth]`, columns along the side (clockwise) and
    /// depths outward from the frame, for the card-edge fit.
    fn side(&self, side: usize) -> Vec<[Option<Lab>; DEPTHS]> {
        let n = self.columns(side);
        (0..n)
            .map(|col| {
                let t = (col as f32 + 0.5) / n as f32;
                std::array::from_fn(|d| {
                    let out = self.fw + GAP + REACH * (d as f32 + 0.5) / DEPTHS as f32;
                    let p = super::beside_side(side, t, out, self.rows, self.cols);
                    match self.index(p).map(|(x, y)| self.at(x, y)) {
                        Some(Sample::Seen(l)) => Some(l),
                        _ => None,
                    }
                })
            })
            .collect()
    }

    /// Per side (0 top, 1 right, 2 bottom, 3 left), the per-channel median of the samples 0.1
    /// to 0.3 cells past the frame: the material right outside it (a mission card's margin can
    /// be a third of a cell). One pass over the margin for all four.
    fn bodies(&self) -> [Option<Lab>; 4] {
        let mut near: [Vec<Lab>; 4] = Default::default();
        for y in 0..self.height {
            for x in 0..self.width {
                let Sample::Seen(lab) = self.at(x, y) else {
                    continue;
                };
                let p = self.point(x as f32, y as f32);
                let out = self.outward(p);
                for (side, near) in near.iter_mut().enumerate() {
                    let along = if side % 2 == 0 {
                        (0.0..=self.cols).contains(&p[0])
                    } else {
                        (0.0..=self.rows).contains(&p[1])
                    };
                    if along && (0.1..=0.3).contains(&out[side]) {
                        near.push(lab);
                    }
                }
            }
        }
        near.map(|n| median_lab(&n))
    }

    /// Where a grid-plane point lies in [`Margin::side`]'s lattice: `(side, column, depth)`.
    fn lattice(&self, p: [f32; 2]) -> (usize, f32, f32) {
        let out = self.outward(p);
        let side = (0..4)
            .max_by(|&a, &b| out[a].total_cmp(&out[b]))
            .unwrap_or(0);
        let (column, depth) = self.lattice_on(p, side);
        (side, column, depth)
    }

    /// Where a grid-plane point lies in the lattice of a given side: `(column, depth)`.
    fn lattice_on(&self, p: [f32; 2], side: usize) -> (f32, f32) {
        let out = self.outward(p);
        let (len, along) = match side {
            0 => (self.cols, p[0]),
            1 => (self.rows, p[1]),
            2 => (self.cols, self.cols - p[0]),
            _ => (self.rows, self.rows - p[1]),
        };
        let n = len * PER_CELL as f32;
        let column = along / len * n - 0.5;
        let depth = (out[side] - GAP) / REACH * DEPTHS as f32 - 0.5;
        (column, depth)
    }

    /// Whether grid-plane point `p` lies on the card with at least one more card sample
    /// between it and the table, on every side it lies beyond the frame. (`edges` give each
    /// side's first sample past the card.)
    fn well_inside(&self, p: [f32; 2], edges: &[Line; 4]) -> bool {
        let out = self.outward(p);
        (0..4).filter(|&s| out[s] > 0.0).all(|s| {
            let (column, depth) = self.lattice_on(p, s);
            let last = self.columns(s).saturating_sub(1) as f32;
            depth < edges[s].at(round(column).clamp(0.0, last) as usize) - 1.5
        })
    }
}

/// Whether a number is printed beside the grid with outer cell-area corners `ideal` (see the
/// module docs). Colours are judged under `wb`.
pub(super) fn glyph_score(
    look: &Lookup<'_>,
    ideal: &Quad,
    rows: usize,
    cols: usize,
    fw: f32,
    wb: &WhiteBalance,
) -> GlyphEvidence {
    Margin::sample(look, ideal, rows, cols, fw, wb)
        .map_or_else(GlyphEvidence::default, |m| score_margin(&m))
}

/// One island of non-body samples (or a group of nearby ones).
#[derive(Clone, Copy, Debug)]
struct Island {
    pixels: usize,
    ink: usize,
    /// Sum of the samples' L*, a*, b*.
    lab_sum: [f32; 3],
    min: [usize; 2],
    max: [usize; 2],
    /// Reaches the end of the margin (the table past the card).
    open: bool,
    /// Touches the frame (a lower layer peeking out, the stack's shadow).
    at_frame: bool,
    /// How far its farthest sample lies from the frame, cells: small for the stack's side
    /// walls and shadow, which hug the frame even where they turn a corner.
    reach: f32,
    /// Every sample lies on the card, card between it and the card's edges: a printed number
    /// lies wholly on its card, while a tablecloth motif that a card's (rounded) corner cuts
    /// reaches the edge.
    on_card: bool,
}

impl Island {
    const EMPTY: Island = Island {
        pixels: 0,
        ink: 0,
        lab_sum: [0.0; 3],
        min: [usize::MAX; 2],
        max: [0; 2],
        open: false,
        at_frame: false,
        reach: 0.0,
        on_card: true,
    };

    fn colour(&self) -> Lab {
        let n = self.pixels.max(1) as f32;
        Lab::new(
            self.lab_sum[0] / n,
            self.lab_sum[1] / n,
            self.lab_sum[2] / n,
        )
    }

    /// The larger side of the bounding box, in samples.
    fn extent(&self) -> usize {
        (self.max[0] - self.min[0]).max(self.max[1] - self.min[1]) + 1
    }

    /// The share of the bounding box the island covers (strokes cover little of theirs).
    fn fill(&self) -> f32 {
        let area = (self.max[0] - self.min[0] + 1) * (self.max[1] - self.min[1] + 1);
        self.pixels as f32 / area as f32
    }

    fn join(&self, o: &Island) -> Island {
        Island {
            pixels: self.pixels + o.pixels,
            ink: self.ink + o.ink,
            lab_sum: std::array::from_fn(|i| self.lab_sum[i] + o.lab_sum[i]),
            min: [self.min[0].min(o.min[0]), self.min[1].min(o.min[1])],
            max: [self.max[0].max(o.max[0]), self.max[1].max(o.max[1])],
            open: self.open || o.open,
            at_frame: self.at_frame || o.at_frame,
            reach: self.reach.max(o.reach),
            on_card: self.on_card && o.on_card,
        }
    }

    /// Alike in colour, size and shape: two motifs of one tablecloth pattern.
    fn alike(&self, o: &Island) -> bool {
        let ratio = self.pixels as f32 / o.pixels.max(1) as f32;
        self.colour().delta_e(o.colour()) <= PATTERN_DE
            && (0.5..=2.0).contains(&ratio)
            && (self.fill() - o.fill()).abs() <= 0.2
    }
}

/// Islands within this ΔE₀₀ of each other's mean colour can be one pattern's motifs.
const PATTERN_DE: f32 = 15.0;

fn score_margin(m: &Margin) -> GlyphEvidence {
    let sides: [Vec<[Option<Lab>; DEPTHS]>; 4] = std::array::from_fn(|s| m.side(s));
    let bodies = m.bodies();
    let steps: [Option<SideSteps>; 4] =
        std::array::from_fn(|s| bodies[s].and_then(|body| SideSteps::new(&sides[s], body)));
    let mut edges = card_edges(&steps);
    // Where a white card lies on a white cloth, its edge shows only where it cuts the cloth's
    // motifs.
    for (s, edge) in edges.iter_mut().enumerate() {
        if *edge == Line::BEYOND {
            if let Some(body) = bodies[s] {
                *edge = cut_edge(&sides[s], body).unwrap_or(Line::BEYOND);
            }
        }
    }
    // ΔE₀₀ of each seen sample to the body of the side(s) it lies beside.
    let mut mask = GrayImage::new(m.width as u32, m.height as u32);
    let mut ink = vec![false; m.samples.len()];
    // Per side (the key's top byte) and colour: [within BODY_DE, within INK_DE] of its body.
    let mut judged = ColourMemo::<[bool; 2]>::new();
    for y in 0..m.height {
        for x in 0..m.width {
            let Sample::Seen(lab) = m.at(x, y) else {
                continue;
            };
            let colour = m.colours[y * m.width + x];
            let out = m.outward(m.point(x as f32, y as f32));
            // Judged against the nearest body: body when any is within BODY_DE, ink when all
            // lie beyond INK_DE (a corner lies beyond two sides).
            let (mut beside, mut body, mut beyond_ink) = (false, false, true);
            for (s, b) in (0..4)
                .filter(|&s| out[s] > 0.0)
                .filter_map(|s| bodies[s].map(|b| (s, b)))
            {
                beside = true;
                let [near, not_ink] = judged.get(colour | (s as u32) << 24, || {
                    b.within_each(lab, [BODY_DE, INK_DE])
                });
                if near {
                    body = true;
                    break;
                }
                beyond_ink &= !not_ink;
            }
            if !beside || body {
                continue;
            }
            mask.put_pixel(x as u32, y as u32, Luma([255]));
            ink[y * m.width + x] = beyond_ink;
        }
    }
    let labels = connected_components(&mask, Connectivity::Eight, Luma([0u8]));
    let count = labels.pixels().map(|p| p[0]).max().unwrap_or(0) as usize;
    let mut islands = vec![Island::EMPTY; count];
    for y in 0..m.height {
        for x in 0..m.width {
            let l = labels.get_pixel(x as u32, y as u32)[0] as usize;
            let Sample::Seen(lab) = m.at(x, y) else {
                continue;
            };
            if l == 0 {
                continue;
            }
            let island = &mut islands[l - 1];
            island.pixels += 1;
            island.ink += usize::from(ink[y * m.width + x]);
            island.lab_sum = [
                island.lab_sum[0] + lab.l,
                island.lab_sum[1] + lab.a,
                island.lab_sum[2] + lab.b,
            ];
            island.min = [island.min[0].min(x), island.min[1].min(y)];
            island.max = [island.max[0].max(x), island.max[1].max(y)];
            let p = m.point(x as f32, y as f32);
            island.on_card &= m.well_inside(p, &edges);
            let out = m.outward(p);
            let beyond = |a: f32, b: f32| a.max(b).max(0.0);
            island.reach = island
                .reach
                .max(beyond(out[0], out[2]).hypot(beyond(out[1], out[3])));
            if x == 0 || y == 0 || x + 1 == m.width || y + 1 == m.height {
                island.open = true;
            }
            for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx < 0 || ny < 0 || nx as usize >= m.width || ny as usize >= m.height {
                    continue;
                }
                // Unseen is not open: a number cut by the picture's edge is still one.
                if m.at(nx as usize, ny as usize) == Sample::Inner {
                    island.at_frame = true;
                }
            }
        }
    }
    let s = PER_CELL as f32;
    let min_ink = (MIN_INK * s * s).ceil() as usize;
    let closed: Vec<Island> = islands
        .into_iter()
        .filter(|i| i.ink >= min_ink && !i.open)
        .collect();
    let groups = merge(&closed, (MERGE * s).round() as usize);
    let compact: Vec<&Island> = groups
        .iter()
        .filter(|g| (MIN_EXTENT * s..=MAX_EXTENT * s).contains(&(g.extent() as f32)))
        .collect();
    // A motif repeated around the grid (checks or flowers on a cloth that looks like the card)
    // is a pattern, not a number: a number is one of a kind.
    let min_number_ink = (MIN_NUMBER_INK * s * s).ceil() as usize;
    let numbers: Vec<&Island> = compact
        .iter()
        .filter(|g| compact.iter().filter(|o| g.alike(o)).count() < 3)
        .filter(|g| g.ink >= min_number_ink)
        .copied()
        .collect();
    // Inside the card: the island's centre lies nearer the frame than its side's card edge.
    let inside: Vec<&Island> = numbers
        .iter()
        .filter(|g| {
            let centre = m.point(
                (g.min[0] + g.max[0]) as f32 / 2.0,
                (g.min[1] + g.max[1]) as f32 / 2.0,
            );
            let (side, column, depth) = m.lattice(centre);
            let n = sides[side].len();
            let column = round(column).clamp(0.0, n.saturating_sub(1) as f32) as usize;
            g.on_card && depth < edges[side].at(column) - 1.0
        })
        .copied()
        .collect();
    // An island touching the frame is usually a lower layer peeking out, the stack's side
    // wall or its shadow: a thin strip hugging the frame, round a corner too. One that
    // reaches a third of a cell out and is no longer than a number can be a number printed
    // close to the frame: never a clear "no number".
    let clean = inside.iter().filter(|g| !g.at_frame).count();
    let touching = inside
        .iter()
        .filter(|g| {
            let (side, _, _) = m.lattice(m.point(
                (g.min[0] + g.max[0]) as f32 / 2.0,
                (g.min[1] + g.max[1]) as f32 / 2.0,
            ));
            let size = [g.max[0] - g.min[0] + 1, g.max[1] - g.min[1] + 1].map(|v| v as f32 / s);
            let along = if side % 2 == 0 { size[0] } else { size[1] };
            g.at_frame && g.reach >= 0.3 && along <= 1.5
        })
        .count();
    let score: f32 = match (clean, touching) {
        (0, 0) => 0.0,
        (1, _) => 1.0,
        _ => 0.5,
    };
    // Where the card runs out of the picture a number may be hidden: never a clear "no".
    let card_cut = hidden_card(m, &edges);
    GlyphEvidence {
        score: if card_cut { score.max(0.5) } else { score },
        islands: numbers.len(),
        card_cut,
    }
}

/// Whether more than [`MAX_HIDDEN`] of the card's margin on some side, out to
/// [`NUMBER_BAND`], lies outside the picture.
fn hidden_card(m: &Margin, edges: &[Line; 4]) -> bool {
    let mut seen = [0usize; 4];
    let mut unseen = [0usize; 4];
    for y in 0..m.height {
        for x in 0..m.width {
            let sample = m.at(x, y);
            if sample == Sample::Inner {
                continue;
            }
            let (side, column, depth) = m.lattice(m.point(x as f32, y as f32));
            let n = m.columns(side) as f32;
            if !(0.0..n).contains(&column)
                || depth >= edges[side].at(column as usize).min(NUMBER_BAND_DEPTH)
            {
                continue;
            }
            match sample {
                Sample::Unknown => unseen[side] += 1,
                _ => seen[side] += 1,
            }
        }
    }
    (0..4).any(|s| unseen[s] as f32 > MAX_HIDDEN * (seen[s] + unseen[s]) as f32)
}

/// The share of one side's card margin that may lie outside the picture before a number
/// could hide there: a digit covers about a tenth of a side's margin.
const MAX_HIDDEN: f32 = 0.1;

/// How far past the frame (cells) the picture must show a card's margin for a number to
/// have nowhere to hide. A mission card prints its number close beside the grid, its near
/// edge within about 0.8 cells of the frame, and a number cut by the picture is still
/// found while a few tenths of a cell of it show. (The margin searched reaches farther, to
/// [`REACH`]; where the card's edge is not seen, that far reach often runs out of the
/// picture around a large stack that lies wholly in it.)
const NUMBER_BAND: f32 = 1.2;
/// [`NUMBER_BAND`] in the margin's depth samples.
const NUMBER_BAND_DEPTH: f32 = NUMBER_BAND / REACH * DEPTHS as f32 - 0.5;

/// Groups islands whose bounding boxes lie within `gap` samples of each other (the strokes of
/// one number), each group as one island spanning its members. Islands touching the frame
/// (a side wall, a shadow, a light frame's blurred rim) and islands clear of it are never
/// grouped: a number printed near the frame is not made part of the strip along it.
fn merge(islands: &[Island], gap: usize) -> Vec<Island> {
    let mut groups: Vec<Island> = Vec::new();
    for &i in islands {
        let mut g = i;
        // Absorb every group this one touches, until none is left to absorb.
        loop {
            let near = groups.iter().position(|o| {
                o.at_frame == g.at_frame
                    && (0..2).all(|a| g.min[a] <= o.max[a] + gap && o.min[a] <= g.max[a] + gap)
            });
            let Some(k) = near else { break };
            g = g.join(&groups.swap_remove(k));
        }
        groups.push(g);
    }
    groups
}

/// The per-channel median.
fn median_lab(labs: &[Lab]) -> Option<Lab> {
    if labs.is_empty() {
        return None;
    }
    let med = |f: fn(&Lab) -> f32| {
        let mut v: Vec<f32> = labs.iter().map(f).collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    Some(Lab {
        l: med(|x| x.l),
        a: med(|x| x.a),
        b: med(|x| x.b),
    })
}

/// A line `depth = a + b·column` in a side's sample lattice.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Line {
    a: f32,
    b: f32,
}

impl Line {
    /// The card runs past the margin.
    const BEYOND: Line = Line {
        a: DEPTHS as f32 + 1.0,
        b: 0.0,
    };

    fn at(&self, i: usize) -> f32 {
        self.a + self.b * i as f32
    }
}

/// The colour changes across one side of the margin, for the card-edge fit.
struct SideSteps {
    /// `steps[col][d]`: the change between depth d and d + 1 leaving body, 0 where d + 1 is
    /// no farther from the body's colour than d (the step onto the card from the frame, or
    /// from the frame's blurred rim, is not its edge).
    steps: Vec<[f32; DEPTHS - 1]>,
    /// The side's typical (median) step.
    typical: f32,
}

impl SideSteps {
    fn new(labs: &[[Option<Lab>; DEPTHS]], body: Lab) -> Option<Self> {
        if labs.len() < 2 {
            return None;
        }
        // Per column and step: the change, and whether it leads away from the body's colour.
        let changes: Vec<[Option<(f32, bool)>; DEPTHS - 1]> = labs
            .iter()
            .map(|col| {
                let from_body = col.map(|x| x.map(|x| x.delta_e(body)));
                std::array::from_fn(|d| {
                    match (col[d], col[d + 1], from_body[d], from_body[d + 1]) {
                        (Some(x), Some(y), Some(here), Some(next)) if here <= BODY_DE => {
                            Some((x.delta_e(y), next > here))
                        }
                        _ => None,
                    }
                })
            })
            .collect();
        // The typical step of the body itself: samples outside the picture or past the body
        // are no measure of its grain (a clipped card has none: see `clear`).
        let mut all: Vec<f32> = changes.iter().flatten().flatten().map(|c| c.0).collect();
        all.sort_by(f32::total_cmp);
        let typical = all.get(all.len() / 2).copied().unwrap_or(0.0);
        let steps = changes
            .iter()
            .map(|col| {
                col.map(|c| {
                    c.filter(|&(_, away)| away)
                        .map_or(0.0, |(change, _)| change)
                })
            })
            .collect();
        Some(SideSteps { steps, typical })
    }

    /// The median over columns of the step the line crosses (a motif's strong steps in a few
    /// columns do not count), plus a thousandth of their mean: of the lines through the same
    /// edge that the median cannot tell apart, the one that follows it in every column.
    fn along(&self, line: Line, scratch: &mut Vec<f32>) -> f32 {
        scratch.clear();
        scratch.extend(self.steps.iter().enumerate().map(|(k, s)| {
            let d = round(line.at(k)).clamp(0.0, (DEPTHS - 2) as f32) as usize;
            s[d]
        }));
        let mean = scratch.iter().sum::<f32>() / scratch.len() as f32;
        let mid = scratch.len() / 2;
        // Steps are never negative, and most lines cross none in most columns: with more
        // zeros than the median's rank, the median is 0 without a selection.
        let zeros = scratch.iter().filter(|&&x| x == 0.0).count();
        let median = if zeros > mid {
            0.0
        } else {
            *scratch.select_nth_unstable_by(mid, f32::total_cmp).1
        };
        median + 1e-3 * mean
    }

    /// Whether a line's change stands clearly above the side's typical one.
    fn clear(&self, change: f32) -> bool {
        change >= (2.0 * self.typical + EDGE_MARGIN).max(EDGE_FLOOR)
    }
}

/// A card's edge seen only where it cuts a tablecloth's motifs (a white card on a white
/// cloth): the straight line at which ink begins, after card, in columns spread along more
/// of the side than any number spans, with no more ink on its near side than a number. Returns
/// the line through the first samples past the card.
fn cut_edge(labs: &[[Option<Lab>; DEPTHS]], body: Lab) -> Option<Line> {
    // Per column, the first depth past the frame's own dark rim (a shadow, a lower layer) at
    // which ink follows card.
    let starts: Vec<Option<usize>> = labs
        .iter()
        .map(|col| {
            let ink = col.map(|x| x.map(|x| !x.within(body, BODY_DE)));
            (2..DEPTHS).find(|&d| ink[d] == Some(true) && ink[d - 1] == Some(false))
        })
        .collect();
    let n = starts.len();
    let min_span = ((MAX_EXTENT + 0.5) * PER_CELL as f32).ceil() as usize;
    // On the near side, no more ink than a number printed on the card.
    let max_near = (MAX_EXTENT * PER_CELL as f32) as usize;
    if n <= min_span {
        return None;
    }
    let mut best: Option<(Line, usize)> = None;
    for k in -(EDGE_SLOPES as i32)..=EDGE_SLOPES as i32 {
        let b = k as f32 * EDGE_SLOPE_STEP;
        for a in 2..DEPTHS {
            let line = Line { a: a as f32, b };
            let depth_at = |col: usize| round(line.at(col));
            let on: Vec<usize> = (0..n)
                .filter(|&c| starts[c].is_some_and(|d| d as f32 == depth_at(c)))
                .collect();
            let near = (0..n)
                .filter(|&c| starts[c].is_some_and(|d| (d as f32) < depth_at(c)))
                .count();
            let span = on.last().zip(on.first()).map_or(0, |(l, f)| l - f);
            // Several columns (not one motif's corner), spread along more than a number.
            if on.len() >= 6
                && span >= min_span
                && near <= max_near
                && best.is_none_or(|(_, m)| on.len() > m)
            {
                best = Some((line, on.len()));
            }
        }
    }
    best.map(|(line, _)| line)
}

/// A card edge's change must stand [`EDGE_MARGIN`] above twice the side's typical step (its
/// grain), and never below [`EDGE_FLOOR`] ΔE₀₀ (a clipped card has no grain at all).
const EDGE_MARGIN: f32 = 1.5;
const EDGE_FLOOR: f32 = 3.0;

/// Slopes of the card's edges tried, in depth samples per column: the card may be turned by
/// up to about 20° under the stack.
const EDGE_SLOPES: usize = 8;
const EDGE_SLOPE_STEP: f32 = 0.03;

/// The card's edges: on each side the straight line across the margin along which most
/// columns change colour (the median over columns of the ΔE₀₀ between the samples either
/// side of the line), when that change stands clearly above the side's typical
/// sample-to-sample change. A card edge changes colour along its whole length, however little
/// (a cream cloth beside a white card); a number or a tablecloth motif only in some columns.
/// The card is a rectangle, so all four edges share one slope in the sides' clockwise
/// lattices: a side whose cloth confuses the fit on its own still finds its edge at the
/// others' slope. A side without a clear line runs past the margin.
fn card_edges(sides: &[Option<SideSteps>; 4]) -> [Line; 4] {
    let mut scratch = Vec::new();
    let last = (DEPTHS - 2) as f32;
    // Lines that cross the side within the margin, from start to end.
    let best_at = |b: f32, side: &SideSteps, scratch: &mut Vec<f32>| {
        let end = b * (side.steps.len() - 1) as f32;
        (0..DEPTHS - 1)
            .map(|a| Line { a: a as f32, b })
            .filter(|l| (0.0..=last).contains(&(l.a + end)))
            .map(|line| (line, side.along(line, scratch)))
            .max_by(|x, y| x.1.total_cmp(&y.1))
            .unwrap_or((Line::BEYOND, 0.0))
    };
    let slopes: Vec<f32> = (-(EDGE_SLOPES as i32)..=EDGE_SLOPES as i32)
        .map(|k| k as f32 * EDGE_SLOPE_STEP)
        .collect();
    // The line sits on the step; the card ends one sample further.
    let past = |line: Line| Line {
        a: line.a + 1.0,
        b: line.b,
    };
    // fits[k][s]: side s's clearest line at slope k, and its change.
    let fits: Vec<[Option<(Line, f32)>; 4]> = slopes
        .iter()
        .map(|&b| {
            std::array::from_fn(|s| sides[s].as_ref().map(|side| best_at(b, side, &mut scratch)))
        })
        .collect();
    let clear = |s: usize, fit: Option<(Line, f32)>| {
        fit.filter(|&(_, change)| sides[s].as_ref().is_some_and(|side| side.clear(change)))
    };
    let mut best: ([Line; 4], f32) = ([Line::BEYOND; 4], f32::NEG_INFINITY);
    for at_slope in &fits {
        let mut lines = [Line::BEYOND; 4];
        let mut total = 0.0;
        for (s, side) in sides.iter().enumerate() {
            if let (Some(side), Some((line, change))) = (side, clear(s, at_slope[s])) {
                lines[s] = past(line);
                total += change - side.typical;
            }
        }
        if total > best.1 {
            best = (lines, total);
        }
    }
    // A side with no clear line at the shared slope (a narrow margin the shared slope misses
    // by a sample) keeps its own clearest line.
    let mut lines = best.0;
    for (s, line) in lines.iter_mut().enumerate() {
        if *line != Line::BEYOND {
            continue;
        }
        let own = fits
            .iter()
            .filter_map(|at_slope| at_slope[s])
            .max_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((own, _)) = clear(s, own) {
            *line = past(own);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};
    use imageproc::drawing::{draw_filled_rect_mut, draw_polygon_mut};
    use imageproc::point::Point;
    use imageproc::rect::Rect;

    /// Pixels per cell of the test pictures; the 4×4 grid's cell area is at (200, 200).
    const CELL: f32 = 40.0;
    const FW: f32 = 0.3;
    const CARD: Rgb<u8> = Rgb([242, 239, 230]);
    const INK: Rgb<u8> = Rgb([30, 30, 35]);
    const TABLE: Rgb<u8> = Rgb([120, 70, 40]);

    fn px(cells: f32) -> i32 {
        (200.0 + cells * CELL).round() as i32
    }

    fn block(img: &mut RgbImage, x0: f32, y0: f32, x1: f32, y1: f32, c: Rgb<u8>) {
        let (a, b) = (px(x0), px(y0));
        let (w, h) = ((px(x1) - a).max(1) as u32, (px(y1) - b).max(1) as u32);
        draw_filled_rect_mut(img, Rect::at(a, b).of_size(w, h), c);
    }

    /// A "1" and its foot, half a cell right of the frame.
    fn number_one(img: &mut RgbImage) {
        block(img, 4.0 + FW + 0.5, 1.6, 4.0 + FW + 0.65, 2.4, INK);
        block(img, 4.0 + FW + 0.35, 2.3, 4.0 + FW + 0.8, 2.4, INK);
    }

    /// A dark frame with coloured cells, drawn over whatever lies there.
    fn grid(img: &mut RgbImage) {
        block(img, -FW, -FW, 4.0 + FW, 4.0 + FW, Rgb([43, 43, 48]));
        block(img, 0.0, 0.0, 4.0, 4.0, Rgb([214, 40, 57]));
    }

    fn score(img: &RgbImage) -> GlyphEvidence {
        let ideal = rect(
            px(0.0) as f32,
            px(0.0) as f32,
            px(4.0) as f32,
            px(4.0) as f32,
        );
        glyph_score(
            &Lookup::new(img, None),
            &ideal,
            4,
            4,
            FW,
            &WhiteBalance::IDENTITY,
        )
    }

    fn on_card(table: Rgb<u8>) -> RgbImage {
        card_with_margin(table, 1.2)
    }

    /// The card on `table`, reaching `margin` cells past the frame on every side.
    fn card_with_margin(table: Rgb<u8>, margin: f32) -> RgbImage {
        let mut img = RgbImage::from_pixel(600, 600, table);
        let (near, far) = (-FW - margin, 4.0 + FW + margin);
        block(&mut img, near, near, far, far, CARD);
        img
    }

    #[test]
    fn a_plain_player_card_shows_no_number() {
        let mut img = on_card(TABLE);
        grid(&mut img);
        assert_eq!(score(&img).score, 0.0);
    }

    #[test]
    fn a_card_running_out_of_the_picture_may_hide_a_number() {
        // A plain card, but the photo ends 0.3 cells past the frame's right side: a mission
        // card's number could lie beyond, so this is no clear "no number".
        let mut img = on_card(TABLE);
        grid(&mut img);
        let cut = image::imageops::crop_imm(&img, 0, 0, px(4.0 + FW + 0.3) as u32, 600).to_image();
        assert_eq!((score(&cut).score, score(&cut).card_cut), (0.5, true));
        // Cut past the card's edge, the whole margin is seen.
        let cut = image::imageops::crop_imm(&img, 0, 0, px(4.0 + FW + 1.6) as u32, 600).to_image();
        assert_eq!(score(&cut).score, 0.0, "{:?}", score(&cut));
    }

    #[test]
    fn a_card_like_its_table_hides_no_number_past_where_numbers_are_printed() {
        // A card the colour of the table shows no edge, so the margin searched seems to run
        // on to the photo's end. Cut 0.3 cells past the frame, a number may hide; cut 1.6
        // past it, the band where a mission card prints its number is all in the picture.
        let mut img = on_card(CARD);
        grid(&mut img);
        let cut = image::imageops::crop_imm(&img, 0, 0, px(4.0 + FW + 0.3) as u32, 600).to_image();
        assert_eq!((score(&cut).score, score(&cut).card_cut), (0.5, true));
        let cut = image::imageops::crop_imm(&img, 0, 0, px(4.0 + FW + 1.6) as u32, 600).to_image();
        assert_eq!((score(&cut).score, score(&cut).card_cut), (0.0, false));
    }

    #[test]
    fn a_number_inside_the_card_is_a_glyph() {
        let mut img = on_card(TABLE);
        grid(&mut img);
        number_one(&mut img);
        let e = score(&img);
        assert_eq!((e.score, e.islands), (1.0, 1), "{e:?}");
    }

    #[test]
    fn a_number_near_a_light_frames_rim_is_still_a_number() {
        // A dark card, its light frame blurred onto it in a thin light strip all round, and a
        // light "1" a fifth of a cell past the strip: the strip hugs the frame (no number),
        // and the numeral near it is not made part of it.
        let (card, light) = (Rgb([31, 61, 84]), Rgb([235, 232, 225]));
        let mut img = RgbImage::from_pixel(600, 600, TABLE);
        let (near, far) = (-FW - 1.2, 4.0 + FW + 1.2);
        block(&mut img, near, near, far, far, card);
        let rim = Rgb([150, 160, 170]);
        block(
            &mut img,
            -FW - 0.1,
            -FW - 0.1,
            4.0 + FW + 0.1,
            4.0 + FW + 0.1,
            rim,
        );
        block(&mut img, -FW, -FW, 4.0 + FW, 4.0 + FW, Rgb([240, 235, 220]));
        block(&mut img, 0.0, 0.0, 4.0, 4.0, Rgb([214, 40, 57]));
        block(&mut img, 4.0 + FW + 0.3, 1.6, 4.0 + FW + 0.45, 2.4, light);
        block(&mut img, 4.0 + FW + 0.25, 2.3, 4.0 + FW + 0.6, 2.4, light);
        let e = score(&img);
        assert_eq!(e.score, 1.0, "{e:?}");
    }

    #[test]
    fn a_speck_on_the_card_is_no_number_but_a_thin_one_is() {
        // Three tenths of a cell of a line a tenth wide: the sliver of a cloth's check that a
        // misplaced card edge leaves on the card, too little ink for a numeral.
        let mut img = on_card(TABLE);
        grid(&mut img);
        block(&mut img, 4.0 + FW + 0.5, 1.6, 4.0 + FW + 0.6, 1.9, INK);
        assert_eq!(score(&img).score, 0.0, "{:?}", score(&img));
        // Half a cell of the same stroke is ink enough (a 2 to 5 0.4 cells tall in a thin
        // font has about as much).
        block(&mut img, 4.0 + FW + 0.5, 1.6, 4.0 + FW + 0.6, 2.1, INK);
        assert_eq!(score(&img).score, 1.0, "{:?}", score(&img));
    }

    #[test]
    fn a_number_close_to_the_frame_is_never_a_clear_no() {
        let mut img = on_card(TABLE);
        grid(&mut img);
        // A "7" touching the frame's right side.
        block(&mut img, 4.0 + FW, 1.5, 4.0 + FW + 0.5, 1.62, INK);
        block(&mut img, 4.0 + FW + 0.38, 1.5, 4.0 + FW + 0.5, 2.4, INK);
        assert_eq!(score(&img).score, 0.5, "{:?}", score(&img));
    }

    #[test]
    fn a_lower_layer_peeking_out_is_not_a_number() {
        let mut img = on_card(TABLE);
        // A lower layer lies a tenth of a cell right of the top one.
        block(
            &mut img,
            -FW + 0.1,
            -FW,
            4.0 + FW + 0.1,
            4.0 + FW,
            Rgb([43, 43, 48]),
        );
        grid(&mut img);
        // And a short dark wedge of another one along the bottom.
        block(
            &mut img,
            1.0,
            4.0 + FW,
            2.2,
            4.0 + FW + 0.12,
            Rgb([43, 43, 48]),
        );
        assert_eq!(score(&img).score, 0.0, "{:?}", score(&img));
    }

    #[test]
    fn a_side_wall_round_the_frame_corner_is_not_a_number() {
        let mut img = on_card(TABLE);
        grid(&mut img);
        // Seen from above and to the right, the stack's side wall shows as a thin dark strip
        // along the top and right of the frame, turning the top-right corner: its bounding
        // box reaches far out on both sides, but every part of it hugs the frame.
        let wall = Rgb([70, 70, 76]);
        block(&mut img, 3.3, -FW - 0.12, 4.0 + FW + 0.12, -FW, wall);
        block(&mut img, 4.0 + FW, -FW - 0.12, 4.0 + FW + 0.12, 0.7, wall);
        assert_eq!(score(&img).score, 0.0, "{:?}", score(&img));
    }

    #[test]
    fn the_table_past_a_card_corner_is_not_a_glyph() {
        // The card is turned 30° under the grid, so one of its corners lies in the margin
        // and the table shows beyond it, near the frame.
        let mut img = RgbImage::from_pixel(600, 600, TABLE);
        let (cx, cy) = (px(2.0) as f32, px(2.0) as f32);
        let (a, h) = (30f32.to_radians(), 3.3 * CELL);
        let corner = |sx: f32, sy: f32| {
            let (x, y) = (sx * h, sy * h);
            Point::new(
                (cx + x * a.cos() - y * a.sin()).round() as i32,
                (cy + x * a.sin() + y * a.cos()).round() as i32,
            )
        };
        let card = [
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        ];
        draw_polygon_mut(&mut img, &card, CARD);
        grid(&mut img);
        assert_eq!(score(&img).score, 0.0);
    }

    #[test]
    fn a_check_of_the_cloth_past_a_rounded_card_corner_is_not_a_number() {
        // A light grey cloth with a dark check lying under the card's bottom-right corner.
        // The card's edges are straight lines 0.6 (right) and 0.4 (bottom) cells past the
        // frame, but its corner is rounded (a radius of one cell), so the check shows inside
        // both lines: its middle lies on the card side of both, its far end at the edges.
        let cloth = Rgb([205, 205, 210]);
        let mut img = RgbImage::from_pixel(600, 600, cloth);
        let (right, bottom, radius) = (4.0 + FW + 0.6, 4.0 + FW + 0.4, 1.0);
        block(&mut img, -FW - 1.2, -FW - 1.2, right, bottom, CARD);
        let centre = [right - radius, bottom - radius];
        for y in px(centre[1])..px(bottom) {
            for x in px(centre[0])..px(right) {
                let cell = |v: i32| (v as f32 - 200.0) / CELL;
                let (u, v) = (cell(x) - centre[0], cell(y) - centre[1]);
                if u.hypot(v) > radius {
                    let check = cell(x) >= 4.2 && cell(y) >= 4.0;
                    img.put_pixel(x as u32, y as u32, if check { INK } else { cloth });
                }
            }
        }
        grid(&mut img);
        let e = score(&img);
        assert_eq!(e.score, 0.0, "{e:?}");
        // The same check printed wholly on the card, away from its edges, is a number.
        let mut img = on_card(cloth);
        grid(&mut img);
        block(
            &mut img,
            4.0 + FW + 0.3,
            4.0 + FW + 0.3,
            4.0 + FW + 0.7,
            4.0 + FW + 0.7,
            INK,
        );
        assert_eq!(score(&img).score, 1.0, "{:?}", score(&img));
    }

    /// A white card on a white cloth, its right edge `right` cells past the cell area, with
    /// three orange blobs of the cloth cut by that edge (the only place it shows).
    fn white_on_white(right: f32) -> RgbImage {
        let orange = Rgb([235, 120, 40]);
        let mut img = RgbImage::from_pixel(600, 600, CARD);
        for (y0, y1, width) in [(0.2, 0.7, 0.5), (1.6, 2.5, 0.9), (3.3, 3.7, 0.4)] {
            block(&mut img, right - 0.3, y0, right + width, y1, orange);
        }
        block(&mut img, -FW - 0.5, -FW - 0.5, right, 4.0 + FW + 0.5, CARD);
        grid(&mut img);
        img
    }

    #[test]
    fn the_cloth_cut_by_a_white_card_on_a_white_cloth_is_not_a_number() {
        let e = score(&white_on_white(4.0 + FW + 0.6));
        assert_eq!(e.score, 0.0, "{e:?}");
        // A number printed on such a card is still one.
        let mut img = white_on_white(4.0 + FW + 1.3);
        number_one(&mut img);
        let e = score(&img);
        assert_eq!(e.score, 1.0, "{e:?}");
    }

    /// Grain of a few levels on every pixel (paper, sensor noise), the same on every run.
    fn grainy(img: &mut RgbImage, amplitude: i32) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for p in img.pixels_mut() {
            for c in p.0.iter_mut() {
                let noise = rng.gen_range(-amplitude..=amplitude);
                *c = (i32::from(*c) + noise).clamp(0, 255) as u8;
            }
        }
    }

    #[test]
    fn a_faint_card_edge_on_a_grainy_cream_cloth_bounds_the_card() {
        // A cream cloth a few ΔE from the card, a pink flower of it 0.2 cells past the card's
        // right edge, the card 0.6 cells wide there; grain on both makes the side's typical
        // step over a ΔE unit. The edge's change is small but runs along the whole side.
        let cream = Rgb([233, 221, 205]);
        let mut img = card_with_margin(cream, 0.6);
        let x = 4.0 + FW + 0.8;
        block(&mut img, x, 1.7, x + 0.6, 2.3, Rgb([226, 120, 150]));
        grid(&mut img);
        grainy(&mut img, 2);
        let e = score(&img);
        assert_eq!(e.score, 0.0, "{e:?}");
        // A number printed on such a card is still one.
        let mut img = card_with_margin(cream, 1.2);
        number_one(&mut img);
        grid(&mut img);
        grainy(&mut img, 2);
        let e = score(&img);
        assert_eq!(e.score, 1.0, "{e:?}");
    }

    /// A cloth just like the card, with a purple motif every 1.2 cells, under a card with a
    /// narrow margin: the card's edge cannot be seen.
    fn on_motif_cloth() -> RgbImage {
        let mut img = RgbImage::from_pixel(600, 600, CARD);
        for i in 0..12 {
            for j in 0..12 {
                let (x, y) = (-4.7 + 1.2 * i as f32, -4.7 + 1.2 * j as f32);
                block(&mut img, x, y, x + 0.4, y + 0.4, Rgb([120, 90, 220]));
            }
        }
        block(
            &mut img,
            -FW - 0.3,
            -FW - 0.3,
            4.0 + FW + 0.3,
            4.0 + FW + 0.3,
            CARD,
        );
        img
    }

    #[test]
    fn a_motif_repeated_around_the_grid_is_a_pattern_not_a_number() {
        let mut img = on_motif_cloth();
        grid(&mut img);
        let e = score(&img);
        assert_eq!((e.score, e.islands), (0.0, 0), "{e:?}");
    }

    #[test]
    fn a_number_among_a_pattern_is_still_a_number() {
        // The same cloth under a mission card whose number lies in a wider margin.
        let mut img = on_motif_cloth();
        block(
            &mut img,
            4.0 + FW,
            -FW - 0.3,
            4.0 + FW + 1.4,
            4.0 + FW + 0.3,
            CARD,
        );
        number_one(&mut img);
        grid(&mut img);
        let e = score(&img);
        assert_eq!((e.score, e.islands), (1.0, 1), "{e:?}");
    }

    #[test]
    fn checks_beyond_the_card_edge_are_not_a_clear_glyph() {
        // A narrow card margin, then a white cloth (like the card) with dark checks.
        let mut img = RgbImage::from_pixel(600, 600, CARD);
        for i in 0..15 {
            for j in 0..15 {
                if (i + j) % 2 == 0 {
                    let (x, y) = (-3.0 + 0.6 * i as f32, -3.0 + 0.6 * j as f32);
                    block(&mut img, x, y, x + 0.6, y + 0.6, Rgb([110, 50, 170]));
                }
            }
        }
        block(
            &mut img,
            -FW - 0.4,
            -FW - 0.4,
            4.0 + FW + 0.4,
            4.0 + FW + 0.4,
            Rgb([236, 233, 224]),
        );
        grid(&mut img);
        assert!(score(&img).score < 1.0, "{:?}", score(&img));
    }

    /// A side of `n` columns whose steps are `typical` everywhere except `change` along each
    /// of `lines`.
    fn side_with(n: usize, typical: f32, lines: &[(Line, f32)]) -> SideSteps {
        let steps = (0..n)
            .map(|k| {
                let mut col = [typical; DEPTHS - 1];
                for (line, change) in lines {
                    col[line.at(k).round() as usize] = *change;
                }
                col
            })
            .collect();
        SideSteps { steps, typical }
    }

    #[test]
    fn a_step_back_to_the_card_colour_is_no_card_edge() {
        // Each column outward: a light frame's blurred rim (lighter than the card, yet within
        // BODY_DE of it), the card, then a cloth a little different from the card.
        let (rim, card, cloth) = (
            Lab::new(45.0, -14.0, -2.0),
            Lab::new(33.0, -12.0, -3.0),
            Lab::new(38.0, -16.0, 4.0),
        );
        assert!(rim.within(card, BODY_DE) && rim.delta_e(card) > card.delta_e(cloth));
        let column: [Option<Lab>; DEPTHS] = std::array::from_fn(|d| {
            Some(match d {
                0 => rim,
                1..=7 => card,
                _ => cloth,
            })
        });
        let labs = vec![column; 40];
        let lines = card_edges(&[(); 4].map(|_| SideSteps::new(&labs, card)));
        // The card ends past its last sample (depth 7), not past the rim.
        assert_eq!(lines, [Line { a: 8.0, b: 0.0 }; 4]);
    }

    #[test]
    fn the_card_edges_share_one_slope() {
        // The card is turned 13° under the grid: its edges run at slope 0.15 on every side. On the top side a tablecloth stripe makes a stronger straight change at a
        // steep slope, which a side fitted on its own takes for the card's edge.
        let b = 5.0 * EDGE_SLOPE_STEP;
        let edge = |a: f32| (Line { a, b }, 8.0);
        let stripe = (Line { a: 14.0, b: -0.3 }, 12.0);
        let sides = [
            Some(side_with(40, 0.5, &[edge(3.0), stripe])),
            Some(side_with(40, 0.5, &[edge(4.0)])),
            Some(side_with(40, 0.5, &[edge(2.0)])),
            Some(side_with(40, 0.5, &[edge(5.0)])),
        ];
        let lines = card_edges(&sides);
        // One sample past each step.
        for (line, a) in lines.iter().zip([4.0, 5.0, 3.0, 6.0]) {
            assert_eq!(*line, Line { a, b }, "{lines:?}");
        }
        // A side with no line at the shared slope keeps its own.
        let sides = [
            Some(side_with(40, 0.5, &[edge(3.0)])),
            Some(side_with(40, 0.5, &[edge(4.0)])),
            Some(side_with(40, 0.5, &[(Line { a: 2.0, b: 0.0 }, 8.0)])),
            None,
        ];
        let lines = card_edges(&sides);
        assert_eq!(lines[2], Line { a: 3.0, b: 0.0 }, "{lines:?}");
        assert_eq!(lines[3], Line::BEYOND);
    }

    proptest::proptest! {
        /// The libm-free rounding agrees with `f32::round`, halves and negatives included.
        #[test]
        fn round_agrees_with_f32_round(v in -1.0e6f32..1.0e6, half in proptest::bool::ANY) {
            let v = if half { v.trunc() + 0.5f32.copysign(v) } else { v };
            proptest::prop_assert_eq!(round(v), v.round());
        }
    }

    #[test]
    fn the_colour_memo_remembers_per_key() {
        let mut memo = ColourMemo::<u32>::new();
        let mut calls = 0;
        for key in [
            0x00ff_ffff,
            0x0012_3456,
            0x00ff_ffff,
            0x0300_ffff,
            0x00ff_ffff,
        ] {
            let v = memo.get(key, || {
                calls += 1;
                key ^ 0x55
            });
            assert_eq!(v, key ^ 0x55);
        }
        assert_eq!(calls, 3);
    }
}
