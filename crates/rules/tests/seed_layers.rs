//! Layers+ (seed 000) rule sentences, checked through the public API. Each test names the
//! sentence it pins; `docs/SEED_COVERAGE.md` maps every sentence of the seed to its tests.

use std::collections::BTreeSet;

use tablejudge_rules::grid::{Grid, Pos, Turn};
use tablejudge_rules::key::Key;
use tablejudge_rules::layers::round::{score_tokens, PLAYERS, ROUNDS, SOLO_TIME_LIMIT_SECONDS};
use tablejudge_rules::layers::{
    score_round, solo_score, verify, Finish, Game, GameError, LayersSet, Placement, RoundError,
    RoundEvent, Side, SoloRating, Solver,
};

const REFERENCE: &str = include_str!("../../../models/layers/reference.json");

fn reference() -> LayersSet {
    LayersSet::from_json(REFERENCE, "models/layers/reference.json").unwrap()
}

fn finish(player: usize, correct: bool) -> Finish {
    Finish { player, correct }
}

/// Every ordered list of distinct finishers among `n` players, each right or wrong.
fn all_finisher_lists(n: usize) -> Vec<Vec<Finish>> {
    fn extend(n: usize, so_far: &mut Vec<Finish>, out: &mut Vec<Vec<Finish>>) {
        out.push(so_far.clone());
        for p in 0..n {
            if so_far.iter().any(|f| f.player == p) {
                continue;
            }
            for correct in [true, false] {
                so_far.push(finish(p, correct));
                extend(n, so_far, out);
                so_far.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(n, &mut Vec::new(), &mut out);
    out
}

/// "Only use score tokens of a certain type according to the number of players" / "Place one
/// score token of each type in the center": one token of each value 1..=N per round, and the
/// box's 24 tokens are six rounds of four values (the table itself lost its picture).
#[test]
fn one_token_of_each_type_per_round_and_24_in_the_box() {
    for n in PLAYERS {
        let tokens = score_tokens(n);
        assert_eq!(tokens.len(), n);
        let distinct: BTreeSet<u8> = tokens.iter().copied().collect();
        assert_eq!(distinct, (1..=n as u8).collect());
        assert!(tokens.windows(2).all(|w| w[0] > w[1]), "highest first");
    }
    assert_eq!(ROUNDS * score_tokens(*PLAYERS.end()).len(), 24);
}

/// "you quickly bring the score token of the highest value among those in the center" and the
/// whole verification chain (§3 steps 1, 4, 5, 6), for every round of 2 to 4 players: every
/// order of finishers and every verdict. The chain always ends with the correct finishers
/// keeping the top tokens in finishing order, the next tokens taken going back to the box one
/// per wrong stack, and untaken tokens left in the centre.
#[test]
fn every_round_ends_with_correct_finishers_keeping_the_top_tokens() {
    let mut rounds = 0;
    for n in PLAYERS {
        for finishers in all_finisher_lists(n) {
            rounds += 1;
            let r = score_round(n, &finishers).unwrap();
            let top = n as u8;
            // Took: highest token left, in finishing order.
            let took: Vec<(usize, u8)> = r
                .events
                .iter()
                .filter_map(|e| match *e {
                    RoundEvent::Took { player, token } => Some((player, token)),
                    _ => None,
                })
                .collect();
            let expected_took: Vec<(usize, u8)> = finishers
                .iter()
                .enumerate()
                .map(|(i, f)| (f.player, top - i as u8))
                .collect();
            assert_eq!(took, expected_took, "{finishers:?}");

            // Kept: the j-th correct finisher keeps N - j; wrong and unfinished players keep 0.
            let mut expected = vec![None; n];
            for (j, f) in finishers.iter().filter(|f| f.correct).enumerate() {
                expected[f.player] = Some(top - j as u8);
            }
            assert_eq!(r.tokens, expected, "{finishers:?}");
            for (p, kept) in expected.iter().enumerate() {
                assert_eq!(r.points(p), kept.map_or(0, u32::from));
            }

            // Every token of the round ends in exactly one place.
            let wrong = finishers.iter().filter(|f| !f.correct).count();
            let taken = finishers.len();
            let mut boxed = r.returned_to_box.clone();
            boxed.sort_unstable();
            let expected_boxed: Vec<u8> =
                (top - taken as u8 + 1..=top - taken as u8 + wrong as u8).collect();
            assert_eq!(boxed, expected_boxed, "{finishers:?}");
            let mut left = r.left_in_centre.clone();
            left.sort_unstable();
            assert_eq!(left, (1..=top - taken as u8).collect::<Vec<u8>>());
            let mut all: Vec<u8> = r.tokens.iter().flatten().copied().collect();
            all.extend(&r.returned_to_box);
            all.extend(&r.left_in_centre);
            all.sort_unstable();
            assert_eq!(all, (1..=top).collect::<Vec<u8>>(), "{finishers:?}");

            // Verification: each finisher once, never a player who did not finish, from the
            // highest token held down.
            let verified: Vec<(usize, u8)> = r
                .events
                .iter()
                .filter_map(|e| match *e {
                    RoundEvent::Verified { player, token, .. } => Some((player, token)),
                    _ => None,
                })
                .collect();
            let mut who: Vec<usize> = verified.iter().map(|v| v.0).collect();
            who.sort_unstable();
            let mut finished: Vec<usize> = finishers.iter().map(|f| f.player).collect();
            finished.sort_unstable();
            assert_eq!(who, finished);
            assert!(
                verified.windows(2).all(|w| w[0].1 >= w[1].1),
                "{verified:?}"
            );
            // A token is only ever passed to a player who finished.
            for e in &r.events {
                if let RoundEvent::Passed { to, .. } = *e {
                    assert!(finished.contains(&to));
                }
            }
        }
    }
    // sum over k of P(n, k) * 2^k: 13, 79 and 633 rounds for 2, 3 and 4 players.
    assert_eq!(rounds, 13 + 79 + 633);
}

/// The seed's worked example (Alex 4 correct, Sam 3 incorrect, Eli 2 correct, Tracy
/// unfinished) as the first round of a game: points 4, 0, 3, 0, and the next round is started
/// by the player to the left of Alex.
#[test]
fn the_seed_example_as_the_first_round_of_a_game() {
    let (alex, sam, eli, tracy) = (0, 1, 2, 3);
    let mut game = Game::new(4, alex).unwrap();
    let round = game
        .play_round(
            alex,
            3,
            &[finish(alex, true), finish(sam, false), finish(eli, true)],
        )
        .unwrap()
        .clone();
    assert_eq!(round.outcome.tokens, vec![Some(4), None, Some(3), None]);
    assert_eq!(round.outcome.returned_to_box, vec![2]);
    assert_eq!(round.outcome.points(tracy), 0);
    assert_eq!(game.totals(), vec![4, 0, 3, 0]);
    assert_eq!(game.starting_player(), Some(sam));
}

/// "The game is played in 6 rounds" / "the player to the left of the current starting player
/// becomes the starting player" / "The starting player chooses a mission card deck", for every
/// player count and first starting player.
#[test]
fn six_rounds_with_the_start_moving_left_for_every_player_count() {
    for n in PLAYERS {
        for first in 0..n {
            let mut game = Game::new(n, first).unwrap();
            for r in 0..ROUNDS {
                let start = game.starting_player().unwrap();
                assert_eq!(start, (first + r) % n);
                let other = (start + 1) % n;
                assert_eq!(
                    game.play_round(other, 2, &[]).unwrap_err(),
                    GameError::NotTheStartingPlayer {
                        chooser: other,
                        starting_player: start
                    }
                );
                assert!(game.winners().is_err(), "not over after {r} rounds");
                game.play_round(start, 2 + r % 4, &[]).unwrap();
            }
            assert!(game.is_over());
            assert_eq!(game.starting_player(), None);
            assert_eq!(game.play_round(first, 2, &[]).unwrap_err(), GameError::Over);
            assert_eq!(game.rounds().len(), 6);
        }
    }
}

/// "Each player adds the value of their Score tokens. The player with the highest total score
/// wins. If there is a tie, share the victory." — including a game nobody scored in.
#[test]
fn totals_add_every_round_and_ties_share_the_victory() {
    let mut game = Game::new(3, 0).unwrap();
    let rounds = [
        vec![finish(0, true), finish(1, true)], // 3, 2
        vec![finish(1, true), finish(2, false), finish(0, true)], // 1 keeps 3, 0 gets 2
        vec![finish(2, true)],                  // 2 gets 3
        vec![],
        vec![finish(2, true), finish(0, false)], // 2 gets 3
        vec![finish(2, true), finish(1, true)],  // 2 gets 3, 1 gets 2
    ];
    for finishers in &rounds {
        let start = game.starting_player().unwrap();
        game.play_round(start, 4, finishers).unwrap();
    }
    assert_eq!(game.totals(), vec![5, 7, 9]);
    assert_eq!(game.winners().unwrap(), vec![2]);

    let mut nobody = Game::new(2, 1).unwrap();
    while let Some(start) = nobody.starting_player() {
        nobody.play_round(start, 5, &[]).unwrap();
    }
    assert_eq!(nobody.totals(), vec![0, 0]);
    assert_eq!(nobody.winners().unwrap(), vec![0, 1]);
}

/// "4 Player cards": a game is for 2 to 4 players; "When playing a 1-player game, do not use
/// the score tokens": a round cannot be scored for one player.
#[test]
fn score_tokens_are_for_2_to_4_players_only() {
    for n in [0, 1, 5] {
        assert_eq!(
            score_round(n, &[]).unwrap_err(),
            RoundError::PlayerCount { found: n }
        );
        assert!(Game::new(n, 0).is_err());
    }
}

/// "Turn, flip and overlap the layers": turning every layer of a stack the same way is turning
/// the whole stack, so a turned solution still matches its mission (and verify reports the
/// turn back). Checked on every mission of the shipped set.
#[test]
fn turning_every_layer_is_turning_the_whole_stack() {
    let set = reference();
    let solver = Solver::new(&set);
    for m in set.missions() {
        let solution = &solver.solutions(m.pattern(), m.layers())[0];
        let shown = set.compose(&solution.stack).unwrap();
        assert_eq!(&shown, m.pattern(), "mission {}", m.id());
        for t in Turn::ALL {
            let turned: Vec<Placement> = solution
                .stack
                .iter()
                .map(|p| Placement::new(p.layer, p.side, p.turn.then(t)))
                .collect();
            let observed = set.compose(&turned).unwrap();
            assert_eq!(observed, m.pattern().turned(t), "mission {} {t}", m.id());
            let verdict = m.verify(&observed);
            assert!(verdict.is_match(), "mission {} {t}: {verdict:?}", m.id());
        }
    }
}

/// "Each Layer has different colors on the front and back" / formats.md §2: the back is written
/// as seen after turning the layer over left to right, so flipping it top to bottom instead is
/// the back turned 180°; either way a hole stays a hole through the card.
#[test]
fn a_flipped_layer_keeps_its_holes_where_the_card_has_them() {
    let set = reference();
    for layer in set.layers() {
        let front = layer.front();
        let (rows, cols) = front.size();
        let holes = |g: &Grid<Option<Key>>| g.map(Option::is_none);
        let left_right = Grid::from_fn(rows, cols, |p| {
            front[Pos::new(p.row, cols - 1 - p.col)].is_none()
        });
        let top_bottom = Grid::from_fn(rows, cols, |p| {
            front[Pos::new(rows - 1 - p.row, p.col)].is_none()
        });
        assert_eq!(holes(&layer.shown(Side::Back, Turn::R0)), left_right);
        assert_eq!(holes(&layer.shown(Side::Back, Turn::R180)), top_bottom);
        let colours = |g: &Grid<Option<Key>>| -> BTreeSet<Key> {
            g.cells().iter().flatten().copied().collect()
        };
        assert!(colours(layer.front()).is_disjoint(&colours(layer.back())));
    }
}

/// "the number of layers required to match the pattern is the same as the number on the back
/// of the mission card": leaving any one layer out of a solution no longer matches, under any
/// turn of the whole stack.
#[test]
fn a_solution_missing_any_layer_does_not_match() {
    let set = reference();
    let solver = Solver::new(&set);
    for m in set.missions() {
        for solution in solver.solutions(m.pattern(), m.layers()).iter().take(3) {
            for skip in 0..solution.stack.len() {
                let mut short = solution.stack.clone();
                short.remove(skip);
                let shown = set.compose(&short).unwrap();
                assert!(
                    !verify(&shown, m.pattern()).is_match(),
                    "mission {} without layer {skip}",
                    m.id()
                );
            }
        }
    }
}

/// "Compare mission cards and patterns": a mirror image of the pattern is not a match unless
/// the pattern is its own mirror image turned.
#[test]
fn a_mirror_image_of_a_mission_does_not_match() {
    let set = reference();
    for m in set.missions() {
        let mirror = m.pattern().mirrored();
        let symmetric = Turn::ALL.iter().any(|&t| mirror.turned(t) == *m.pattern());
        assert_eq!(
            m.verify(&mirror).is_match(),
            symmetric,
            "mission {}",
            m.id()
        );
    }
}

/// Time attack: "Set up a timer for 3 minutes" / "add the numbers on the back of the completed
/// mission cards. The sum of the numbers is your score" / the rating table, with missions of
/// the shipped set.
#[test]
fn time_attack_scores_the_levels_of_completed_missions_and_rates_them() {
    assert_eq!(SOLO_TIME_LIMIT_SECONDS, 180);
    let set = reference();
    let levels = |ids: &[&str]| -> Vec<usize> {
        ids.iter()
            .map(|id| set.mission(id).unwrap().layers())
            .collect()
    };
    let cases: [(&[&str], usize, &str); 4] = [
        (&[], 0, "Try harder!"),
        (
            &["2-01", "3-01", "4-01", "5-01", "5-02"],
            19,
            "Not bad... you could do better.",
        ),
        (
            &["5-01", "5-02", "5-03", "5-04", "5-05", "4-01", "2-01"],
            31,
            "Great result!",
        ),
        (
            &[
                "5-01", "5-02", "5-03", "5-04", "5-05", "5-06", "5-07", "5-08", "5-09", "5-10",
                "2-01",
            ],
            52,
            "What a genius!",
        ),
    ];
    for (ids, score, message) in cases {
        assert_eq!(solo_score(&levels(ids)), score);
        assert_eq!(SoloRating::of(score).message(), message, "{ids:?}");
    }
}
