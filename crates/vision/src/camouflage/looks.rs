//! What each square of a board looked like, to tell which changed in the next photo.
//!
//! Following a board into the next photo, the search for new centres tries every square
//! within two of a centre, settling each: most of a followed photo's time. A card laid since
//! changes the squares it covers; where a square and all its neighbours look as they did, no
//! card was laid there, and no centre can have appeared.

use std::collections::BTreeMap;

use tablejudge_rules::camouflage::LatticePos;

use super::lattice::BoardLattice;
use crate::rectify::apply_homography;
use crate::refine::Lookup;

/// Samples a side of a square: 6 × 6, each ninth of the square (3 × 3) the mean of 2 × 2.
const SAMPLES: usize = 6;
/// The samples keep this share of a side from the square's edges: there the blurred edge of
/// the square beside it shows, by how much depending on how exactly the lattice fits.
const INSET: f32 = 0.15;

/// A square's look: the mean colour of each of its ninths, row by row. A centre's light ring
/// and dark symbol, a pattern's stripes and the table's motifs each show in how the ninths
/// differ, not only in the square's mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SquareLook([[f32; 3]; 9]);

impl SquareLook {
    /// The look of square `pos` on `lattice`; `None` when part of it is outside the photo.
    pub(crate) fn measure(
        lookup: &Lookup,
        lattice: &BoardLattice,
        pos: LatticePos,
    ) -> Option<SquareLook> {
        let h = lattice.square(pos);
        let mut ninths = [[0.0f32; 3]; 9];
        for i in 0..SAMPLES {
            for j in 0..SAMPLES {
                let at = [
                    INSET + (1.0 - 2.0 * INSET) * (j as f32 + 0.5) / SAMPLES as f32,
                    INSET + (1.0 - 2.0 * INSET) * (i as f32 + 0.5) / SAMPLES as f32,
                ];
                let px = lookup.rgb(apply_homography(&h, at)?)?;
                let ninth = &mut ninths[(i / 2) * 3 + j / 2];
                for c in 0..3 {
                    ninth[c] += px[c] / 4.0;
                }
            }
        }
        Some(SquareLook(ninths))
    }

    /// Whether `self` and `other` look like different things: a ninth differs in a channel
    /// by more than the light and the sensor move one square between two photos of the same
    /// board. Judging "the same" where a card was laid would miss it; judging "different"
    /// where none was only costs the time this saves.
    pub(crate) fn differs(&self, other: &SquareLook) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| {
            (0..3).any(|c| (a[c] - b[c]).abs() > CHANGE_LEVELS + CHANGE_SHARE * a[c].max(b[c]))
        })
    }
}

/// A ninth's channel changing by more than this many levels (of 255) plus
/// [`CHANGE_SHARE`] of its value is a change on the table, not noise or a shift of exposure.
const CHANGE_LEVELS: f32 = 20.0;
const CHANGE_SHARE: f32 = 0.15;

/// The looks of a board's squares, by lattice square.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SquareLooks(pub(crate) BTreeMap<LatticePos, SquareLook>);

/// How far from a centre squares' looks are kept: a new card's centre lies within two
/// squares of a centre (it overlaps a card), and is tried when it or a neighbour changed.
const LOOKS_REACH: i32 = 3;

impl SquareLooks {
    /// The looks of every square within [`LOOKS_REACH`] of a centre at `centres`.
    pub(crate) fn around<'a>(
        lookup: &Lookup,
        lattice: &BoardLattice,
        centres: impl IntoIterator<Item = &'a LatticePos>,
    ) -> SquareLooks {
        let mut looks = BTreeMap::new();
        for c in centres {
            for dr in -LOOKS_REACH..=LOOKS_REACH {
                for dc in -LOOKS_REACH..=LOOKS_REACH {
                    let pos = c.offset(dr, dc);
                    if looks.contains_key(&pos) {
                        continue;
                    }
                    if let Some(look) = SquareLook::measure(lookup, lattice, pos) {
                        looks.insert(pos, look);
                    }
                }
            }
        }
        SquareLooks(looks)
    }

    pub(crate) fn get(&self, pos: LatticePos) -> Option<&SquareLook> {
        self.0.get(&pos)
    }
}
