//! Camouflage legality on the shipped reference set (models/camouflage/reference.json).
//!
//! From the input: a board, either from `random_board` (side, wild centres, starting deck,
//! card count, seed) or laid card by card from the input (any placements, illegal ones too:
//! an illegal card stays on the table), then more cards laid on it; then probes.
//! Checked:
//! - every move `legal_moves` gives passes `check`, with the same number of covered squares;
//! - a probed placement (near the cards, any card and turn) is among `legal_moves` exactly
//!   when `check` says it is legal and it covers a square (`legal_moves` leaves out cards
//!   touching nothing, legal only on an empty table or with no minimum);
//! - `place` records the verdict `check` gave, and `pop` puts the table back as it was.

#![no_main]

use std::sync::LazyLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tablejudge_rules::camouflage::{
    random_board, Board, CamouflageSet, CardIdx, DeckIdx, LatticePos, Move, Placement,
    PlacementRules, SideIdx,
};
use tablejudge_rules::grid::Turn;

const REFERENCE: &str = include_str!("../../models/camouflage/reference.json");

static SET: LazyLock<CamouflageSet> = LazyLock::new(|| {
    CamouflageSet::from_json(REFERENCE, "reference.json").expect("reference set loads")
});

/// Cards laid from the input at most, and probes per input.
const MAX_LAID: usize = 24;
const MAX_PROBES: usize = 48;
/// Most cards `random_board` is asked for.
const MAX_RANDOM_CARDS: usize = 20;

#[derive(Arbitrary, Debug)]
enum Start {
    Random {
        deck: u8,
        cards: u8,
        seed: u64,
    },
    /// An empty table with these rules (min_covered taken modulo 10).
    Empty {
        min_covered: u8,
    },
}

/// A card, where its centre goes (see `placement`), and a turn.
#[derive(Arbitrary, Debug, Clone, Copy)]
struct Probe {
    card: u8,
    row: i8,
    col: i8,
    turn: u8,
}

#[derive(Arbitrary, Debug)]
struct Input {
    side: u8,
    wild: bool,
    start: Start,
    /// Cards laid after the start, legal or not.
    laid: Vec<Probe>,
    /// Cards laid at one of their legal moves (index into the list), when they have one.
    legal: Vec<(u8, u16)>,
    probes: Vec<Probe>,
}

fn placement(set: &CamouflageSet, board: &Board, p: Probe) -> Placement {
    let (lo, hi) = board
        .bounds()
        .unwrap_or((LatticePos::new(-1, -1), LatticePos::new(1, 1)));
    // Mostly a centre on or up to 3 squares around the cards' bounding box (a card laid there
    // grows the box by a few squares at most); now and then up to 42 squares from the origin,
    // where random play starts. Never further: the table is stored densely over the box and
    // move generation scans all of it, so far cards only slow every input down.
    let at = |x: i8, lo: i32, hi: i32| {
        if x.unsigned_abs() > 100 {
            i32::from(x) / 3
        } else {
            lo - 3 + i32::from(x).rem_euclid(hi - lo + 7)
        }
    };
    Placement {
        card: CardIdx(u16::from(p.card) % set.cards().len() as u16),
        centre: LatticePos::new(at(p.row, lo.row, hi.row), at(p.col, lo.col, hi.col)),
        turn: Turn::from_quarter_turns(i64::from(p.turn)),
    }
}

/// Lays `p` and checks the recorded verdict against `check`, and that `pop` undoes it (the
/// squares under the card and the bounds; the rest of the table is not touched).
fn lay(set: &CamouflageSet, board: &mut Board, p: Placement) {
    let verdict = board.check(set, &p);
    let under = |board: &Board| p.squares().map(|at| board.stack(at));
    let before = (under(board), board.bounds());
    let count = board.placed().len();
    let placed = board.place(set, p);
    assert_eq!(placed.verdict, verdict, "place and check disagree on {p:?}");
    assert_eq!(placed.placement, p);
    if let Ok(c) = &verdict {
        assert_eq!(placed.covered_squares(), c.covered);
    }
    let popped = board.pop().expect("a card was just laid");
    assert_eq!(popped.placement, p);
    assert_eq!(board.placed().len(), count);
    assert_eq!(
        (under(board), board.bounds()),
        before,
        "pop did not restore the table"
    );
    board.place(set, p);
}

fuzz_target!(|input: Input| {
    let set = &*SET;
    let side = SideIdx(input.side % set.sides().len() as u8);
    let mut board = match input.start {
        Start::Random { deck, cards, seed } => {
            let deck = DeckIdx(u16::from(deck) % set.decks().len() as u16);
            let cards = usize::from(cards) % (MAX_RANDOM_CARDS + 1);
            match random_board(set, side, input.wild, deck, cards, seed) {
                Ok(board) => {
                    assert!(
                        board.placed().iter().all(|p| p.is_legal()),
                        "random play is legal"
                    );
                    board
                }
                Err(e) => return drop(e.to_string()),
            }
        }
        Start::Empty { min_covered } => Board::new(
            side,
            PlacementRules {
                wild_centres: input.wild,
                min_covered: min_covered % 10,
            },
        ),
    };
    for &p in input.laid.iter().take(MAX_LAID) {
        let p = placement(set, &board, p);
        lay(set, &mut board, p);
    }
    for &(card, pick) in input.legal.iter().take(MAX_LAID) {
        let card = CardIdx(u16::from(card) % set.cards().len() as u16);
        let moves = board.legal_moves(set, card);
        if let Some(m) = moves.get(usize::from(pick) % moves.len().max(1)) {
            let p = m.placement(card);
            assert!(board.check(set, &p).is_ok());
            lay(set, &mut board, p);
        }
    }

    // Every generated move is legal, with the coverage it claims (once per card).
    let mut moves_of: Vec<(CardIdx, Vec<Move>)> = Vec::new();
    for probe in input.probes.iter().take(MAX_PROBES) {
        let p = placement(set, &board, *probe);
        let moves = match moves_of.iter().position(|(c, _)| *c == p.card) {
            Some(i) => &moves_of[i].1,
            None => {
                let moves = board.legal_moves(set, p.card);
                let mut sorted = moves.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted, moves, "moves not in order or repeated");
                for m in &moves {
                    let verdict = board.check(set, &m.placement(p.card));
                    assert_eq!(
                        verdict.as_ref().map(|c| c.covered),
                        Ok(m.covered),
                        "generated move {m:?} of card {:?}: {verdict:?}",
                        p.card
                    );
                }
                moves_of.push((p.card, moves));
                &moves_of[moves_of.len() - 1].1
            }
        };
        // A probe is generated exactly when it is legal and covers something.
        let verdict = board.check(set, &p);
        let generated = moves
            .iter()
            .find(|m| m.centre == p.centre && m.turn == p.turn);
        let legal_touching = matches!(verdict, Ok(c) if c.covered > 0);
        assert_eq!(
            generated.is_some(),
            legal_touching,
            "probe {p:?}: check says {verdict:?}, legal_moves has {generated:?}"
        );
        if board.is_empty() {
            assert!(verdict.is_ok(), "the first card is free: {verdict:?}");
        }
    }
});
