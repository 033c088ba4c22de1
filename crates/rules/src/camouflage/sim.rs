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
use super::game::{History, Play, Player};
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

/// Plays a game of Not My Stack! with random moves: each player lays a random card of their
/// deck, at a random turn, at their own location (centre (0, 0) of that location's table) and
/// draws three of the other five; then players take turns laying a random card of their hand
/// at a random legal place on another player's location that is not frozen (its owner is not
/// out), refilling their hand. With chance `mistakes` a turn's card is laid wrongly instead:
/// illegally against a location's cards, or (one time in five) legally on the player's own
/// location. The game ends when nobody can play. Every random choice comes from `seed`.
pub fn simulate_not_my_stack(
    set: &CamouflageSet,
    side: SideIdx,
    wild_centres: bool,
    players: &[DeckIdx],
    seed: u64,
    mistakes: f64,
) -> History {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = players.len();
    let mut boards: Vec<Board> = (0..n)
        .map(|_| Board::new(side, PlacementRules::game(wild_centres)))
        .collect();
    let mut decks: Vec<Vec<CardIdx>> = players
        .iter()
        .map(|&d| {
            let mut cards = set.deck(d).cards.clone();
            cards.shuffle(&mut rng);
            cards
        })
        .collect();
    let mut start = Vec::with_capacity(n);
    for (p, deck) in decks.iter_mut().enumerate() {
        let Some(card) = deck.pop() else { continue };
        let placement = Placement {
            card,
            centre: LatticePos::new(0, 0),
            turn: Turn::ALL[rng.gen_range(0..4)],
        };
        boards[p].place(set, placement);
        start.push(placement);
    }
    let mut hands: Vec<Vec<CardIdx>> = decks
        .iter_mut()
        .map(|d| d.split_off(d.len().saturating_sub(3)))
        .collect();
    let mut plays = Vec::new();
    let mut moves = Vec::new();
    let out = |hands: &[Vec<CardIdx>], p: usize| hands[p].is_empty();
    loop {
        let mut progress = false;
        for p in 0..n {
            if out(&hands, p) {
                continue;
            }
            let open: Vec<usize> = (0..n).filter(|&l| l != p && !out(&hands, l)).collect();
            let mut chosen: Option<(usize, usize, Placement)> = None;
            if mistakes > 0.0 && rng.gen_bool(mistakes.min(1.0)) {
                if rng.gen_bool(0.2) {
                    let mut own = Vec::new();
                    for (h, &card) in hands[p].iter().enumerate() {
                        moves.clear();
                        boards[p].legal_moves_into(set.face(card, side), &mut moves);
                        own.extend(moves.iter().map(|m| (h, p, m.placement(card))));
                    }
                    chosen = own.choose(&mut rng).copied();
                } else if let Some(&l) = open.choose(&mut rng) {
                    chosen = illegal_play(set, &boards[l], &hands[p], &mut rng)
                        .map(|(h, placement)| (h, l, placement));
                }
            }
            if chosen.is_none() {
                let mut options = Vec::new();
                for &l in &open {
                    for (h, &card) in hands[p].iter().enumerate() {
                        moves.clear();
                        boards[l].legal_moves_into(set.face(card, side), &mut moves);
                        options.extend(moves.iter().map(|m| (h, l, m.placement(card))));
                    }
                }
                chosen = options.choose(&mut rng).copied();
            }
            let Some((h, l, placement)) = chosen else {
                continue;
            };
            boards[l].place(set, placement);
            hands[p].swap_remove(h);
            if let Some(next) = decks[p].pop() {
                hands[p].push(next);
            }
            plays.push(Play {
                player: p,
                card: placement.card,
                centre: placement.centre,
                turn: placement.turn,
                time_ms: None,
                location: Some(l),
            });
            progress = true;
        }
        if !progress {
            break;
        }
    }
    History {
        side,
        players: players
            .iter()
            .map(|&d| Player {
                name: set.deck(d).id.clone(),
                deck: d,
            })
            .collect(),
        start,
        plays,
    }
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

    #[test]
    fn not_my_stack_games_play_on_other_locations_until_nobody_can() {
        use crate::camouflage::game::{score, Fault, GameRules, Mode};
        let set = uniform_set();
        let players: Vec<DeckIdx> = (0..4).map(DeckIdx).collect();
        let h = simulate_not_my_stack(&set, SideIdx(0), false, &players, 5, 0.0);
        assert_eq!(h.start.len(), 4);
        // With every square alike there is always room on an open location: everyone but
        // the last player out plays all five cards.
        let played: Vec<usize> = (0..4)
            .map(|p| h.plays.iter().filter(|q| q.player == p).count())
            .collect();
        assert!(
            played.iter().filter(|&&k| k == 5).count() >= 3,
            "{played:?}"
        );
        assert!(h.plays.iter().all(|q| q.location != Some(q.player)));
        let rules = GameRules {
            mode: Mode::NotMyStack,
            wild_centres: false,
            timer: Default::default(),
        };
        let report = score(&set, &rules, &h).unwrap();
        assert!(report.plays.iter().all(|r| r.faults.is_empty()));
        assert_eq!(
            h,
            simulate_not_my_stack(&set, SideIdx(0), false, &players, 5, 0.0)
        );

        let hurried = simulate_not_my_stack(&set, SideIdx(0), false, &players, 5, 0.4);
        let report = score(&set, &rules, &hurried).unwrap();
        let faults: Vec<&Fault> = report.plays.iter().flat_map(|r| &r.faults).collect();
        assert!(
            faults.iter().any(|f| matches!(f, Fault::Illegal(_))),
            "{faults:?}"
        );
        assert!(
            faults.iter().any(|f| matches!(f, Fault::OwnLocation)),
            "{faults:?}"
        );
    }
}
