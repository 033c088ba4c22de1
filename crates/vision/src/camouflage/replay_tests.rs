//! The tracker against readings made from rule-crate boards: turned, shifted, misread and
//! with hands over them, as the reader gives them.

use tablejudge_rules::camouflage::{
    find_starting_board, score, simulate_game, CamouflageSet, DeckIdx, GameRules, Mode, TimerLevel,
};

use super::*;
use crate::camouflage::test_support::{reading_of, set};
use crate::camouflage::{SquareKind, SquareReading};

fn as_read(board: &Board, q: u8) -> CamouflageReading {
    reading_of(board, q, |_, _, ch| ch)
}

/// A played game and its tables after the starting board and after each later card.
fn game(seed: u64) -> (CamouflageSet, Board, Vec<Board>) {
    let set = set();
    let (board, _) = simulate_game(
        &set,
        SideIdx(0),
        false,
        DeckIdx(0),
        &[DeckIdx(1), DeckIdx(2)],
        seed,
    )
    .unwrap();
    let mut tables = Vec::new();
    let mut b = Board::new(SideIdx(0), PlacementRules::GAME);
    for (i, p) in board.placed().iter().enumerate() {
        b.place(&set, p.placement);
        if i >= 2 {
            tables.push(b.clone());
        }
    }
    (set, board, tables)
}

/// The starting board of deck 0, side 0 up, as the rules lay it.
fn starting_board(set: &CamouflageSet) -> Board {
    let mut board = Board::new(SideIdx(0), PlacementRules::GAME);
    for p in find_starting_board(set, DeckIdx(0), SideIdx(0), false).unwrap() {
        board.place(set, p);
    }
    board
}

/// The placements' cards and whether each was legal, in order.
fn verdicts(board: &Board) -> Vec<(CardIdx, bool, u8)> {
    board
        .placed()
        .iter()
        .map(|p| (p.placement.card, p.is_legal(), p.covered_squares()))
        .collect()
}

#[test]
fn a_photo_after_each_card_replays_the_game() {
    let (set, truth, tables) = game(5);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    for (i, t) in tables.iter().enumerate() {
        // The reader names the lattice by the photo's axes; it may differ photo to photo.
        let outcome = tracker.observe(&as_read(t, (i % 4) as u8)).clone();
        let FrameOutcome::Settled {
            laid, unexplained, ..
        } = outcome
        else {
            panic!("photo {i} skipped: {outcome:?}");
        };
        assert_eq!(laid.len(), if i == 0 { 3 } else { 1 }, "photo {i}");
        assert!(unexplained.is_empty(), "photo {i}: {unexplained:?}");
    }
    let replay = tracker.finish();
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
    assert!(replay.unsure_verdicts.is_empty());
    let mut replayed = Board::new(SideIdx(0), PlacementRules::GAME);
    for c in &replay.cards {
        replayed.place(&set, c.placement);
    }
    // The starting board's order may differ where the photo cannot tell it; the rest is
    // exact.
    assert_eq!(verdicts(&replayed)[3..], verdicts(&truth)[3..]);
    let mut start: Vec<_> = verdicts(&replayed)[..3].iter().map(|v| v.0).collect();
    let mut truth_start: Vec<_> = verdicts(&truth)[..3].iter().map(|v| v.0).collect();
    start.sort();
    truth_start.sort();
    assert_eq!(start, truth_start);

    // Scored as the game was played.
    let history = replay.history(&set, SideIdx(0)).unwrap();
    let rules = GameRules {
        mode: Mode::CoverSomeGround,
        wild_centres: false,
        timer: TimerLevel::Beginners,
    };
    let report = score(&set, &rules, &history).unwrap();
    assert!(report.plays.iter().all(|p| p.faults.is_empty()));
    let total: u32 = report.players.iter().map(|p| p.score).sum();
    let truth_total: u32 = truth.placed()[3..]
        .iter()
        .map(|p| u32::from(p.covered_squares()))
        .sum();
    assert_eq!(total, truth_total);
}

#[test]
fn a_hand_over_the_table_skips_the_photo_and_the_next_one_catches_up() {
    let (set, _, tables) = game(8);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&tables[0], 0));
    tracker.observe(&as_read(&tables[1], 0));
    // A hand across the middle rows: skin read as patterns and unknown squares.
    let (_, rows) = tables[2].picture().unwrap();
    let mid = rows.len() / 2 + 1;
    let hand = reading_of(&tables[2], 0, |r, c, ch| {
        if (mid..mid + 3).contains(&r) && ch != '.' {
            if c % 3 == 0 {
                '?'
            } else if ch == 'g' {
                't'
            } else {
                'g'
            }
        } else {
            ch
        }
    });
    let outcome = tracker.observe(&hand).clone();
    assert!(
        matches!(outcome, FrameOutcome::Skipped { .. }),
        "{outcome:?}"
    );
    // Two cards later, the next clear photo explains both.
    let outcome = tracker.observe(&as_read(&tables[3], 0)).clone();
    let FrameOutcome::Settled { laid, .. } = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(laid.len(), 2);
    let replay = tracker.finish();
    // Both cards found. They overlap, and a legal overlap shows the same patterns whichever
    // lies on top, so the photo cannot tell their order, which decides their points: the
    // replay says so rather than guess.
    let mut cards: Vec<CardIdx> = replay.cards.iter().map(|c| c.placement.card).collect();
    let mut truth: Vec<CardIdx> = tables[3]
        .placed()
        .iter()
        .map(|p| p.placement.card)
        .collect();
    assert_eq!(replay.doubts.len(), 1, "{:?}", replay.doubts);
    assert!(replay.doubts[0].contains("changes the verdict"));
    cards[4..].sort();
    truth[4..].sort();
    assert_eq!(cards[3..], truth[3..]);
}

#[test]
fn an_illegal_card_is_found_and_judged_illegal() {
    let set = set();
    let mut board = starting_board(&set);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&board, 1));
    // A card of deck 1 laid on the first card's corner: it covers a square or two, and
    // hardly any matches.
    let first = board.placed()[0].placement.centre;
    let card = set.deck(DeckIdx(1)).cards[0];
    let illegal = (0..4)
        .flat_map(|t| {
            [(-2, -2), (2, 2), (-2, 2), (2, -2)].map(|(dr, dc)| Placement {
                card,
                centre: first.offset(dr, dc),
                turn: Turn::from_quarter_turns(t),
            })
        })
        .find(|p| board.check(&set, p).is_err())
        .expect("some corner placement is illegal");
    board.place(&set, illegal);
    let outcome = tracker.observe(&as_read(&board, 1)).clone();
    assert!(matches!(outcome, FrameOutcome::Settled { ref laid, .. } if laid.len() == 1));
    let replay = tracker.finish();
    assert_eq!(replay.cards[3].placement.card, card);
    let history = replay.history(&set, SideIdx(0)).unwrap();
    let rules = GameRules {
        mode: Mode::Diversify,
        wild_centres: false,
        timer: TimerLevel::Beginners,
    };
    // One player cannot make a game; the card's verdict is what matters here.
    let mut replayed = Board::new(SideIdx(0), PlacementRules::GAME);
    for p in history.start.iter().copied() {
        replayed.place(&set, p);
    }
    let placed = replayed.place(
        &set,
        Placement {
            card: history.plays[0].card,
            centre: history.plays[0].centre,
            turn: history.plays[0].turn,
        },
    );
    assert!(!placed.is_legal());
    assert!(score(&set, &rules, &history).is_err());
}

#[test]
fn a_centre_no_card_explains_leaves_the_replay_in_doubt() {
    let (set, _, tables) = game(3);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&tables[0], 0));
    // A card with two squares misread: it matches no card of the set.
    let placed = tables[1].placed()[3].placement.centre;
    let origin = tables[1].picture().unwrap().0;
    let (r0, c0) = (
        (placed.row - origin.row + 1) as usize,
        (placed.col - origin.col + 1) as usize,
    );
    let blurred = reading_of(&tables[1], 0, |r, c, ch| {
        if (r, c) == (r0 - 1, c0 - 1) || (r, c) == (r0 + 1, c0 + 1) {
            if ch == 'z' {
                'p'
            } else {
                'z'
            }
        } else {
            ch
        }
    });
    let outcome = tracker.observe(&blurred).clone();
    let FrameOutcome::Settled {
        laid, unexplained, ..
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert!(laid.is_empty());
    assert_eq!(unexplained.len(), 1);
    let replay = tracker.finish();
    assert_eq!(replay.cards.len(), 3);
    assert!(
        replay
            .doubts
            .iter()
            .any(|d| d.contains("no card of the set explains")),
        "{:?}",
        replay.doubts
    );
}

/// A first photo with more new cards than can be ordered: the starting board is named among
/// them, the one deck of three cards no player plays, and the cards on it in the next photo.
#[test]
fn a_starting_board_is_named_among_the_cards_laid_on_it() {
    let (set, _, tables) = game(3);
    assert!(tables[4].placed().len() > MAX_ORDERED);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    let FrameOutcome::Settled {
        laid, unexplained, ..
    } = tracker.observe(&as_read(&tables[4], 0)).clone()
    else {
        panic!("the first photo was not used");
    };
    assert_eq!((laid.len(), unexplained.len()), (3, 4));
    tracker.observe(&as_read(&tables[5], 0));
    let replay = tracker.finish();
    let cards = |cards: &mut dyn Iterator<Item = CardIdx>| {
        let mut cards: Vec<CardIdx> = cards.collect();
        cards.sort();
        cards
    };
    let truly = tables[5].placed();
    assert_eq!(
        cards(&mut replay.cards[..3].iter().map(|c| c.placement.card)),
        cards(&mut truly[..3].iter().map(|p| p.placement.card))
    );
    // The cards set aside are named in the next photo with the one new there, but for one
    // whose face the orders the photo allows do not agree on.
    let laid = cards(&mut replay.cards.iter().map(|c| c.placement.card));
    let all = cards(&mut truly.iter().map(|p| p.placement.card));
    assert!(laid.iter().all(|c| all.contains(c)), "{laid:?} of {all:?}");
    assert_eq!(laid.len(), all.len() - 1);
    // Verdicts of the plays the photos leave sure are the truth's (the starting board's
    // order, which scores nothing, is any legal one).
    let mut replayed = Board::new(SideIdx(0), PlacementRules::GAME);
    for c in &replay.cards {
        replayed.place(&set, c.placement);
    }
    let judged = verdicts(&replayed);
    let truth = verdicts(&tables[5]);
    for (k, v) in judged.iter().enumerate().skip(3) {
        assert!(
            replay.unsure_verdicts.contains(&k) || truth.contains(v),
            "{v:?} of {truth:?}"
        );
    }
    // The order of the cards laid on the starting board is not known.
    assert!(
        replay
            .doubts
            .iter()
            .any(|d| d.contains("were laid between two photos")),
        "{:?}",
        replay.doubts
    );
}

/// Photos that never let the starting board be named, each with more new cards than can be
/// ordered and another deck with as many cards: the replay says so, not that every centre is
/// a card it cannot name.
#[test]
fn a_starting_board_never_named_is_the_one_doubt_said() {
    let (set, _, tables) = game(3);
    let deck = |p: &Placement| set.card(p.card).deck;
    let crowded = tables
        .iter()
        .position(|t| {
            let played = &t.placed()[3..];
            played.iter().any(|p| {
                played
                    .iter()
                    .filter(|q| deck(&q.placement) == deck(&p.placement))
                    .count()
                    >= 3
            })
        })
        .unwrap();
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&tables[crowded], 0));
    let replay = tracker.finish();
    assert!(replay.cards.is_empty());
    let new = tables[crowded].placed().len();
    assert_eq!(replay.doubts.len(), 1, "{:?}", replay.doubts);
    assert!(
        replay.doubts[0].starts_with("the starting board (3 cards of one deck) was never named")
            && replay.doubts[0].contains(&format!("({new} new in photo 1)")),
        "{:?}",
        replay.doubts
    );
}

#[test]
fn a_card_the_next_photo_shows_otherwise_is_taken_back() {
    let (set, _, tables) = game(4);
    // The table as the next photo shows it: the starting board and another card instead.
    let mut other = tables[0].clone();
    other.place(&set, tables[2].placed()[4].placement);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&tables[0], 0));
    tracker.observe(&as_read(&tables[1], 0));
    // The card of photo 2 is not there: it was a misreading, and the other card is laid.
    let outcome = tracker.observe(&as_read(&other, 0)).clone();
    assert!(outcome.laid_any(), "{outcome:?}");
    // A photo that shows no card in its place but nothing else either takes nothing back.
    let outcome = tracker.observe(&as_read(&tables[0], 0)).clone();
    assert!(
        matches!(outcome, FrameOutcome::Skipped { .. }),
        "{outcome:?}"
    );
    tracker.observe(&as_read(&other, 0));
    let replay = tracker.finish();
    assert!(
        matches!(&replay.frames[1], FrameOutcome::Skipped { reason } if reason.contains("not seen in photo 3")),
        "{:?}",
        replay.frames[1]
    );
    let cards: Vec<CardIdx> = replay.cards.iter().map(|c| c.placement.card).collect();
    assert_eq!(cards.len(), 4);
    assert_eq!(cards[3], tables[2].placed()[4].placement.card);
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
}

#[test]
fn a_moved_card_is_not_taken_for_a_new_one() {
    let (set, _, tables) = game(4);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&tables[0], 0));
    tracker.observe(&as_read(&tables[1], 0));
    tracker.observe(&as_read(&tables[1], 0));
    // The confirmed card gone again: its centre is missing, and it is not taken back.
    let outcome = tracker.observe(&as_read(&tables[0], 0)).clone();
    let FrameOutcome::Skipped { reason } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(reason.contains("is not seen"), "{reason}");
    let replay = tracker.finish();
    assert_eq!(replay.cards.len(), 4);
    assert!(
        replay.doubts[0].contains("last photo was not used"),
        "{:?}",
        replay.doubts
    );
}

/// Cards new together in one photo: where the order they were laid in changes a card's
/// verdict, or the card lies beside a centre left unnamed, its verdict is left open, and so is
/// every card's where there are too many to try every order. Verdicts left sure are the
/// truth's.
#[test]
fn cards_laid_between_two_photos_have_their_verdicts_open_where_the_order_matters() {
    let (mut open, mut sure) = (0, 0);
    for seed in 0..20 {
        let (set, truth, tables) = game(seed);
        for new in [3, 8] {
            let Some(later) = tables.get(new) else {
                continue;
            };
            let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
            tracker.observe(&as_read(&tables[0], 0));
            tracker.observe(&as_read(later, 0));
            let replay = tracker.finish();
            if new > MAX_ORDERED {
                // Only the cards one face fits are laid, in no order checked.
                assert_eq!(
                    replay.unsure_verdicts,
                    (3..replay.cards.len()).collect::<Vec<_>>(),
                    "seed {seed}"
                );
            }
            let mut replayed = Board::new(SideIdx(0), PlacementRules::GAME);
            for c in &replay.cards {
                replayed.place(&set, c.placement);
            }
            let judged = verdicts(&replayed);
            for (k, v) in judged.iter().enumerate().skip(3) {
                if replay.unsure_verdicts.contains(&k) {
                    open += 1;
                    continue;
                }
                sure += 1;
                let t = truth.placed().iter().position(|p| p.placement.card == v.0);
                let t = &truth.placed()[t.unwrap()];
                assert_eq!(
                    (v.1, v.2),
                    (t.is_legal(), t.covered_squares()),
                    "seed {seed}, {new} new cards, card {k}"
                );
            }
            if !replay.unsure_verdicts.is_empty() {
                assert!(!replay.doubts.is_empty(), "seed {seed}");
            }
        }
    }
    assert!(open > 0 && sure > 0, "{open} open, {sure} sure");
}

#[test]
fn two_players_last_cards_in_one_photo_leave_the_speed_round_winner_in_doubt() {
    let speed = GameRules {
        mode: Mode::SpeedRound,
        wild_centres: false,
        timer: TimerLevel::Beginners,
    };
    let mut tried = 0;
    for seed in 1..40 {
        let (set, _, tables) = game(seed);
        let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
        for (i, t) in tables.iter().enumerate() {
            tracker.observe(&as_read(t, (i % 4) as u8));
        }
        let mut replay = tracker.finish();
        let n = replay.cards.len();
        let (a, b) = (replay.cards[n - 2].placement, replay.cards[n - 1].placement);
        let apart =
            (a.centre.row - b.centre.row).abs() > 2 || (a.centre.col - b.centre.col).abs() > 2;
        let history = replay.history(&set, SideIdx(0)).unwrap();
        let k = history.plays.len();
        if !apart || history.plays[k - 1].player == history.plays[k - 2].player {
            continue;
        }
        // Each photo shows its card: the order is known, nothing is doubted.
        assert!(replay.order_doubts(&set, SideIdx(0), &speed).is_empty());
        // Whether the order matters: the scores (a card after the winner went out does not
        // count), ranking and winners with the last two swapped.
        let mut swapped = history.clone();
        swapped.plays.swap(k - 1, k - 2);
        let outcome = |h| {
            let r = score(&set, &speed, h).unwrap();
            let scores: Vec<u32> = r.players.iter().map(|p| p.score).collect();
            (scores, r.ranking, r.winners)
        };
        let matters = outcome(&history) != outcome(&swapped);
        // The last two cards first seen in one photo.
        replay.cards[n - 1].frame = replay.cards[n - 2].frame;
        let doubts = replay.order_doubts(&set, SideIdx(0), &speed);
        assert_eq!(!doubts.is_empty(), matters, "seed {seed}: {doubts:?}");
        if matters {
            assert!(doubts[0].contains("which was laid first"), "{doubts:?}");
            tried += 1;
        }
    }
    assert!(tried > 0, "no game whose last two cards decide the winner");
}

#[test]
fn a_last_card_whose_centre_is_never_seen_leaves_the_replay_in_doubt() {
    let (set, truth, tables) = game(5);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    let last = tables.len() - 1;
    for t in &tables[..last] {
        tracker.observe(&as_read(t, 0));
    }
    // The last card's centre read as a pattern square: only its squares show it.
    let (top_left, _) = tables[last].picture().unwrap();
    let centre = truth.placed().last().unwrap().placement.centre;
    let at = (
        (centre.row - top_left.row + 1) as usize,
        (centre.col - top_left.col + 1) as usize,
    );
    let missed = reading_of(
        &tables[last],
        0,
        |r, c, ch| if (r, c) == at { 'z' } else { ch },
    );
    tracker.observe(&missed);
    let replay = tracker.finish();
    assert_eq!(replay.cards.len(), truth.placed().len() - 1);
    assert!(
        replay
            .doubts
            .iter()
            .any(|d| d.contains("still look like a card")),
        "{:?}",
        replay.doubts
    );
}

#[test]
fn a_square_like_a_card_beside_the_last_card_is_cleared_by_the_last_photo_showing_table_there() {
    // A game whose last card has squares on the edge of the final table: the square just
    // past them lies in the ring the reader reads just outside its block.
    let (set, truth, tables, ghost) = (0..50)
        .find_map(|seed| {
            let (set, truth, tables) = game(seed);
            let centre = truth.placed().last()?.placement.centre;
            let (lo, _) = tables.last()?.bounds()?;
            (centre.row - 1 == lo.row && tables.len() > 3).then(|| {
                let ghost = LatticePos::new(centre.row - 3, centre.col);
                (set, truth, tables, ghost)
            })
        })
        .expect("a game whose last card lies on the table's top edge");
    let last = tables.len() - 1;
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    for t in &tables[..last] {
        tracker.observe(&as_read(t, 0));
    }
    // The reading's square (r, c) is lattice (r + top - 1, c + left - 1).
    let local = |t: &Board, p: LatticePos| {
        let (tl, _) = t.picture().unwrap();
        LatticePos::new(p.row - tl.row + 1, p.col - tl.col + 1)
    };
    // A photo with the hand that is about to lay the last card: a square of skin beside
    // where it will lie, read as a pattern with no centre near it.
    let mut hand = as_read(&tables[last - 1], 0);
    let g = local(&tables[last - 1], ghost);
    hand.beyond.push(SquareReading {
        row: g.row,
        col: g.col,
        kind: SquareKind::Pattern(tablejudge_rules::Key::new('z').unwrap()),
        srgb: tablejudge_rules::Srgb::new(200, 150, 120),
        confidence: 1.0,
    });
    tracker.observe(&hand);
    // The last photo: the card laid, and the square beside it read as table.
    let mut after = as_read(&tables[last], 0);
    after.table_ring.push(local(&tables[last], ghost));
    tracker.observe(&after);
    let replay = tracker.finish();
    assert_eq!(replay.cards.len(), truth.placed().len());
    assert_eq!(
        replay.cards.last().unwrap().placement.card,
        truth.placed().last().unwrap().placement.card
    );
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
}

#[test]
fn a_card_over_the_edge_of_another_is_not_taken_for_a_card_laid_on_its_centre() {
    // A card laid beside a known card, whose edge column breaks the rule on all three squares
    // it covers, changes three squares around the known centre. Some other face may fit the
    // known card's five other squares; that is no reason to think a card was laid on it.
    let set = set();
    let side = SideIdx(0);
    let start = starting_board(&set);
    let placed: Vec<Placement> = start.placed().iter().map(|p| p.placement).collect();
    let char_of = |p: &Placement, at: LatticePos| -> Option<char> {
        let k = p.squares().iter().position(|&q| q == at)?;
        Some(
            set.face(p.card, side)
                .square(p.turn, Pos::new(k / 3, k % 3))
                .char(),
        )
    };
    let used: Vec<CardIdx> = placed.iter().map(|p| p.card).collect();
    let mut cases = 0;
    let mut with_impostor = 0;
    for known in &placed {
        for (dr, dc) in [(0, 2), (0, -2), (2, 0), (-2, 0)] {
            for &card in &set.deck(DeckIdx(1)).cards {
                for t in 0..4 {
                    let beside = Placement {
                        card,
                        centre: known.centre.offset(dr, dc),
                        turn: Turn::from_quarter_turns(t),
                    };
                    // It touches the known card only, and differs on every square it covers.
                    let touches_others = placed.iter().any(|o| {
                        o != known && o.squares().iter().any(|&q| beside.squares().contains(&q))
                    });
                    let shared: Vec<LatticePos> = known
                        .squares()
                        .into_iter()
                        .filter(|q| beside.squares().contains(q))
                        .collect();
                    if touches_others
                        || shared
                            .iter()
                            .any(|&q| char_of(known, q) == char_of(&beside, q))
                    {
                        continue;
                    }
                    // Some unused card's face fitting four of the known card's five other
                    // squares: what the old rule took for a card laid on top.
                    let rest: Vec<LatticePos> = known
                        .squares()
                        .into_iter()
                        .filter(|q| *q != known.centre && !shared.contains(q))
                        .collect();
                    let impostor = set.cards().iter().enumerate().any(|(i, _)| {
                        let other = CardIdx(i as u16);
                        other != card
                            && !used.contains(&other)
                            && (0..4).any(|t| {
                                let p = Placement {
                                    card: other,
                                    centre: known.centre,
                                    turn: Turn::from_quarter_turns(t),
                                };
                                rest.iter()
                                    .filter(|&&q| char_of(&p, q) == char_of(known, q))
                                    .count()
                                    >= LOWER_CARD_KNOWN
                            })
                    });
                    cases += 1;
                    with_impostor += usize::from(impostor);
                    let mut board = start.clone();
                    board.place(&set, beside);
                    let mut tracker = Tracker::new(&set, side, PlacementRules::GAME);
                    tracker.observe(&as_read(&start, 0));
                    let outcome = tracker.observe(&as_read(&board, 0)).clone();
                    assert!(
                        matches!(&outcome, FrameOutcome::Settled { laid, .. } if laid.len() == 1),
                        "{beside:?} beside {known:?}: {outcome:?}"
                    );
                    let replay = tracker.finish();
                    let cards: Vec<CardIdx> =
                        replay.cards.iter().map(|c| c.placement.card).collect();
                    assert_eq!(cards.len(), 4, "{beside:?} beside {known:?}");
                    assert_eq!(cards[3], card);
                }
            }
        }
    }
    assert!(
        cases > 0 && with_impostor > 0,
        "{cases} cases, {with_impostor} with an impostor"
    );
}

#[test]
fn a_card_laid_right_on_another_centre_is_found_and_judged_illegal() {
    let set = set();
    let side = SideIdx(0);
    let mut board = starting_board(&set);
    let mut tracker = Tracker::new(&set, side, PlacementRules::GAME);
    tracker.observe(&as_read(&board, 2));
    // A card of deck 1 laid squarely over the first card: its centre shows where the first
    // card's did, and the squares all round change.
    let under = board.placed()[0].placement;
    let over = set
        .deck(DeckIdx(1))
        .cards
        .iter()
        .flat_map(|&card| {
            (0..4).map(move |t| Placement {
                card,
                centre: under.centre,
                turn: Turn::from_quarter_turns(t),
            })
        })
        .find(|p| {
            let mut b = board.clone();
            let changed = b.picture().unwrap().1;
            b.place(&set, *p);
            b.picture().unwrap().1 != changed
        })
        .expect("some card shows other squares");
    board.place(&set, over);
    let outcome = tracker.observe(&as_read(&board, 2)).clone();
    assert!(
        matches!(&outcome, FrameOutcome::Settled { laid, .. } if laid.len() == 1),
        "{outcome:?}"
    );
    let replay = tracker.finish();
    // The tracker's lattice is the first photo's, turned: compare within it.
    let laid = replay.cards[3].placement;
    assert_eq!(laid.card, over.card);
    assert!(replay.cards[..3]
        .iter()
        .any(|c| c.placement.centre == laid.centre));
    let mut replayed = Board::new(side, PlacementRules::GAME);
    for c in &replay.cards[..3] {
        replayed.place(&set, c.placement);
    }
    assert!(!replayed.place(&set, laid).is_legal());
}

/// A first photo taken after the first card names all four cards. The starting board's order
/// does not show (its cards match where they overlap). Only the orders that lay it legally
/// count, and the first card's verdict and the squares it covers are the same in each: the
/// replay stands. (Which cards it touches may differ; that is marked in `unsure_contacts`.)
#[test]
fn a_first_photo_after_the_first_card_is_judged_by_a_legal_starting_board() {
    for seed in 0..12 {
        let (set, _, tables) = game(seed);
        let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
        let first = tracker.observe(&as_read(&tables[1], 1)).clone();
        // The middle starting card may have only a few squares clear of the others, which
        // many faces fit; the one face it shows whole names it.
        assert!(
            matches!(&first, FrameOutcome::Settled { laid, .. } if laid.len() == 4),
            "seed {seed}: {first:?}"
        );
        tracker.observe(&as_read(&tables[2], 1));
        let replay = tracker.finish();
        assert!(replay.doubts.is_empty(), "seed {seed}: {:?}", replay.doubts);
        let mut replayed = Board::new(SideIdx(0), PlacementRules::GAME);
        for c in &replay.cards {
            replayed.place(&set, c.placement);
        }
        assert_eq!(
            verdicts(&replayed)[3..],
            verdicts(&tables[2])[3..],
            "seed {seed}"
        );
    }
}

/// The starting board's cards match where they overlap, so its first photo shows either on
/// top there. A card laid later over such a square touches one or the other: which one is not
/// known (Diversify's points), and the replay says so.
#[test]
fn a_card_over_the_starting_boards_overlap_has_its_contacts_unsure() {
    let mut over = 0;
    for seed in 0..12 {
        let (set, _, tables) = game(seed);
        let start: Vec<Placement> = tables[0].placed().iter().map(|p| p.placement).collect();
        let overlap: Vec<LatticePos> = start
            .iter()
            .enumerate()
            .flat_map(|(i, a)| {
                start[i + 1..].iter().flat_map(move |b| {
                    let under: Vec<LatticePos> = b.squares().into_iter().collect();
                    a.squares().into_iter().filter(move |q| under.contains(q))
                })
            })
            .collect();
        let first = tables[1].placed()[3].placement;
        if !first.squares().iter().any(|q| overlap.contains(q)) {
            continue;
        }
        let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
        for t in &tables[..2] {
            tracker.observe(&as_read(t, 0));
        }
        let replay = tracker.finish();
        assert_eq!(replay.cards.len(), 4, "seed {seed}");
        assert!(replay.unsure_contacts.contains(&3), "seed {seed}");
        over += 1;
    }
    assert!(over > 0);
}

/// Replays the starting board, then the first card laid with its squares read as `edit`
/// (board picture row, col, face char → char read) in two photos running; returns the cards
/// laid after the starting board and the replay's doubts.
fn first_card_read_as(
    seed: u64,
    edit: impl Fn(usize, usize, char) -> char + Copy,
) -> (CardIdx, Vec<CardIdx>, Vec<String>) {
    let (set, _, tables) = game(seed);
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    tracker.observe(&as_read(&tables[0], 0));
    let origin = tables[1].picture().unwrap().0;
    let card = tables[1].placed()[3].placement;
    // The picture's margin of table shifts it by one.
    let (r0, c0) = (
        (card.centre.row - origin.row + 1) as usize,
        (card.centre.col - origin.col + 1) as usize,
    );
    let read = reading_of(&tables[1], 0, |r, c, ch| {
        if r.abs_diff(r0) <= 1 && c.abs_diff(c0) <= 1 && (r, c) != (r0, c0) {
            edit(r + 1 - r0, c + 1 - c0, ch)
        } else {
            ch
        }
    });
    tracker.observe(&read);
    tracker.observe(&read);
    let replay = tracker.finish();
    let laid = replay.cards[3..].iter().map(|c| c.placement.card).collect();
    (card.card, laid, replay.doubts)
}

/// Over games 1 to 29, the first card after the starting board read with its top-left square
/// as `misread(printed)`, in the games where that gives a pattern, and its squares at
/// `unread` (block row, column) read as unknown: the one face that fits all but that square
/// names it, unless another face fits as nearly. Never another card: the true one (at least
/// half the time), or none and a doubt.
fn assert_a_misread_corner_is_taken_for_misread(
    misread: impl Fn(char) -> Option<char>,
    unread: &[(usize, usize)],
) {
    let mut named = 0;
    let mut tried = 0;
    for seed in 1..30 {
        let (set, _, tables) = game(seed);
        let card = tables[1].placed()[3].placement;
        let face = set.face(card.card, SideIdx(0));
        let Some(read) = misread(face.square(card.turn, Pos::new(0, 0)).char()) else {
            continue;
        };
        tried += 1;
        let (truth, laid, doubts) = first_card_read_as(seed, |r, c, ch| match (r, c) {
            (0, 0) => read,
            at if unread.contains(&at) => '?',
            _ => ch,
        });
        match laid.as_slice() {
            [] => assert!(!doubts.is_empty(), "seed {seed}"),
            [one] => {
                assert_eq!(*one, truth, "seed {seed}");
                // The same misreading in the next photo is no change on the table.
                assert!(doubts.is_empty(), "seed {seed}: {doubts:?}");
                named += 1;
            }
            more => panic!("seed {seed}: {more:?}"),
        }
    }
    assert!(tried >= 5, "{tried}");
    assert!(named * 2 >= tried, "{named} of {tried}");
}

#[test]
fn a_square_read_as_a_pattern_near_in_colour_is_taken_for_misread() {
    assert_a_misread_corner_is_taken_for_misread(giraffe_for_tiger, &[]);
}

/// Giraffe and tiger, brown and orange, which a shadow's edge or over-exposure confuses.
fn giraffe_for_tiger(printed: char) -> Option<char> {
    match printed {
        'g' => Some('t'),
        't' => Some('g'),
        _ => None,
    }
}

#[test]
fn a_square_read_as_a_pattern_near_in_colour_beside_an_unread_one_is_taken_for_misread() {
    // As above, with the square across the card unread too (seed 4's game 198: a giraffe
    // corner read as tiger beside a giraffe square read as neither, on the last card laid):
    // the card is named from the six squares left where no other face fits them.
    assert_a_misread_corner_is_taken_for_misread(giraffe_for_tiger, &[(2, 1)]);
}

#[test]
fn a_square_read_as_a_pattern_far_in_colour_leaves_the_card_unnamed() {
    // Tiger read as peacock (orange as teal) is no shadow's doing: the card is not named
    // from the rest, however well they fit.
    let mut tried = 0;
    for seed in 1..30 {
        let (set, _, tables) = game(seed);
        let card = tables[1].placed()[3].placement;
        let face = set.face(card.card, SideIdx(0));
        if face.square(card.turn, Pos::new(0, 0)).char() != 't' {
            continue;
        }
        tried += 1;
        let (_, laid, doubts) =
            first_card_read_as(seed, |r, c, ch| if (r, c) == (0, 0) { 'p' } else { ch });
        assert!(laid.is_empty(), "seed {seed}: {laid:?}");
        assert!(
            doubts
                .iter()
                .any(|d| d.contains("no card of the set explains")),
            "seed {seed}: {doubts:?}"
        );
    }
    assert!(tried >= 3, "{tried}");
}

#[test]
fn a_card_with_two_squares_unread_is_named_when_one_face_fits_the_rest() {
    // Every centre's symbol is read alike here (group 0), as a reader might take two decks'
    // symbols for one: the decks must not be what names the card.
    let mut named = 0;
    for seed in 1..20 {
        let (truth, laid, doubts) = first_card_read_as(seed, |r, c, ch| {
            if (r, c) == (0, 0) || (r, c) == (2, 1) {
                '?'
            } else {
                ch
            }
        });
        match laid.as_slice() {
            [] => assert!(!doubts.is_empty(), "seed {seed}"),
            [one] => {
                assert_eq!(*one, truth, "seed {seed}");
                named += 1;
            }
            more => panic!("seed {seed}: {more:?}"),
        }
    }
    // 13 of the 19 when written: the rest fit another face as well.
    assert!(named >= 10, "{named} of 19");
}

#[test]
fn a_square_like_a_card_beside_a_card_is_cleared_by_a_later_photo_of_table_there_though_covered_after(
) {
    // A square two or three from a card's centre, table when that card is laid, covered by
    // the end of the game.
    let (set, truth, tables, i, ghost) = (0..50)
        .find_map(|seed| {
            let (set, truth, tables) = game(seed);
            let last = tables.last()?.clone();
            let covered = |p: LatticePos| last.top(p).is_some();
            (1..tables.len().saturating_sub(3)).find_map(|i| {
                let centre = tables[i].placed().last()?.placement.centre;
                let centres: Vec<LatticePos> = tables[i]
                    .placed()
                    .iter()
                    .map(|p| p.placement.centre)
                    .collect();
                let ghost = (-3..=3)
                    .flat_map(|dr| (-3..=3).map(move |dc| centre.offset(dr, dc)))
                    .find(|&q| {
                        !q.within_one(centre)
                            && tables[i].top(q).is_none()
                            && covered(q)
                            && !centres.iter().any(|c| c.squares_from(q) <= 2)
                    })?;
                Some((set.clone(), truth.clone(), tables.clone(), i, ghost))
            })
        })
        .expect("a game with a square beside a card covered later");
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    for t in &tables[..i] {
        tracker.observe(&as_read(t, 0));
    }
    // The photo the card is laid in, the hand that laid it still over the square beside it.
    let (tl, _) = tables[i].picture().unwrap();
    let g = LatticePos::new(ghost.row - tl.row + 1, ghost.col - tl.col + 1);
    let mut hand = as_read(&tables[i], 0);
    let skin = SquareReading {
        row: g.row,
        col: g.col,
        kind: SquareKind::Pattern(tablejudge_rules::Key::new('z').unwrap()),
        srgb: tablejudge_rules::Srgb::new(200, 150, 120),
        confidence: 1.0,
    };
    match hand
        .squares
        .iter_mut()
        .find(|s| (s.row, s.col) == (g.row, g.col))
    {
        Some(s) => *s = skin,
        None => hand.beyond.push(skin),
    }
    tracker.observe(&hand);
    // The next photo shows bare table there; later cards cover it.
    for t in &tables[i..] {
        tracker.observe(&as_read(t, 0));
    }
    let replay = tracker.finish();
    assert_eq!(replay.cards.len(), truth.placed().len());
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
}

#[test]
fn a_square_the_last_photo_misreads_on_a_card_seen_before_leaves_no_doubt() {
    let (set, truth, tables) = game(5);
    let last = tables.len() - 1;
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    for t in &tables[..last] {
        tracker.observe(&as_read(t, 0));
    }
    // A pattern square of the starting board, seen in every photo since, read as another
    // pattern in the last photo (glare, say).
    let final_table = &tables[last];
    let (tl, _) = final_table.picture().unwrap();
    let start = final_table.placed()[0].placement.centre;
    let square = [
        (0, 1),
        (1, 0),
        (0, -1),
        (-1, 0),
        (1, 1),
        (-1, -1),
        (1, -1),
        (-1, 1),
    ]
    .into_iter()
    .map(|(dr, dc)| start.offset(dr, dc))
    .find(|&q| final_table.top(q).is_some_and(|(k, _)| k == 0))
    .expect("a square of the first card still on top");
    let shown = final_table.top(square).unwrap().1.char();
    let other = ['g', 'z', 'l', 't']
        .into_iter()
        .find(|&c| c != shown)
        .unwrap();
    let mut glare = as_read(final_table, 0);
    let at = (square.row - tl.row + 1, square.col - tl.col + 1);
    let read = glare
        .squares
        .iter_mut()
        .find(|s| (s.row, s.col) == at)
        .expect("the square in the reading");
    read.kind = SquareKind::Pattern(tablejudge_rules::Key::new(other).unwrap());
    tracker.observe(&glare);
    let replay = tracker.finish();
    assert_eq!(replay.cards.len(), truth.placed().len());
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
}

/// A card laid, then a photo that misses its centre while showing the next card laid over
/// its squares: the first card is taken back. When a later photo shows the first card again,
/// in the same place, it was on the table all along, from the photo that named it first: the
/// replay lays it under the next card, in the order they were laid, and judges the next card
/// with it beneath, without doubt.
#[test]
fn a_card_a_photo_missed_goes_under_the_card_laid_over_it_since() {
    let (set, truth, tables) = game(5);
    let placed = truth.placed();
    // A card (after the starting board) and the next, laid over its squares.
    let j = (4..placed.len() - 1)
        .find(|&j| {
            let under: Vec<LatticePos> = placed[j].placement.squares().into_iter().collect();
            placed[j + 1]
                .placement
                .squares()
                .iter()
                .any(|q| under.contains(q))
        })
        .expect("a card laid over the one before");
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    // Photos up to the one showing card j (tables[i] holds the cards up to i + 2).
    for t in &tables[..=j - 2] {
        tracker.observe(&as_read(t, 0));
    }
    // The next photo shows card j + 1 and misses card j (read as the table, glare on it).
    let mut missed = tables[j - 3].clone();
    missed.place(&set, placed[j + 1].placement);
    tracker.observe(&as_read(&missed, 0));
    tracker.observe(&as_read(&tables[j - 1], 0));
    let replay = tracker.finish();
    let order: Vec<(CardIdx, Turn)> = replay
        .cards
        .iter()
        .map(|c| (c.placement.card, c.placement.turn))
        .collect();
    let laid: Vec<(CardIdx, Turn)> = placed[..=j + 1]
        .iter()
        .map(|c| (c.placement.card, c.placement.turn))
        .collect();
    // The starting board is laid in whichever order its photo allows.
    assert_eq!(order[3..], laid[3..]);
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
}

/// The first photo read shows the starting board with plays over it (the photos before it
/// missed the table): a starting card its few clear squares leave unnamed may leave three of
/// a player's cards of one deck looking like the starting board, with the other starting
/// cards played over it. The tracker then waits for a photo that tells them apart rather
/// than judge every play against the wrong board. (Seed 5's photo of six cards took a
/// player's three for it.)
#[test]
fn a_first_photo_of_several_cards_never_takes_a_players_cards_for_the_starting_board() {
    let mut laid_any = 0;
    for seed in 0..12 {
        let (set, truth, tables) = game(seed);
        for table in &tables[1..=3] {
            let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
            let first = tracker.observe(&as_read(table, 2)).clone();
            let FrameOutcome::Settled { laid, .. } = first else {
                panic!("seed {seed}: photo skipped: {first:?}");
            };
            if laid.is_empty() {
                continue;
            }
            laid_any += 1;
            let replay = tracker.finish();
            let sorted = |mut cards: Vec<CardIdx>| {
                cards.sort();
                cards
            };
            let start = replay.cards[..3].iter().map(|c| c.placement.card).collect();
            let truth_start = truth.placed()[..3]
                .iter()
                .map(|p| p.placement.card)
                .collect();
            assert_eq!(sorted(start), sorted(truth_start), "seed {seed}");
        }
    }
    // Some of these photos name the starting board for sure.
    assert!(laid_any > 0);
}

/// A starting board whose photos all show one square of it as a pattern near its own in
/// colour (giraffe as tiger or tiger as giraffe: glare or a shadow on it in every photo) is
/// named by the cards that fit all the rest, that square taken for misread, two times in
/// three or more, whichever of its giraffe and tiger squares it is. Where other faces fit as
/// nearly, the board waits, with a doubt. Other cards are named only where the picture as
/// misread is theirs exactly, which no reading of that photo can tell.
#[test]
fn a_starting_board_with_one_square_misread_in_every_photo_is_named() {
    let set = set();
    let start = starting_board(&set);
    let mut truth: Vec<Placement> = start.placed().iter().map(|p| p.placement).collect();
    truth.sort_by_key(|p| p.card);
    // The picture framed by a margin of table, as the reading gives it.
    let picture = as_read(&start, 0).picture;
    let alike: Vec<(usize, usize, char)> = picture
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.chars().enumerate().filter_map(move |(c, ch)| match ch {
                'g' => Some((r, c, 't')),
                't' => Some((r, c, 'g')),
                _ => None,
            })
        })
        .collect();
    let (mut tried, mut named) = (0, 0);
    for &(r0, c0, misread) in &alike {
        tried += 1;
        let edit = |r, c, ch| if (r, c) == (r0, c0) { misread } else { ch };
        let read = reading_of(&start, 0, edit);
        let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
        tracker.observe(&read);
        tracker.observe(&read);
        let replay = tracker.finish();
        let mut laid: Vec<Placement> = replay.cards.iter().map(|c| c.placement).collect();
        if laid.is_empty() {
            assert!(!replay.doubts.is_empty(), "({r0}, {c0})");
            continue;
        }
        let mut board = Board::new(SideIdx(0), PlacementRules::GAME);
        for &p in &laid {
            board.place(&set, p);
        }
        laid.sort_by_key(|p| p.card);
        let cards = |ps: &[Placement]| ps.iter().map(|p| p.card).collect::<Vec<_>>();
        if cards(&laid) != cards(&truth) {
            // Another starting board that shows exactly what was read.
            let read_rows: Vec<String> = read.picture[1..read.picture.len() - 1]
                .iter()
                .map(|row| row[1..row.len() - 1].to_string())
                .collect();
            assert_eq!(board.picture().unwrap().1, read_rows, "({r0}, {c0})");
            continue;
        }
        // The same misreading in the next photo is no change on the table.
        assert!(
            replay.doubts.is_empty(),
            "({r0}, {c0}): {:?}",
            replay.doubts
        );
        named += 1;
    }
    assert!(tried >= 10, "{tried}");
    // 8 of the 11 (none without taking a square for misread).
    assert!(named * 3 >= tried * 2, "{named} of {tried}");
}

/// The reading of `board` with the squares at `unread` read as unknown.
fn read_without(board: &Board, unread: &[LatticePos]) -> CamouflageReading {
    let (top_left, _) = board.picture().unwrap();
    // The reading's grid has a margin of one square round the picture.
    let at = |r: usize, c: usize| {
        LatticePos::new(r as i32 - 1 + top_left.row, c as i32 - 1 + top_left.col)
    };
    reading_of(
        board,
        0,
        |r, c, ch| {
            if unread.contains(&at(r, c)) {
                '?'
            } else {
                ch
            }
        },
    )
}

/// A photo shows a new card's centre but too few of its squares to name it; the next names
/// it with the card laid over its edge since. The first photo shows which came first (the
/// second card's squares are still as they were in it), so both are judged in that order,
/// without doubt, where one photo of the two alone leaves the order, and a verdict, open
/// (seed 4's game 187).
#[test]
fn a_card_seen_unnamed_in_the_photo_before_the_next_was_laid_first() {
    let mut tried = 0;
    for seed in 0..20 {
        let (set, truth, tables) = game(seed);
        let placed = truth.placed();
        let judged = |order: [usize; 2], before: &Board| {
            let mut b = before.clone();
            let mut out: Vec<(usize, bool, u8)> = order
                .iter()
                .map(|&k| {
                    let p = b.place(&set, placed[k].placement);
                    (k, p.is_legal(), p.covered_squares())
                })
                .collect();
            out.sort();
            out
        };
        // A card and the next, laid legally over its edge, whose verdicts depend on which is
        // on top.
        let Some(j) = (4..placed.len() - 1).find(|&j| {
            let before = &tables[j - 3];
            placed[j].is_legal()
                && placed[j + 1].is_legal()
                && judged([j, j + 1], before) != judged([j + 1, j], before)
        }) else {
            continue;
        };
        let replay_with = |between: Option<CamouflageReading>| {
            let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
            for t in &tables[..=j - 3] {
                tracker.observe(&as_read(t, 0));
            }
            if let Some(r) = between {
                let outcome = tracker.observe(&r).clone();
                assert!(
                    matches!(&outcome, FrameOutcome::Settled { laid, unexplained, .. }
                        if laid.is_empty() && unexplained.len() == 1),
                    "seed {seed}: {outcome:?}"
                );
            }
            tracker.observe(&as_read(&tables[j - 1], 0));
            tracker.finish()
        };
        // Alone, the photo of both leaves the order open, where it names both (the lower
        // card's squares under the upper may leave more than one face fitting it).
        let alone = replay_with(None);
        if alone.cards.len() < j + 2 {
            continue;
        }
        assert!(!alone.unsure_verdicts.is_empty(), "seed {seed}");
        tried += 1;
        // Three of the first card's patterns unread: it cannot be named.
        let unread: Vec<LatticePos> = placed[j]
            .placement
            .squares()
            .into_iter()
            .filter(|&q| q != placed[j].placement.centre)
            .take(3)
            .collect();
        let replay = replay_with(Some(read_without(&tables[j - 2], &unread)));
        assert!(replay.doubts.is_empty(), "seed {seed}: {:?}", replay.doubts);
        assert!(replay.unsure_verdicts.is_empty(), "seed {seed}");
        let mut replayed = Board::new(SideIdx(0), PlacementRules::GAME);
        for c in &replay.cards {
            replayed.place(&set, c.placement);
        }
        assert_eq!(
            verdicts(&replayed)[3..],
            verdicts(&tables[j - 1])[3..],
            "seed {seed}"
        );
    }
    assert!(tried >= 5, "{tried}");
}

/// A first photo that shows the starting board but names none of it (too few squares of
/// each card read), then photos that do: the squares the first photo saw were the starting
/// cards', laid together in the second, not cards missed beside them (seed 4's game 187).
#[test]
fn a_starting_board_first_seen_unnamed_leaves_no_doubt() {
    let (set, truth, tables) = game(5);
    let start = &tables[0];
    let unread: Vec<LatticePos> = start
        .placed()
        .iter()
        .flat_map(|p| {
            let c = p.placement.centre;
            [c.offset(-1, -1), c.offset(-1, 0), c.offset(-1, 1)]
        })
        .collect();
    let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
    let outcome = tracker.observe(&read_without(start, &unread)).clone();
    assert!(
        matches!(&outcome, FrameOutcome::Settled { laid, .. } if laid.is_empty()),
        "{outcome:?}"
    );
    for t in &tables[..4] {
        tracker.observe(&as_read(t, 0));
    }
    let replay = tracker.finish();
    assert!(replay.doubts.is_empty(), "{:?}", replay.doubts);
    let laid: Vec<CardIdx> = replay.cards.iter().map(|c| c.placement.card).collect();
    let mut played: Vec<CardIdx> = truth.placed()[..6]
        .iter()
        .map(|p| p.placement.card)
        .collect();
    let (mut got_start, mut truth_start) = (laid[..3].to_vec(), played[..3].to_vec());
    got_start.sort();
    truth_start.sort();
    assert_eq!(got_start, truth_start);
    assert_eq!(laid[3..], played.split_off(3)[..]);
}

/// The tables of a game of decks 1 and 2 until deck 1 has laid `before` cards, and then of
/// a first card of deck 3: at the first legal place of one of its cards, or `illegal` on a
/// card's corner, covering no centre.
fn late_player(set: &CamouflageSet, before: usize, illegal: bool) -> Vec<Board> {
    let players = [DeckIdx(1), DeckIdx(2)];
    for seed in 0..20 {
        let (game, _) = simulate_game(set, SideIdx(0), false, DeckIdx(0), &players, seed).unwrap();
        let mut board = Board::new(SideIdx(0), PlacementRules::GAME);
        let mut tables = Vec::new();
        let mut deck_1 = 0;
        for (i, p) in game.placed().iter().enumerate() {
            if deck_1 == before {
                break;
            }
            board.place(set, p.placement);
            deck_1 += usize::from(i >= 3 && set.card(p.placement.card).deck == DeckIdx(1));
            if i >= 2 {
                tables.push(board.clone());
            }
        }
        let centres: Vec<LatticePos> = board.placed().iter().map(|p| p.placement.centre).collect();
        let late = set.deck(DeckIdx(3)).cards.iter().find_map(|&card| {
            if !illegal {
                return Some(board.legal_moves(set, card).first()?.placement(card));
            }
            let corners = centres.iter().flat_map(|c| {
                [(-2, -2), (2, 2), (-2, 2), (2, -2)].map(|(dr, dc)| c.offset(dr, dc))
            });
            corners
                .flat_map(|centre| {
                    (0..4).map(move |t| Placement {
                        card,
                        centre,
                        turn: Turn::from_quarter_turns(t),
                    })
                })
                .find(|p| {
                    board.check(set, p).is_err()
                        && !p.squares().iter().any(|q| centres.contains(q))
                        && !centres.iter().any(|c| c.within_one(p.centre))
                })
        });
        if let Some(late) = late.filter(|_| deck_1 == before) {
            board.place(set, late);
            tables.push(board);
            return tables;
        }
    }
    panic!("no game lets deck 3 in after {before} cards of deck 1");
}

/// Every player starts at once, though one whose cards fit nowhere may wait a few turns: a
/// deck's first card after another player has laid five that also breaks the rules is more
/// likely a mark taken for a centre (seed 4's game 95), and the replay says so. One laid
/// legally, or after four, is a player slow to start.
#[test]
fn an_illegal_first_card_of_a_deck_after_another_player_laid_five_leaves_the_replay_in_doubt() {
    let set = set();
    for (before, illegal, doubted) in [(4, true, false), (5, false, false), (5, true, true)] {
        let mut tracker = Tracker::new(&set, SideIdx(0), PlacementRules::GAME);
        for (i, t) in late_player(&set, before, illegal).iter().enumerate() {
            let outcome = tracker.observe(&as_read(t, 0)).clone();
            assert!(outcome.laid_any(), "photo {i}: {outcome:?}");
        }
        let replay = tracker.finish();
        let last = replay.cards.last().unwrap().placement.card;
        assert_eq!(set.card(last).deck, DeckIdx(3));
        let late = replay
            .doubts
            .iter()
            .any(|d| d.contains("is the first of its deck"));
        assert_eq!(
            late, doubted,
            "after {before} cards, illegal {illegal}: {:?}",
            replay.doubts
        );
    }
}
