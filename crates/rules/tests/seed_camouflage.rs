//! Camouflage (seed 004) rule sentences, checked through the public API on small sets built
//! here (the shipped set is regenerated from time to time, so no test depends on its cards).
//! `docs/SEED_COVERAGE.md` maps every sentence of the seed to its tests.

use serde_json::{json, Value};
use tablejudge_rules::camouflage::{
    check_arrangement, footprint, score, solve, Board, Breach, CamouflageSet, Coverage, Fault,
    GameRules, History, HistoryError, Illegal, LatticePos, Mode, Placement, PlacementRules, Play,
    Player, PuzzleFault, SideIdx, Square, TimerLevel,
};
use tablejudge_rules::grid::Turn;
use tablejudge_rules::key::Key;

/// A set file with the given sides (name, pattern keys), cards (deck, id, one face per side in
/// the order given) and puzzles.
fn build(
    sides: &[(&str, &str)],
    cards: &[(String, String, Vec<[&str; 3]>)],
    puzzles: Value,
) -> CamouflageSet {
    let sides_json: serde_json::Map<String, Value> = sides
        .iter()
        .map(|(name, keys)| {
            let patterns: serde_json::Map<String, Value> = keys
                .chars()
                .map(|k| (k.to_string(), json!({ "name": format!("pattern {k}") })))
                .collect();
            (name.to_string(), Value::Object(patterns))
        })
        .collect();
    let mut decks: Vec<(String, Vec<Value>)> = Vec::new();
    for (deck, id, faces) in cards {
        let mut card = serde_json::Map::new();
        card.insert("id".into(), json!(id));
        for ((side, _), face) in sides.iter().zip(faces) {
            card.insert(side.to_string(), json!(face));
        }
        match decks.iter_mut().find(|(d, _)| d == deck) {
            Some((_, list)) => list.push(Value::Object(card)),
            None => decks.push((deck.clone(), vec![Value::Object(card)])),
        }
    }
    let decks: Vec<Value> = decks
        .into_iter()
        .map(|(id, cards)| json!({ "id": id, "cards": cards }))
        .collect();
    let file = json!({
        "format": "tablejudge/camouflage-set@1",
        "name": "seed-test",
        "sides": sides_json,
        "decks": decks,
        "puzzles": puzzles,
    });
    CamouflageSet::from_json(&file.to_string(), "seed-test.json").unwrap_or_else(|e| panic!("{e}"))
}

const ALL_A: [&str; 3] = ["aaa", "a*a", "aaa"];
const ALL_R: [&str; 3] = ["rrr", "r*r", "rrr"];
const ALL_S: [&str; 3] = ["sss", "s*s", "sss"];

/// Decks `a`..`h` of six cards (`a-1`..`a-6`, …). Animal side: every square pattern `a`, so
/// legality is pure geometry. Gems side: deck `b` is all `s`, every other deck all `r`.
fn eight_decks() -> CamouflageSet {
    let mut cards = Vec::new();
    for d in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        for i in 1..=6 {
            let gems = if d == "b" { ALL_S } else { ALL_R };
            cards.push((d.to_string(), format!("{d}-{i}"), vec![ALL_A, gems]));
        }
    }
    build(&[("animal", "a"), ("gems", "rs")], &cards, json!([]))
}

fn animal(set: &CamouflageSet) -> SideIdx {
    set.side_by_name("animal").unwrap()
}

fn at(set: &CamouflageSet, id: &str, row: i32, col: i32) -> Placement {
    Placement {
        card: set.card_by_id(id).unwrap(),
        centre: LatticePos::new(row, col),
        turn: Turn::R0,
    }
}

fn play(set: &CamouflageSet, player: usize, id: &str, row: i32, col: i32) -> Play {
    Play {
        player,
        card: set.card_by_id(id).unwrap(),
        centre: LatticePos::new(row, col),
        turn: Turn::R0,
        time_ms: None,
        location: None,
    }
}

fn players(set: &CamouflageSet, decks: &[&str]) -> Vec<Player> {
    decks
        .iter()
        .map(|d| Player {
            name: format!("player {d}"),
            deck: set.deck_by_id(d).unwrap(),
        })
        .collect()
}

fn rules(mode: Mode, timer: TimerLevel) -> GameRules {
    GameRules {
        mode,
        wild_centres: false,
        timer,
    }
}

/// Starting board h-1, h-2, h-3 in a row.
fn row_start(set: &CamouflageSet) -> Vec<Placement> {
    vec![
        at(set, "h-1", 0, 0),
        at(set, "h-2", 0, 2),
        at(set, "h-3", 0, 4),
    ]
}

/// Plays `(player, card id, time)` in order, each at the first legal place on the table as it
/// is (the animal side of `eight_decks`, where every place touching three squares is legal).
fn legal_plays(set: &CamouflageSet, start: &[Placement], seq: &[(usize, &str, u64)]) -> Vec<Play> {
    let mut board = Board::new(animal(set), PlacementRules::GAME);
    for s in start {
        board.place(set, *s);
    }
    seq.iter()
        .map(|&(player, id, time)| {
            let card = set.card_by_id(id).unwrap();
            let m = board.legal_moves(set, card)[0];
            board.place(set, m.placement(card));
            Play {
                player,
                card,
                centre: m.centre,
                turn: m.turn,
                time_ms: Some(time),
                location: None,
            }
        })
        .collect()
}

/// A play laid far from everything: illegal, and touching nothing later plays could rely on.
fn far_play(set: &CamouflageSet, player: usize, id: &str, time: u64) -> Play {
    Play {
        time_ms: Some(time),
        ..play(set, player, id, 100, 100)
    }
}

fn deck_seq(player: usize, deck: &str, first_time: u64) -> Vec<(usize, String, u64)> {
    (1..=6)
        .map(|i| {
            (
                player,
                format!("{deck}-{i}"),
                first_time + 1000 * (i as u64 - 1),
            )
        })
        .collect()
}

fn refs(seq: &[(usize, String, u64)]) -> Vec<(usize, &str, u64)> {
    seq.iter().map(|(p, s, t)| (*p, s.as_str(), *t)).collect()
}

// ---------------------------------------------------------------------------------------------
// General set up and rules of play

/// "Collectively the players will choose which side of the cards they will be playing with":
/// the same layout is judged on the chosen side only.
#[test]
fn cards_are_judged_on_the_side_the_players_chose() {
    let set = eight_decks();
    let gems = set.side_by_name("gems").unwrap();
    let mut h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start: row_start(&set),
        plays: vec![play(&set, 1, "b-1", 2, 0)],
    };
    let on_animal = score(&set, &rules(Mode::Diversify, TimerLevel::Beginners), &h).unwrap();
    assert!(on_animal.plays[0].faults.is_empty());
    assert_eq!(on_animal.plays[0].points, 2); // h-1 and h-2
    h.side = gems;
    let on_gems = score(&set, &rules(Mode::Diversify, TimerLevel::Beginners), &h).unwrap();
    match &on_gems.plays[0].faults[..] {
        [Fault::Illegal(Illegal { breaches })] => {
            assert_eq!(breaches.len(), 3, "{breaches:?}");
            assert!(breaches.iter().all(|b| matches!(
                b,
                Breach::Mismatch { placed, below, .. }
                    if placed.char() == 's' && below.char() == 'r'
            )));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(on_gems.plays[0].points, 0);
}

/// "(Players: 2-6)" for Speed Round, Diversify and Cover Some Ground; "(Players: 3-7)" for
/// Not My Stack!.
#[test]
fn player_counts_of_every_mode() {
    let set = eight_decks();
    let decks = ["a", "b", "c", "d", "e", "f", "g"];
    for mode in Mode::ALL {
        let (min, max) = if mode == Mode::NotMyStack {
            (3, 7)
        } else {
            (2, 6)
        };
        assert_eq!(mode.players(), (min, max));
        for n in 1..=7 {
            let start = if mode == Mode::NotMyStack {
                decks[..n]
                    .iter()
                    .map(|d| at(&set, &format!("{d}-1"), 0, 0))
                    .collect()
            } else {
                row_start(&set)
            };
            let h = History {
                side: animal(&set),
                players: players(&set, &decks[..n]),
                start,
                plays: vec![],
            };
            let result = score(&set, &rules(mode, TimerLevel::Beginners), &h);
            if (min..=max).contains(&n) {
                assert!(result.is_ok(), "{mode} with {n}: {result:?}");
            } else {
                assert_eq!(
                    result.unwrap_err(),
                    HistoryError::PlayerCount {
                        mode,
                        found: n,
                        min,
                        max
                    },
                    "{mode} with {n}"
                );
            }
        }
    }
}

/// "find three cards in this deck that match up together … lay the card so that the matching
/// three squares overlap the other card(s)" / "The overall shape that the starting board makes
/// does not matter": any legal shape stands, a starting card that does not match is reported.
#[test]
fn the_starting_board_is_three_matching_cards_of_any_shape() {
    let set = eight_decks();
    let shapes = [
        row_start(&set),
        vec![
            at(&set, "h-1", 0, 0),
            at(&set, "h-2", 0, 2),
            at(&set, "h-3", 2, 0),
        ],
        vec![
            at(&set, "h-1", 0, 0),
            at(&set, "h-2", 2, 0),
            at(&set, "h-3", 4, 0),
        ],
    ];
    for start in shapes {
        let h = History {
            side: animal(&set),
            players: players(&set, &["a", "b"]),
            start,
            plays: vec![],
        };
        let r = score(&set, &rules(Mode::SpeedRound, TimerLevel::Beginners), &h).unwrap();
        assert_eq!(
            r.start,
            vec![
                Ok(Coverage { covered: 0 }),
                Ok(Coverage { covered: 3 }),
                Ok(Coverage { covered: 3 })
            ]
        );
    }
    // The third card touches the others on two squares only.
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start: vec![
            at(&set, "h-1", 0, 0),
            at(&set, "h-2", 0, 2),
            at(&set, "h-3", 2, 4),
        ],
        plays: vec![],
    };
    let r = score(&set, &rules(Mode::SpeedRound, TimerLevel::Beginners), &h).unwrap();
    assert_eq!(
        r.start[2],
        Err(Illegal {
            breaches: vec![Breach::TooFewCovered {
                covered: 1,
                required: 3
            }]
        })
    );
}

/// "take a deck that did not get chosen by a player" / "place the other three unused cards from
/// that deck back in the box": the starting deck is nobody's, and its other cards are never
/// played.
#[test]
fn the_starting_deck_is_nobodys_and_its_other_cards_stay_in_the_box() {
    let set = eight_decks();
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "h"]),
        start: row_start(&set),
        plays: vec![],
    };
    assert!(matches!(
        score(&set, &rules(Mode::Diversify, TimerLevel::Beginners), &h),
        Err(HistoryError::StartDeck { .. })
    ));
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start: row_start(&set),
        plays: vec![play(&set, 0, "h-4", 2, 0)],
    };
    assert!(matches!(
        score(&set, &rules(Mode::Diversify, TimerLevel::Beginners), &h),
        Err(HistoryError::NotTheirCard {
            play: 0,
            player: 0,
            ..
        })
    ));
}

/// "This game is played with no turns. Players play cards as quickly or as slowly as they would
/// like": any interleaving stands, including one player laying several cards in a row.
#[test]
fn there_are_no_turns() {
    let set = eight_decks();
    let seq = [
        (1, "b-1", 1000),
        (1, "b-2", 1100),
        (1, "b-3", 1200),
        (0, "a-1", 5000),
        (1, "b-4", 5001),
        (0, "a-2", 9000),
        (0, "a-3", 9001),
    ];
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start: row_start(&set),
        plays: legal_plays(&set, &row_start(&set), &seq),
    };
    for mode in [Mode::SpeedRound, Mode::Diversify, Mode::CoverSomeGround] {
        let r = score(&set, &rules(mode, TimerLevel::Expert), &h).unwrap();
        assert!(
            r.plays.iter().all(|p| p.faults.is_empty()),
            "{mode}: {:?}",
            r.plays
        );
        assert_eq!(r.players[0].cards_played, 3);
        assert_eq!(r.players[1].cards_played, 4);
    }
}

/// "It is possible for a card to overlap more than three squares at a time, but all squares
/// that the card covers must match perfectly": five covered squares, one of them wrong, is
/// illegal; all five right is legal and covers five.
#[test]
fn every_covered_square_must_match_not_just_three() {
    let cards = vec![
        ("p".to_string(), "p-1".to_string(), vec![ALL_R]),
        ("p".to_string(), "p-2".to_string(), vec![ALL_R]),
        ("p".to_string(), "p-3".to_string(), vec![ALL_R]),
        (
            "p".to_string(),
            "p-4".to_string(),
            vec![["rrr", "r*r", "rrs"]],
        ),
    ];
    let set = build(&[("animal", "rs")], &cards, json!([]));
    let mut board = Board::new(SideIdx(0), PlacementRules::GAME);
    board.place(&set, at(&set, "p-1", 0, 0));
    assert!(board.place(&set, at(&set, "p-2", 2, 2)).verdict.is_err()); // physically there
                                                                        // At (0, 2) a card covers p-1's right column (two squares) and p-2's top row (three).
    assert_eq!(
        board.check(&set, &at(&set, "p-3", 0, 2)),
        Ok(Coverage { covered: 5 })
    );
    assert_eq!(
        board.check(&set, &at(&set, "p-4", 0, 2)),
        Err(Illegal {
            breaches: vec![Breach::Mismatch {
                at: LatticePos::new(1, 3),
                placed: Key::new('s').unwrap(),
                below: Key::new('r').unwrap(),
                below_card: 1
            }]
        })
    );
}

/// "(Center squares may not be covered.)" — nor, by formats.md §3, may a centre cover
/// anything; "Card Centers can be played as a wild square … any square pattern placed below it
/// or above it" lifts both, and a wild overlap counts towards the three squares.
#[test]
fn centres_are_never_covered_nor_covering_unless_wild() {
    let set = eight_decks();
    for wild in [false, true] {
        let mut board = Board::new(animal(&set), PlacementRules::game(wild));
        board.place(&set, at(&set, "a-1", 0, 0));
        // One row down: covers six squares, the first card's centre among them, and its own
        // centre lies on the first card's bottom middle square.
        let verdict = board.check(&set, &at(&set, "a-2", 1, 0));
        if wild {
            assert_eq!(verdict, Ok(Coverage { covered: 6 }));
        } else {
            let breaches = verdict.unwrap_err().breaches;
            assert_eq!(
                breaches,
                vec![
                    Breach::CoversCentre {
                        at: LatticePos::new(0, 0),
                        placed: Square::Pattern(Key::new('a').unwrap()),
                        below_card: 0
                    },
                    Breach::CentreCovers {
                        at: LatticePos::new(1, 0),
                        below: Square::Pattern(Key::new('a').unwrap()),
                        below_card: 0
                    },
                ]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Speed Round

/// "The first player to play all of their cards wins!" — when the first player out had laid a
/// card illegally, tablejudge gives the win to the next clean finisher; the ranking should then
/// list the winner first.
#[test]
fn speed_round_ranking_starts_with_the_winner() {
    let set = eight_decks();
    let mut seq = deck_seq(0, "a", 1000);
    seq.remove(2);
    seq.extend(deck_seq(1, "b", 10_000));
    let mut plays = legal_plays(&set, &row_start(&set), &refs(&seq));
    plays.insert(2, far_play(&set, 0, "a-3", 3000));
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start: row_start(&set),
        plays,
    };
    let r = score(&set, &rules(Mode::SpeedRound, TimerLevel::Beginners), &h).unwrap();
    assert!(matches!(r.plays[2].faults[..], [Fault::Illegal(_)]));
    assert_eq!(r.winners, vec![1]);
    assert_eq!(r.ranking[0], r.winners[0], "ranking {:?}", r.ranking);
}

// ---------------------------------------------------------------------------------------------
// Diversify and Cover Some Ground

/// The Diversify scoring example (pictures missing; the layout has the text's numbers), played
/// through a history: a card touching two starting cards scores 2, the card above it that
/// also lies over the bottom starting card without touching it scores 1. Cover Some Ground
/// counts three squares for each. Starting cards score for nobody.
#[test]
fn scoring_examples_through_a_scored_history() {
    let set = eight_decks();
    let start = vec![
        at(&set, "h-1", 0, 0),
        at(&set, "h-2", 0, 2),
        at(&set, "h-3", -2, 0),
    ];
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start,
        plays: vec![play(&set, 0, "a-1", 2, 0), play(&set, 0, "a-2", 2, -2)],
    };
    let d = score(&set, &rules(Mode::Diversify, TimerLevel::Beginners), &h).unwrap();
    assert_eq!(
        d.plays.iter().map(|p| p.points).collect::<Vec<_>>(),
        vec![2, 1]
    );
    assert_eq!(d.players[0].score, 3);
    assert_eq!(d.players[0].best_card, 2);
    assert_eq!(d.players[1].score, 0);
    let c = score(
        &set,
        &rules(Mode::CoverSomeGround, TimerLevel::Beginners),
        &h,
    )
    .unwrap();
    assert_eq!(
        c.plays.iter().map(|p| p.points).collect::<Vec<_>>(),
        vec![3, 3]
    );
    assert_eq!(c.players[0].score, 6);
}

/// "Each card is worth points based on how many squares it is overlapping of the cards below it
/// that it is in physical contact with" (Cover Some Ground) and "how many different cards are
/// below its overlapping squares" (Diversify): a legal card over five squares of two cards.
#[test]
fn a_card_over_five_squares_of_two_cards() {
    let set = eight_decks();
    let start = vec![
        at(&set, "h-1", 0, 0),
        at(&set, "h-2", 0, 2),
        at(&set, "h-3", 2, 0),
    ];
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start,
        plays: vec![play(&set, 1, "b-1", 2, 2)],
    };
    let c = score(
        &set,
        &rules(Mode::CoverSomeGround, TimerLevel::Beginners),
        &h,
    )
    .unwrap();
    assert!(c.plays[0].faults.is_empty(), "{:?}", c.plays[0]);
    assert_eq!(c.plays[0].points, 5);
    let d = score(&set, &rules(Mode::Diversify, TimerLevel::Beginners), &h).unwrap();
    assert_eq!(d.plays[0].points, 2);
}

/// "The first player to play all of their cards picks up the number 1 token and starts the
/// timer … Advanced- 30 seconds" / "The second player out receives the number 2 token": a last
/// card laid in time goes out and takes token 2; one laid a millisecond late scores 0 and does
/// not go out.
#[test]
fn a_late_last_card_neither_scores_nor_goes_out() {
    let set = eight_decks();
    let mut seq = deck_seq(0, "a", 1000); // out at 6000 ms
    seq.extend(deck_seq(1, "b", 7000));
    let plays = legal_plays(&set, &row_start(&set), &refs(&seq));
    for (last_time, in_time) in [(36_000, true), (36_001, false)] {
        let mut h = History {
            side: animal(&set),
            players: players(&set, &["a", "b", "c"]),
            start: row_start(&set),
            plays: plays.clone(),
        };
        h.plays[11].time_ms = Some(last_time);
        let r = score(&set, &rules(Mode::Diversify, TimerLevel::Advanced), &h).unwrap();
        assert_eq!(r.players[0].out_token, Some(1));
        assert!(r.plays[10].faults.is_empty());
        if in_time {
            assert!(r.plays[11].faults.is_empty());
            assert_eq!(r.players[1].out_token, Some(2));
            assert_eq!(r.players[1].cards_played, 6);
        } else {
            assert_eq!(
                r.plays[11].faults,
                vec![Fault::AfterTimer {
                    time_ms: 36_001,
                    deadline_ms: 36_000
                }]
            );
            assert_eq!(r.plays[11].points, 0);
            assert_eq!(r.players[1].out_token, None);
            assert_eq!(r.players[1].cards_played, 5);
        }
        // "Any unplayed cards score 0 points": player c laid nothing.
        assert_eq!(r.players[2].score, 0);
        assert_eq!(r.players[2].out_token, None);
    }
}

/// "Tie Breaker #1: The first player to have played all their cards wins!" through a scored
/// history: two players on equal points, the one who went out first wins alone.
#[test]
fn tie_breaker_one_through_a_history() {
    let set = eight_decks();
    // Players 0 and 1 lay five cards each, three squares apiece on the uniform table; then
    // player 0 lays the last card illegally (0 points, but played: player 0 goes out).
    let mut seq = deck_seq(0, "a", 1000);
    seq.truncate(5);
    seq.extend(deck_seq(1, "b", 7000).into_iter().take(5));
    let mut plays = legal_plays(&set, &row_start(&set), &refs(&seq));
    plays.push(far_play(&set, 0, "a-6", 20_000));
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b"]),
        start: row_start(&set),
        plays,
    };
    let r = score(
        &set,
        &rules(Mode::CoverSomeGround, TimerLevel::Beginners),
        &h,
    )
    .unwrap();
    assert_eq!((r.players[0].score, r.players[1].score), (15, 15));
    assert_eq!(r.players[0].out_token, Some(1));
    assert_eq!(r.players[1].out_token, None);
    assert!(r.plays[..10].iter().all(|p| p.points == 3), "{:?}", r.plays);
    assert_eq!(r.winners, vec![0]);
}

// ---------------------------------------------------------------------------------------------
// Not My Stack!

/// Spots around a lone card at the origin, each covering three of its squares.
const SPOTS: [(i32, i32); 4] = [(0, 2), (0, -2), (-2, 0), (2, 0)];

/// "(The sand timer is not used during this game.)": with Expert (no extra time) selected,
/// Not My Stack! placements after the first player went out still stand.
#[test]
fn not_my_stack_does_not_use_the_sand_timer() {
    let set = eight_decks();
    let nms = |player: usize, id: &str, loc: usize, spot: (i32, i32), time: u64| Play {
        time_ms: Some(time),
        location: Some(loc),
        ..play(&set, player, id, spot.0, spot.1)
    };
    let mut plays = vec![
        nms(0, "a-2", 1, SPOTS[0], 1000),
        nms(0, "a-3", 1, SPOTS[1], 2000),
        nms(0, "a-4", 1, SPOTS[2], 3000),
        nms(0, "a-5", 2, SPOTS[0], 4000),
        nms(0, "a-6", 2, SPOTS[1], 5000),
    ];
    // Long after player 0 went out.
    plays.push(nms(1, "b-2", 2, SPOTS[2], 600_000));
    plays.push(nms(2, "c-2", 1, SPOTS[3], 600_001));
    let h = History {
        side: animal(&set),
        players: players(&set, &["a", "b", "c"]),
        start: ["a", "b", "c"]
            .iter()
            .map(|d| at(&set, &format!("{d}-1"), 0, 0))
            .collect(),
        plays,
    };
    for timer in [TimerLevel::Expert, TimerLevel::Advanced] {
        let r = score(&set, &rules(Mode::NotMyStack, timer), &h).unwrap();
        assert_eq!(r.players[0].out_token, Some(1));
        assert!(r.plays.iter().all(|p| p.faults.is_empty()), "{:?}", r.plays);
        // Location 1: three of player 0's cards and one of player 2's; location 2: two + one.
        assert_eq!(
            r.players.iter().map(|p| p.score).collect::<Vec<_>>(),
            vec![0, 4, 3]
        );
        assert_eq!(r.winners, vec![0]);
    }
}

// ---------------------------------------------------------------------------------------------
// Solo/co-op puzzle mode

/// Deck `u` of four all-`a` cards and one puzzle per outline (all four cards, not wild).
fn puzzle_set(outlines: &[(&str, &[&str], Vec<&str>)]) -> CamouflageSet {
    let cards: Vec<(String, String, Vec<[&str; 3]>)> = (1..=4)
        .map(|i| ("u".to_string(), format!("u-{i}"), vec![ALL_A]))
        .collect();
    let puzzles: Vec<Value> = outlines
        .iter()
        .map(|(id, cards, outline)| {
            json!({ "id": id, "difficulty": 1, "side": "animal", "cards": cards,
                    "outline": outline })
        })
        .collect();
    build(&[("animal", "a")], &cards, json!(puzzles))
}

/// "Puzzle cards do not always follow the default minimum of 3 matching squares per card":
/// two cards sharing one corner square solve their puzzle, though in play the second card
/// would be illegal.
#[test]
fn puzzle_cards_need_not_cover_three_squares() {
    let set = puzzle_set(&[(
        "corner",
        &["u-1", "u-2"],
        vec!["###..", "#C#..", "#####", "..#C#", "..###"],
    )]);
    let puzzle = set.puzzle_by_id("corner").unwrap();
    let arrangement = [at(&set, "u-1", 0, 0), at(&set, "u-2", 2, 2)];
    assert_eq!(
        check_arrangement(&set, puzzle, &arrangement).map(|s| s.turn),
        Ok(Turn::R0)
    );
    let mut board = Board::new(animal(&set), PlacementRules::GAME);
    board.place(&set, arrangement[0]);
    assert_eq!(
        board.check(&set, &arrangement[1]),
        Err(Illegal {
            breaches: vec![Breach::TooFewCovered {
                covered: 1,
                required: 3
            }]
        })
    );
    assert!(solve(&set, puzzle).is_some());
}

/// "It is possible for there to be more than one correct answer for each puzzle": arrangements
/// other than the solver's — other cards on the centres, other turns, the whole layout turned
/// and moved — all pass.
#[test]
fn a_puzzle_accepts_every_correct_answer() {
    let outline = vec!["#####.", "#C#C#.", "######", "...#C#", "...###"];
    let set = puzzle_set(&[("three", &["u-1", "u-2", "u-3"], outline.clone())]);
    let puzzle = set.puzzle_by_id("three").unwrap();
    let answers = [
        [
            at(&set, "u-1", 0, 0),
            at(&set, "u-2", 0, 2),
            at(&set, "u-3", 2, 3),
        ],
        [
            at(&set, "u-3", 0, 0),
            at(&set, "u-1", 0, 2),
            at(&set, "u-2", 2, 3),
        ],
        [
            Placement {
                turn: Turn::R90,
                ..at(&set, "u-2", 0, 0)
            },
            Placement {
                turn: Turn::R180,
                ..at(&set, "u-3", 0, 2)
            },
            Placement {
                turn: Turn::R270,
                ..at(&set, "u-1", 2, 3)
            },
        ],
        // The layout turned a quarter clockwise and moved.
        [
            at(&set, "u-1", 7, 3),
            at(&set, "u-2", 9, 3),
            at(&set, "u-3", 10, 1),
        ],
    ];
    for (i, answer) in answers.iter().enumerate() {
        let solved = check_arrangement(&set, puzzle, answer);
        assert!(solved.is_ok(), "answer {i}: {solved:?}");
    }
    let found = footprint(&answers[0]).unwrap();
    assert_eq!(found.map(|s| s.char()).to_rows(), outline);
    // The mirror image is not the puzzle's pattern.
    let mirrored = [
        at(&set, "u-1", 0, 0),
        at(&set, "u-2", 0, -2),
        at(&set, "u-3", 2, -3),
    ];
    assert!(matches!(
        check_arrangement(&set, puzzle, &mirrored)
            .unwrap_err()
            .faults[..],
        [PuzzleFault::Outline { .. }]
    ));
}
