//! The table's lattice: one homography from lattice coordinates to the photo, fitted to the
//! card centres.
//!
//! Lattice coordinates are `[col, row]`; square `(row, col)` spans `col ± 0.5` by `row ± 0.5`.
//! Every card of a board lies on the same lattice (overlapping squares coincide), so every
//! centre found pins down the same homography. The fit starts from one centre's quad and
//! grows outwards, refitting on every centre accepted (the least-squares fit of all their
//! points, with perspective along each axis once they span a few squares of it:
//! [`fit_lattice`]), so that perspective learnt near the seed carries to the far cards.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rayon::prelude::*;
use tablejudge_rules::camouflage::LatticePos;

use super::read::{normalised, symbol_similarity, SAME_SYMBOL};
use super::seeds::{against, CentreLook, Seed};
use crate::geom::{centre, dist, invert};
use crate::rectify::{apply_homography, fit_homography, fit_projective, Homography, Quad};
use crate::refine::Lookup;

/// A square lattice seen in a photo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoardLattice {
    /// Lattice `[col, row]` to photo pixels.
    pub homography: Homography,
    inverse: Homography,
}

impl BoardLattice {
    /// The lattice of `homography`; `None` when it is singular.
    pub fn new(homography: Homography) -> Option<BoardLattice> {
        Some(BoardLattice {
            homography,
            inverse: invert(&homography)?,
        })
    }

    /// The photo position of lattice point `[col, row]`.
    pub fn to_photo(&self, p: [f32; 2]) -> Option<[f32; 2]> {
        apply_homography(&self.homography, p)
    }

    /// The lattice coordinates `[col, row]` of a photo position.
    pub fn to_lattice(&self, p: [f32; 2]) -> Option<[f32; 2]> {
        apply_homography(&self.inverse, p)
    }

    /// The square a photo position lies on (whose middle is nearest it).
    pub fn square_of(&self, p: [f32; 2]) -> Option<LatticePos> {
        let [c, r] = self.to_lattice(p)?;
        Some(LatticePos::new(r.round() as i32, c.round() as i32))
    }

    /// The homography taking the unit square `[0,1]²` onto square `pos` in the photo.
    pub fn square(&self, pos: LatticePos) -> Homography {
        self.square_at([pos.col as f32, pos.row as f32])
    }

    /// The homography taking the unit square `[0,1]²` onto the square of the lattice's size
    /// centred at lattice point `[col, row]`.
    pub fn square_at(&self, [col, row]: [f32; 2]) -> Homography {
        let (dx, dy) = (f64::from(col) - 0.5, f64::from(row) - 0.5);
        let h = &self.homography;
        std::array::from_fn(|r| [h[r][0], h[r][1], h[r][0] * dx + h[r][1] * dy + h[r][2]])
    }

    /// The photo corners of square `pos`, clockwise from its top-left in the lattice.
    pub fn square_quad(&self, pos: LatticePos) -> Option<Quad> {
        let (c, r) = (pos.col as f32, pos.row as f32);
        Some([
            self.to_photo([c - 0.5, r - 0.5])?,
            self.to_photo([c + 0.5, r - 0.5])?,
            self.to_photo([c + 0.5, r + 0.5])?,
            self.to_photo([c - 0.5, r + 0.5])?,
        ])
    }

    /// The same lattice with its rows and columns renamed: turned by `quarter_turns`
    /// (clockwise on the lattice) and shifted so that `origin` becomes `(0, 0)`.
    pub fn renamed(&self, quarter_turns: u8, origin: LatticePos) -> Option<BoardLattice> {
        // The map from new [c', r'] to old [c, r] = origin + R⁻¹[c', r'], where the clockwise
        // quarter turn R takes [c, r] to [-r, c] (right goes down, y pointing down).
        let (o_c, o_r) = (f64::from(origin.col), f64::from(origin.row));
        let m: [[f64; 3]; 3] = match quarter_turns % 4 {
            0 => [[1.0, 0.0, o_c], [0.0, 1.0, o_r], [0.0, 0.0, 1.0]],
            1 => [[0.0, 1.0, o_c], [-1.0, 0.0, o_r], [0.0, 0.0, 1.0]],
            2 => [[-1.0, 0.0, o_c], [0.0, -1.0, o_r], [0.0, 0.0, 1.0]],
            _ => [[0.0, -1.0, o_c], [1.0, 0.0, o_r], [0.0, 0.0, 1.0]],
        };
        let h = &self.homography;
        BoardLattice::new(std::array::from_fn(|r| {
            std::array::from_fn(|c| (0..3).map(|k| h[r][k] * m[k][c]).sum())
        }))
    }
}

/// The unit square's corners about the origin square's centre.
const UNIT: Quad = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];

/// A lattice started from one seed: which seeds lie on it at which square, and the point
/// pairs it was fitted to.
pub(crate) type Start = (BoardLattice, Vec<(usize, LatticePos)>, Fit);

/// Lattices grown from up to `n` seeds, those most seeds agree with first (a seed on a
/// table's pattern has few others on its lattice), then the most typical: a seed whose size is
/// nearest the median.
pub(crate) fn fit_seeds(seeds: &[Seed], n: usize) -> Vec<Start> {
    let mut areas: Vec<f32> = seeds.iter().map(|s| s.area).collect();
    areas.sort_by(f32::total_cmp);
    let Some(&median) = areas.get(areas.len() / 2) else {
        return Vec::new();
    };
    let off = |i: usize| (seeds[i].area / median).ln().abs();
    // In parallel: a gingham's checks are a thousand seeds or more, each grown through the
    // rest.
    let mut starts: Vec<Start> = (0..seeds.len())
        .into_par_iter()
        .filter_map(|start| grow_from(seeds, start))
        .collect();
    starts.sort_by(|a, b| {
        b.1.len()
            .cmp(&a.1.len())
            .then(off(a.1[0].0).total_cmp(&off(b.1[0].0)))
    });
    // One start per group of seeds that agree.
    let mut taken: Vec<Start> = Vec::new();
    for s in starts {
        if taken.len() >= n {
            break;
        }
        if taken
            .iter()
            .all(|t| !t.1.iter().any(|&(i, _)| i == s.1[0].0))
        {
            taken.push(s);
        }
    }
    taken
}

/// How many squares (either way) from a seed on a start another may lie to join it. A
/// board's centres lie within two squares of another's (overlapping cards), four across a
/// centre the seed search missed. Further out the lattice, fitted near the start, is
/// extrapolated, and a cloth's motifs repeating near its period fall on it by chance: on a
/// cloth of flowers, seeds forty squares out joined a start on a board and bent its lattice.
const SEED_REACH: i32 = 4;

fn grow_from(seeds: &[Seed], start: usize) -> Option<Start> {
    let mut from: Vec<[f32; 2]> = UNIT.to_vec();
    let mut to: Vec<[f32; 2]> = seeds[start].quad.to_vec();
    let mut lattice = fit_lattice(&from, &to)?;
    let mut on = vec![(start, LatticePos::new(0, 0))];
    // How many seeds the lattice was last fitted to.
    let mut fitted = 1usize;
    let c0 = centre(&seeds[start].quad);
    // Nearest first, each distance measured once.
    let mut rest: Vec<(f32, usize)> = (0..seeds.len())
        .filter(|&i| i != start)
        .map(|i| (dist(centre(&seeds[i].quad), c0), i))
        .collect();
    rest.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (_, i) in rest {
        let Some(corners) = on_lattice(&lattice, &seeds[i].quad) else {
            continue;
        };
        let pos = corners.0;
        if on.iter().any(|&(_, p)| p == pos) {
            continue;
        }
        if !on.iter().any(|&(_, p)| p.squares_from(pos) <= SEED_REACH) {
            continue;
        }
        on.push((i, pos));
        from.extend(corners.1);
        to.extend(seeds[i].quad);
        // Refitted as the seeds on it grow by a quarter: each fit reaches a little further
        // than the seeds it was fitted to, and a fit per seed would cost the square of them.
        if on.len() >= fitted + fitted.div_ceil(4) {
            fitted = on.len();
            if let Some(l) = fit_lattice(&from, &to) {
                lattice = l;
            }
        }
    }
    // Fitted to every seed on it, as the search goes on from it.
    if fitted < on.len() {
        if let Some(l) = fit_lattice(&from, &to) {
            lattice = l;
        }
    }
    Some((lattice, on, (from, to)))
}

/// The square a seed's quad lies on, with its corners' lattice coordinates in the quad's
/// corner order, when every corner is within a quarter square of the lattice's.
fn on_lattice(lattice: &BoardLattice, quad: &Quad) -> Option<(LatticePos, [[f32; 2]; 4])> {
    let [c, r] = lattice.to_lattice(centre(quad))?;
    let pos = LatticePos::new(r.round() as i32, c.round() as i32);
    let (pc, pr) = (pos.col as f32, pos.row as f32);
    let mut corners = [[0.0; 2]; 4];
    for (k, &p) in quad.iter().enumerate() {
        let [x, y] = lattice.to_lattice(p)?;
        let snapped = [
            pc + if x < pc { -0.5 } else { 0.5 },
            pr + if y < pr { -0.5 } else { 0.5 },
        ];
        if (x - snapped[0]).abs() > 0.25 || (y - snapped[1]).abs() > 0.25 {
            return None;
        }
        corners[k] = snapped;
    }
    // Four distinct corners: a quad twice the size would snap two onto one.
    let distinct = (0..4).all(|a| (a + 1..4).all(|b| corners[a] != corners[b]));
    distinct.then_some((pos, corners))
}

/// The fewest squares that lattice points must span along an axis before a lattice of small
/// squares is fitted with perspective along it. Perspective bends a lattice little across a
/// few squares, less than the corners of a small square found in the photo are off (a pixel
/// or two, a tenth of a square of 20 pixels); fitted to a few squares' points, a homography
/// takes that noise for perspective and throws squares two out a third of a square off (a
/// starting board of three cards seen from afar), or, fitted to a row of squares, bends the
/// lattice across the row (a lattice grown from a start on a cloth of flowers that took the
/// flowers for a board). Along a row of cards the perspective shows: an affine fit left the
/// far end of a starting board of three cards in a row a little off, and a square of it
/// unread (docs/ACCURACY.md).
const PERSPECTIVE_SPAN: f32 = 4.0;

/// Squares at least this wide (pixels) show their perspective in their own corners: a pixel
/// or two of error is under a twentieth of the side, and a homography through one square's
/// corners puts the next centre, two squares out, within a quarter of a square. (A puzzle seen
/// close up and steeply, squares of 70 pixels and more, needs it: an affine start missed a
/// card there.)
const PERSPECTIVE_SIDE_PX: f64 = 40.0;

/// The lattice fitted to the point pairs `from` (lattice `[col, row]`) and `to` (photo): a
/// homography (OpenCV's, refined) where the squares are [`PERSPECTIVE_SIDE_PX`] wide or the
/// points span [`PERSPECTIVE_SPAN`] squares both ways; otherwise with perspective only
/// along an axis the points span that many squares of (an affine map where neither).
/// `None` when the points fit no lattice.
pub(crate) fn fit_lattice(from: &[[f32; 2]], to: &[[f32; 2]]) -> Option<BoardLattice> {
    let spans = |axis: usize| {
        let (lo, hi) = from.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            (lo.min(p[axis]), hi.max(p[axis]))
        });
        hi - lo >= PERSPECTIVE_SPAN
    };
    let perspective = [spans(0), spans(1)];
    if perspective != [true, true] {
        let affine = fit_projective(from, to, [false; 2]).ok()?;
        let side = affine[0][0]
            .hypot(affine[1][0])
            .min(affine[0][1].hypot(affine[1][1]));
        if side < PERSPECTIVE_SIDE_PX {
            return match perspective {
                [false, false] => BoardLattice::new(affine),
                _ => fit_projective(from, to, perspective)
                    .ok()
                    .and_then(BoardLattice::new),
            };
        }
    }
    fit_homography(from, to).ok().and_then(BoardLattice::new)
}

/// Point pairs (lattice `[col, row]`, photo) the lattice is fitted to.
pub(crate) type Fit = (Vec<[f32; 2]>, Vec<[f32; 2]>);

/// Every card centre connected to `centres` through overlapping cards: a card overlapping
/// another has its centre within two squares of the other's, so the search looks at the 5 × 5
/// squares around each centre found, until no new one turns up. Each centre found is settled
/// where its stock fits best and added to `fit`, and the lattice refitted, so that it follows
/// the photo's perspective to the board's far side. The squares around a centre are settled
/// from where that centre settled: where a pile rises or a lens bows its side, the cards
/// there lie off the one homography together, by more than settling alone reaches.
pub(crate) fn grow_centres(
    lookup: &Lookup,
    lattice: &mut BoardLattice,
    fit: &mut Fit,
    centres: &mut BTreeMap<LatticePos, CentreLook>,
) {
    grow_centres_where(lookup, lattice, fit, centres, &mut |_, _| true);
}

/// [`grow_centres`], trying only the squares where `worth(lattice, square)` says a centre may
/// have appeared (following a board into the next photo: where the squares changed).
pub(crate) fn grow_centres_where(
    lookup: &Lookup,
    lattice: &mut BoardLattice,
    fit: &mut Fit,
    centres: &mut BTreeMap<LatticePos, CentreLook>,
    worth: &mut dyn FnMut(&BoardLattice, LatticePos) -> bool,
) {
    let from: Vec<LatticePos> = centres.keys().copied().collect();
    grow_centres_from(lookup, lattice, fit, centres, from, worth);
}

/// More centres than any board has: a box holds eight decks of six cards (48), and a
/// printing with a few more decks still stays under this. A lattice that grows past it runs
/// through a cloth's motifs (dots, flowers), not through cards, and growing it further only
/// costs time: a cloth of dots grew to 953 "centres" in 2.3 s.
pub(crate) const MAX_CENTRES: usize = 64;

/// How far from a centre found growing the board looks for more, in squares each way: a
/// card laid beside another's centre lies two squares from it.
pub(crate) const GROWTH_REACH: i32 = 2;

/// The most squares one growth tries: those within two of [`MAX_CENTRES`] centres, and more.
const MAX_SQUARES: usize = 1600;

/// [`grow_centres`] from the centres `from` only (the others were grown from already).
pub(crate) fn grow_centres_from(
    lookup: &Lookup,
    lattice: &mut BoardLattice,
    fit: &mut Fit,
    centres: &mut BTreeMap<LatticePos, CentreLook>,
    from: Vec<LatticePos>,
    worth: &mut dyn FnMut(&BoardLattice, LatticePos) -> bool,
) {
    let mut tried: BTreeSet<LatticePos> = centres.keys().copied().collect();
    let mut frontier: VecDeque<LatticePos> = from.into();
    while let Some(at) = frontier.pop_front() {
        if centres.len() > MAX_CENTRES {
            return;
        }
        let stock = typical_stock(centres);
        // A pile is no flat lattice (cards lie on others, a little askew): where a centre
        // settled off the fit, its neighbours lie off it the same way.
        let drift = centres
            .get(&at)
            .and_then(|look| look.settled)
            .or_else(|| settle(lookup, lattice, at).map(|s| s.1))
            .and_then(|px| lattice.to_lattice(px))
            .map_or([0.0; 2], |[c, r]| [c - at.col as f32, r - at.row as f32]);
        for dr in -GROWTH_REACH..=GROWTH_REACH {
            for dc in -GROWTH_REACH..=GROWTH_REACH {
                let pos = at.offset(dr, dc);
                // A card centred beside a centre in view would cover it: no centre there.
                if tried.len() >= MAX_SQUARES || pos.within_one(at) || !tried.insert(pos) {
                    continue;
                }
                if worth(lattice, pos) && join(lookup, lattice, fit, centres, pos, drift, stock) {
                    frontier.push_back(pos);
                }
            }
        }
    }
}

/// How far, in squares, the centre of a card laid over another's centre may lie from every
/// centre in view: one square from the centre it hides, which lay two from another's.
const COVER_REACH: i32 = 3;

/// Grows the board to the cards laid over another card's centre (an illegal play) that
/// [`grow_centres`] cannot reach: such a card hides the centre it covers, and its own may
/// then lie three squares from every centre in view. A seed off the board within three
/// squares of a centre found is looked at where it falls on the lattice; each one that passes
/// for a centre joins the board, which is grown from it. Only seeds are looked at: trying
/// every square three out slowed the replays by 6–18% (docs/ACCURACY.md) for a rare play.
pub(crate) fn grow_to_seeds(
    lookup: &Lookup,
    seeds: &[Seed],
    lattice: &mut BoardLattice,
    fit: &mut Fit,
    centres: &mut BTreeMap<LatticePos, CentreLook>,
) {
    let mut tried: BTreeSet<LatticePos> = BTreeSet::new();
    loop {
        let next = seeds.iter().find_map(|s| {
            let pos = lattice.square_of(centre(&s.quad))?;
            let reached = centres.keys().any(|p| p.squares_from(pos) <= COVER_REACH);
            (reached && !centres.contains_key(&pos) && !tried.contains(&pos)).then_some(pos)
        });
        let Some(pos) = next.filter(|_| centres.len() <= MAX_CENTRES) else {
            return;
        };
        tried.insert(pos);
        let stock = typical_stock(centres);
        if join(lookup, lattice, fit, centres, pos, [0.0; 2], stock) {
            grow_centres_from(lookup, lattice, fit, centres, vec![pos], &mut |_, _| true);
        }
    }
}

/// Whether square `pos`, settled, passes for a centre of stock like `stock`; if so it joins
/// `centres` and `fit`, and the lattice is refitted.
fn join(
    lookup: &Lookup,
    lattice: &mut BoardLattice,
    fit: &mut Fit,
    centres: &mut BTreeMap<LatticePos, CentreLook>,
    pos: LatticePos,
    drift: [f32; 2],
    stock: Option<[f32; 3]>,
) -> bool {
    // Every square is settled before it is judged: at the far side of the board the lattice
    // may still be off by a third of a square, its symbol off-centre.
    let Some((at, p)) = settle_near(lookup, lattice, pos, drift) else {
        return false;
    };
    let Some(mut look) = centre_at(lookup, lattice, at, stock) else {
        return false;
    };
    look.settled = Some(p);
    fit.0.push([pos.col as f32, pos.row as f32]);
    fit.1.push(p);
    if let Some(l) = fit_lattice(&fit.0, &fit.1) {
        *lattice = l;
    }
    centres.insert(pos, look);
    true
}

/// Where the centre square `pos` really is: the shift, within a quarter of a square, that puts
/// the most light stock into the band just inside its edge and the least into the band just
/// outside it (the symbol is inside both, the card's pattern squares outside). Returns the
/// settled centre in lattice and photo coordinates.
pub(crate) fn settle(
    lookup: &Lookup,
    lattice: &BoardLattice,
    pos: LatticePos,
) -> Option<([f32; 2], [f32; 2])> {
    settle_near(lookup, lattice, pos, [0.0; 2])
}

/// [`settle`], the search about `pos` shifted by `drift` (in squares, each way at most a
/// third of a square).
pub(crate) fn settle_near(
    lookup: &Lookup,
    lattice: &BoardLattice,
    pos: LatticePos,
    drift: [f32; 2],
) -> Option<([f32; 2], [f32; 2])> {
    let (c, r) = (pos.col as f32, pos.row as f32);
    // Samples inside the square's edge (+1) and outside it (-1), in square units about the
    // centre: the stock inside against the card's own pattern squares around it. Light
    // alone would pull the square onto a light pattern beside it (a zebra's, a diamond's),
    // whose band outside is as light as the stock: against the band outside, a shift that
    // way gains nothing there and loses the dark edge on the other side. The outer band
    // lies an eighth of a square out: nearer, on squares of 12 pixels, it fell inside the
    // edge's blur and the centres settled a quarter square off.
    const PER_SIDE: usize = 12;
    let h = &lattice.homography;
    // Each sample in homogeneous photo coordinates at no shift: a shift adds the same
    // offset to all of them, so each of the 83 shifts costs one division per sample, not a
    // homography each.
    let band: Vec<([f64; 3], f32)> = [(0.4f32, 1.0f32), (0.46, 1.0), (0.62, -1.0)]
        .iter()
        .flat_map(|&(d, sign)| {
            (0..PER_SIDE).flat_map(move |i| {
                let t = -d + 2.0 * d * (i as f32 + 0.5) / PER_SIDE as f32;
                [[t, -d], [d, t], [-t, d], [-d, -t]].map(|p| (p, sign))
            })
        })
        .map(|([x, y], sign)| {
            let (u, v) = (f64::from(c + x), f64::from(r + y));
            (
                std::array::from_fn(|k| h[k][0] * u + h[k][1] * v + h[k][2]),
                sign,
            )
        })
        .collect();
    let brightness = |dx: f32, dy: f32| -> f32 {
        let (dx, dy) = (f64::from(dx), f64::from(dy));
        let off: [f64; 3] = std::array::from_fn(|k| h[k][0] * dx + h[k][1] * dy);
        let sample = |&([x, y, w], sign): &([f64; 3], f32)| {
            let w = w + off[2];
            if w.abs() < 1e-12 {
                return 0.0;
            }
            let iw = w.recip();
            let p = [((x + off[0]) * iw) as f32, ((y + off[1]) * iw) as f32];
            lookup.brightness(p).map_or(0.0, |b| sign * b)
        };
        // Four sums, one per side of the band, so that each addition need not wait on the
        // one before.
        let mut sides = [0.0f32; 4];
        for four in band.chunks_exact(4) {
            for (side, s) in sides.iter_mut().zip(four) {
                *side += sample(s);
            }
        }
        sides.iter().sum()
    };
    const MAX_DRIFT: f32 = 0.34;
    let mut best = (
        drift[0].clamp(-MAX_DRIFT, MAX_DRIFT),
        drift[1].clamp(-MAX_DRIFT, MAX_DRIFT),
    );
    // Coarse to fine: shifts up to 0.21 of a square in steps of 0.07 (the band's bright
    // plateau is wider), then about the best in steps of 0.02 and 0.01: a quarter in all.
    for (step, reach) in [(0.07f32, 3i32), (0.02, 2), (0.01, 1)] {
        let (bx, by) = best;
        let mut top = (f32::MIN, best);
        for i in -reach..=reach {
            for j in -reach..=reach {
                let (dx, dy) = (bx + j as f32 * step, by + i as f32 * step);
                let v = brightness(dx, dy);
                if v > top.0 {
                    top = (v, (dx, dy));
                }
            }
        }
        best = top.1;
    }
    let at = [c + best.0, r + best.1];
    Some((at, lattice.to_photo(at)?))
}

/// The ring colour of the centres found, the median by brightness; `None` before any.
pub(crate) fn typical_stock(centres: &BTreeMap<LatticePos, CentreLook>) -> Option<[f32; 3]> {
    let mut rings: Vec<[f32; 3]> = centres.values().map(|c| c.ring).collect();
    rings.sort_by(|a, b| (a[0] + a[1] + a[2]).total_cmp(&(b[0] + b[1] + b[2])));
    rings.get(rings.len() / 2).copied()
}

/// The ink colour of the centres found (the median log-chroma against their stock, channel by
/// channel); `None` before three, when an odd one cannot be told from the rest.
pub(crate) fn typical_ink(centres: &BTreeMap<LatticePos, CentreLook>) -> Option<[f32; 2]> {
    if centres.len() < 3 {
        return None;
    }
    let median = |i: usize| {
        let mut v: Vec<f32> = centres.values().map(|c| c.ink_chroma[i]).collect();
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    Some([median(0), median(1)])
}

/// The look of the square centred at lattice point `at` when it passes for a card centre:
/// a centre's stock and ink (like `stock`, when known) framed by pattern squares.
pub(crate) fn centre_at(
    lookup: &Lookup,
    lattice: &BoardLattice,
    at: [f32; 2],
    stock: Option<[f32; 3]>,
) -> Option<CentreLook> {
    CentreLook::measure(lookup, &lattice.square_at(at))
        .filter(|look| look.is_centre(stock) && framed_by_patterns(lookup, lattice, at, look.ring))
}

/// How many of a centre seen before's eight neighbours must be unlike its stock: fewer than
/// [`framed_by_patterns`] asks of a new one. Cards laid since may have brought light patterns
/// round it (grey mottling on white, nearly its stock's colour): seed 4's game 173 had a
/// starting card with three such squares round it once a card was laid over its corner, and
/// every photo after it was skipped as covered. A flower on a cloth is never seen as a
/// centre in the first place.
const FRAMED_SEEN_BEFORE: usize = 3;

/// [`centre_at`] for a square where an earlier photo of the board saw a centre
/// ([`CentreLook::is_centre_seen_before`], [`FRAMED_SEEN_BEFORE`]). Failing that, where
/// `symbol` is the ink the photos before saw there, a square showing that symbol is the
/// centre, recognised ([`CentreLook::recognised`]): a darker neighbour's blurred edge along
/// its ring and a fine symbol blurred grey (seed 4's game 181) leave it neither a clean ring
/// nor dark ink. A card laid over it, or a hand, brings another picture.
pub(crate) fn centre_seen_before_at(
    lookup: &Lookup,
    lattice: &BoardLattice,
    at: [f32; 2],
    symbol: Option<&[f32]>,
) -> Option<CentreLook> {
    let mut look = CentreLook::measure(lookup, &lattice.square_at(at))?;
    let seen = look.is_centre_seen_before(None);
    look.recognised = !seen
        && look.recognisable()
        && symbol.is_some_and(|s| {
            symbol_similarity(&normalised(&look.symbol), &normalised(s)) > SAME_SYMBOL
        });
    ((seen || look.recognised)
        && patterns_round(lookup, lattice, at, look.ring) >= FRAMED_SEEN_BEFORE)
        .then_some(look)
}

/// Whether the square centred at lattice point `at` is framed like a card centre: at least
/// four of its eight neighbours (the card's own pattern squares, or those of cards over it)
/// unlike its stock, darker or coloured. A light speck on a light table, a flower on a cloth,
/// has the table all around instead.
pub(crate) fn framed_by_patterns(
    lookup: &Lookup,
    lattice: &BoardLattice,
    at: [f32; 2],
    stock: [f32; 3],
) -> bool {
    patterns_round(lookup, lattice, at, stock) >= 4
}

/// How many of the eight squares round lattice point `at` are unlike `stock`: darker, or
/// coloured.
fn patterns_round(
    lookup: &Lookup,
    lattice: &BoardLattice,
    [c, r]: [f32; 2],
    stock: [f32; 3],
) -> usize {
    let mut unlike = 0;
    for (dr, dc) in [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ] {
        let h = lattice.square_at([c + dc as f32, r + dr as f32]);
        let mut sum = [0.0f32; 3];
        let mut n = 0.0;
        for i in 0..4 {
            for j in 0..4 {
                let (x, y) = (
                    0.25 + 0.5 * (j as f32 + 0.5) / 4.0,
                    0.25 + 0.5 * (i as f32 + 0.5) / 4.0,
                );
                if let Some(p) = apply_homography(&h, [x, y]).and_then(|p| lookup.rgb(p)) {
                    for k in 0..3 {
                        sum[k] += p[k];
                    }
                    n += 1.0;
                }
            }
        }
        if n == 0.0 {
            continue;
        }
        let (mean, spread) = against(sum.map(|v| v / n), stock);
        if mean < 0.8 || spread > 0.15 * mean {
            unlike += 1;
        }
    }
    unlike
}
