//! One photo of a Camouflage board to its lattice: card centres, each visible square's kind.
//!
//! Every card's centre stays visible (the rules forbid covering one), and a card covers the
//! 3 × 3 squares around its centre, so the centres alone tell which squares hold a card: the
//! union of their 3 × 3 blocks. Everything else is table. Each card square's kind is its
//! colour, measured against the stock of the nearest centre (a white reference on the card
//! itself, lit like the squares around it) and named with the set's pattern colours.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use image::RgbImage;
use serde::{Deserialize, Serialize};
use tablejudge_rules::camouflage::{CamouflageSet, LatticePos, SideIdx, Square};
use tablejudge_rules::palette::Swatch;
use tablejudge_rules::{Key, Palette, Pos, Srgb, Turn};
use thiserror::Error;

use super::lattice::{
    centre_at, centre_seen_before_at, fit_lattice, fit_seeds, framed_by_patterns, grow_centres,
    grow_centres_from, grow_centres_where, grow_to_seeds, settle, settle_near, typical_ink,
    typical_stock, BoardLattice, Fit, GROWTH_REACH, MAX_CENTRES,
};
use super::looks::{SquareLook, SquareLooks};
use super::seeds::{
    find_seeds, find_symbols_where, luma, CentreLook, Seed, SYMBOL_CELLS, SYMBOL_SIDE,
};
use super::working::{working_copy, PixelMap};
use crate::camera::Camera;
use crate::classify::{Classifier, ClassifierParams};
use crate::colour::{Lab, LinRgb};
use crate::error::VisionError;
use crate::rectify::{apply_homography, fit_homography, Quad};
use crate::refine::Lookup;

/// What a lattice square shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "key")]
pub enum SquareKind {
    /// No card: the table.
    Table,
    /// A card's centre (stock with the deck's symbol).
    Centre,
    /// A card's pattern square of this key.
    Pattern(Key),
    /// A card square whose pattern could not be told (hand, glare, foreign object).
    Unknown,
}

impl SquareKind {
    /// The character of the board pictures: `.` table, `*` centre, the key, `?` unknown.
    pub fn char(self) -> char {
        match self {
            SquareKind::Table => '.',
            SquareKind::Centre => '*',
            SquareKind::Pattern(k) => k.char(),
            SquareKind::Unknown => '?',
        }
    }
}

/// One lattice square as read.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SquareReading {
    pub row: i32,
    pub col: i32,
    #[serde(flatten)]
    pub kind: SquareKind,
    /// Mean colour of the square's middle, corrected by the nearest centre's stock.
    pub srgb: Srgb,
    /// How sure the reader is of `kind`, 0..=1.
    pub confidence: f32,
}

/// A card centre as read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CentreReading {
    pub row: i32,
    pub col: i32,
    /// Its pixel position in the photo.
    pub px: [f32; 2],
    /// Centres whose symbols look alike share a group (numbered from 0 in reading order):
    /// the same deck, hence the same player.
    pub symbol_group: usize,
    /// The symbol's ink map, [`SYMBOL_SIDE`]² values in 0..=1, in the lattice frame.
    #[serde(skip)]
    pub symbol: Vec<f32>,
}

impl CentreReading {
    /// How far the symbol's ink lies from the middle of its square, as a share of the ink
    /// map's side (a reading keeps no centre more than 0.3 off).
    pub fn ink_off_centre(&self) -> f32 {
        super::seeds::ink_off_centre(&self.symbol)
    }
}

/// A Camouflage board read from one photo.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CamouflageReading {
    /// Which side's patterns name the squares; `None` when read without a set.
    pub side: Option<String>,
    /// Rows and columns of the smallest block holding every card; square (0, 0) is its
    /// top-left, with rows going down the photo as nearly as the lattice allows.
    pub rows: usize,
    pub cols: usize,
    /// The block's outer corners in photo pixels, clockwise from square (0, 0).
    pub corners: Quad,
    /// The block row by row (see [`SquareKind::char`]).
    pub picture: Vec<String>,
    /// Every square of the block, row-major.
    pub squares: Vec<SquareReading>,
    pub centres: Vec<CentreReading>,
    /// Squares just outside the block that look like card rather than table: part of a card
    /// whose centre was not found. Their rows and columns continue the block's (-1 above it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beyond: Vec<SquareReading>,
    /// Squares just outside the block read as table (in the photo, and unlike a card), in
    /// the block's rows and columns: what a tracker may take as bare table there.
    #[serde(skip)]
    pub table_ring: Vec<LatticePos>,
    /// Centres whose own squares fit no card of the set, turned any way: a square misread, or
    /// a mark on the table taken for a symbol. The reading is then not to be trusted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub misfits: Vec<LatticePos>,
    /// Pixel positions of symbols on or beside the cards that lie on no centre read: a card
    /// off the others' lattice, or one the reader missed. The reading is then not whole.
    pub stray_symbols: Vec<[f32; 2]>,
    /// Lattice `[col, row]` to photo pixels.
    #[serde(skip)]
    pub lattice: Option<BoardLattice>,
    /// How the squares around the centres looked, on `lattice`: the next photo is searched
    /// for new centres only where they changed.
    #[serde(skip)]
    pub looks: SquareLooks,
    /// Where the board was followed from an earlier reading ([`reread_camouflage`]) and no
    /// symbol lay unexplained within two squares of its centres: the typical length of the
    /// centres' symbols in pixels (measured, or taken from the reading it followed). The next
    /// photo is then searched for a centre missed only where it changed.
    #[serde(skip)]
    pub symbol_size: Option<f32>,
}

impl CamouflageReading {
    /// The reading with every photo position carried through `map` (from a working copy's
    /// pixels into the photo's, or back).
    pub(crate) fn remapped(mut self, map: PixelMap) -> CamouflageReading {
        if map.is_identity() {
            return self;
        }
        for c in &mut self.corners {
            *c = map.to_photo(*c);
        }
        for c in &mut self.centres {
            c.px = map.to_photo(c.px);
        }
        for s in &mut self.stray_symbols {
            *s = map.to_photo(*s);
        }
        self.lattice = self
            .lattice
            .and_then(|l| BoardLattice::new(map.after(&l.homography)));
        self.symbol_size = self.symbol_size.map(|v| map.length(v));
        self
    }

    /// The square at `pos`, if inside the block.
    pub fn square(&self, pos: LatticePos) -> Option<&SquareReading> {
        let (r, c) = (
            usize::try_from(pos.row).ok()?,
            usize::try_from(pos.col).ok()?,
        );
        (r < self.rows && c < self.cols).then(|| &self.squares[r * self.cols + c])
    }

    /// The squares read as [`SquareKind::Unknown`] on a card found.
    pub fn unknown(&self) -> impl Iterator<Item = &SquareReading> {
        self.squares
            .iter()
            .filter(|s| s.kind == SquareKind::Unknown && self.on_card_found(s))
    }

    /// Squares that look like card where no card was found (no centre within one square): a
    /// card whose centre was missed, or something on the table.
    pub fn orphans(&self) -> impl Iterator<Item = &SquareReading> {
        self.squares
            .iter()
            .filter(|s| s.kind != SquareKind::Table && !self.on_card_found(s))
            .chain(&self.beyond)
    }

    /// Whether a centre read lies within half a square of photo point `px`.
    fn has_centre_near(&self, px: [f32; 2]) -> bool {
        let Some(lattice) = &self.lattice else {
            return false;
        };
        let Some([c, r]) = lattice.to_lattice(px) else {
            return false;
        };
        self.centres
            .iter()
            .any(|q| (q.col as f32 - c).hypot(q.row as f32 - r) < 0.5)
    }

    /// The cards read whole: centres that fit a card of the set (not misfits) with every
    /// square around told. A cloth's light checks can pass for centres, but the cloth around
    /// them is named by no pattern of the set; a real board's squares mostly are.
    pub(super) fn cards_read_whole(&self) -> usize {
        self.centres
            .iter()
            .filter(|c| {
                let at = LatticePos::new(c.row, c.col);
                !self.misfits.contains(&at)
                    && (-1..=1).all(|dr| {
                        (-1..=1).all(|dc| {
                            self.square(at.offset(dr, dc))
                                .is_some_and(|s| s.kind != SquareKind::Unknown)
                        })
                    })
            })
            .count()
    }

    /// The centres whose eight squares round them show a face of `set` whole (turned any
    /// way): the card on top of its neighbours, as the last card laid always is. A cloth
    /// read as a lattice of "centres" shows its own check all round each (a cream check
    /// named a light pattern everywhere), which no face of the set is.
    pub(super) fn faces_shown(&self, set: &CamouflageSet) -> usize {
        let Some(side) = self.side.as_deref().and_then(|name| set.side_by_name(name)) else {
            return 0;
        };
        self.centres
            .iter()
            .filter(|c| {
                let at = LatticePos::new(c.row, c.col);
                // The eight squares round the centre, each with its place on a card; `None`
                // when one is no pattern.
                let seen: Option<Vec<(Pos, Key)>> = (0..9)
                    .filter(|&i| i != 4)
                    .map(|i| {
                        let local = Pos::new(i / 3, i % 3);
                        let q = at.offset(local.row as i32 - 1, local.col as i32 - 1);
                        match self.square(q)?.kind {
                            SquareKind::Pattern(k) => Some((local, k)),
                            _ => None,
                        }
                    })
                    .collect();
                seen.is_some_and(|seen| fits_a_face(set, side, &seen))
            })
            .count()
    }

    fn on_card_found(&self, s: &SquareReading) -> bool {
        self.centres
            .iter()
            .any(|c| (c.row - s.row).abs() <= 1 && (c.col - s.col).abs() <= 1)
    }
}

/// Why a photo gave no Camouflage board.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum CamouflageReadError {
    #[error(transparent)]
    Vision(#[from] VisionError),
    #[error("no card centre found: no light square with a dark symbol in its middle; retake with the whole board in view, in focus, without glare on the centres")]
    NoCentres,
    #[error("side {side:?} of the set gives no colour for pattern '{key}': name the side's colours in the set file")]
    NoColour { side: String, key: Key },
}

/// The set and side whose pattern colours name the squares.
#[derive(Clone, Copy, Debug)]
pub struct SideColours<'a> {
    pub set: &'a CamouflageSet,
    /// `None`: whichever side explains the photo best.
    pub side: Option<SideIdx>,
}

/// What the stock of a centre is taken to be, linear (about sRGB #f0f0f0): a square's
/// colour is its ratio to the nearest stock times this. Printings differ a little; the
/// classifier's tolerance covers it.
const STOCK_LINEAR: f32 = 0.87;

/// A stock channel this bright (sRGB) is clipped: the light may be stronger than it says.
const CLIPPED: f32 = 250.0;

const UNIT_SQUARE: Quad = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
/// The same square about its middle, as lattice square (0, 0) is.
const UNIT_CENTRED: Quad = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];

/// How to read a Camouflage photo.
#[derive(Clone, Copy, Debug, Default)]
pub struct CamouflageReadOptions<'a> {
    /// Names the squares' patterns; without it, only table and centres are told apart.
    pub colours: Option<SideColours<'a>>,
    /// The lens, when calibrated: the lattice is fitted in undistorted coordinates.
    pub camera: Option<&'a Camera>,
}

/// Reads a Camouflage board from a photo: of the boards that show a face of the set whole
/// round a centre (with a set's colours; any board without), the one with the most cards
/// read whole, then the most centres. Boards are judged by their readings, not by the
/// centres their lattice first took in: on a busy cloth (checks, flowers with dark hearts)
/// a lattice can grow
/// through the cloth's motifs further than the real board's through its cards, and a
/// cloth's light check named a light pattern all round its "centres" reads as cards whole.
///
/// A photo longer than [`WORKING_LONG_SIDE`](crate::camouflage::WORKING_LONG_SIDE) is read
/// from a copy scaled down to it; the reading is in the photo's pixels all the same.
pub fn read_camouflage(
    image: &RgbImage,
    options: &CamouflageReadOptions,
) -> Result<CamouflageReading, CamouflageReadError> {
    let working = working_copy(image, options.camera)?;
    let options = CamouflageReadOptions {
        camera: working.camera.as_ref(),
        ..*options
    };
    Ok(read_whole(&working.image, &options)?.remapped(working.map))
}

/// [`read_camouflage`] of a photo at its working size.
fn read_whole(
    image: &RgbImage,
    options: &CamouflageReadOptions,
) -> Result<CamouflageReading, CamouflageReadError> {
    let lookup = Lookup::new(image, options.camera);
    let seeds = centre_seeds(image, &lookup, options)?;
    read_from_seeds(&lookup, options, &seeds)
}

/// [`read_camouflage`] once the photo's seeds are found.
pub(super) fn read_from_seeds(
    lookup: &Lookup,
    options: &CamouflageReadOptions,
    seeds: &[Seed],
) -> Result<CamouflageReading, CamouflageReadError> {
    // Without a set's colours no face is known: every reading shows one.
    let shows_a_face =
        |r: &CamouflageReading| options.colours.is_none_or(|c| r.faces_shown(c.set) > 0);
    let rank = |r: &CamouflageReading| (shows_a_face(r), r.cards_read_whole(), r.centres.len());
    let mut best: Option<CamouflageReading> = None;
    for (lattice, centres) in candidate_boards(lookup, seeds, true) {
        // A reading only drops centres: a board with no more centres than the best reading
        // has cards read whole cannot beat it where that shows a face (the candidates come
        // largest first).
        if best
            .as_ref()
            .is_some_and(|b| shows_a_face(b) && b.cards_read_whole() >= centres.len())
        {
            break;
        }
        match board_reading(
            lookup,
            options,
            seeds,
            &lattice,
            centres,
            &BTreeSet::new(),
            ORPHAN_ROUNDS,
        ) {
            Ok(reading) => {
                if best.as_ref().is_none_or(|b| rank(&reading) > rank(b)) {
                    best = Some(reading);
                }
            }
            Err(CamouflageReadError::NoCentres) => {}
            Err(e) => return Err(e),
        }
    }
    best.ok_or(CamouflageReadError::NoCentres)
}

/// Reads a photo of the board that `before` (the readings of the photos before it, the last
/// last) were read from, taken a moment after them: the next photo of a series, the next
/// settled frame of a video. Every centre the last two of them not grown through a cloth
/// found (but those whose squares fitted no card) is looked for where it falls on the
/// lattice of the fullest of them, settled, and judged as a centre seen before
/// ([`CentreLook::is_centre_seen_before`]: the edge of a darker square beside it may shade
/// its ring); the lattice is fitted again to them and grown to the cards laid since. It
/// skips the search of the whole photo for centres that makes most of [`read_camouflage`]'s
/// time.
///
/// `Ok(None)` when the photo must be read whole instead: a centre seen before is not found
/// again within a quarter of a square of where it was (the camera moved, a hand is over the
/// board, a photo before misread it), or a symbol on or beside the board lies on no centre
/// found, in a square that passes for one (a card's centre that growing the board missed).
/// Requiring the earlier photos' centres too keeps one photo's miss from being carried on.
/// What it does not see: a card lying apart from the board (touching none of its cards);
/// `stray_symbols` is left empty. A large photo is read at its working size, as by
/// [`read_camouflage`].
pub fn reread_camouflage(
    image: &RgbImage,
    options: &CamouflageReadOptions,
    before: &[&CamouflageReading],
) -> Result<Option<CamouflageReading>, CamouflageReadError> {
    let working = working_copy(image, options.camera)?;
    let options = CamouflageReadOptions {
        camera: working.camera.as_ref(),
        ..*options
    };
    if working.map.is_identity() {
        return reread(&working.image, &options, before);
    }
    let back = working.map.inverse();
    let before: Vec<CamouflageReading> =
        before.iter().map(|r| (*r).clone().remapped(back)).collect();
    let before: Vec<&CamouflageReading> = before.iter().collect();
    Ok(reread(&working.image, &options, &before)?.map(|r| r.remapped(working.map)))
}

/// [`reread_camouflage`] of a photo at its working size, `before` in its pixels.
fn reread(
    image: &RgbImage,
    options: &CamouflageReadOptions,
    before: &[&CamouflageReading],
) -> Result<Option<CamouflageReading>, CamouflageReadError> {
    // The lattice of the fullest reading (the latest of those): a photo with a hand over the
    // board shows few centres, and its lattice, fitted to them, may be off elsewhere. Not one
    // grown through a cloth's motifs (daisies with dark hearts): dozens of "centres", most
    // fitting no card, on a lattice of the cloth's, not of the board's.
    // (A photo with a hand over the board may be read so: the hand hides the board, and the
    // cloth around it is what the search of the whole photo finds.)
    let through_cloth = |r: &CamouflageReading| 2 * r.misfits.len() > r.centres.len();
    let fullness = |r: &&&CamouflageReading| {
        if through_cloth(r) {
            0
        } else {
            r.centres.len()
        }
    };
    let Some(fullest) = before.iter().max_by_key(fullness) else {
        return Ok(None);
    };
    let Some(lattice) = fullest.lattice else {
        return Ok(None);
    };
    // The centres seen in the last two readings not grown through a cloth, where they fall
    // on that lattice; not those whose squares fitted no card (a mark on the table taken for
    // a symbol, which the next photo may not show). One photo's miss is made good by the
    // photo before it; a centre gone from two photos running was covered (a card laid over
    // it), and looking for it in every photo after would read each of them whole.
    // Each with its symbol as the latest of them saw it, and how many of them saw it.
    let mut seen: Vec<(LatticePos, &[f32], usize)> = Vec::new();
    let on_board = before.iter().rev().filter(|r| !through_cloth(r));
    let fitting = on_board.take(2).flat_map(|r| {
        r.centres
            .iter()
            .filter(|c| !r.misfits.contains(&LatticePos::new(c.row, c.col)))
    });
    for c in fitting {
        let Some(pos) = lattice.square_of(c.px) else {
            return Ok(None);
        };
        match seen.iter_mut().find(|(p, _, _)| *p == pos) {
            Some((_, _, times)) => *times += 1,
            None => seen.push((pos, &c.symbol, 1)),
        }
    }
    if seen.is_empty() {
        return Ok(None);
    }
    let lookup = Lookup::new(image, options.camera);
    let mut fit: Fit = (Vec::new(), Vec::new());
    let mut centres: BTreeMap<LatticePos, CentreLook> = BTreeMap::new();
    let seen_before: BTreeSet<LatticePos> = seen.iter().map(|(p, _, _)| *p).collect();
    for (pos, symbol, times) in seen {
        // Only a centre both photos showed is recognised by its symbol alone: a mark one
        // photo took for a centre would be found in every photo after.
        let symbol = (times == 2 && symbol.len() == SYMBOL_CELLS).then_some(symbol);
        let Some((settled_at, settled_px)) = settle(&lookup, &lattice, pos) else {
            return Ok(None);
        };
        // Where the lattice puts it, when the search settled it off its symbol: with a shadow
        // along one side and a light pattern beside it, the band's brightest place may lie a
        // quarter of a square off (seed 4's game 195).
        let unsettled = [pos.col as f32, pos.row as f32];
        let Some((at, px, mut look)) = [(settled_at, Some(settled_px)), (unsettled, None)]
            .into_iter()
            .find_map(|(at, px)| {
                let look = centre_seen_before_at(&lookup, &lattice, at, symbol)?;
                let px = px.or_else(|| lattice.to_photo(at))?;
                look.ink_centred().then_some((at, px, look))
            })
        else {
            return Ok(None);
        };
        look.settled = Some(px);
        // The settled square's corners pin the lattice as a seed's quad does.
        for [dx, dy] in UNIT_SQUARE.map(|[x, y]| [x - 0.5, y - 0.5]) {
            let Some(px) = lattice.to_photo([at[0] + dx, at[1] + dy]) else {
                return Ok(None);
            };
            fit.0.push([pos.col as f32 + dx, pos.row as f32 + dy]);
            fit.1.push(px);
        }
        centres.insert(pos, look);
    }
    let Some(mut lattice) = fit_lattice(&fit.0, &fit.1) else {
        return Ok(None);
    };
    // A new card's centre is tried only where it or a square beside it looks unlike the
    // fullest reading's photo (a card laid changes the squares it covers), or beside a
    // square of that reading that looked like card but lay on no card found (a centre it
    // missed).
    let orphans: Vec<LatticePos> = fullest
        .orphans()
        .map(|s| LatticePos::new(s.row, s.col))
        .collect();
    let mut now: BTreeMap<LatticePos, Option<SquareLook>> = BTreeMap::new();
    let mut changed = |lattice: &BoardLattice, pos: LatticePos| {
        orphans.iter().any(|o| o.within_one(pos))
            || (-1..=1).any(|dr| {
                (-1..=1).any(|dc| {
                    let q = pos.offset(dr, dc);
                    let Some(was) = fullest.looks.get(q) else {
                        return true;
                    };
                    let is = *now
                        .entry(q)
                        .or_insert_with(|| SquareLook::measure(&lookup, lattice, q));
                    is.is_none_or(|is| is.differs(was))
                })
            })
    };
    grow_centres_where(&lookup, &mut lattice, &mut fit, &mut centres, &mut changed);
    // A reading followed before vouches for the squares that have not changed since.
    let unvouched = fullest.symbol_size.map(|size| {
        let squares = unvouched_squares(fullest, &centres, &orphans, |q| {
            let was = fullest.looks.get(q)?;
            let is = now
                .entry(q)
                .or_insert_with(|| SquareLook::measure(&lookup, &lattice, q))
                .as_ref()?;
            Some(!is.differs(was))
        });
        (squares, size)
    });
    let vouched = unvouched.as_ref().map(|(squares, size)| Vouched {
        squares,
        symbol_size: *size,
    });
    let search = unexplained_symbol(
        image,
        &lookup,
        options,
        &lattice,
        &centres,
        vouched.as_ref(),
    )?;
    if search.missed {
        return Ok(None);
    }
    // Not looked for over squares that look like card with no centre ([`centres_over_orphans`]):
    // a card whose centre following missed has its symbol found (`unexplained_symbol`) or
    // leaves the photo to be read whole, while a pattern square beside such a centre may
    // pass for one (seed 4's game 8).
    let mut reading = board_reading(&lookup, options, &[], &lattice, centres, &seen_before, 0)?;
    reading.symbol_size = search.symbol_size;
    Ok(Some(reading))
}

/// The squares where a centre missed by following may lie although the reading followed
/// from vouches for the rest: within two squares of a centre now (where
/// [`unexplained_symbol`] looks), those that looked different then or were not looked at
/// (`unchanged(square)` is `None` or false), that were out of the reach of its own search
/// (more than two squares from its centres), that held a centre then and do not now, or that
/// lie beside a square of card it found no centre for. Elsewhere the photo looks as it did,
/// and that reading's search found no symbol unexplained there.
pub(super) fn unvouched_squares(
    fullest: &CamouflageReading,
    centres: &BTreeMap<LatticePos, CentreLook>,
    orphans: &[LatticePos],
    mut unchanged: impl FnMut(LatticePos) -> Option<bool>,
) -> BTreeSet<LatticePos> {
    let centres_then: Vec<LatticePos> = fullest
        .centres
        .iter()
        .filter_map(|c| fullest.lattice?.square_of(c.px))
        .collect();
    let near_now: BTreeSet<LatticePos> = centres
        .keys()
        .flat_map(|p| (-2..=2).flat_map(move |dr| (-2..=2).map(move |dc| p.offset(dr, dc))))
        .collect();
    near_now
        .into_iter()
        .filter(|&q| {
            !centres_then.iter().any(|c| c.squares_from(q) <= 2)
                || (centres_then.contains(&q) && !centres.contains_key(&q))
                || orphans.iter().any(|o| o.within_one(q))
                || unchanged(q) != Some(true)
        })
        .collect()
}

/// How far from a centre's square middle (in squares) a symbol is taken for that centre's.
const NEAR_CENTRE: f32 = 0.35;

/// What a reading followed before vouches for: the photo needs searching for a centre
/// missed only on `squares` ([`unvouched_squares`]), and the centres' symbols are about
/// `symbol_size` pixels long (measured over all of them when that reading's search was
/// whole: the few centres near a change would be a small sample).
pub(super) struct Vouched<'a> {
    pub squares: &'a BTreeSet<LatticePos>,
    pub symbol_size: f32,
}

/// What [`unexplained_symbol`] found.
pub(super) struct SymbolSearch {
    /// A symbol that looks like a centre missed.
    pub missed: bool,
    /// The typical length of the centres' symbols, pixels, where known.
    pub symbol_size: Option<f32>,
}

/// Whether the photo shows a symbol on or beside the board, in the middle of a lattice
/// square that is no centre found but looks like one, and of the size of the centres'
/// symbols: a card's centre that following the board missed. With `vouched`, only its
/// squares are searched.
pub(super) fn unexplained_symbol(
    image: &RgbImage,
    lookup: &Lookup,
    options: &CamouflageReadOptions,
    lattice: &BoardLattice,
    centres: &BTreeMap<LatticePos, CentreLook>,
    vouched: Option<&Vouched>,
) -> Result<SymbolSearch, CamouflageReadError> {
    let nothing = |symbol_size| {
        Ok(SymbolSearch {
            missed: false,
            symbol_size,
        })
    };
    if let Some(v) = vouched.filter(|v| v.squares.is_empty()) {
        return nothing(Some(v.symbol_size));
    }
    // Only the board and two squares around it (its block grown by three squares) are
    // searched, or the squares not vouched for with a square round each; with a lens model
    // the whole photo, as the lattice is undistorted.
    let wanted_square = |p: LatticePos| vouched.is_none_or(|v| v.squares.contains(&p));
    let searched: Vec<(LatticePos, f32)> = match vouched {
        None => centres.keys().map(|&p| (p, 3.0)).collect(),
        Some(v) => v.squares.iter().map(|&p| (p, 1.5)).collect(),
    };
    let (left, top, right, bottom) = match options.camera {
        Some(_) => (0, 0, image.width(), image.height()),
        None => {
            let [x0, y0, x1, y1] = searched
                .iter()
                .flat_map(|&(p, d)| {
                    let (c, r) = (p.col as f32, p.row as f32);
                    [[-d, -d], [d, -d], [d, d], [-d, d]]
                        .map(|[dc, dr]| lattice.to_photo([c + dc, r + dr]))
                })
                .flatten()
                .fold(
                    [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
                    |[x0, y0, x1, y1], [x, y]| [x0.min(x), y0.min(y), x1.max(x), y1.max(y)],
                );
            let clamp = |v: f32, max: u32| (v.max(0.0) as u32).min(max);
            let (w, h) = (image.width(), image.height());
            (
                clamp(x0, w),
                clamp(y0, h),
                clamp(x1.ceil(), w),
                clamp(y1.ceil(), h),
            )
        }
    };
    let known_size = vouched.map(|v| v.symbol_size);
    if right <= left || bottom <= top {
        return nothing(known_size);
    }
    let part = image::imageops::crop_imm(image, left, top, right - left, bottom - top).to_image();
    let short = image.width().min(image.height()) as i32;
    let on_lattice_at = |centre: [f32; 2]| {
        let at = [centre[0] + left as f32, centre[1] + top as f32];
        lattice.to_lattice(undistorted(options.camera, at))
    };
    // Only symbols near the middle of a square within two of a centre are weighed below
    // (and, where their size is not known yet, the centres' own).
    let wanted = |centre: [f32; 2]| {
        on_lattice_at(centre).is_some_and(|[c, r]| {
            let pos = LatticePos::new(r.round() as i32, c.round() as i32);
            (c - c.round()).hypot(r - r.round()) < NEAR_CENTRE
                && ((known_size.is_none() && centres.contains_key(&pos))
                    || (wanted_square(pos) && centres.keys().any(|p| p.squares_from(pos) <= 2)))
        })
    };
    let on_lattice: Vec<([f32; 2], f32)> = find_symbols_where(&part, short, &wanted)?
        .iter()
        .filter_map(|s| Some((on_lattice_at(s.centre)?, s.size)))
        .collect();
    let typical = known_size.or_else(|| {
        let mut sizes: Vec<f32> = on_lattice
            .iter()
            .filter(|([c, r], _)| {
                centres
                    .keys()
                    .any(|p| (p.col as f32 - c).hypot(p.row as f32 - r) < NEAR_CENTRE)
            })
            .map(|&(_, size)| size)
            .collect();
        sizes.sort_by(f32::total_cmp);
        sizes.get(sizes.len() / 2).copied()
    });
    let Some(typical) = typical else {
        return nothing(None);
    };
    let missed = on_lattice.iter().any(|&([c, r], size)| {
        let pos = LatticePos::new(r.round() as i32, c.round() as i32);
        let middle = (c - c.round()).hypot(r - r.round()) < 0.25;
        let near = centres.keys().any(|p| p.squares_from(pos) <= 2);
        // A table's motif beside the board (coloured ink, no stock round it, or the table
        // all round it) is no centre on this lattice, settled or not; a centre missed passes
        // for one at least there, framed by its card's patterns.
        let looks_centre = || {
            let square = |at: [f32; 2]| centre_at(lookup, lattice, at, None).is_some();
            let at = [pos.col as f32, pos.row as f32];
            square(at) || settle(lookup, lattice, pos).is_some_and(|(settled, _)| square(settled))
        };
        middle
            && near
            && wanted_square(pos)
            && !centres.contains_key(&pos)
            && (0.6 * typical..=1.6 * typical).contains(&size)
            && looks_centre()
    });
    Ok(SymbolSearch {
        missed,
        symbol_size: Some(typical),
    })
}

/// Reads every separate board in a photo (Not My Stack!: one per player's location), at most
/// `max_boards`, the one with the most centres first.
///
/// Boards lie apart, each on a lattice of its own. A lattice started from the seeds may take in
/// the seeds of another location laid at nearly the same angle, so a board found is split
/// where its cards do not overlap (centres more than two squares apart), and each part gets a
/// lattice of its own fitted to its centres alone. The seeds a board explains are spent, and
/// the next board is grown from the rest. With a set's colours, a board none of whose cards
/// shows a face of the set whole is no location: a lattice grown through a cloth's motifs
/// (flowers with dark hearts) reads as a board of "centres" whose squares fit no card.
pub fn read_camouflage_boards(
    image: &RgbImage,
    options: &CamouflageReadOptions,
    max_boards: usize,
) -> Result<Vec<CamouflageReading>, CamouflageReadError> {
    let working = working_copy(image, options.camera)?;
    let options = CamouflageReadOptions {
        camera: working.camera.as_ref(),
        ..*options
    };
    Ok(read_boards(&working.image, &options, max_boards)?
        .into_iter()
        .map(|r| r.remapped(working.map))
        .collect())
}

/// [`read_camouflage_boards`] of a photo at its working size.
fn read_boards(
    image: &RgbImage,
    options: &CamouflageReadOptions,
    max_boards: usize,
) -> Result<Vec<CamouflageReading>, CamouflageReadError> {
    let lookup = Lookup::new(image, options.camera);
    let mut rest = centre_seeds(image, &lookup, options)?;
    let mut boards: Vec<CamouflageReading> = Vec::new();
    while boards.len() < max_boards {
        // A card over another's centre three squares from the rest would be split off as a
        // board of its own: not looked for.
        let Some((lattice, centres)) = best_board(&lookup, &rest, false) else {
            break;
        };
        let before = rest.len();
        for (lattice, centres) in split_board(&lookup, &lattice, centres) {
            // The seeds of this board (its block and the squares around it) are spent.
            let (own, others): (Vec<Seed>, Vec<Seed>) = rest.iter().partition(|s| {
                lattice
                    .square_of(crate::geom::centre(&s.quad))
                    .is_some_and(|at| centres.keys().any(|p| p.squares_from(at) <= 2))
            });
            rest = others;
            // A board grown back onto one found already is that board again.
            let again = centres.keys().any(|&p| {
                lattice
                    .to_photo([p.col as f32, p.row as f32])
                    .is_some_and(|px| boards.iter().any(|b| b.has_centre_near(px)))
            });
            if again || boards.len() >= max_boards {
                continue;
            }
            match board_reading(
                &lookup,
                options,
                &own,
                &lattice,
                centres,
                &BTreeSet::new(),
                ORPHAN_ROUNDS,
            ) {
                Ok(b) if options.colours.is_none_or(|c| b.faces_shown(c.set) > 0) => boards.push(b),
                Ok(_) => {}
                Err(CamouflageReadError::NoCentres) => {}
                Err(e) => return Err(e),
            }
        }
        if rest.len() == before {
            break;
        }
    }
    if boards.is_empty() {
        return Err(CamouflageReadError::NoCentres);
    }
    boards.sort_by_key(|b| std::cmp::Reverse(b.centres.len()));
    Ok(boards)
}

/// `centres` split into boards whose cards overlap (centres within two squares of another's,
/// directly or through others), largest first, each with a lattice fitted to its own centres'
/// squares and grown again from them.
fn split_board(
    lookup: &Lookup,
    lattice: &BoardLattice,
    centres: BTreeMap<LatticePos, CentreLook>,
) -> Vec<(BoardLattice, BTreeMap<LatticePos, CentreLook>)> {
    let mut parts: Vec<BTreeMap<LatticePos, CentreLook>> = Vec::new();
    let mut left = centres;
    while let Some(&first) = left.keys().next() {
        let mut part = BTreeMap::new();
        let mut frontier = vec![first];
        while let Some(at) = frontier.pop() {
            let Some(look) = left.remove(&at) else {
                continue;
            };
            part.insert(at, look);
            frontier.extend(
                left.keys()
                    .filter(|p| (p.row - at.row).abs() <= 2 && (p.col - at.col).abs() <= 2),
            );
        }
        parts.push(part);
    }
    if parts.len() == 1 {
        return parts.into_iter().map(|p| (*lattice, p)).collect();
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.len()));
    parts
        .into_iter()
        .filter_map(|mut part| {
            let (mut own, mut fit) = refit(lattice, part.keys())?;
            grow_centres(lookup, &mut own, &mut fit, &mut part);
            Some((own, part))
        })
        .collect()
}

/// A lattice fitted to the squares at `centres` alone, where `lattice` puts their corners, and
/// the fit; `None` for no centres.
fn refit<'a>(
    lattice: &BoardLattice,
    centres: impl Iterator<Item = &'a LatticePos>,
) -> Option<(BoardLattice, Fit)> {
    let mut fit: Fit = (Vec::new(), Vec::new());
    for p in centres {
        for [dx, dy] in UNIT_CENTRED {
            let at = [p.col as f32 + dx, p.row as f32 + dy];
            fit.0.push(at);
            fit.1.push(lattice.to_photo(at)?);
        }
    }
    let own = fit_homography(&fit.0, &fit.1)
        .ok()
        .and_then(BoardLattice::new)?;
    Some((own, fit))
}

/// A photo position in the coordinates the lattice lives in (and `Lookup` takes): undistorted
/// when the lens is calibrated.
fn undistorted(camera: Option<&Camera>, p: [f32; 2]) -> [f32; 2] {
    match camera {
        Some(camera) => camera.undistort(p.map(f64::from)).map(|v| v as f32),
        None => p,
    }
}

/// The light squares with a dark symbol that pass for a card centre, in undistorted
/// coordinates when the lens is calibrated.
pub(super) fn centre_seeds(
    image: &RgbImage,
    lookup: &Lookup,
    options: &CamouflageReadOptions,
) -> Result<Vec<Seed>, CamouflageReadError> {
    let mut seeds = find_seeds(image)?;
    for s in &mut seeds {
        s.quad = s.quad.map(|p| undistorted(options.camera, p));
    }
    // Only seeds that look like centres: light tiles of a table with a speck on them are many
    // and lie on a lattice of their own.
    Ok(seeds
        .into_iter()
        .filter_map(|s| seed_as_centre(lookup, s))
        .collect())
}

/// The seed, if its square passes for a centre where it was found or where it settles. A
/// seed's square, drawn from the lines around its symbol, may lie a little off the stock (a
/// light pattern beside it blurs the line between them), and its ring then takes in the
/// pattern.
pub(crate) fn seed_as_centre(lookup: &Lookup, seed: Seed) -> Option<Seed> {
    let look = |quad: &Quad| {
        crate::geom::homography_4(&UNIT_SQUARE, quad).and_then(|h| CentreLook::measure(lookup, &h))
    };
    let found = look(&seed.quad)?;
    if found.is_centre(None) {
        return Some(seed);
    }
    // Settling costs more than measuring: only a square the ring alone fails is settled
    // (a cloth of dots has hundreds of seeds that fail for their ink or stock).
    if !found.is_centre_but_for_ring() {
        return None;
    }
    let lattice = BoardLattice::new(crate::geom::homography_4(&UNIT_CENTRED, &seed.quad)?)?;
    let (at, _) = settle(lookup, &lattice, LatticePos::new(0, 0))?;
    let corners = UNIT_CENTRED.map(|[x, y]| lattice.to_photo([at[0] + x, at[1] + y]));
    let quad = [corners[0]?, corners[1]?, corners[2]?, corners[3]?];
    look(&quad)
        .is_some_and(|l| l.is_centre(None))
        .then_some(Seed { quad, ..seed })
}

/// Of the [`candidate_boards`], the one with the most centres. `covering`: the board is grown
/// to the seeds of cards laid over another's centre too ([`grow_to_seeds`]). `None` when no
/// seed starts a lattice with a centre.
fn best_board(
    lookup: &Lookup,
    seeds: &[Seed],
    covering: bool,
) -> Option<(BoardLattice, BTreeMap<LatticePos, CentreLook>)> {
    candidate_boards(lookup, seeds, covering).into_iter().next()
}

/// The most starts grown into boards: a pile needs a few (seed 8 of the thick-pile test: the
/// right lattice from the fifth start of eight), a busy cloth offers dozens, each grown
/// through the cloth at a twentieth of a second or more.
const MAX_GROWN: usize = 12;

/// Squares round a square, itself among them, that must look like card where no centre was
/// found for it to be tried as a centre the growth of the board did not reach. Three: a card
/// three squares beyond the others' centres shows only its nearest row within the reading's
/// block and the ring just outside it.
const ORPHANS_SHOWING_A_CARD: usize = 3;

/// The boards grown from the lattices started at seeds (one start per group of seeds that
/// agree), those with the most centres first; the search stops at a board that takes in
/// every seed. Starts are grown in order of the seeds on them that pass for centres there,
/// not of the seeds on them: a cloth's checks line up as seeds in greater numbers than a
/// small board's few centres, but few of them are framed like a card's centre. Up to
/// [`MAX_GROWN`] starts are grown, not the first few: on a pile seen at an angle the cards
/// laid last lie off the lattice of the first, and a start mixing the two can grow a lattice
/// a square off across the board, with more centres than the right one grown from a start of
/// one seed. A lattice grown past [`MAX_CENTRES`] runs through a cloth's motifs: it is no
/// board, and the starts among its "centres" are not grown again.
fn candidate_boards(
    lookup: &Lookup,
    seeds: &[Seed],
    covering: bool,
) -> Vec<(BoardLattice, BTreeMap<LatticePos, CentreLook>)> {
    let mut starts: Vec<(BoardLattice, Fit, BTreeMap<LatticePos, CentreLook>)> =
        fit_seeds(seeds, usize::MAX)
            .into_iter()
            .filter_map(|(lattice, on, fit)| {
                let centres: BTreeMap<LatticePos, CentreLook> = on
                    .iter()
                    .filter_map(|&(_, pos)| {
                        centre_at(lookup, &lattice, [pos.col as f32, pos.row as f32], None)
                            .map(|look| (pos, look))
                    })
                    .collect();
                (!centres.is_empty()).then_some((lattice, fit, centres))
            })
            .collect();
    // Stable: on a tie, the start most seeds agree with, then the most typical. Starts
    // whose "centres" crowd one another (no two centres of cards in view are neighbours:
    // the one on top would cover the other) are a cloth's checks seen as a lattice, and go
    // last: a gingham offers dozens of them, with more "centres" than a small board has.
    starts.sort_by_key(|s| (crowded(&s.2), std::cmp::Reverse(s.2.len())));
    let mut boards: Vec<(BoardLattice, BTreeMap<LatticePos, CentreLook>)> = Vec::new();
    // The "centres" of lattices that grew through a cloth's motifs, in the photo: a start
    // among them grows through the cloth again (a gingham has dozens of starts).
    let mut cloth: Vec<[f32; 2]> = Vec::new();
    let mut grown = 0;
    for (mut lattice, mut fit, mut centres) in starts {
        if grown == MAX_GROWN {
            break;
        }
        let on_cloth = centres.keys().all(|&pos| {
            let at = |dc: f32| lattice.to_photo([pos.col as f32 + dc, pos.row as f32]);
            at(0.0).zip(at(1.0)).is_some_and(|(p, next)| {
                let side = crate::geom::dist(p, next);
                cloth.iter().any(|&q| crate::geom::dist(p, q) < 0.3 * side)
            })
        });
        if on_cloth {
            continue;
        }
        grown += 1;
        let start = (lattice, centres.clone());
        // A board of 60 cards spans under 40 × 40 squares.
        grow_centres(lookup, &mut lattice, &mut fit, &mut centres);
        if covering {
            grow_to_seeds(lookup, seeds, &mut lattice, &mut fit, &mut centres);
        }
        let all_seeds = seeds.iter().all(|s| {
            lattice
                .square_of(crate::geom::centre(&s.quad))
                .is_some_and(|pos| centres.contains_key(&pos))
        });
        if centres.len() <= MAX_CENTRES {
            boards.push((lattice, centres));
        } else {
            cloth.extend(
                centres
                    .keys()
                    .filter_map(|p| lattice.to_photo([p.col as f32, p.row as f32])),
            );
            boards.extend(grow_off_cloth(lookup, &start.0, start.1));
        }
        if all_seeds {
            break;
        }
    }
    boards.sort_by_key(|b| std::cmp::Reverse(b.1.len()));
    boards
}

/// A start whose lattice grew through a cloth's motifs (a cloth printed at the cards' own
/// lattice: the board's lattice runs on through the cloth), grown again from its centres
/// framed unlike the table around it, joining only centres framed so: a card's centre has
/// its card's patterns, or other cards, round it, a cloth's motif has the cloth. `None` when
/// none of the start's centres is framed so, or the lattice grows through the cloth still.
fn grow_off_cloth(
    lookup: &Lookup,
    lattice: &BoardLattice,
    centres: BTreeMap<LatticePos, CentreLook>,
) -> Option<(BoardLattice, BTreeMap<LatticePos, CentreLook>)> {
    let (lattice, centres) = upright(lattice, centres)?;
    let rows = centres.keys().map(|p| p.row).max()? as usize + 2;
    let cols = centres.keys().map(|p| p.col).max()? as usize + 2;
    let table = TableLook::around(lookup, &lattice, rows, cols, &centres)?;
    let framed_by_table =
        |l: &BoardLattice, pos: LatticePos| framed_by_table(lookup, l, pos, &centres, &table);
    let mut kept: BTreeMap<LatticePos, CentreLook> = centres
        .iter()
        .filter(|(p, _)| !framed_by_table(&lattice, **p))
        .map(|(p, c)| (*p, *c))
        .collect();
    let (mut own, mut fit) = refit(&lattice, kept.keys())?;
    grow_centres_where(lookup, &mut own, &mut fit, &mut kept, &mut |l, pos| {
        !framed_by_table(l, pos)
    });
    (kept.len() <= MAX_CENTRES).then_some((own, kept))
}

/// Whether most of `centres` have another beside them, more than a misread square or two
/// explain: centres of cards in view never touch (the card on top would cover the other's).
pub(super) fn crowded(centres: &BTreeMap<LatticePos, CentreLook>) -> bool {
    let touching = centres
        .keys()
        .filter(|p| centres.keys().any(|q| q != *p && q.within_one(**p)))
        .count();
    touching >= 3 && 2 * touching >= centres.len()
}

/// How many times a reading is made again with the centres found where squares look like
/// card with none ([`centres_over_orphans`]): one for a card laid over a centre, one more
/// for a second beside it. Bounded, as a centre found so may fail the tests of the reading
/// made with it and leave its squares without a centre again.
const ORPHAN_ROUNDS: u8 = 2;

/// The reading of the board whose centres were found on `lattice`; those at `seen_before`
/// are judged as centres an earlier photo saw there. Centres are looked for over squares
/// that look like card with none `orphan_rounds` times more ([`ORPHAN_ROUNDS`] for a
/// reading of its own).
fn board_reading(
    lookup: &Lookup,
    options: &CamouflageReadOptions,
    seeds: &[Seed],
    lattice: &BoardLattice,
    mut centres: BTreeMap<LatticePos, CentreLook>,
    seen_before: &BTreeSet<LatticePos>,
    orphan_rounds: u8,
) -> Result<CamouflageReading, CamouflageReadError> {
    let stock = typical_stock(&centres);
    let ink = typical_ink(&centres);
    centres.retain(|p, c| {
        let centre = if c.recognised {
            c.like_stock(stock)
        } else if seen_before.contains(p) {
            c.is_centre_seen_before(stock)
        } else {
            c.is_centre(stock)
        };
        centre && c.inked_like(ink)
    });
    drop_touching_centres(&mut centres);
    // Only after the touching centres have gone: a sliver off its square's middle that
    // touches another false centre still has both dropped there (neither is told apart).
    centres.retain(|_, c| c.ink_centred());

    let before_upright = *lattice;
    let (lattice, mut centres) = upright(lattice, centres).ok_or(CamouflageReadError::NoCentres)?;
    let drifts: BTreeMap<LatticePos, [f32; 2]> = centres
        .iter()
        .map(|(&p, look)| (p, drift(lookup, &lattice, p, look.settled)))
        .collect();
    for (p, look) in centres.iter_mut() {
        look.drift = shared_drift(&drifts, *p);
    }
    // The same squares on the upright lattice.
    let seen_before: BTreeSet<LatticePos> = seen_before
        .iter()
        .filter_map(|p| lattice.square_of(before_upright.to_photo([p.col as f32, p.row as f32])?))
        .collect();
    let rows = centres.keys().map(|p| p.row).max().unwrap_or(0) as usize + 2;
    let cols = centres.keys().map(|p| p.col).max().unwrap_or(0) as usize + 2;
    let read_again = |lattice: &BoardLattice, centres, orphan_rounds| {
        board_reading(
            lookup,
            options,
            seeds,
            lattice,
            centres,
            &seen_before,
            orphan_rounds,
        )
    };
    // Centres found to be the table's are dropped and the reading made again without them.
    let read_without = |mut centres: BTreeMap<LatticePos, CentreLook>, table: &[LatticePos]| {
        centres.retain(|p, _| !table.contains(p));
        read_again(&lattice, centres, orphan_rounds)
    };
    let darker_than_stock =
        |c: &CentreLook| stock.is_some_and(|s| luma(c.ring) < DARKER_THAN_STOCK * luma(s));

    let mut covered = vec![false; rows * cols];
    for p in centres.keys() {
        for dr in -1..=1 {
            for dc in -1..=1 {
                covered[(p.row + dr) as usize * cols + (p.col + dc) as usize] = true;
            }
        }
    }
    let table = TableLook::around(lookup, &lattice, rows, cols, &centres);
    // A centre whose stock is clearly darker than the typical centre's and of the table's
    // colours is a patch of the table with a dark mark beside the cards (a gingham's grey
    // check by a card's corner): the reading is made again without it. A card's centre in a
    // shadow stays, unless the table is of that colour too. (Requiring also the table all
    // round a centre lost a light card's centre on a light table: docs/ACCURACY.md.)
    let on_table: Vec<LatticePos> = match &table {
        Some(t) => centres
            .iter()
            .filter(|(_, c)| {
                darker_than_stock(c) && t.is_like_all_round(Lab::from_srgb(srgb_of(c.ring)))
            })
            .map(|(p, _)| *p)
            .collect(),
        None => Vec::new(),
    };
    if !on_table.is_empty() {
        return read_without(centres, &on_table);
    }
    let (card_like, beyond, table_ring) = card_like_squares(
        lookup,
        &lattice,
        rows,
        cols,
        &covered,
        &centres,
        table.as_ref(),
    );
    // A card laid over another's centre (an illegal play) may lie three squares from every
    // centre in view, where growing the board does not look; its squares then look like
    // card with no centre: it is looked for where they are, and the reading made again with
    // what is found (seed 4's game 83).
    if orphan_rounds > 0 {
        let over_orphans =
            centres_over_orphans(lookup, &lattice, cols, &card_like, &beyond, &centres, stock);
        if !over_orphans.is_empty() {
            // Grown from as the board's other centres were: a card beside one lies within
            // reach of it, not of the others.
            let from: Vec<LatticePos> = over_orphans.iter().map(|(p, _)| *p).collect();
            centres.extend(over_orphans);
            let mut fit: Fit = (Vec::new(), Vec::new());
            for (p, look) in &centres {
                let at = look
                    .settled
                    .and_then(|px| lattice.to_lattice(px))
                    .unwrap_or([p.col as f32, p.row as f32]);
                for [dx, dy] in UNIT_CENTRED {
                    if let Some(px) = lattice.to_photo([at[0] + dx, at[1] + dy]) {
                        fit.0.push([p.col as f32 + dx, p.row as f32 + dy]);
                        fit.1.push(px);
                    }
                }
            }
            let mut lattice = fit_lattice(&fit.0, &fit.1).unwrap_or(lattice);
            grow_centres_from(
                lookup,
                &mut lattice,
                &mut fit,
                &mut centres,
                from,
                &mut |_, _| true,
            );
            return read_again(&lattice, centres, orphan_rounds - 1);
        }
    }
    let measured: Vec<Option<[f32; 3]>> = (0..rows * cols)
        .map(|i| {
            let pos = LatticePos::new((i / cols) as i32, (i % cols) as i32);
            if !(covered[i] || card_like[i]) || centres.contains_key(&pos) {
                return None;
            }
            square_colour(lookup, &lattice, pos, &centres)
        })
        .collect();

    let named = match options.colours {
        Some(c) => Some(name_side(
            c,
            &measured,
            stock.is_some_and(|s| s.iter().any(|&v| v >= CLIPPED)),
        )?),
        None => None,
    };
    let mut squares = Vec::with_capacity(rows * cols);
    for i in 0..rows * cols {
        let pos = LatticePos::new((i / cols) as i32, (i % cols) as i32);
        let (kind, srgb, confidence) = if let Some(c) = centres.get(&pos) {
            (SquareKind::Centre, srgb_of(c.ring), 1.0)
        } else if !covered[i] && !card_like[i] {
            let srgb = lattice
                .to_photo([pos.col as f32, pos.row as f32])
                .and_then(|p| lookup.srgb(p))
                .unwrap_or(Srgb::new(0, 0, 0));
            (SquareKind::Table, srgb, 1.0)
        } else {
            card_square(measured[i], named.as_ref())
        };
        squares.push(SquareReading {
            row: pos.row,
            col: pos.col,
            kind,
            srgb,
            confidence,
        });
    }
    let mut beyond: Vec<SquareReading> = beyond
        .into_iter()
        .map(|pos| {
            let (kind, srgb, confidence) = card_square(
                square_colour(lookup, &lattice, pos, &centres),
                named.as_ref(),
            );
            SquareReading {
                row: pos.row,
                col: pos.col,
                kind,
                srgb,
                confidence,
            }
        })
        .collect();
    if let Some(side) = &named {
        unname_split_patterns(squares.iter_mut().chain(beyond.iter_mut()), side);
        let kind = |p: LatticePos| squares[p.row as usize * cols + p.col as usize].kind;
        let beside = centres_beside_table(lookup, &lattice, &centres, table.as_ref(), kind);
        if !beside.is_empty() {
            return read_without(centres, &beside);
        }
    }
    let misfits = match (options.colours, &named) {
        (Some(colours), Some(side)) => {
            let kind = |p: LatticePos| squares[p.row as usize * cols + p.col as usize].kind;
            centres_fitting_no_card(colours.set, side.idx, &centres, kind)
        }
        _ => Vec::new(),
    };
    // A centre that fits no card, on stock clearly darker than the typical centre's, is a
    // patch of the table with a dark mark on it (a gingham's grey stripe with a sliver of its
    // black check beside a card), whatever the table round it looks like: the reading is
    // made again without it.
    let dark_misfits: Vec<LatticePos> = misfits
        .iter()
        .copied()
        .filter(|p| darker_than_stock(&centres[p]))
        .collect();
    if !dark_misfits.is_empty() {
        return read_without(centres, &dark_misfits);
    }
    let picture = squares
        .chunks(cols)
        .map(|row| row.iter().map(|s| s.kind.char()).collect())
        .collect();
    let corners = [
        lattice.to_photo([-0.5, -0.5]),
        lattice.to_photo([cols as f32 - 0.5, -0.5]),
        lattice.to_photo([cols as f32 - 0.5, rows as f32 - 0.5]),
        lattice.to_photo([-0.5, rows as f32 - 0.5]),
    ];
    let corners =
        [corners[0], corners[1], corners[2], corners[3]].map(|c| c.unwrap_or([f32::NAN, f32::NAN]));
    Ok(CamouflageReading {
        side: named.map(|side| side.name),
        rows,
        cols,
        corners,
        picture,
        squares,
        beyond,
        table_ring,
        misfits,
        stray_symbols: stray_symbols(lookup, &lattice, &centres, seeds),
        looks: SquareLooks::around(lookup, &lattice, centres.keys()),
        centres: group_symbols(&lattice, &centres),
        lattice: Some(lattice),
        symbol_size: None,
    })
}

/// A card's centre has its own eight pattern squares all round it. A centre with a whole
/// side of three squares that no pattern names and that look like the table around the block
/// is something on the table passing for one (a cloth's light stripe with a dark fleck, a
/// flower's heart): such centres, to be dropped. The reading is then made again without
/// them.
fn centres_beside_table(
    lookup: &Lookup,
    lattice: &BoardLattice,
    centres: &BTreeMap<LatticePos, CentreLook>,
    table: Option<&TableLook>,
    kind: impl Fn(LatticePos) -> SquareKind,
) -> Vec<LatticePos> {
    const SIDES: [[(i32, i32); 3]; 4] = [
        [(-1, -1), (-1, 0), (-1, 1)],
        [(1, -1), (1, 0), (1, 1)],
        [(-1, -1), (0, -1), (1, -1)],
        [(-1, 1), (0, 1), (1, 1)],
    ];
    let kind = &kind;
    let unnamed_sides = |p: LatticePos| {
        SIDES.into_iter().filter(move |side| {
            side.iter()
                .all(|&(dr, dc)| kind(p.offset(dr, dc)) == SquareKind::Unknown)
        })
    };
    let Some(table) = table else {
        return Vec::new();
    };
    centres
        .keys()
        .copied()
        .filter(|&p| {
            unnamed_sides(p).any(|side| {
                side.iter().all(|&(dr, dc)| {
                    square_lab(lookup, lattice, p.offset(dr, dc), centres)
                        .is_some_and(|c| table.is_like(c))
                })
            })
        })
        .collect()
}

/// The centres whose card fits no card of the set on `side`, turned any way. Only the squares
/// round a centre that no other centre reaches are the card's own for certain (the others may
/// be a card laid over it); a real card's own squares are one of the set's faces, a cloth's
/// check or a pattern's speck taken for a centre has the table or other cards round it.
pub(super) fn centres_fitting_no_card(
    set: &CamouflageSet,
    side: SideIdx,
    centres: &BTreeMap<LatticePos, CentreLook>,
    kind: impl Fn(LatticePos) -> SquareKind,
) -> Vec<LatticePos> {
    centres
        .keys()
        .copied()
        .filter(|&p| {
            let own: Vec<(Pos, Key)> = (0..9)
                .map(|i| Pos::new(i / 3, i % 3))
                .filter_map(|local| {
                    let q = p.offset(local.row as i32 - 1, local.col as i32 - 1);
                    if q == p || centres.keys().any(|c| *c != p && c.within_one(q)) {
                        return None;
                    }
                    match kind(q) {
                        SquareKind::Pattern(k) => Some((local, k)),
                        _ => None,
                    }
                })
                .collect();
            !fits_a_face(set, side, &own)
        })
        .collect()
}

/// Whether some card of `set`, `side` up and turned any way, shows each pattern `squares`
/// gives at its place on the card.
fn fits_a_face(set: &CamouflageSet, side: SideIdx, squares: &[(Pos, Key)]) -> bool {
    set.cards().iter().any(|card| {
        let face = card.face(side);
        Turn::ALL.iter().any(|&turn| {
            squares
                .iter()
                .all(|&(local, k)| face.square(turn, local) == Square::Pattern(k))
        })
    })
}

/// Two cards whose centres touch each cover the other's centre, so two centres seen side by
/// side are not both centres: one is a light pattern's speck or a cloth's check passing for
/// one. First, a centre whose ink is clearly deeper than that of every centre it touches is a
/// printed symbol, and those it touches are specks of patterns round it (two grey-mottled
/// squares of a card beside its centre, seed 4's games 16 and 197), however many they touch.
/// Then, of those touching the most others, one goes when it touches more than each centre
/// it touches (a speck amid the centres of the cards around it), or when its ink is much
/// fainter than theirs; where nothing tells them apart, all go.
pub(super) fn drop_touching_centres(centres: &mut BTreeMap<LatticePos, CentreLook>) {
    let touch = |p: &LatticePos, q: &LatticePos| p != q && p.within_one(*q);
    loop {
        let depth: BTreeMap<LatticePos, f32> =
            centres.iter().map(|(p, c)| (*p, ink_depth(c))).collect();
        let clearly_fainter =
            |p: &LatticePos, q: &LatticePos| depth[p] + CLEARLY_FAINTER < depth[q];
        let specks: BTreeSet<LatticePos> = centres
            .keys()
            .filter(|q| {
                let mut touching = centres.keys().filter(|r| touch(q, r)).peekable();
                touching.peek().is_some() && touching.all(|r| clearly_fainter(r, q))
            })
            .flat_map(|q| centres.keys().filter(move |r| touch(q, r)))
            .copied()
            .collect();
        if !specks.is_empty() {
            centres.retain(|p, _| !specks.contains(p));
            continue;
        }
        // How many others each centre touches.
        let degree: BTreeMap<LatticePos, usize> = centres
            .keys()
            .map(|p| (*p, centres.keys().filter(|q| touch(p, q)).count()))
            .collect();
        let most = degree.values().copied().max().unwrap_or(0);
        if most == 0 {
            return;
        }
        let crowded: Vec<LatticePos> = degree
            .iter()
            .filter(|&(_, &d)| d == most)
            .map(|(p, _)| *p)
            .collect();
        let plainly_false: Vec<LatticePos> = crowded
            .iter()
            .filter(|p| {
                centres
                    .keys()
                    .filter(|q| touch(p, q))
                    .all(|q| degree[q] < most || clearly_fainter(p, q))
            })
            .copied()
            .collect();
        let dropped = if plainly_false.is_empty() {
            crowded
        } else {
            plainly_false
        };
        for p in dropped {
            centres.remove(&p);
        }
    }
}

/// How much darker than its stock a centre's darkest ink is: the mean of the darkest tenth of
/// its ink map (a printed symbol's core is near black; a pattern's speck is grey).
fn ink_depth(look: &CentreLook) -> f32 {
    let mut v = look.symbol;
    v.sort_by(|a, b| b.total_cmp(a));
    let n = v.len() / 10;
    v[..n].iter().sum::<f32>() / n as f32
}

/// Ink this much less deep than a touching centre's marks the fainter one as no centre.
const CLEARLY_FAINTER: f32 = 0.15;

/// The seeds on the cards or next to them (within two squares of a centre) that pass for a
/// centre on their own, yet lie on no centre read: every card's centre shows its symbol, so
/// each should be one. Returns their symbols' photo positions.
fn stray_symbols(
    lookup: &Lookup,
    lattice: &BoardLattice,
    centres: &BTreeMap<LatticePos, CentreLook>,
    seeds: &[Seed],
) -> Vec<[f32; 2]> {
    let Some(stock) = typical_stock(centres) else {
        return Vec::new();
    };
    let ink = typical_ink(centres);
    const CENTRED: Quad = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];
    seeds
        .iter()
        .filter(|seed| {
            let Some([c, r]) = lattice.to_lattice(crate::geom::centre(&seed.quad)) else {
                return false;
            };
            let at = LatticePos::new(r.round() as i32, c.round() as i32);
            let near = centres.keys().any(|p| p.squares_from(at) <= 2);
            let on = centres.iter().any(|(p, look)| {
                (p.col as f32 + look.drift[0] - c).hypot(p.row as f32 + look.drift[1] - r) < 0.35
            });
            if !near || on {
                return false;
            }
            // Judged on its own square: a spot of a pattern is not framed by stock, a flower
            // on the cloth beside the cards has the cloth around it.
            let Some(own) =
                crate::geom::homography_4(&CENTRED, &seed.quad).and_then(BoardLattice::new)
            else {
                return false;
            };
            CentreLook::measure(lookup, &own.square_at([0.0, 0.0])).is_some_and(|look| {
                look.is_centre(Some(stock))
                    && look.inked_like(ink)
                    && framed_by_patterns(lookup, &own, [0.0, 0.0], look.ring)
            })
        })
        .map(|seed| seed.symbol)
        .collect()
}

/// The lattice turned so that its rows run down the photo as nearly as possible, and
/// shifted so that the block of every card starts at (0, 0); the centres renamed with it.
fn upright(
    lattice: &BoardLattice,
    centres: BTreeMap<LatticePos, CentreLook>,
) -> Option<(BoardLattice, BTreeMap<LatticePos, CentreLook>)> {
    let any = *centres.keys().next()?;
    let at = lattice.to_photo([any.col as f32, any.row as f32])?;
    // The turn whose column axis points most to the photo's right.
    let turn = (0..4u8).max_by(|&a, &b| {
        let right = |k: u8| {
            let l = lattice.renamed(k, any)?;
            let p = l.to_photo([1.0, 0.0])?;
            Some(p[0] - at[0])
        };
        right(a)
            .unwrap_or(f32::MIN)
            .total_cmp(&right(b).unwrap_or(f32::MIN))
    })?;
    let turned = lattice.renamed(turn, LatticePos::new(0, 0))?;
    let rename = |p: LatticePos| -> LatticePos {
        // New coordinates of old square p under `renamed(turn, 0)`: R [c, r].
        let (c, r) = (p.col, p.row);
        let (nc, nr) = match turn % 4 {
            0 => (c, r),
            1 => (-r, c),
            2 => (-c, -r),
            _ => (r, -c),
        };
        LatticePos::new(nr, nc)
    };
    let renamed: BTreeMap<LatticePos, CentreLook> =
        centres.into_iter().map(|(p, c)| (rename(p), c)).collect();
    let min_r = renamed.keys().map(|p| p.row).min()? - 1;
    let min_c = renamed.keys().map(|p| p.col).min()? - 1;
    let shifted = turned.renamed(0, LatticePos::new(min_r, min_c))?;
    let centres = renamed
        .into_iter()
        .map(|(p, c)| (p.offset(-min_r, -min_c), c))
        .collect();
    Some((shifted, centres))
}

/// Mean linear colour of a card square's middle, divided by the nearest centre's stock and
/// scaled to printed stock: shade, tint of the light and exposure cancel.
fn square_colour(
    lookup: &Lookup,
    lattice: &BoardLattice,
    pos: LatticePos,
    centres: &BTreeMap<LatticePos, CentreLook>,
) -> Option<[f32; 3]> {
    const N: usize = 8;
    let [dc, dr] = local_drift(centres, pos);
    let h = lattice.square_at([pos.col as f32 + dc, pos.row as f32 + dr]);
    let mut sum = [0.0f32; 3];
    for i in 0..N {
        for j in 0..N {
            // The middle 60%: clear of the edges the lattice may be off by.
            let (x, y) = (
                0.2 + 0.6 * (j as f32 + 0.5) / N as f32,
                0.2 + 0.6 * (i as f32 + 0.5) / N as f32,
            );
            let p = lookup.rgb(apply_homography(&h, [x, y])?)?;
            let lin = LinRgb::from_srgb(Srgb::new(
                p[0].round() as u8,
                p[1].round() as u8,
                p[2].round() as u8,
            ));
            sum[0] += lin.r;
            sum[1] += lin.g;
            sum[2] += lin.b;
        }
    }
    let n = (N * N) as f32;
    let nearest = centres.iter().min_by_key(|(p, _)| {
        let (dr, dc) = (p.row - pos.row, p.col - pos.col);
        dr * dr + dc * dc
    })?;
    let w = LinRgb::from_srgb(srgb_of(nearest.1.ring));
    let white = [w.r, w.g, w.b];
    Some(std::array::from_fn(|c| {
        sum[c] / n / white[c].max(1e-3) * STOCK_LINEAR
    }))
}

/// Below this (in squares) a centre's drift is the settling's noise, not the pile's.
const MIN_DRIFT: f32 = 0.15;

/// How far the centre square `pos` lies off `lattice` (`[col, row]`, in squares): where it
/// `settled` while the board was grown, else where it settles now (followed a second time
/// where the first search ends far out); zero where that is under [`MIN_DRIFT`].
fn drift(
    lookup: &Lookup,
    lattice: &BoardLattice,
    pos: LatticePos,
    settled: Option<[f32; 2]>,
) -> [f32; 2] {
    let off = |at: [f32; 2]| [at[0] - pos.col as f32, at[1] - pos.row as f32];
    let small = |d: [f32; 2]| d[0].hypot(d[1]) < MIN_DRIFT;
    let measured = match settled.and_then(|px| lattice.to_lattice(px)) {
        Some(at) => off(at),
        None => {
            let Some((at, _)) = settle(lookup, lattice, pos) else {
                return [0.0; 2];
            };
            let first = off(at);
            if small(first) {
                first
            } else {
                settle_near(lookup, lattice, pos, first).map_or(first, |(at, _)| off(at))
            }
        }
    };
    if small(measured) {
        [0.0; 2]
    } else {
        measured
    }
}

/// The drift of the centre at `pos` where a card it overlaps (a centre within two squares)
/// drifts the same way, by at least half as much: a pile bends or rises smoothly, and a lens
/// bows its whole side. Zero for a centre drifting alone: a mark on the table passing for
/// one settles anywhere, and its squares read on its own drift could pass for a card's.
pub(super) fn shared_drift(drifts: &BTreeMap<LatticePos, [f32; 2]>, pos: LatticePos) -> [f32; 2] {
    let Some(&own) = drifts.get(&pos) else {
        return [0.0; 2];
    };
    let size = own[0].hypot(own[1]);
    let shared = size > 0.0
        && drifts.iter().any(|(p, d)| {
            *p != pos
                && p.squares_from(pos) <= 2
                && (d[0] * own[0] + d[1] * own[1]) / size >= 0.5 * size
        });
    if shared {
        own
    } else {
        [0.0; 2]
    }
}

/// How far square `pos` lies off the lattice: the mean drift of the centres of the cards
/// whose blocks hold it (none: on it).
fn local_drift(centres: &BTreeMap<LatticePos, CentreLook>, pos: LatticePos) -> [f32; 2] {
    let (sum, n) = centres
        .iter()
        .filter(|(p, _)| p.within_one(pos))
        .fold(([0.0f32; 2], 0.0f32), |(s, n), (_, c)| {
            ([s[0] + c.drift[0], s[1] + c.drift[1]], n + 1.0)
        });
    if n == 0.0 {
        [0.0; 2]
    } else {
        [sum[0] / n, sum[1] / n]
    }
}

/// The least confidence of a square's pattern that is told: twice as likely as every other
/// pattern and "none of them" (a shadow, a hand, the table) together. A square half under a
/// hand, its colour between two patterns, is not told, so the board is retaken.
const TOLD: f32 = 2.0 / 3.0;

/// A card square's kind from its measured colour: the side's pattern when the colour names
/// one confidently (`TOLD`), else unknown.
pub(super) fn card_square(
    measured: Option<[f32; 3]>,
    side: Option<&NamedSide>,
) -> (SquareKind, Srgb, f32) {
    match (measured, side) {
        (None, _) => (SquareKind::Unknown, Srgb::new(0, 0, 0), 0.0),
        (Some(m), None) => (SquareKind::Unknown, lin(m).to_srgb(), 0.0),
        (Some(m), Some(side)) => {
            let srgb = lin(apply_gains(m, side.gains)).to_srgb();
            let r = side.classifier.classify(srgb);
            match r.label {
                Some(k) if r.confidence >= TOLD => (SquareKind::Pattern(k), srgb, r.confidence),
                _ => (SquareKind::Unknown, srgb, r.confidence),
            }
        }
    }
}

/// Squares that pass for a centre ([`centre_at`], settled) with at least
/// [`ORPHANS_SHOWING_A_CARD`] of the squares round them looking like card where no centre
/// found covers (`card_like` inside the block, `beyond` it), tried where a card would explain
/// the most of those first, and farther from every centre found than the growth of the board
/// looks ([`GROWTH_REACH`]): nearer, growing judged them already, with the drift of the
/// centre it grew from (looked at again here without it, a square passed for a centre a
/// square off a card's: seed 4's game 83).
fn centres_over_orphans(
    lookup: &Lookup,
    lattice: &BoardLattice,
    cols: usize,
    card_like: &[bool],
    beyond: &[LatticePos],
    centres: &BTreeMap<LatticePos, CentreLook>,
    stock: Option<[f32; 3]>,
) -> Vec<(LatticePos, CentreLook)> {
    let orphans: BTreeSet<LatticePos> = card_like
        .iter()
        .enumerate()
        .filter(|&(_, &like)| like)
        .map(|(i, _)| LatticePos::new((i / cols) as i32, (i % cols) as i32))
        .chain(beyond.iter().copied())
        .collect();
    if orphans.len() < ORPHANS_SHOWING_A_CARD {
        return Vec::new();
    }
    let explained = |p: LatticePos| {
        (-1..=1)
            .flat_map(|dr| (-1..=1).map(move |dc| p.offset(dr, dc)))
            .filter(|q| orphans.contains(q))
            .count()
    };
    let candidates: BTreeSet<LatticePos> = orphans
        .iter()
        .flat_map(|o| (-1..=1).flat_map(move |dr| (-1..=1).map(move |dc| o.offset(dr, dc))))
        .filter(|p| !centres.keys().any(|c| c.squares_from(*p) <= GROWTH_REACH))
        .collect();
    // A pattern square beside a card's centre that fails the test may pass for one.
    let mut candidates: Vec<(usize, LatticePos)> = candidates
        .into_iter()
        .map(|p| (explained(p), p))
        .filter(|&(n, _)| n >= ORPHANS_SHOWING_A_CARD)
        .collect();
    candidates.sort_by_key(|&(n, p)| (std::cmp::Reverse(n), p));
    let mut found: Vec<(LatticePos, CentreLook)> = Vec::new();
    for (_, p) in candidates {
        // Two centres found here side by side would cover each other: the first stays.
        if found.iter().any(|(f, _)| f.within_one(p)) {
            continue;
        }
        let Some((at, px)) = settle(lookup, lattice, p) else {
            continue;
        };
        if let Some(mut look) = centre_at(lookup, lattice, at, stock) {
            look.settled = Some(px);
            found.push((p, look));
        }
    }
    found
}

/// Which squares of the block that no centre found covers look like card rather than table:
/// unlike the table around the block (the squares three and four outside it), as a card whose
/// centre was missed does. They are read as card squares, so that a reading never calls a
/// card's square table. Also the squares just outside the block that look like card.
fn card_like_squares(
    lookup: &Lookup,
    lattice: &BoardLattice,
    rows: usize,
    cols: usize,
    covered: &[bool],
    centres: &BTreeMap<LatticePos, CentreLook>,
    table: Option<&TableLook>,
) -> (Vec<bool>, Vec<LatticePos>, Vec<LatticePos>) {
    let Some(table) = table else {
        // The block fills the photo: nothing to tell the table by.
        return (vec![false; rows * cols], Vec::new(), Vec::new());
    };
    let lab = |pos: LatticePos| square_lab(lookup, lattice, pos, centres);
    let card_like = |pos: LatticePos| lab(pos).is_some_and(|c| !table.is_like_all_round(c));
    let inside = (0..rows * cols)
        .map(|i| !covered[i] && card_like(LatticePos::new((i / cols) as i32, (i % cols) as i32)))
        .collect();
    // Just outside the block, where a card whose centre was missed may stick out; the rest
    // of that ring, in the photo, is table.
    let (r1, c1) = (rows as i32, cols as i32);
    let (beyond, table_ring): (Vec<_>, Vec<_>) = (-1..=r1)
        .flat_map(|r| (-1..=c1).map(move |c| LatticePos::new(r, c)))
        .filter(|p| p.row < 0 || p.col < 0 || p.row >= r1 || p.col >= c1)
        .filter_map(|p| Some((p, lab(p)?)))
        .partition(|&(_, c)| !table.is_like_all_round(c));
    let positions = |squares: Vec<(LatticePos, Lab)>| squares.into_iter().map(|(p, _)| p).collect();
    (inside, positions(beyond), positions(table_ring))
}

/// What the table looks like around a block of `rows` × `cols` squares: the squares three
/// and four outside it, beyond where a card whose centre was missed can reach (two squares
/// past the block's edge).
pub(super) struct TableLook<'a> {
    table: Vec<Lab>,
    /// The sides of the block each of `table` lies beside ([`ABOVE`], [`RIGHT`], …).
    sides: Vec<u8>,
    /// The sides with table squares in the photo.
    sides_seen: u8,
    /// How many table squares a colour must be near to be the table's.
    enough: usize,
    /// How near (ΔE₀₀).
    limit: f32,
    /// The squares five and six outside the block with their sides, measured when first
    /// needed (see [`TableLook::is_like_all_round`]).
    farther: OnceCell<Vec<(Lab, u8)>>,
    block: Block<'a>,
}

/// The sides of a block, as bits of a set of sides.
const ABOVE: u8 = 1;
const RIGHT: u8 = 2;
const BELOW: u8 = 4;
const LEFT: u8 = 8;

/// A block of squares on a photo's lattice, and the centres that settle its squares.
struct Block<'a> {
    lookup: &'a Lookup<'a>,
    lattice: &'a BoardLattice,
    rows: i32,
    cols: i32,
    centres: &'a BTreeMap<LatticePos, CentreLook>,
}

impl Block<'_> {
    /// The colours of the squares `from` to `to` (inclusive) outside the block, each with the
    /// sides of the block it lies three or more squares beyond.
    fn ring(&self, from: i32, to: i32) -> Vec<(Lab, u8)> {
        let (r1, c1) = (self.rows, self.cols);
        let sides = |p: LatticePos| {
            let on = |yes: bool, side: u8| if yes { side } else { 0 };
            on(p.row < -2, ABOVE)
                | on(p.col >= c1 + 2, RIGHT)
                | on(p.row >= r1 + 2, BELOW)
                | on(p.col < -2, LEFT)
        };
        (-to..r1 + to)
            .flat_map(|r| (-to..c1 + to).map(move |c| LatticePos::new(r, c)))
            .filter(|p| {
                p.row <= -from || p.col <= -from || p.row >= r1 + from - 1 || p.col >= c1 + from - 1
            })
            .filter_map(|p| {
                let lab = square_lab(self.lookup, self.lattice, p, self.centres)?;
                Some((lab, sides(p)))
            })
            .collect()
    }
}

impl<'a> TableLook<'a> {
    /// `None` when the block fills the photo: fewer than 20 table squares in it.
    pub(super) fn around(
        lookup: &'a Lookup<'a>,
        lattice: &'a BoardLattice,
        rows: usize,
        cols: usize,
        centres: &'a BTreeMap<LatticePos, CentreLook>,
    ) -> Option<TableLook<'a>> {
        let block = Block {
            lookup,
            lattice,
            rows: rows as i32,
            cols: cols as i32,
            centres,
        };
        let (table, sides): (Vec<Lab>, Vec<u8>) = block.ring(3, 4).into_iter().unzip();
        if table.len() < 20 {
            return None;
        }
        // A table may be of several colours (stripes, checks, flowers): a square is like the
        // table when it is like enough squares of it, as near as the table's squares are to
        // each other. Enough: a few, so that one stray thing across the ring does not make
        // its colour the table's, yet a cloth's rarer colour (the crossings of a gingham)
        // stays the table's.
        let enough = (table.len() / 30).max(2);
        let mut gaps: Vec<f32> = (0..table.len())
            .map(|i| kth_nearest(&table, enough, table[i], Some(i)))
            .collect();
        gaps.sort_by(f32::total_cmp);
        let limit = (3.0f32 * gaps[gaps.len() / 2]).max(CARD_LIKE_MIN_DELTA_E);
        let sides_seen = sides.iter().fold(0, |all, s| all | s);
        Some(TableLook {
            table,
            sides,
            sides_seen,
            enough,
            limit,
            farther: OnceCell::new(),
            block,
        })
    }

    /// Whether `c` is within the limit of [`TableLook::enough`] of the table's squares (its
    /// `enough`-th nearest within it), counted only until there are enough.
    pub(super) fn is_like(&self, c: Lab) -> bool {
        self.table
            .iter()
            .filter(|t| c.delta_e(**t) <= self.limit)
            .take(self.enough)
            .count()
            >= self.enough
    }

    /// Like the table, and like it beside three sides of the block (or every side in the
    /// photo): an arm or a sleeve reaching over the board from the photo's edge passes one
    /// side, or two beside a corner, so its colour, however many squares it fills there, is
    /// not the table's, and what lies under it is not taken for bare table. The sides are
    /// looked for two squares farther out too: a cloth's stripe nearly along one side may
    /// miss the two rows of squares next to it.
    pub(super) fn is_like_all_round(&self, c: Lab) -> bool {
        if !self.is_like(c) {
            return false;
        }
        let wanted = self.sides_seen.count_ones().min(3);
        let near = self.sides_near(
            c,
            self.table.iter().copied().zip(self.sides.iter().copied()),
        );
        if near.count_ones() >= wanted {
            return true;
        }
        let farther = self.farther.get_or_init(|| self.block.ring(5, 6));
        let near = near | self.sides_near(c, farther.iter().copied());
        near.count_ones() >= wanted
    }

    /// The sides that the squares of `sided` like `c` lie beside.
    fn sides_near(&self, c: Lab, sided: impl Iterator<Item = (Lab, u8)>) -> u8 {
        let mut near = 0;
        for (t, sides) in sided {
            // Every side seen is near already: the rest cannot add one.
            if near == self.sides_seen {
                break;
            }
            if sides & !near != 0 && c.delta_e(t) <= self.limit {
                near |= sides;
            }
        }
        near
    }
}

/// The distance from `c` to its `enough`-th nearest colour of `table`, `skip` left out.
fn kth_nearest(table: &[Lab], enough: usize, c: Lab, skip: Option<usize>) -> f32 {
    let mut d: Vec<f32> = table
        .iter()
        .enumerate()
        .filter(|&(j, _)| Some(j) != skip)
        .map(|(_, t)| c.delta_e(*t))
        .collect();
    let k = (enough - 1).min(d.len() - 1);
    d.select_nth_unstable_by(k, f32::total_cmp);
    d[k]
}

/// [`square_colour`] in Lab.
pub(super) fn square_lab(
    lookup: &Lookup,
    lattice: &BoardLattice,
    pos: LatticePos,
    centres: &BTreeMap<LatticePos, CentreLook>,
) -> Option<Lab> {
    square_colour(lookup, lattice, pos, centres).map(|c| Lab::from_linear(lin(c)))
}

/// A square closer than this (ΔE) to a square of the table is table, however even the table
/// is (shadows of the cards darken the squares beside them).
const CARD_LIKE_MIN_DELTA_E: f32 = 15.0;

/// Whether most of the eight squares round `centre` look like the table all round the block:
/// a card's centre has its card's patterns, or other cards, round it, and at most a few of
/// them are of the table's colours.
fn framed_by_table(
    lookup: &Lookup,
    lattice: &BoardLattice,
    centre: LatticePos,
    centres: &BTreeMap<LatticePos, CentreLook>,
    table: &TableLook,
) -> bool {
    let like = (-1..=1)
        .flat_map(|dr| (-1..=1).map(move |dc| centre.offset(dr, dc)))
        .filter(|&q| q != centre)
        .filter(|&q| {
            square_lab(lookup, lattice, q, centres).is_some_and(|c| table.is_like_all_round(c))
        })
        .count();
    like > 4
}

/// How much darker than the typical centre's stock a centre's may be before its colour
/// being the table's tells against it.
const DARKER_THAN_STOCK: f32 = 0.8;

fn lin([r, g, b]: [f32; 3]) -> LinRgb {
    LinRgb { r, g, b }
}

fn srgb_of(p: [f32; 3]) -> Srgb {
    let [r, g, b] = p.map(|v| v.round().clamp(0.0, 255.0) as u8);
    Srgb::new(r, g, b)
}

/// The side whose patterns name the squares.
pub(super) struct NamedSide {
    name: String,
    idx: SideIdx,
    classifier: Classifier,
    /// Takes this photo's measured colours to the printed ones.
    gains: ToneCurve,
    /// Each pattern's printed colour.
    printed: BTreeMap<Key, Lab>,
}

/// Squares of one pattern in one photo look alike: the same print under the same light. The
/// squares named one pattern are grouped, squares nearer than half the way from its printed
/// colour to the nearest other pattern's joining a group. Two groups of several squares each
/// mean the photo's light pulled another pattern onto the name (over-exposed, its white
/// stock clipped, under warm light, orange and brown both read as tan); which group is the
/// pattern cannot be told, so every square of that name becomes unknown. A lone square unlike
/// the rest is left named: glare or a shadow over one square does that, and the classifier
/// already leaves a square between two patterns unknown.
pub(super) fn unname_split_patterns<'a>(
    squares: impl Iterator<Item = &'a mut SquareReading>,
    side: &NamedSide,
) {
    let mut by_key: BTreeMap<Key, Vec<&'a mut SquareReading>> = BTreeMap::new();
    for s in squares {
        if let SquareKind::Pattern(k) = s.kind {
            by_key.entry(k).or_default().push(s);
        }
    }
    for (key, named) in by_key {
        let Some(&printed) = side.printed.get(&key) else {
            continue;
        };
        let gap = side
            .printed
            .iter()
            .filter(|&(&k, _)| k != key)
            .map(|(_, &other)| printed.delta_e(other))
            .fold(f32::MAX, f32::min);
        let labs: Vec<Lab> = named.iter().map(|s| Lab::from_srgb(s.srgb)).collect();
        let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
        for g in look_alike_groups(&labs, 0.5 * gap) {
            *sizes.entry(g).or_default() += 1;
        }
        if sizes.values().filter(|&&n| n > 1).count() > 1 {
            for s in named {
                s.kind = SquareKind::Unknown;
            }
        }
    }
}

/// Each colour's group, colours nearer than `link` (ΔE₀₀) to one another joining, directly or
/// through others (single linkage: a gradient of shade across the photo stays one group).
/// Groups are named by their first colour's index.
fn look_alike_groups(colours: &[Lab], link: f32) -> Vec<usize> {
    let mut group: Vec<usize> = (0..colours.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for i in 0..colours.len() {
        for j in i + 1..colours.len() {
            if colours[i].delta_e(colours[j]) < link {
                let (a, b) = (root(&mut group, i), root(&mut group, j));
                group[a.max(b)] = a.min(b);
            }
        }
    }
    (0..colours.len()).map(|i| root(&mut group, i)).collect()
}

/// The side whose colours explain the squares best, with its classifier and gains. With the
/// stock clipped (`stock_clipped`), the squares may be lit more strongly than the stock says.
pub(super) fn name_side(
    colours: SideColours,
    measured: &[Option<[f32; 3]>],
    stock_clipped: bool,
) -> Result<NamedSide, CamouflageReadError> {
    let sides: Vec<SideIdx> = match colours.side {
        Some(s) => vec![s],
        None => (0..colours.set.sides().len())
            .map(|i| SideIdx(i as u8))
            .collect(),
    };
    let mut best: Option<(f32, NamedSide)> = None;
    let mut first_error = None;
    for side in sides {
        let s = colours.set.side(side);
        let mut swatches = BTreeMap::new();
        for (&key, p) in &s.patterns {
            match p.srgb {
                Some(srgb) => {
                    swatches.insert(
                        key,
                        Swatch {
                            name: p.name.clone(),
                            srgb,
                        },
                    );
                }
                None => {
                    first_error.get_or_insert(CamouflageReadError::NoColour {
                        side: s.name.clone(),
                        key,
                    });
                }
            }
        }
        if swatches.len() != s.patterns.len() {
            continue;
        }
        let palette = Palette {
            name: s.name.clone(),
            colors: swatches,
        };
        let printed: Vec<LinRgb> = palette
            .colors
            .values()
            .map(|w| LinRgb::from_srgb(w.srgb))
            .collect();
        let labs: Vec<Lab> = printed.iter().map(|&p| Lab::from_linear(p)).collect();
        // Mean distance to the nearest pattern colour, each capped so a hand does not decide.
        let cost = |gains: ToneCurve| -> f32 {
            measured
                .iter()
                .flatten()
                .map(|&m| {
                    let lab = Lab::from_linear(lin(apply_gains(m, gains)));
                    labs.iter()
                        .map(|l| l.delta_e(lab))
                        .fold(f32::MAX, f32::min)
                        .min(20.0)
                })
                .sum()
        };
        // A clipped stock is only a floor of the light's strength: the squares may be lit up
        // to twice as brightly as their division by it says, so darker exposures are tried.
        let exposures: &[f32] = if stock_clipped {
            &[1.0, 0.8, 0.64, 0.5]
        } else {
            &[1.0]
        };
        let Some((cost, gains)) = exposures
            .iter()
            .map(|&e| fit_gains(measured, &printed, e))
            .map(|g| (cost(g), g))
            .min_by(|a, b| a.0.total_cmp(&b.0))
        else {
            continue;
        };
        let Ok(classifier) = Classifier::new(&palette, ClassifierParams::default()) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| cost < b.0) {
            let printed = palette.colors.keys().copied().zip(labs).collect();
            let named = NamedSide {
                name: s.name.clone(),
                idx: side,
                classifier,
                gains,
                printed,
            };
            best = Some((cost, named));
        }
    }
    match (best, first_error) {
        (Some((_, named)), _) => Ok(named),
        (None, Some(e)) => Err(e),
        (None, None) => Err(CamouflageReadError::NoCentres),
    }
}

/// A per-channel tone curve `gain · m^power` (linear) taking the measured squares nearest to
/// the printed colours of their patterns: what the stock correction leaves of the light's
/// tint, of the camera's tone curve (which compresses highlights, stock included) and of the
/// printing's difference from the set's colours. The squares of one photo look alike to one
/// another even when all are off the set's colours; a few rounds of naming each square and
/// refitting the curves (least squares in log space) follow them. The curves start at a gain
/// of `exposure` (1 where the stock says how strong the light is) and stay near it, so they
/// cannot turn one pattern into another wholesale.
pub(super) fn fit_gains(
    measured: &[Option<[f32; 3]>],
    printed: &[LinRgb],
    exposure: f32,
) -> ToneCurve {
    let labs: Vec<Lab> = printed.iter().map(|&p| Lab::from_linear(p)).collect();
    let mut curve = ToneCurve([(exposure, 1.0); 3]);
    for _ in 0..5 {
        let mut pairs: [Vec<(f32, f32)>; 3] = Default::default();
        for &m in measured.iter().flatten() {
            let lab = Lab::from_linear(lin(apply_gains(m, curve)));
            let Some((k, d)) = labs
                .iter()
                .map(|l| l.delta_e(lab))
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
            else {
                return curve;
            };
            // A hand or glare is not a pattern: it must not pull the curves.
            if d > 15.0 {
                continue;
            }
            let p = [printed[k].r, printed[k].g, printed[k].b];
            for c in 0..3 {
                if m[c] > 1e-3 && p[c] > 1e-3 {
                    pairs[c].push((m[c].ln(), p[c].ln()));
                }
            }
        }
        for (c, pairs) in pairs.iter().enumerate() {
            let n = pairs.len() as f32;
            if n < 4.0 {
                continue;
            }
            let (mx, my) = pairs
                .iter()
                .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x / n, b + y / n));
            let (sxy, sxx) = pairs.iter().fold((0.0, 0.0), |(a, b), &(x, y)| {
                (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
            });
            // Too little spread of brightness (log variance) to tell a curve from a gain.
            let power = if sxx / n > 0.05 {
                (sxy / sxx).clamp(0.7, 1.5)
            } else {
                1.0
            };
            let gain = (my - power * mx).exp().clamp(0.7 * exposure, 1.4);
            curve.0[c] = (gain, power);
        }
    }
    curve
}

/// Per channel `(gain, power)`: linear `m` becomes `gain · m^power`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ToneCurve([(f32, f32); 3]);

pub(super) fn apply_gains(m: [f32; 3], curve: ToneCurve) -> [f32; 3] {
    std::array::from_fn(|c| {
        let (gain, power) = curve.0[c];
        gain * m[c].max(0.0).powf(power)
    })
}

/// Groups the centres by symbol: the same symbol, at any quarter turn, correlates strongly.
fn group_symbols(
    lattice: &BoardLattice,
    centres: &BTreeMap<LatticePos, CentreLook>,
) -> Vec<CentreReading> {
    let mut groups: Vec<Vec<f32>> = Vec::new();
    let mut out = Vec::with_capacity(centres.len());
    for (pos, look) in centres {
        let symbol = normalised(&look.symbol);
        let group = match groups
            .iter()
            .position(|g| symbol_similarity(g, &symbol) > SAME_SYMBOL)
        {
            Some(g) => g,
            None => {
                groups.push(symbol.clone());
                groups.len() - 1
            }
        };
        out.push(CentreReading {
            row: pos.row,
            col: pos.col,
            px: lattice
                .to_photo([pos.col as f32, pos.row as f32])
                .unwrap_or([f32::NAN, f32::NAN]),
            symbol_group: group,
            symbol: look.symbol.to_vec(),
        });
    }
    out
}

/// Correlation above which two symbols are the same print.
pub(super) const SAME_SYMBOL: f32 = 0.75;

/// Zero mean, unit norm.
pub(super) fn normalised(v: &[f32]) -> Vec<f32> {
    let mean = v.iter().sum::<f32>() / v.len() as f32;
    let centred: Vec<f32> = v.iter().map(|x| x - mean).collect();
    let norm = centred.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    centred.iter().map(|x| x / norm).collect()
}

/// The best correlation of two normalised symbols over the four quarter turns.
pub(crate) fn symbol_similarity(a: &[f32], b: &[f32]) -> f32 {
    const S: usize = SYMBOL_SIDE;
    (0..4)
        .map(|turn| {
            (0..S * S)
                .map(|k| {
                    let (r, c) = (k / S, k % S);
                    let (rr, cc) = match turn {
                        0 => (r, c),
                        1 => (c, S - 1 - r),
                        2 => (S - 1 - r, S - 1 - c),
                        _ => (S - 1 - c, r),
                    };
                    a[k] * b[rr * S + cc]
                })
                .sum::<f32>()
        })
        .fold(f32::MIN, f32::max)
}
