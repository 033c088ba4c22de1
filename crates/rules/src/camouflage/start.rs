//! The starting board: three cards of one deck that fit together.

use serde::Serialize;
use thiserror::Error;

use super::board::{Board, LatticePos, Placement, PlacementRules};
use super::set::{CamouflageSet, DeckIdx, SideIdx};
use crate::grid::Turn;

/// No three cards of the deck fit together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[error("no three cards of deck {deck_id:?} fit together on this side: pick another deck for the starting board")]
pub struct NoStartingBoard {
    pub deck: DeckIdx,
    pub deck_id: String,
}

/// Finds three cards of `deck` that fit together: the first at the origin unturned, each next
/// one legally placed (at least three matching squares) on the cards before it.
///
/// Deterministic: cards are tried in deck order and placements in move-generation order, and
/// the first fit is returned.
pub fn find_starting_board(
    set: &CamouflageSet,
    deck: DeckIdx,
    side: SideIdx,
    wild_centres: bool,
) -> Result<[Placement; 3], NoStartingBoard> {
    let cards = &set.deck(deck).cards;
    let mut board = Board::new(side, PlacementRules::game(wild_centres));
    for &first in cards {
        let p1 = Placement {
            card: first,
            centre: LatticePos::new(0, 0),
            turn: Turn::R0,
        };
        board.place(set, p1);
        for &second in cards.iter().filter(|&&c| c != first) {
            for m in board.legal_moves(set, second) {
                let p2 = Placement {
                    card: second,
                    centre: m.centre,
                    turn: m.turn,
                };
                board.place(set, p2);
                for &third in cards.iter().filter(|&&c| c != first && c != second) {
                    if let Some(m3) = board.legal_moves(set, third).first() {
                        let p3 = Placement {
                            card: third,
                            centre: m3.centre,
                            turn: m3.turn,
                        };
                        return Ok([p1, p2, p3]);
                    }
                }
                board.pop();
            }
        }
        board.pop();
    }
    Err(NoStartingBoard {
        deck,
        deck_id: set.deck(deck).id.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camouflage::testing::{set_of, small_set};

    #[test]
    fn finds_three_fitting_cards_deterministically() {
        // y-3's left column is y-2's right column; y-1's right column is y-2's left column.
        let set = set_of(
            "abcdefghijk",
            &[(
                "y",
                vec![
                    ("y-1".into(), ["kka".into(), "k*b".into(), "kkc".into()]),
                    ("y-2".into(), ["abd".into(), "b*e".into(), "cfg".into()]),
                    ("y-3".into(), ["dhh".into(), "e*h".into(), "ghh".into()]),
                ],
            )],
        );
        let side = SideIdx(0);
        let deck = set.deck_by_id("y").unwrap();
        let found = find_starting_board(&set, deck, side, false).unwrap();
        assert_eq!(found, find_starting_board(&set, deck, side, false).unwrap());
        let mut board = Board::new(side, PlacementRules::GAME);
        let mut cards: Vec<_> = found.iter().map(|p| p.card).collect();
        for p in found {
            assert!(board.place(&set, p).is_legal());
        }
        assert!(board.placed()[1].covered_squares() >= 3);
        assert!(board.placed()[2].covered_squares() >= 3);
        cards.sort();
        cards.dedup();
        assert_eq!(cards.len(), 3);
    }

    #[test]
    fn a_deck_without_a_fit_is_an_error() {
        // Deck x has two cards only.
        let set = small_set();
        let e = find_starting_board(&set, DeckIdx(0), SideIdx(0), false).unwrap_err();
        assert_eq!(e.deck_id, "x");
        assert!(e.to_string().contains("no three cards"), "{e}");
        // Three cards with no pattern in common.
        let set = set_of(
            "abc",
            &[(
                "v",
                ["a", "b", "c"]
                    .iter()
                    .map(|k| {
                        (
                            format!("v-{k}"),
                            [k.repeat(3), format!("{k}*{k}"), k.repeat(3)],
                        )
                    })
                    .collect(),
            )],
        );
        assert!(find_starting_board(&set, DeckIdx(0), SideIdx(0), false).is_err());
        // With wild centres two of them still do not share three squares.
        assert!(find_starting_board(&set, DeckIdx(0), SideIdx(0), true).is_err());
    }
}
