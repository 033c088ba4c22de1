//! Judging an observed stack against a mission pattern.

use serde::Serialize;

use crate::grid::{Grid, Pos, Turn};
use crate::key::Key;

use super::set::Mission;

/// The verdict on an observed grid. Turns are clockwise quarter-turns that, applied to the
/// observed grid, give the pattern's orientation; positions are in the observed grid (0-based).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// `observed.turned(turn) == pattern`.
    Match {
        #[serde(rename = "quarter_turns")]
        turn: Turn,
    },
    /// No turn matches. `best_turn` leaves the fewest cells wrong (the first such turn from 0°
    /// on, on a tie); `mismatched` are those cells.
    Mismatch {
        #[serde(rename = "best_quarter_turns")]
        best_turn: Turn,
        mismatched: Vec<Pos>,
    },
    /// No turn even gives the pattern's size.
    WrongSize {
        observed_rows: usize,
        observed_cols: usize,
        pattern_rows: usize,
        pattern_cols: usize,
    },
}

impl Verdict {
    /// Whether the observed grid matches the pattern.
    pub fn is_match(&self) -> bool {
        matches!(self, Verdict::Match { .. })
    }
}

/// Whether `observed` equals `pattern` under some quarter-turn of the whole stack. Turning the
/// whole stack is always allowed; a mirror image is a different pattern and never matches
/// (unless the pattern happens to equal its own mirror image turned).
pub fn verify(observed: &Grid<Key>, pattern: &Grid<Key>) -> Verdict {
    let (rows, cols) = observed.size();
    let mut best: Option<(Turn, Vec<Pos>)> = None;
    for turn in Turn::ALL {
        if turn.turned_size(rows, cols) != pattern.size() {
            continue;
        }
        let mismatched: Vec<Pos> = observed
            .iter()
            .filter(|&(pos, key)| pattern[turn.apply(pos, rows, cols)] != *key)
            .map(|(pos, _)| pos)
            .collect();
        if mismatched.is_empty() {
            return Verdict::Match { turn };
        }
        if best
            .as_ref()
            .is_none_or(|(_, b)| mismatched.len() < b.len())
        {
            best = Some((turn, mismatched));
        }
    }
    match best {
        Some((best_turn, mismatched)) => Verdict::Mismatch {
            best_turn,
            mismatched,
        },
        None => Verdict::WrongSize {
            observed_rows: rows,
            observed_cols: cols,
            pattern_rows: pattern.rows(),
            pattern_cols: pattern.cols(),
        },
    }
}

impl Mission {
    /// [`verify`] against this mission's pattern.
    pub fn verify(&self, observed: &Grid<Key>) -> Verdict {
        verify(observed, self.pattern())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::testing::{keys, turn};
    use proptest::prelude::*;

    fn arb_pattern() -> impl Strategy<Value = Grid<Key>> {
        (2usize..=4, 2usize..=4).prop_flat_map(|(rows, cols)| {
            let key = prop::sample::select(vec!['w', 'r', 'b']);
            prop::collection::vec(key, rows * cols).prop_map(move |cells| {
                Grid::from_fn(rows, cols, |p| {
                    Key::new(cells[p.row * cols + p.col]).unwrap()
                })
            })
        })
    }

    #[test]
    fn an_equal_grid_matches_unturned() {
        let pattern = keys(&["rrb", "rbw", "bwb"]);
        assert_eq!(
            verify(&pattern, &pattern),
            Verdict::Match { turn: Turn::R0 }
        );
    }

    #[test]
    fn a_turned_stack_matches_and_reports_the_turn_back() {
        let pattern = keys(&["rrb", "rbw", "bww"]);
        let observed = pattern.turned(Turn::R90);
        assert_eq!(
            verify(&observed, &pattern),
            Verdict::Match { turn: Turn::R270 }
        );
        let non_square = keys(&["rrb", "www"]);
        assert_eq!(
            verify(&non_square.turned(Turn::R270), &non_square),
            Verdict::Match { turn: Turn::R90 }
        );
    }

    #[test]
    fn a_mismatch_lists_the_wrong_cells_of_the_observed_grid_at_the_best_turn() {
        let pattern = keys(&["rrb", "rbw", "bww"]);
        let mut observed = pattern.turned(Turn::R90);
        observed[Pos::new(0, 2)] = Key::new('w').unwrap();
        observed[Pos::new(2, 1)] = Key::new('r').unwrap();
        assert_eq!(
            verify(&observed, &pattern),
            Verdict::Mismatch {
                best_turn: Turn::R270,
                mismatched: vec![Pos::new(0, 2), Pos::new(2, 1)]
            }
        );
    }

    #[test]
    fn a_mirror_image_does_not_match() {
        let pattern = keys(&["rrb", "rww", "www"]);
        let verdict = verify(&pattern.mirrored(), &pattern);
        assert!(!verdict.is_match(), "{verdict:?}");
    }

    #[test]
    fn a_grid_of_another_size_is_reported_as_such() {
        let verdict = verify(&keys(&["rr", "bb"]), &keys(&["rrb", "rbw", "bww"]));
        assert_eq!(
            verdict,
            Verdict::WrongSize {
                observed_rows: 2,
                observed_cols: 2,
                pattern_rows: 3,
                pattern_cols: 3
            }
        );
    }

    #[test]
    fn verdicts_serialise_for_the_command_line() {
        let m = Verdict::Match { turn: Turn::R90 };
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"verdict":"match","quarter_turns":1}"#
        );
        let x = Verdict::Mismatch {
            best_turn: Turn::R0,
            mismatched: vec![Pos::new(1, 2)],
        };
        assert_eq!(
            serde_json::to_string(&x).unwrap(),
            r#"{"verdict":"mismatch","best_quarter_turns":0,"mismatched":[{"row":1,"col":2}]}"#
        );
    }

    proptest! {
        #[test]
        fn any_turn_of_the_pattern_matches_with_a_turn_that_undoes_it(
            pattern in arb_pattern(), q in 0u8..4
        ) {
            let observed = pattern.turned(turn(q));
            match verify(&observed, &pattern) {
                Verdict::Match { turn } => prop_assert_eq!(observed.turned(turn), pattern),
                other => prop_assert!(false, "no match: {:?}", other),
            }
        }

        #[test]
        fn a_mirror_image_matches_only_a_mirror_symmetric_pattern(pattern in arb_pattern()) {
            let mirror = pattern.mirrored();
            let symmetric = Turn::ALL.iter().any(|&t| mirror.turned(t) == pattern);
            prop_assert_eq!(verify(&mirror, &pattern).is_match(), symmetric);
        }

        #[test]
        fn mismatched_cells_are_exactly_the_cells_wrong_at_the_best_turn(
            pattern in arb_pattern(), observed in arb_pattern()
        ) {
            if let Verdict::Mismatch { best_turn, mismatched } = verify(&observed, &pattern) {
                let turned = observed.turned(best_turn);
                let (rows, cols) = observed.size();
                let mapped: Vec<Pos> =
                    mismatched.iter().map(|&p| best_turn.apply(p, rows, cols)).collect();
                let mut wrong = turned.differences(&pattern).unwrap();
                let mut mapped_sorted = mapped.clone();
                mapped_sorted.sort();
                wrong.sort();
                prop_assert_eq!(mapped_sorted, wrong);
                for t in Turn::ALL {
                    if let Some(d) = observed.turned(t).differences(&pattern) {
                        prop_assert!(d.len() >= mismatched.len());
                    }
                }
            }
        }
    }
}
