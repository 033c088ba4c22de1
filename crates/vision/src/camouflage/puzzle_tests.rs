//! Puzzle judgements on readings made from rule-crate arrangements of the reference set's
//! puzzles: solved, broken in each way a player can break one, and misread.

use tablejudge_rules::camouflage::{
    check_arrangement, solve, Board, CamouflageSet, Placement, PlacementRules, Puzzle,
};
use tablejudge_rules::Turn;

use super::*;
use crate::camouflage::test_support::{reading_of, set};

fn board_of(puzzle: &Puzzle, set: &CamouflageSet, placements: &[Placement]) -> Board {
    let mut board = Board::new(puzzle.side, PlacementRules::puzzle(puzzle.wild_centres));
    for &p in placements {
        board.place(set, p);
    }
    board
}

fn solution(set: &CamouflageSet, puzzle: &Puzzle) -> Vec<Placement> {
    solve(set, puzzle).unwrap_or_else(|| panic!("puzzle {} has a solution", puzzle.id))
}

#[test]
fn every_puzzle_laid_right_is_solved_unless_a_covered_card_hides_it() {
    let set = set();
    let mut solved = 0;
    for (i, puzzle) in set.puzzles().iter().enumerate() {
        let board = board_of(puzzle, &set, &solution(&set, puzzle));
        let reading = reading_of(&board, (i % 4) as u8, |_, _, ch| ch);
        match judge_puzzle(&set, puzzle, &reading) {
            PuzzleJudgement::Solved { cards } => {
                assert_eq!(cards.len(), puzzle.cards.len(), "puzzle {}", puzzle.id);
                assert!(
                    check_arrangement(&set, puzzle, &cards).is_ok(),
                    "puzzle {}: the arrangement given solves it",
                    puzzle.id
                );
                solved += 1;
            }
            // A card mostly covered may show too little to tell its turn: the squares that
            // would break the rule lie under others.
            PuzzleJudgement::Undecided { reason } => {
                eprintln!("{}: {reason}", puzzle.id);
                assert!(
                    reason.contains("lift the cards"),
                    "puzzle {}: {reason}",
                    puzzle.id
                )
            }
            other => panic!("puzzle {}: {other:?}", puzzle.id),
        }
    }
    eprintln!("{solved} of {} solved", set.puzzles().len());
    assert!(solved >= 15, "{solved} of {} solved", set.puzzles().len());
}

#[test]
fn a_card_turned_wrong_is_never_judged_solved_and_mostly_caught() {
    let set = set();
    let (mut caught, mut broken) = (0, 0);
    for puzzle in set.puzzles() {
        let right = solution(&set, puzzle);
        for k in 0..right.len() {
            for q in 1..4 {
                let mut laid = right.clone();
                laid[k].turn = laid[k].turn.then(Turn::from_quarter_turns(q));
                if check_arrangement(&set, puzzle, &laid).is_ok() {
                    continue; // a symmetric card, or another solution
                }
                broken += 1;
                let reading = reading_of(&board_of(puzzle, &set, &laid), 0, |_, _, ch| ch);
                match judge_puzzle(&set, puzzle, &reading) {
                    PuzzleJudgement::Solved { .. } => {
                        panic!("puzzle {}: card {k} turned by {q} judged solved", puzzle.id)
                    }
                    PuzzleJudgement::NotSolved { faults, .. } => {
                        assert!(!faults.is_empty());
                        caught += 1;
                    }
                    PuzzleJudgement::Undecided { reason } => {
                        assert!(
                            reason.contains("lift") || reason.contains("misread"),
                            "{reason}"
                        )
                    }
                }
            }
        }
    }
    assert!(broken > 100, "{broken} broken arrangements tried");
    // A turned card mostly shows itself; only a card mostly covered hides its fault.
    assert!(caught * 10 >= broken * 7, "{caught} of {broken} caught");
}

#[test]
fn a_moved_card_breaks_the_outline_and_a_missing_one_is_undecided() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-05").unwrap();
    let right = solution(&set, puzzle);

    // The top card one square off: the outline changes (and perhaps the overlaps).
    let mut shifted = right.clone();
    let last = shifted.len() - 1;
    shifted[last].centre = shifted[last].centre.offset(0, 1);
    let board = board_of(puzzle, &set, &shifted);
    match judge_puzzle(&set, puzzle, &reading_of(&board, 2, |_, _, ch| ch)) {
        PuzzleJudgement::NotSolved { faults, .. } => {
            assert!(
                faults.iter().any(|f| f.contains("the outline is")),
                "{faults:?}"
            )
        }
        other => panic!("{other:?}"),
    }

    // A card left out looks like a card whose centre the reader missed.
    let missing = board_of(puzzle, &set, &right[..right.len() - 1]);
    match judge_puzzle(&set, puzzle, &reading_of(&missing, 1, |_, _, ch| ch)) {
        PuzzleJudgement::Undecided { reason } => {
            assert!(
                reason.starts_with("4 card centres found; the puzzle has 5"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_centre_side_by_side_with_another_or_an_extra_symbol_is_undecided() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-01").unwrap();
    let board = board_of(puzzle, &set, &solution(&set, puzzle));
    let right = reading_of(&board, 0, |_, _, ch| ch);
    let c = right.centres[0].clone();

    let mut beside = right.clone();
    let mut phantom = c.clone();
    phantom.col += 1;
    beside.centres.push(phantom);
    match judge_puzzle(&set, puzzle, &beside) {
        PuzzleJudgement::Undecided { reason } => assert!(reason.contains("side by side")),
        other => panic!("{other:?}"),
    }

    // A puzzle with two cards of one deck, each centre read as a symbol of its own: more
    // symbols than the puzzle's decks.
    let decks = |p: &Puzzle| {
        p.cards
            .iter()
            .map(|&c| set.card(c).deck)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let shared = set
        .puzzles()
        .iter()
        .find(|p| decks(p) < p.cards.len() && !p.wild_centres)
        .expect("a puzzle with two cards of one deck");
    let board = board_of(shared, &set, &solution(&set, shared));
    let mut foreign = reading_of(&board, 0, |_, _, ch| ch);
    for (i, centre) in foreign.centres.iter_mut().enumerate() {
        centre.symbol_group = i;
    }
    match judge_puzzle(&set, shared, &foreign) {
        PuzzleJudgement::Undecided { reason } => assert!(reason.contains("different symbols")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unsure_square_neither_makes_nor_breaks_a_solution() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-03").unwrap();
    let board = board_of(puzzle, &set, &solution(&set, puzzle));
    let mut reading = reading_of(&board, 0, |_, _, ch| ch);
    // Every pattern square read as 'z' with a confidence too low to trust: nothing shows the
    // patterns, so the cards cannot be told and nothing is found wrong either.
    for s in reading.squares.iter_mut() {
        if let SquareKind::Pattern(_) = s.kind {
            s.kind = SquareKind::Pattern(tablejudge_rules::Key::new('z').unwrap());
            s.confidence = 0.6;
        }
    }
    assert!(!matches!(
        judge_puzzle(&set, puzzle, &reading),
        PuzzleJudgement::NotSolved { .. }
    ));
}

#[test]
fn a_card_not_of_the_puzzle_is_caught() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-01").unwrap();
    let mut laid = solution(&set, puzzle);
    // The same place and turn, another card of the set whose face differs where it shows.
    let foreign = set
        .cards()
        .iter()
        .enumerate()
        .map(|(i, _)| tablejudge_rules::camouflage::CardIdx(i as u16))
        .find(|c| {
            !puzzle.cards.contains(c)
                && set.face(*c, puzzle.side).grid() != set.face(laid[2].card, puzzle.side).grid()
        })
        .unwrap();
    laid[2].card = foreign;
    let reading = reading_of(&board_of(puzzle, &set, &laid), 0, |_, _, ch| ch);
    match judge_puzzle(&set, puzzle, &reading) {
        PuzzleJudgement::NotSolved { .. } => {}
        PuzzleJudgement::Undecided { reason } => assert!(reason.contains("misread"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_misread_square_of_a_solved_puzzle_is_undecided_not_a_failure() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-03").unwrap();
    let board = board_of(puzzle, &set, &solution(&set, puzzle));
    let (_, rows) = board.picture().unwrap();
    // The first pattern square of the picture (plus the reading's margin of 1), read as
    // another pattern of the side.
    let (r, c) = rows
        .iter()
        .enumerate()
        .find_map(|(r, row)| {
            row.chars()
                .position(|ch| ch != '.' && ch != '*')
                .map(|c| (r + 1, c + 1))
        })
        .unwrap();
    let keys: Vec<char> = set
        .side(puzzle.side)
        .patterns
        .keys()
        .map(|k| k.char())
        .collect();
    let reading = reading_of(&board, 0, |row, col, ch| {
        if (row, col) == (r, c) {
            *keys.iter().find(|&&k| k != ch).unwrap()
        } else {
            ch
        }
    });
    match judge_puzzle(&set, puzzle, &reading) {
        PuzzleJudgement::Undecided { reason } => {
            assert!(reason.contains(&format!("({r}, {c})")), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_square_not_told_leaves_a_solved_puzzle_solved_when_nothing_hangs_on_it() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-01").unwrap();
    let board = board_of(puzzle, &set, &solution(&set, puzzle));
    // A centre's neighbour hidden: the card is still told by its other squares.
    let reading = reading_of(&board, 0, |_, _, ch| ch);
    let centre = &reading.centres[0];
    let (hr, hc) = (centre.row as usize, centre.col as usize + 1);
    let hidden = reading_of(
        &board,
        0,
        |r, c, ch| if (r, c) == (hr, hc) { '?' } else { ch },
    );
    assert!(matches!(
        judge_puzzle(&set, puzzle, &hidden),
        PuzzleJudgement::Solved { .. }
    ));
}

#[test]
fn a_stray_symbol_or_a_card_without_its_centre_is_undecided() {
    let set = set();
    let puzzle = set.puzzle_by_id("p-01").unwrap();
    let board = board_of(puzzle, &set, &solution(&set, puzzle));
    let mut stray = reading_of(&board, 0, |_, _, ch| ch);
    stray.stray_symbols.push([10.0, 10.0]);
    assert!(matches!(
        judge_puzzle(&set, puzzle, &stray),
        PuzzleJudgement::Undecided { .. }
    ));

    // A centre read as pattern: its card's squares have no centre near them.
    let reading = reading_of(&board, 0, |_, _, ch| ch);
    let c = &reading.centres[0];
    let (cr, cc) = (c.row as usize, c.col as usize);
    let mut missed = reading_of(
        &board,
        0,
        |r, col, ch| if (r, col) == (cr, cc) { 'z' } else { ch },
    );
    missed
        .centres
        .retain(|x| (x.row as usize, x.col as usize) != (cr, cc));
    match judge_puzzle(&set, puzzle, &missed) {
        PuzzleJudgement::Undecided { reason } => assert!(reason.contains("no card centre")),
        other => panic!("{other:?}"),
    }
}
