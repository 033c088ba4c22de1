//! The Not My Stack! tracker against readings made from rule-crate games: every location's
//! board in each photo, placed where that location lies in the picture.

use tablejudge_rules::camouflage::{
    score, simulate_not_my_stack, Board, CamouflageSet, DeckIdx, Fault, GameRules, History, Mode,
    PlacementRules, SideIdx, TimerLevel,
};

use super::*;
use crate::camouflage::test_support::{reading_of, set};
use crate::camouflage::BoardLattice;

const SQUARE: f32 = 40.0;
const RULES: GameRules = GameRules {
    mode: Mode::NotMyStack,
    wild_centres: false,
    timer: TimerLevel::Beginners,
};

/// The reading of location `l`'s table, its squares placed in the photo at a spot of their
/// own (locations lie far apart).
fn located(board: &Board, l: usize) -> CamouflageReading {
    let mut r = reading_of(board, 0, |_, _, ch| ch);
    let (origin, _) = board.picture().unwrap();
    let x0 = 2000.0 * l as f32 + (origin.col - 1) as f32 * SQUARE;
    let y0 = 500.0 + (origin.row - 1) as f32 * SQUARE;
    for c in &mut r.centres {
        c.px = [x0 + c.col as f32 * SQUARE, y0 + c.row as f32 * SQUARE];
    }
    let (w, h) = (r.cols as f32 * SQUARE, r.rows as f32 * SQUARE);
    let (x, y) = (x0 - SQUARE / 2.0, y0 - SQUARE / 2.0);
    r.corners = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
    // Lattice square (row, col) has its middle at (x0 + col, y0 + row) squares.
    let unit = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let to = unit.map(|[c, r]| [x0 + c * SQUARE, y0 + r * SQUARE]);
    r.lattice = crate::geom::homography_4(&unit, &to).and_then(BoardLattice::new);
    r
}

/// Every location's table at the start and after each play.
fn tables(set: &CamouflageSet, h: &History) -> Vec<Vec<Board>> {
    let mut boards: Vec<Board> = h
        .start
        .iter()
        .map(|&p| {
            let mut b = Board::new(h.side, PlacementRules::GAME);
            b.place(set, p);
            b
        })
        .collect();
    let mut photos = vec![boards.clone()];
    for play in &h.plays {
        let l = play.location.unwrap();
        boards[l].place(
            set,
            tablejudge_rules::camouflage::Placement {
                card: play.card,
                centre: play.centre,
                turn: play.turn,
            },
        );
        photos.push(boards.clone());
    }
    photos
}

fn game(seed: u64, mistakes: f64) -> (CamouflageSet, History) {
    let set = set();
    let decks: Vec<DeckIdx> = (1..4).map(DeckIdx).collect();
    let h = simulate_not_my_stack(&set, SideIdx(0), false, &decks, seed, mistakes);
    (set, h)
}

/// What a history scores as: every player's score, the winners, each play's faults (by
/// kind: the squares a fault names are in the replay's own lattice).
fn outcome(set: &CamouflageSet, h: &History) -> (Vec<u32>, Vec<usize>, Vec<Vec<String>>) {
    let r = score(set, &RULES, h).unwrap();
    let kind = |f: &Fault| {
        let text = format!("{f:?}");
        text.split([' ', '(', '{'])
            .next()
            .unwrap_or_default()
            .to_string()
    };
    (
        r.players.iter().map(|p| p.score).collect(),
        r.winners,
        r.plays
            .iter()
            .map(|p| p.faults.iter().map(kind).collect())
            .collect(),
    )
}

fn replay(set: &CamouflageSet, photos: &[Vec<CamouflageReading>]) -> LocationsReplay {
    let mut tracker = LocationsTracker::new(set, SideIdx(0), PlacementRules::GAME);
    for boards in photos {
        tracker.observe(boards);
    }
    tracker.finish()
}

#[test]
fn a_photo_after_each_card_replays_every_location() {
    let (set, truth) = game(3, 0.3);
    let expected = outcome(&set, &truth);
    assert!(
        expected.2.iter().any(|f| !f.is_empty()),
        "the game has a fault to find"
    );
    let photos: Vec<Vec<CamouflageReading>> = tables(&set, &truth)
        .iter()
        .enumerate()
        .map(|(i, boards)| {
            let mut read: Vec<CamouflageReading> = boards
                .iter()
                .enumerate()
                .map(|(l, b)| located(b, l))
                .collect();
            // The reader lists boards by size, not by location.
            if i % 2 == 1 {
                read.reverse();
            }
            read
        })
        .collect();
    let replay = replay(&set, &photos);
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
    assert_eq!(replay.locations.len(), 3);
    let (history, _) = replay.history(&set, SideIdx(0)).unwrap();
    let decks = |h: &History| h.players.iter().map(|p| p.deck).collect::<Vec<_>>();
    assert_eq!(decks(&history), decks(&truth));
    let plays = |h: &History| {
        h.plays
            .iter()
            .map(|p| (p.player, p.card, p.location, p.turn))
            .collect::<Vec<_>>()
    };
    assert_eq!(plays(&history), plays(&truth));
    assert_eq!(outcome(&set, &history), expected);
    assert!(replay.order_doubts(&set, SideIdx(0), &RULES).is_empty());
}

#[test]
fn a_location_out_of_a_photo_is_skipped_there_and_caught_up_later() {
    let (set, truth) = game(4, 0.0);
    let mut photos: Vec<Vec<CamouflageReading>> = tables(&set, &truth)
        .iter()
        .map(|boards| {
            boards
                .iter()
                .enumerate()
                .map(|(l, b)| located(b, l))
                .collect()
        })
        .collect();
    // A hand over the location the fourth play went to, in the photo after it.
    let l = truth.plays[3].location.unwrap();
    photos[4].retain(|r| {
        r.centres[0].px[0] < 2000.0 * l as f32 - 100.0
            || r.centres[0].px[0] > 2000.0 * l as f32 + 1900.0
    });
    assert_eq!(photos[4].len(), 2);
    let replay = replay(&set, &photos);
    let FrameOutcome::Skipped { reason } = &replay.locations[l].replay.frames[4] else {
        panic!("{:?}", replay.locations[l].replay.frames[4]);
    };
    assert!(reason.contains("not found in the photo"), "{reason}");
    let (history, _) = replay.history(&set, SideIdx(0)).unwrap();
    let mut found: Vec<_> = history.plays.iter().map(|p| p.card).collect();
    let mut played: Vec<_> = truth.plays.iter().map(|p| p.card).collect();
    found.sort();
    played.sort();
    assert_eq!(found, played);
}

#[test]
fn a_location_never_seen_leaves_its_owners_cards_unplaced() {
    let (set, truth) = game(5, 0.0);
    let photos: Vec<Vec<CamouflageReading>> = tables(&set, &truth)
        .iter()
        .map(|boards| {
            boards
                .iter()
                .enumerate()
                .skip(1)
                .map(|(l, b)| located(b, l))
                .collect()
        })
        .collect();
    let replay = replay(&set, &photos);
    assert_eq!(replay.locations.len(), 2);
    let err = replay.history(&set, SideIdx(0)).unwrap_err();
    assert!(err.contains("which starts no location"), "{err}");
}

#[test]
fn cards_first_seen_together_whose_order_decides_a_frozen_location_are_in_doubt() {
    // A game where a card is played on a player's location just before that player's last
    // card: in the other order the location was frozen and the card is a fault.
    let (set, truth, k) = (0..200)
        .find_map(|seed| {
            let (set, h) = game(seed, 0.0);
            let k = (0..h.plays.len() - 1).find(|&k| {
                let owner = h.plays[k + 1].player;
                h.plays[k].location == Some(owner)
                    && h.plays[..=k + 1]
                        .iter()
                        .filter(|p| p.player == owner)
                        .count()
                        == 5
            })?;
            Some((set, h, k))
        })
        .expect("some seed plays so");
    let mut photos: Vec<Vec<CamouflageReading>> = tables(&set, &truth)
        .iter()
        .map(|boards| {
            boards
                .iter()
                .enumerate()
                .map(|(l, b)| located(b, l))
                .collect()
        })
        .collect();
    // No photo between the two cards.
    photos.remove(k + 1);
    let replay = replay(&set, &photos);
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
    let doubts = replay.order_doubts(&set, SideIdx(0), &RULES);
    assert_eq!(doubts.len(), 1, "{doubts:?}");
    assert!(doubts[0].contains("first showed together"), "{}", doubts[0]);
}
