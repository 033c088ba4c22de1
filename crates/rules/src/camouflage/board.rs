//! The table: one integer lattice of squares on which cards are laid, and the legality of a
//! placement (formats.md §3).
//!
//! A placed card covers the 3×3 block around the lattice square of its centre, turned by a
//! quarter-turn multiple. The board keeps, for every lattice square, the stack of card squares
//! lying there (the last one is the visible one). Illegally placed cards stay on the board: they
//! are physically on the table, so later placements are judged against them.
//!
//! The rulebook's "Allowed Example", "Not Allowed Example" and "Centers Wild: Examples"
//! pictures are missing; we follow the text they illustrate: at least three squares matched,
//! every covered square matching, centres neither covered nor covering — with wild centres a
//! centre matches anything above or below it, and overlaps through a centre count towards the
//! three squares.
//!
//! Card and side indices passed in must come from the same [`CamouflageSet`].

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::set::{CamouflageSet, CardIdx, Face, SideIdx, Square, CENTRE_CHAR};
use crate::grid::{Pos, Turn};
use crate::key::Key;

/// A square of the table's lattice. Rows grow downwards, columns to the right.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct LatticePos {
    pub row: i32,
    pub col: i32,
}

impl LatticePos {
    /// The square at `row`, `col`.
    pub const fn new(row: i32, col: i32) -> LatticePos {
        LatticePos { row, col }
    }

    /// This square moved by `drow` rows and `dcol` columns.
    pub const fn offset(self, drow: i32, dcol: i32) -> LatticePos {
        LatticePos::new(self.row + drow, self.col + dcol)
    }

    /// How many squares apart this square and `other` are, a diagonal step counting as one
    /// (the Chebyshev distance).
    pub const fn squares_from(self, other: LatticePos) -> i32 {
        let (dr, dc) = ((self.row - other.row).abs(), (self.col - other.col).abs());
        if dr > dc {
            dr
        } else {
            dc
        }
    }

    /// Whether `other` is this square or one of the eight around it: a card centred on one
    /// covers the other.
    pub const fn within_one(self, other: LatticePos) -> bool {
        self.squares_from(other) <= 1
    }
}

impl fmt::Display for LatticePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "square ({}, {})", self.row, self.col)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Square::Centre => f.write_str("centre"),
            Square::Pattern(k) => write!(f, "'{k}'"),
        }
    }
}

/// A card laid on the table: which card, the lattice square of its centre, and its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Placement {
    pub card: CardIdx,
    pub centre: LatticePos,
    pub turn: Turn,
}

impl Placement {
    /// The lattice square under the square at `local` (row, col in 0..3) of the turned card.
    pub fn square_pos(&self, local: Pos) -> LatticePos {
        self.centre
            .offset(local.row as i32 - 1, local.col as i32 - 1)
    }

    /// The nine lattice squares the card covers, row-major in the turned card's frame.
    pub fn squares(&self) -> [LatticePos; 9] {
        std::array::from_fn(|i| self.square_pos(Pos::new(i / 3, i % 3)))
    }
}

/// How placements are judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PlacementRules {
    /// Centers Wild variant: a centre matches any square above or below it.
    pub wild_centres: bool,
    /// How many squares of cards already on the table a card must cover (3 in play; puzzles
    /// have no minimum). The first card of a board is always free.
    pub min_covered: u8,
}

impl PlacementRules {
    /// The multiplayer rules without variant: at least 3 covered squares, centres not wild.
    pub const GAME: PlacementRules = PlacementRules {
        wild_centres: false,
        min_covered: 3,
    };

    /// The multiplayer rules, with or without the Centers Wild variant.
    pub const fn game(wild_centres: bool) -> PlacementRules {
        PlacementRules {
            wild_centres,
            min_covered: 3,
        }
    }

    /// The rules of puzzle mode: no minimum of covered squares.
    pub const fn puzzle(wild_centres: bool) -> PlacementRules {
        PlacementRules {
            wild_centres,
            min_covered: 0,
        }
    }
}

/// One way a placement breaks the rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Breach {
    #[error("it covers {covered} squares of cards on the table; a card must cover at least {required} matching squares")]
    TooFewCovered { covered: u8, required: u8 },
    #[error("at {at} its '{placed}' square lies on a '{below}' square of placed card #{below_card}: covered squares must show the same pattern")]
    Mismatch {
        at: LatticePos,
        placed: Key,
        below: Key,
        /// Index of the card beneath in the board's placement order.
        below_card: usize,
    },
    #[error("at {at} its {placed} square covers the centre of placed card #{below_card}: centres may not be covered")]
    CoversCentre {
        at: LatticePos,
        placed: Square,
        below_card: usize,
    },
    #[error("at {at} its centre lies on a {below} square of placed card #{below_card}: a centre may not cover anything")]
    CentreCovers {
        at: LatticePos,
        below: Square,
        below_card: usize,
    },
}

/// Why a placement is illegal: every breach found, the too-few rule first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[error("illegal placement: {}", breaches.iter().map(|b| b.to_string()).collect::<Vec<_>>().join("; "))]
pub struct Illegal {
    pub breaches: Vec<Breach>,
}

/// A legal placement's contact with the cards beneath it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// Squares of cards already on the table that the card covers.
    pub covered: u8,
}

/// A card on the board, with what lay directly beneath each of its squares when it was placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacedCard {
    pub placement: Placement,
    /// The verdict when it was placed.
    pub verdict: Result<Coverage, Illegal>,
    /// Square codes of the turned face, row-major.
    #[serde(skip)]
    codes: [u8; 9],
    /// For each of its nine squares (row-major, turned frame), the index of the placed card
    /// directly beneath it, if any.
    beneath: [Option<u16>; 9],
}

impl PlacedCard {
    /// Whether the placement was legal.
    pub fn is_legal(&self) -> bool {
        self.verdict.is_ok()
    }

    /// The square at `local` (row, col in 0..3) of the turned card.
    pub fn square(&self, local: Pos) -> Square {
        // Codes come from a validated face, so they always decode.
        Square::from_code(self.codes[local.row * 3 + local.col]).unwrap_or(Square::Centre)
    }

    /// For each square (row-major, turned frame), the placed card directly beneath it.
    pub fn beneath(&self) -> &[Option<u16>; 9] {
        &self.beneath
    }

    /// How many squares it covers of cards that lay on the table when it was placed
    /// (Cover Some Ground points).
    pub fn covered_squares(&self) -> u8 {
        self.beneath.iter().filter(|b| b.is_some()).count() as u8
    }

    /// The distinct cards directly beneath its squares, i.e. in physical contact with it
    /// (Diversify points are their number).
    pub fn cards_in_contact(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.beneath.iter().flatten().map(|&i| i as usize).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// A legal move found by move generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Move {
    pub centre: LatticePos,
    pub turn: Turn,
    /// Squares of cards on the table it would cover.
    pub covered: u8,
}

impl Move {
    /// The placement of `card` this move describes.
    pub fn placement(self, card: CardIdx) -> Placement {
        Placement {
            card,
            centre: self.centre,
            turn: self.turn,
        }
    }
}

const EMPTY: u8 = 0;
const CENTRE: u8 = CENTRE_CHAR as u8;
/// Spare squares kept around the occupied area so move generation never leaves the arrays.
const MARGIN: i32 = 3;

/// The table: placed cards in order and, per lattice square, the stack lying there.
///
/// Storage is dense over a window of the lattice that grows as cards are placed: `top` holds
/// the visible square's code (0 when empty) for the hot loops of move generation.
#[derive(Clone, Debug)]
pub struct Board {
    side: SideIdx,
    rules: PlacementRules,
    placed: Vec<PlacedCard>,
    /// Lattice square of array index 0.
    origin: LatticePos,
    width: usize,
    height: usize,
    top: Vec<u8>,
    /// Per square, placed-card indices bottom first.
    stacks: Vec<Vec<u16>>,
    /// Occupied bounding box (min row, min col, max row, max col), when not empty.
    bbox: Option<(i32, i32, i32, i32)>,
}

impl Board {
    /// An empty table for cards played on `side` under `rules`.
    pub fn new(side: SideIdx, rules: PlacementRules) -> Board {
        Board {
            side,
            rules,
            placed: Vec::new(),
            origin: LatticePos::new(0, 0),
            width: 0,
            height: 0,
            top: Vec::new(),
            stacks: Vec::new(),
            bbox: None,
        }
    }

    /// The side the cards show.
    pub fn side(&self) -> SideIdx {
        self.side
    }

    /// The rules placements are judged by.
    pub fn rules(&self) -> PlacementRules {
        self.rules
    }

    /// The placed cards in order, illegal ones included.
    pub fn placed(&self) -> &[PlacedCard] {
        &self.placed
    }

    /// No card on the table yet.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// The occupied squares' bounding box as (top-left, bottom-right), when not empty.
    pub fn bounds(&self) -> Option<(LatticePos, LatticePos)> {
        self.bbox
            .map(|(r0, c0, r1, c1)| (LatticePos::new(r0, c0), LatticePos::new(r1, c1)))
    }

    fn index(&self, pos: LatticePos) -> Option<usize> {
        let r = pos.row - self.origin.row;
        let c = pos.col - self.origin.col;
        (r >= 0 && c >= 0 && (r as usize) < self.height && (c as usize) < self.width)
            .then(|| r as usize * self.width + c as usize)
    }

    fn top_code(&self, pos: LatticePos) -> u8 {
        self.index(pos).map_or(EMPTY, |i| self.top[i])
    }

    /// The visible square at `pos` and the index of the card it belongs to.
    pub fn top(&self, pos: LatticePos) -> Option<(usize, Square)> {
        self.stack(pos).last().copied()
    }

    /// Everything lying at `pos`, bottom first: (placed-card index, its square there).
    pub fn stack(&self, pos: LatticePos) -> Vec<(usize, Square)> {
        let Some(i) = self.index(pos) else {
            return Vec::new();
        };
        self.stacks[i]
            .iter()
            .map(|&k| {
                let pc = &self.placed[k as usize];
                let r = (pos.row - pc.placement.centre.row + 1) as usize;
                let c = (pos.col - pc.placement.centre.col + 1) as usize;
                (k as usize, pc.square(Pos::new(r, c)))
            })
            .collect()
    }

    /// The visible squares as a map, for display and tests: `(top-left, rows of chars)` with
    /// `.` for empty and `*` for a centre.
    pub fn picture(&self) -> Option<(LatticePos, Vec<String>)> {
        let (r0, c0, r1, c1) = self.bbox?;
        let rows = (r0..=r1)
            .map(|r| {
                (c0..=c1)
                    .map(|c| match self.top_code(LatticePos::new(r, c)) {
                        EMPTY => '.',
                        code => code as char,
                    })
                    .collect()
            })
            .collect();
        Some((LatticePos::new(r0, c0), rows))
    }

    /// Judges placing `placement` on the table as it is now, without placing it.
    pub fn check(&self, set: &CamouflageSet, placement: &Placement) -> Result<Coverage, Illegal> {
        let codes = set.face(placement.card, self.side).codes(placement.turn);
        self.judge(codes, placement).0
    }

    fn judge(
        &self,
        codes: &[u8; 9],
        placement: &Placement,
    ) -> (Result<Coverage, Illegal>, [Option<u16>; 9]) {
        let wild = self.rules.wild_centres;
        let mut breaches = Vec::new();
        let mut beneath = [None; 9];
        let mut covered = 0u8;
        for (i, at) in placement.squares().into_iter().enumerate() {
            let Some(idx) = self.index(at) else { continue };
            let Some(&below_card) = self.stacks[idx].last() else {
                continue;
            };
            beneath[i] = Some(below_card);
            covered += 1;
            let (p, b) = (codes[i], self.top[idx]);
            if wild && (p == CENTRE || b == CENTRE) {
                continue;
            }
            let below_card = below_card as usize;
            // Codes come from validated faces, so they decode.
            let sq = |c: u8| Square::from_code(c).unwrap_or(Square::Centre);
            if b == CENTRE {
                breaches.push(Breach::CoversCentre {
                    at,
                    placed: sq(p),
                    below_card,
                });
            } else if p == CENTRE {
                breaches.push(Breach::CentreCovers {
                    at,
                    below: sq(b),
                    below_card,
                });
            } else if p != b {
                if let (Square::Pattern(placed), Square::Pattern(below)) = (sq(p), sq(b)) {
                    breaches.push(Breach::Mismatch {
                        at,
                        placed,
                        below,
                        below_card,
                    });
                }
            }
        }
        if !self.placed.is_empty() && covered < self.rules.min_covered {
            breaches.insert(
                0,
                Breach::TooFewCovered {
                    covered,
                    required: self.rules.min_covered,
                },
            );
        }
        let verdict = if breaches.is_empty() {
            Ok(Coverage { covered })
        } else {
            Err(Illegal { breaches })
        };
        (verdict, beneath)
    }

    /// Lays a card on the table, legal or not (an illegal card is still physically there), and
    /// returns its index and verdict.
    pub fn place(&mut self, set: &CamouflageSet, placement: Placement) -> &PlacedCard {
        let codes = *set.face(placement.card, self.side).codes(placement.turn);
        let (verdict, beneath) = self.judge(&codes, &placement);
        self.ensure_window(placement.centre);
        let k = self.placed.len() as u16;
        for (i, at) in placement.squares().into_iter().enumerate() {
            // ensure_window made room for all nine squares.
            if let Some(idx) = self.index(at) {
                self.stacks[idx].push(k);
                self.top[idx] = codes[i];
            }
        }
        let (r, c) = (placement.centre.row, placement.centre.col);
        self.bbox = Some(match self.bbox {
            None => (r - 1, c - 1, r + 1, c + 1),
            Some((r0, c0, r1, c1)) => (r0.min(r - 1), c0.min(c - 1), r1.max(r + 1), c1.max(c + 1)),
        });
        self.placed.push(PlacedCard {
            placement,
            verdict,
            codes,
            beneath,
        });
        &self.placed[k as usize]
    }

    /// Takes the last placed card back off the table.
    pub fn pop(&mut self) -> Option<PlacedCard> {
        let pc = self.placed.pop()?;
        for at in pc.placement.squares() {
            if let Some(idx) = self.index(at) {
                self.stacks[idx].pop();
                self.top[idx] = match self.stacks[idx].last() {
                    None => EMPTY,
                    Some(&k) => {
                        let below = &self.placed[k as usize];
                        let r = (at.row - below.placement.centre.row + 1) as usize;
                        let c = (at.col - below.placement.centre.col + 1) as usize;
                        below.codes[r * 3 + c]
                    }
                };
            }
        }
        self.bbox = self.placed.iter().fold(None, |bb, p| {
            let (r, c) = (p.placement.centre.row, p.placement.centre.col);
            Some(match bb {
                None => (r - 1, c - 1, r + 1, c + 1),
                Some((r0, c0, r1, c1)) => {
                    (r0.min(r - 1), c0.min(c - 1), r1.max(r + 1), c1.max(c + 1))
                }
            })
        });
        Some(pc)
    }

    /// Grows the dense window so the block around `centre` lies at least `MARGIN - 1` squares
    /// inside it.
    fn ensure_window(&mut self, centre: LatticePos) {
        let need = MARGIN;
        let (r0, c0) = (centre.row - 1 - need + 1, centre.col - 1 - need + 1);
        let (r1, c1) = (centre.row + 1 + need - 1, centre.col + 1 + need - 1);
        let fits = self.width > 0
            && r0 >= self.origin.row
            && c0 >= self.origin.col
            && r1 < self.origin.row + self.height as i32
            && c1 < self.origin.col + self.width as i32;
        if fits {
            return;
        }
        // Grow generously so a growing board reallocates only a few times.
        let grow = 8;
        let (nr0, nc0, nr1, nc1) = if self.width == 0 {
            (r0 - grow, c0 - grow, r1 + grow, c1 + grow)
        } else {
            let (or1, oc1) = (
                self.origin.row + self.height as i32 - 1,
                self.origin.col + self.width as i32 - 1,
            );
            (
                if r0 < self.origin.row {
                    r0 - grow
                } else {
                    self.origin.row
                },
                if c0 < self.origin.col {
                    c0 - grow
                } else {
                    self.origin.col
                },
                if r1 > or1 { r1 + grow } else { or1 },
                if c1 > oc1 { c1 + grow } else { oc1 },
            )
        };
        let (h, w) = ((nr1 - nr0 + 1) as usize, (nc1 - nc0 + 1) as usize);
        let mut top = vec![EMPTY; h * w];
        let mut stacks = vec![Vec::new(); h * w];
        for r in 0..self.height {
            for c in 0..self.width {
                let old = r * self.width + c;
                let nr = (self.origin.row + r as i32 - nr0) as usize;
                let nc = (self.origin.col + c as i32 - nc0) as usize;
                top[nr * w + nc] = self.top[old];
                stacks[nr * w + nc] = std::mem::take(&mut self.stacks[old]);
            }
        }
        self.origin = LatticePos::new(nr0, nc0);
        self.width = w;
        self.height = h;
        self.top = top;
        self.stacks = stacks;
    }

    /// Every legal (centre, turn) for `card` on this board, in order of centre row, column and
    /// turn.
    ///
    /// Only placements covering at least one square are listed: on an empty board the first
    /// card is free anywhere, and with no minimum (puzzle rules) a card touching nothing is
    /// legal anywhere too, so those unbounded cases are left to [`Board::check`].
    pub fn legal_moves(&self, set: &CamouflageSet, card: CardIdx) -> Vec<Move> {
        let mut out = Vec::new();
        self.legal_moves_into(set.card(card).face(self.side), &mut out);
        out
    }

    /// [`Board::legal_moves`] for a face, appending to `out` (reuses its allocation in hot
    /// loops).
    pub fn legal_moves_into(&self, face: &Face, out: &mut Vec<Move>) {
        let Some((r0, c0, r1, c1)) = self.bbox else {
            return;
        };
        let wild = self.rules.wild_centres;
        let min = self.rules.min_covered.max(1) as u32;
        // The eight outer squares of each turned face packed one byte each; the centre square is
        // judged on its own.
        let packed: [u64; 4] = Turn::ALL.map(|t| pack_outer(face.codes(t)));
        let w = self.width;
        let top = &self.top;
        // Candidate centres: every square whose block touches the occupied box. The window keeps
        // MARGIN ≥ 2 spare squares around it, so the block never leaves the arrays.
        for cr in r0 - 1..=r1 + 1 {
            let base_r = (cr - 1 - self.origin.row) as usize;
            for cc in c0 - 1..=c1 + 1 {
                let i = base_r * w + (cc - 1 - self.origin.col) as usize;
                let below = [
                    top[i],
                    top[i + 1],
                    top[i + 2],
                    top[i + w],
                    top[i + w + 1],
                    top[i + w + 2],
                    top[i + 2 * w],
                    top[i + 2 * w + 1],
                    top[i + 2 * w + 2],
                ];
                let mid = below[4];
                if !wild && mid != EMPTY {
                    continue;
                }
                let outer = [
                    below[0], below[1], below[2], below[3], below[5], below[6], below[7], below[8],
                ];
                let b = u64::from_le_bytes(outer);
                let occupied = nonzero_bytes(b);
                let covered = (occupied.count_ones() / 8) + (mid != EMPTY) as u32;
                if covered < min {
                    continue;
                }
                // Squares that must match exactly: occupied, and with wild centres not a centre.
                let mask = if wild {
                    occupied & nonzero_bytes(b ^ CENTRE_BYTES)
                } else {
                    occupied
                };
                for (t, &p) in packed.iter().enumerate() {
                    if (b ^ p) & mask == 0 {
                        out.push(Move {
                            centre: LatticePos::new(cr, cc),
                            turn: Turn::from_quarter_turns(t as i64),
                            covered: covered as u8,
                        });
                    }
                }
            }
        }
    }
}

const CENTRE_BYTES: u64 = u64::from_le_bytes([CENTRE; 8]);

fn pack_outer(codes: &[u8; 9]) -> u64 {
    u64::from_le_bytes([
        codes[0], codes[1], codes[2], codes[3], codes[5], codes[6], codes[7], codes[8],
    ])
}

/// 0xff in every byte of `x` that is not zero, 0 elsewhere.
fn nonzero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte is set iff the byte is non-zero (no carries cross bytes).
    let high = ((x & LOW7).wrapping_add(LOW7) | x) & !LOW7;
    (high >> 7) * 0xff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camouflage::testing::{small_set, uniform_set};
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::collections::BTreeSet;

    fn p(set: &CamouflageSet, id: &str, row: i32, col: i32, turn: Turn) -> Placement {
        Placement {
            card: set.card_by_id(id).unwrap(),
            centre: LatticePos::new(row, col),
            turn,
        }
    }

    #[test]
    fn nonzero_bytes_marks_each_non_zero_byte() {
        assert_eq!(nonzero_bytes(0), 0);
        assert_eq!(nonzero_bytes(0x0080_0001_ff00_7f00), 0x00ff_00ff_ff00_ff00);
    }

    #[test]
    fn first_card_is_free_and_the_second_needs_three_matching_squares() {
        let set = uniform_set();
        let side = SideIdx(0);
        let mut b = Board::new(side, PlacementRules::GAME);
        assert_eq!(
            b.check(&set, &p(&set, "a-1", 50, -7, Turn::R90)),
            Ok(Coverage { covered: 0 })
        );
        b.place(&set, p(&set, "a-1", 0, 0, Turn::R0));
        // Two columns apart: covers one column of three squares.
        assert_eq!(
            b.check(&set, &p(&set, "a-2", 0, 2, Turn::R0)),
            Ok(Coverage { covered: 3 })
        );
        // Diagonal: covers two squares only.
        assert_eq!(
            b.check(&set, &p(&set, "a-2", 1, 2, Turn::R0)),
            Err(Illegal {
                breaches: vec![Breach::TooFewCovered {
                    covered: 2,
                    required: 3
                }]
            })
        );
        // Not touching at all.
        assert!(matches!(
            b.check(&set, &p(&set, "a-2", 5, 5, Turn::R0)),
            Err(Illegal { ref breaches }) if breaches == &[Breach::TooFewCovered { covered: 0, required: 3 }]
        ));
    }

    #[test]
    fn centres_may_not_be_covered_nor_cover_anything() {
        let set = uniform_set();
        let mut b = Board::new(SideIdx(0), PlacementRules::GAME);
        b.place(&set, p(&set, "a-1", 0, 0, Turn::R0));
        // One column over: covers six squares including the first card's centre, and its own
        // centre lies on a square of the first card.
        let e = b.check(&set, &p(&set, "a-2", 0, 1, Turn::R0)).unwrap_err();
        assert!(e.breaches.contains(&Breach::CoversCentre {
            at: LatticePos::new(0, 0),
            placed: Square::Pattern(Key::new('a').unwrap()),
            below_card: 0
        }));
        assert!(e.breaches.contains(&Breach::CentreCovers {
            at: LatticePos::new(0, 1),
            below: Square::Pattern(Key::new('a').unwrap()),
            below_card: 0
        }));
        assert_eq!(e.breaches.len(), 2);
        // With wild centres the same placement is legal and covers six squares.
        let mut w = Board::new(SideIdx(0), PlacementRules::game(true));
        w.place(&set, p(&set, "a-1", 0, 0, Turn::R0));
        assert_eq!(
            w.check(&set, &p(&set, "a-2", 0, 1, Turn::R0)),
            Ok(Coverage { covered: 6 })
        );
        // Centre exactly on centre is also fine when wild.
        assert_eq!(
            w.check(&set, &p(&set, "a-2", 0, 0, Turn::R0)),
            Ok(Coverage { covered: 9 })
        );
    }

    #[test]
    fn covered_squares_must_show_the_same_pattern() {
        // small_set: x-1 = ["abc","d*e","fgh"], x-2 = ["cxx","e*x","hxx"].
        let set = small_set();
        let mut b = Board::new(SideIdx(0), PlacementRules::GAME);
        b.place(&set, p(&set, "x-1", 0, 0, Turn::R0));
        // x-2's left column c,e,h lies exactly on x-1's right column c,e,h.
        assert_eq!(
            b.check(&set, &p(&set, "x-2", 0, 2, Turn::R0)),
            Ok(Coverage { covered: 3 })
        );
        // Turned half-way its left column reads x,x,x: three mismatches.
        let e = b
            .check(&set, &p(&set, "x-2", 0, 2, Turn::R180))
            .unwrap_err();
        assert_eq!(e.breaches.len(), 3);
        assert_eq!(
            e.breaches[0],
            Breach::Mismatch {
                at: LatticePos::new(-1, 1),
                placed: Key::new('x').unwrap(),
                below: Key::new('c').unwrap(),
                below_card: 0
            }
        );
        assert!(e.to_string().contains("must show the same pattern"), "{e}");
    }

    #[test]
    fn later_cards_are_judged_against_what_is_visible_including_illegal_cards() {
        let set = small_set();
        let mut b = Board::new(SideIdx(0), PlacementRules::GAME);
        b.place(&set, p(&set, "x-1", 0, 0, Turn::R0));
        // Illegal: x-2 turned, on x-1's right column.
        assert!(!b.place(&set, p(&set, "x-2", 0, 2, Turn::R180)).is_legal());
        // x-1's right column is now hidden under x's; the legal-before placement now mismatches.
        assert_eq!(b.top(LatticePos::new(0, 1)).map(|t| t.0), Some(1));
        assert!(b.check(&set, &p(&set, "x-2", 0, 2, Turn::R0)).is_err());
        assert_eq!(b.stack(LatticePos::new(0, 1)).len(), 2);
        assert_eq!(
            b.stack(LatticePos::new(0, 1))[0],
            (0, Square::Pattern(Key::new('e').unwrap()))
        );
        b.pop();
        assert_eq!(b.stack(LatticePos::new(0, 1)).len(), 1);
        assert!(b.check(&set, &p(&set, "x-2", 0, 2, Turn::R0)).is_ok());
    }

    #[test]
    fn placed_cards_remember_what_lay_beneath() {
        let set = uniform_set();
        let mut b = Board::new(SideIdx(0), PlacementRules::GAME);
        b.place(&set, p(&set, "a-1", 0, 0, Turn::R0));
        b.place(&set, p(&set, "a-2", 0, 2, Turn::R0));
        let third = b.place(&set, p(&set, "a-3", 2, 0, Turn::R0)).clone();
        assert!(third.is_legal());
        assert_eq!(third.covered_squares(), 3);
        assert_eq!(third.cards_in_contact(), vec![0, 1]);
        let (origin, rows) = b.picture().unwrap();
        assert_eq!(origin, LatticePos::new(-1, -1));
        assert_eq!(rows, vec!["aaaaa", "a*a*a", "aaaaa", "a*a..", "aaa.."]);
    }

    /// Builds a board of `n` cards by random legal play from a seed.
    fn random_board(set: &CamouflageSet, rules: PlacementRules, n: usize, seed: u64) -> Board {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut board = Board::new(SideIdx(0), rules);
        let mut cards: Vec<CardIdx> = (0..set.cards().len() as u16).map(CardIdx).collect();
        cards.shuffle(&mut rng);
        let first = cards.pop().unwrap();
        board.place(
            set,
            Placement {
                card: first,
                centre: LatticePos::new(0, 0),
                turn: Turn::R0,
            },
        );
        while board.placed().len() < n {
            let Some(card) = cards.pop() else { break };
            let moves = board.legal_moves(set, card);
            let Some(&m) = moves.choose(&mut rng) else {
                continue;
            };
            board.place(set, m.placement(card));
        }
        board
    }

    fn brute_force(board: &Board, set: &CamouflageSet, card: CardIdx) -> BTreeSet<Move> {
        let mut out = BTreeSet::new();
        let (lo, hi) = board.bounds().unwrap();
        for row in lo.row - 2..=hi.row + 2 {
            for col in lo.col - 2..=hi.col + 2 {
                for turn in Turn::ALL {
                    let pl = Placement {
                        card,
                        centre: LatticePos::new(row, col),
                        turn,
                    };
                    if let Ok(c) = board.check(set, &pl) {
                        if c.covered >= 1 {
                            out.insert(Move {
                                centre: pl.centre,
                                turn,
                                covered: c.covered,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn generated_moves_are_exactly_the_legal_ones(
            seed in any::<u64>(), n in 1usize..12, wild in any::<bool>(), min in 0u8..4,
        ) {
            let set = crate::camouflage::testing::random_set(seed ^ 0x5eed, 2, 6, 3);
            let rules = PlacementRules { wild_centres: wild, min_covered: min };
            let board = random_board(&set, rules, n, seed);
            for c in 0..set.cards().len() as u16 {
                let card = CardIdx(c);
                let generated = board.legal_moves(&set, card);
                for m in &generated {
                    let pl = Placement { card, centre: m.centre, turn: m.turn };
                    prop_assert_eq!(board.check(&set, &pl), Ok(Coverage { covered: m.covered }));
                }
                let as_set: BTreeSet<Move> = generated.iter().copied().collect();
                prop_assert_eq!(as_set.len(), generated.len());
                prop_assert_eq!(as_set, brute_force(&board, &set, card));
            }
        }
    }
}
