//! Seeded random play, for the reference-set generator's playability check, benchmarks and
//! tests. Deterministic: the same set, side and seed give the same table.
//!
//! The functions take a `u64` seed rather than a generator, so callers need no `rand` types:
//! each call seeds its own [`ChaCha8Rng`] with [`SeedableRng::seed_from_u64`]. The rules crate
//! reads no clock and no thread-local generator, so a seed always gives the same result.
//! (Shuffles and choices would only change with a new `rand`/`rand_chacha` minor version;
//! the reference set's generator would then need a rerun.)

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::board::{Board, LatticePos, Placement, PlacementRules};
use super::set::{CamouflageSet, CardIdx, DeckIdx, SideIdx};
use super::start::{find_starting_board, NoStartingBoard};
use crate::grid::Turn;

/// Result of [`simulate_game`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Simulation {
    /// Cards each player got down.
    pub placed: Vec<usize>,
    /// Cards the players held in all.
    pub dealt: usize,
}

/// Plays a game with random legal moves: the starting board from `start_deck`, one player per
/// deck in `players`, hands of three refilled after each play, players taking turns (the
/// real game has none; turns make it deterministic). Each turn a player lays a random card of
/// their hand at a random legal place; the game ends when nobody can play. Every random
/// choice comes from `seed`.
pub fn simulate_game(
    set: &CamouflageSet,
    side: SideIdx,
    wild_centres: bool,
    start_deck: DeckIdx,
    players: &[DeckIdx],
    seed: u64,
) -> Result<(Board, Simulation), NoStartingBoard> {
    simulate_game_with_mistakes(set, side, wild_centres, start_deck, players, seed, 0.0)
}

/// As [`simulate_game`], but each turn, with chance `mistakes`, the player lays a card of
/// their hand illegally, as a hurried player does: overlapping one to five squares of the
/// cards on the table and breaking a placement rule. With no mistakes it plays exactly as
/// [`simulate_game`] (no extra random draws).
pub fn simulate_game_with_mistakes(
    set: &CamouflageSet,
    side: SideIdx,
    wild_centres: bool,
    start_deck: DeckIdx,
    players: &[DeckIdx],
    seed: u64,
    mistakes: f64,
) -> Result<(Board, Simulation), NoStartingBoard> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::new(side, PlacementRules::game(wild_centres));
    for p in find_starting_board(set, start_deck, side, wild_centres)? {
        board.place(set, p);
    }
    let mut decks: Vec<Vec<CardIdx>> = players
        .iter()
        .map(|&d| {
            let mut cards = set.deck(d).cards.clone();
            cards.shuffle(&mut rng);
            cards
        })
        .collect();
    let dealt = decks.iter().map(Vec::len).sum();
    let mut hands: Vec<Vec<CardIdx>> = decks
        .iter_mut()
        .map(|d| d.split_off(d.len().saturating_sub(3)))
        .collect();
    let mut placed = vec![0; players.len()];
    let mut moves = Vec::new();
    loop {
        let mut progress = false;
        for p in 0..players.len() {
            if mistakes > 0.0 && rng.gen_bool(mistakes.min(1.0)) {
                if let Some((h, placement)) = illegal_play(set, &board, &hands[p], &mut rng) {
                    board.place(set, placement);
                    hands[p].swap_remove(h);
                    if let Some(next) = decks[p].pop() {
                        hands[p].push(next);
                    }
                    placed[p] += 1;
                    progress = true;
                    continue;
                }
            }
            let mut options = Vec::new();
            for (h, &card) in hands[p].iter().enumerate() {
                moves.clear();
                board.legal_moves_into(set.face(card, side), &mut moves);
                options.extend(moves.iter().map(|m| (h, card, *m)));
            }
            let Some(&(h, card, m)) = options.choose(&mut rng) else {
                continue;
            };
            board.place(set, m.placement(card));
            hands[p].swap_remove(h);
            if let Some(next) = decks[p].pop() {
                hands[p].push(next);
            }
            placed[p] += 1;
            progress = true;
        }
        if !progress {
            break;
        }
    }
    Ok((board, Simulation { placed, dealt }))
}

/// A random illegal placement of a card of `hand` that overlaps one to five squares of the
/// cards on the table; `None` when there is none.
fn illegal_play(
    set: &CamouflageSet,
    board: &Board,
    hand: &[CardIdx],
    rng: &mut ChaCha8Rng,
) -> Option<(usize, Placement)> {
    let (lo, hi) = board.bounds()?;
    let mut options = Vec::new();
    for (h, &card) in hand.iter().enumerate() {
        for row in lo.row - 2..=hi.row + 2 {
            for col in lo.col - 2..=hi.col + 2 {
                for turn in Turn::ALL {
                    let placement = Placement {
                        card,
                        centre: LatticePos::new(row, col),
                        turn,
                    };
                    let covered = placement
                        .squares()
                        .iter()
                        .filter(|&&q| board.top(q).is_some())
                        .count();
                    if (1..=5).contains(&covered) && board.check(set, &placement).is_err() {
                        options.push((h, placement));
                    }
                }
            }
        }
    }
    options.choose(rng).copied()
}

/// A table of up to `cards` cards built by random legal play of every deck's cards in a
/// random order (a starting board of `start_deck` first); cards that fit nowhere when their
/// turn comes are tried again in later rounds. Every random choice comes from `seed`.
pub fn random_board(
    set: &CamouflageSet,
    side: SideIdx,
    wild_centres: bool,
    start_deck: DeckIdx,
    cards: usize,
    seed: u64,
) -> Result<Board, NoStartingBoard> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut board = Board::new(side, PlacementRules::game(wild_centres));
    let start = find_starting_board(set, start_deck, side, wild_centres)?;
    for p in start {
        board.place(set, p);
    }
    let mut rest: Vec<CardIdx> = (0..set.cards().len() as u16)
        .map(CardIdx)
        .filter(|c| !start.iter().any(|p| p.card == *c))
        .collect();
    rest.shuffle(&mut rng);
    let mut moves = Vec::new();
    while board.placed().len() < cards {
        let before = rest.len();
        let mut i = 0;
        while i < rest.len() && board.placed().len() < cards {
            moves.clear();
            board.legal_moves_into(set.face(rest[i], side), &mut moves);
            let Some(&m) = moves.choose(&mut rng) else {
                i += 1;
                continue;
            };
            let card = rest.remove(i);
            board.place(set, m.placement(card));
        }
        if rest.len() == before {
            break;
        }
    }
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camouflage::testing::uniform_set;

    #[test]
    fn random_play_is_legal_and_deterministic() {
        let set = uniform_set();
        let players: Vec<DeckIdx> = (1..4).map(DeckIdx).collect();
        let (board, sim) = simulate_game(&set, SideIdx(0), false, DeckIdx(0), &players, 9).unwrap();
        assert_eq!(sim.dealt, 18);
        // With every square alike there is always room: everyone plays everything.
        assert_eq!(sim.placed, vec![6, 6, 6]);
        assert!(board.placed().iter().all(|p| p.is_legal()));
        let (again, _) = simulate_game(&set, SideIdx(0), false, DeckIdx(0), &players, 9).unwrap();
        assert_eq!(
            board
                .placed()
                .iter()
                .map(|p| p.placement)
                .collect::<Vec<_>>(),
            again
                .placed()
                .iter()
                .map(|p| p.placement)
                .collect::<Vec<_>>()
        );
        let b = random_board(&set, SideIdx(0), false, DeckIdx(0), 40, 3).unwrap();
        assert_eq!(b.placed().len(), 40);
        assert!(b.placed().iter().all(|p| p.is_legal()));
    }

    #[test]
    fn hurried_players_lay_some_cards_illegally_next_to_the_others() {
        let set = uniform_set();
        let players: Vec<DeckIdx> = (1..4).map(DeckIdx).collect();
        let (board, sim) =
            simulate_game_with_mistakes(&set, SideIdx(0), false, DeckIdx(0), &players, 9, 0.3)
                .unwrap();
        let illegal: Vec<_> = board.placed().iter().filter(|p| !p.is_legal()).collect();
        assert!(!illegal.is_empty());
        assert!(illegal.len() < board.placed().len() / 2);
        assert_eq!(sim.placed.iter().sum::<usize>() + 3, board.placed().len());
        // Each mistake was laid against the table: touching it, not lying apart.
        for p in &illegal {
            assert!((1..=5).contains(&p.covered_squares()), "{:?}", p.placement);
        }
        let (again, _) =
            simulate_game_with_mistakes(&set, SideIdx(0), false, DeckIdx(0), &players, 9, 0.3)
                .unwrap();
        assert_eq!(again.placed().len(), board.placed().len());
    }
}
