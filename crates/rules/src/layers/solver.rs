//! Finding every stack that makes a pattern.
//!
//! Cells are bits of a `u64` (a set has at most 8 × 8 cells): bit `row * cols + col`. For each
//! distinct orientation of a layer (layer × side × turn) the solver keeps a mask of its solid
//! cells and one mask per colour; for a pattern it then knows, per orientation, which solid
//! cells show the right colour and which would show a wrong one. A depth-first search from the
//! top layer down keeps the mask of cells still uncovered: a layer may go next when none of its
//! solid cells over uncovered cells is wrong and at least one of them is uncovered (it shows).
//!
//! What counts as a solution with `k` layers:
//! - exactly `k` distinct layers, each showing at least one cell of the pattern. A layer that
//!   shows nothing could be taken away, so such stacks are solutions with fewer layers instead.
//! - in the pattern's own orientation: the stack shows exactly the pattern, unturned. Turning
//!   the whole stack is the same physical solution, so it is not listed again; when the pattern
//!   looks the same after a whole turn, the stacks that differ only by that turn are listed once
//!   (the one that comes first in the solver's order).
//! - orientations of one layer that show identical grids (a side symmetric under 180°, say) are
//!   one placement: the solver lists the first of them in the order front before back, then
//!   0°, 90°, 180°, 270°. [`Solver::equivalent_placements`] lists the others.

use serde::Serialize;

use crate::grid::{Grid, Pos, Turn};
use crate::key::Key;

use super::set::{LayersSet, Mission};
use super::stack::{NamedPlacement, Placement, Side};

/// Number of distinct keys (`a-z`, `0-9`).
const KEY_SLOTS: usize = 36;

fn key_slot(key: Key) -> usize {
    let c = key.char() as u8;
    if c.is_ascii_digit() {
        26 + usize::from(c - b'0')
    } else {
        usize::from(c - b'a')
    }
}

fn bit(pos: Pos, cols: usize) -> u64 {
    1u64 << (pos.row * cols + pos.col)
}

/// A stack that makes a pattern, top layer first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Solution {
    pub stack: Vec<Placement>,
}

/// A layer lying one distinct way up and round.
#[derive(Clone, Debug)]
struct Orientation {
    placement: Placement,
    solid: u64,
    /// (key, cells of that colour), one entry per colour on this side.
    colours: Vec<(Key, u64)>,
}

/// What each orientation would do to one pattern.
struct Prepared {
    /// Solid cells of the orientation that show the pattern's colour.
    shows: Vec<u64>,
    /// Solid cells that would show a wrong colour.
    wrong: Vec<u64>,
    /// Per layer, every cell some orientation of it can show correctly.
    layer_reach: Vec<u64>,
    /// Cells where the pattern shows the player card.
    card_cells: u64,
    /// Whole-stack turns other than 0° that leave the pattern unchanged.
    symmetries: Vec<Turn>,
}

/// The precomputed masks of one set; build once, solve many patterns.
#[derive(Clone, Debug)]
pub struct Solver {
    rows: usize,
    cols: usize,
    card: Key,
    layer_count: usize,
    layer_turns: &'static [Turn],
    orientations: Vec<Orientation>,
    /// `canonical[layer][side][quarter turns]`: index of the orientation showing that grid.
    canonical: Vec<[[usize; 4]; 2]>,
}

impl Solver {
    /// Precomputes the masks of every layer of `set`.
    pub fn new(set: &LayersSet) -> Solver {
        let cols = set.cols();
        let mut orientations: Vec<Orientation> = Vec::new();
        let mut canonical = Vec::with_capacity(set.layers().len());
        for (index, layer) in set.layers().iter().enumerate() {
            let first_of_layer = orientations.len();
            // Turns a non-square set does not allow keep usize::MAX: never looked up.
            let mut table = [[usize::MAX; 4]; 2];
            for side in Side::ALL {
                for &turn in set.layer_turns() {
                    let shown = layer.shown(side, turn);
                    let mut solid = 0u64;
                    let mut colours: Vec<(Key, u64)> = Vec::new();
                    for (pos, cell) in shown.iter() {
                        if let Some(key) = *cell {
                            solid |= bit(pos, cols);
                            match colours.iter_mut().find(|(k, _)| *k == key) {
                                Some((_, mask)) => *mask |= bit(pos, cols),
                                None => colours.push((key, bit(pos, cols))),
                            }
                        }
                    }
                    colours.sort();
                    let same = orientations[first_of_layer..]
                        .iter()
                        .position(|o| o.solid == solid && o.colours == colours);
                    table[side as usize][usize::from(turn.quarter_turns())] = match same {
                        Some(offset) => first_of_layer + offset,
                        None => {
                            orientations.push(Orientation {
                                placement: Placement::new(index, side, turn),
                                solid,
                                colours,
                            });
                            orientations.len() - 1
                        }
                    };
                }
            }
            canonical.push(table);
        }
        Solver {
            rows: set.rows(),
            cols,
            card: set.card(),
            layer_count: set.layers().len(),
            layer_turns: set.layer_turns(),
            orientations,
            canonical,
        }
    }

    /// Every solution of `pattern` with exactly `layers` distinct layers, each showing at least
    /// one cell, in the pattern's orientation (see the module notes for what counts as one).
    /// A pattern of the wrong size has none.
    pub fn solutions(&self, pattern: &Grid<Key>, layers: usize) -> Vec<Solution> {
        let Some(prepared) = self.prepare(pattern) else {
            return Vec::new();
        };
        let mut search = Search::new(self, &prepared, layers, false);
        search.run();
        search
            .found
            .into_iter()
            .map(|indices| Solution {
                stack: indices
                    .iter()
                    .map(|&o| self.orientations[o].placement)
                    .collect(),
            })
            .collect()
    }

    /// Whether `pattern` can be made with exactly `layers` distinct layers, each showing.
    pub fn has_solution(&self, pattern: &Grid<Key>, layers: usize) -> bool {
        let Some(prepared) = self.prepare(pattern) else {
            return false;
        };
        let mut search = Search::new(self, &prepared, layers, true);
        search.run();
        !search.found.is_empty()
    }

    /// The fewest layers that make `pattern` (0 when it is the bare player card), or `None`
    /// when no stack of these layers makes it.
    pub fn min_layers(&self, pattern: &Grid<Key>) -> Option<usize> {
        (0..=self.layer_count).find(|&k| self.has_solution(pattern, k))
    }

    /// Every number of layers (0 for the bare card) with which `pattern` can be made.
    pub fn solvable_layer_counts(&self, pattern: &Grid<Key>) -> Vec<usize> {
        (0..=self.layer_count)
            .filter(|&k| self.has_solution(pattern, k))
            .collect()
    }

    /// Every placement of the same layer that shows exactly the same grid as `placement`,
    /// including itself, in solver order. Empty if the layer or turn is not in the set.
    pub fn equivalent_placements(&self, placement: Placement) -> Vec<Placement> {
        let Some(table) = self.canonical.get(placement.layer) else {
            return Vec::new();
        };
        let index_of = |p: Placement| table[p.side as usize][usize::from(p.turn.quarter_turns())];
        if !self.layer_turns.contains(&placement.turn) {
            return Vec::new();
        }
        let target = index_of(placement);
        Side::ALL
            .into_iter()
            .flat_map(|side| {
                self.layer_turns
                    .iter()
                    .map(move |&turn| Placement::new(placement.layer, side, turn))
            })
            .filter(|&p| index_of(p) == target)
            .collect()
    }

    fn prepare(&self, pattern: &Grid<Key>) -> Option<Prepared> {
        if pattern.size() != (self.rows, self.cols) {
            return None;
        }
        let mut key_cells = [0u64; KEY_SLOTS];
        for (pos, &key) in pattern.iter() {
            key_cells[key_slot(key)] |= bit(pos, self.cols);
        }
        let mut shows = Vec::with_capacity(self.orientations.len());
        let mut wrong = Vec::with_capacity(self.orientations.len());
        let mut layer_reach = vec![0u64; self.layer_count];
        for o in &self.orientations {
            let right = o.colours.iter().fold(0, |acc, &(key, cells)| {
                acc | (cells & key_cells[key_slot(key)])
            });
            shows.push(right);
            wrong.push(o.solid & !right);
            layer_reach[o.placement.layer] |= right;
        }
        let symmetries = self
            .layer_turns
            .iter()
            .copied()
            .filter(|&t| t != Turn::R0 && pattern.turned(t) == *pattern)
            .collect();
        Some(Prepared {
            shows,
            wrong,
            layer_reach,
            card_cells: key_cells[key_slot(self.card)],
            symmetries,
        })
    }

    /// The orientation index of `o` after turning the whole stack by `turn`.
    fn turned(&self, o: usize, turn: Turn) -> usize {
        let p = self.orientations[o].placement;
        self.canonical[p.layer][p.side as usize][usize::from(p.turn.then(turn).quarter_turns())]
    }
}

/// One depth-first search for a fixed number of layers.
struct Search<'a> {
    solver: &'a Solver,
    prepared: &'a Prepared,
    goal: usize,
    first_only: bool,
    used: Vec<bool>,
    stack: Vec<usize>,
    found: Vec<Vec<usize>>,
}

impl<'a> Search<'a> {
    fn new(solver: &'a Solver, prepared: &'a Prepared, goal: usize, first_only: bool) -> Self {
        Search {
            solver,
            prepared,
            goal,
            first_only,
            used: vec![false; solver.layer_count],
            stack: Vec::with_capacity(goal),
            found: Vec::new(),
        }
    }

    fn run(&mut self) {
        if self.goal <= self.solver.layer_count {
            // A validated set has 4 to 64 cells, so the shift is 0..=60.
            let all_cells = u64::MAX >> (64 - self.solver.rows * self.solver.cols);
            self.descend(all_cells);
        }
    }

    /// Places the next layer under the stack so far; `uncovered` are the cells no layer above
    /// covers. Returns true to stop the whole search.
    fn descend(&mut self, uncovered: u64) -> bool {
        let prepared = self.prepared;
        let missing = uncovered & !prepared.card_cells;
        if self.stack.len() == self.goal {
            if missing == 0 && self.is_first_of_its_turns() {
                self.found.push(self.stack.clone());
                return self.first_only;
            }
            return false;
        }
        let reach = (0..self.solver.layer_count)
            .filter(|&l| !self.used[l])
            .fold(0, |acc, l| acc | prepared.layer_reach[l]);
        if missing & !reach != 0 {
            return false;
        }
        for (o, orientation) in self.solver.orientations.iter().enumerate() {
            let layer = orientation.placement.layer;
            if self.used[layer]
                || prepared.wrong[o] & uncovered != 0
                || prepared.shows[o] & uncovered == 0
            {
                continue;
            }
            self.used[layer] = true;
            self.stack.push(o);
            let stop = self.descend(uncovered & !orientation.solid);
            self.stack.pop();
            self.used[layer] = false;
            if stop {
                return true;
            }
        }
        false
    }

    /// Whether the current stack comes first among the stacks it becomes under the whole-stack
    /// turns that leave the pattern unchanged (those are the same physical solution).
    fn is_first_of_its_turns(&self) -> bool {
        self.prepared.symmetries.iter().all(|&turn| {
            let turned = self.stack.iter().map(|&o| self.solver.turned(o, turn));
            self.stack.iter().copied().le(turned)
        })
    }
}

/// The answer to "how can this mission be made", ready to print as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MissionSolutions {
    pub mission: String,
    /// The mission's `layers` number.
    pub layers: usize,
    /// The fewest layers that make the pattern, `None` if none do.
    pub min_layers: Option<usize>,
    /// Every solution with exactly `layers` layers, each a stack, top first.
    pub solutions: Vec<Vec<NamedPlacement>>,
}

impl LayersSet {
    /// Solves one mission of this set: its solutions with exactly its `layers` count and the
    /// fewest layers that make it.
    pub fn solve_mission(&self, mission: &Mission) -> MissionSolutions {
        let solver = Solver::new(self);
        let named = |s: Solution| {
            s.stack
                .iter()
                // The solver only uses this set's layers, so every index resolves.
                .filter_map(|p| self.named(p))
                .collect()
        };
        MissionSolutions {
            mission: mission.id().to_owned(),
            layers: mission.layers(),
            min_layers: solver.min_layers(mission.pattern()),
            solutions: solver
                .solutions(mission.pattern(), mission.layers())
                .into_iter()
                .map(named)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::layers::testing::{arb_set, arb_stack, keys, place, small_set, small_set_json};
    use crate::layers::verify::verify;
    use proptest::prelude::*;
    use serde_json::json;

    fn stacks(solutions: &[Solution]) -> Vec<Vec<Placement>> {
        solutions.iter().map(|s| s.stack.clone()).collect()
    }

    /// 2×2 cells: P and Q have one red cell each (top left and bottom right), X is solid red
    /// (green on the back).
    fn tiny_set() -> LayersSet {
        let mut v = small_set_json();
        v["rows"] = json!(2);
        v["cols"] = json!(2);
        v["layers"] = json!([
            { "id": "P", "front": ["r.", ".."], "back": [".g", ".."] },
            { "id": "Q", "front": ["..", ".r"], "back": ["..", "g."] },
            { "id": "X", "front": ["rr", "rr"], "back": ["gg", "gg"] }
        ]);
        v["missions"] = json!([]);
        LayersSet::from_json(&v.to_string(), "tiny.json").unwrap()
    }
    const P: usize = 0;
    const Q: usize = 1;
    const X: usize = 2;

    #[test]
    fn solves_the_small_mission() {
        let set = small_set();
        let solver = Solver::new(&set);
        let pattern = set.mission("2-01").unwrap().pattern();
        assert_eq!(
            stacks(&solver.solutions(pattern, 2)),
            vec![vec![place(0, Side::Front, 0), place(1, Side::Front, 0)]]
        );
        assert!(solver.solutions(pattern, 1).is_empty());
        let three = stacks(&solver.solutions(pattern, 3));
        let a_c_b = vec![
            place(0, Side::Front, 0),
            place(2, Side::Front, 0),
            place(1, Side::Front, 0),
        ];
        assert!(three.contains(&a_c_b), "{three:?}");
        assert_eq!(solver.min_layers(pattern), Some(2));
    }

    #[test]
    fn a_layer_lying_the_same_every_way_round_is_listed_once() {
        let set = tiny_set();
        let solver = Solver::new(&set);
        let all_red = keys(&["rr", "rr"]);
        assert_eq!(
            stacks(&solver.solutions(&all_red, 1)),
            vec![vec![place(X, Side::Front, 0)]]
        );
        let equivalent = solver.equivalent_placements(place(X, Side::Front, 2));
        let fronts: Vec<Placement> = (0..4).map(|q| place(X, Side::Front, q)).collect();
        assert_eq!(equivalent, fronts);
        assert_eq!(
            solver.equivalent_placements(place(P, Side::Front, 1)),
            vec![place(P, Side::Front, 1)]
        );
    }

    #[test]
    fn a_whole_stack_turn_of_a_solution_is_not_listed_again() {
        let set = tiny_set();
        let solver = Solver::new(&set);
        // The diagonal looks the same after a half turn: P and Q turned 180° is the same stack
        // turned, so only the unturned stacks are listed (in either order of P and Q).
        let diagonal = keys(&["rw", "wr"]);
        assert_eq!(
            stacks(&solver.solutions(&diagonal, 2)),
            vec![
                vec![place(P, Side::Front, 0), place(Q, Side::Front, 0)],
                vec![place(Q, Side::Front, 0), place(P, Side::Front, 0)],
            ]
        );
        // All red looks the same every way round: P (or Q) in any corner over X is one solution.
        let all_red = keys(&["rr", "rr"]);
        assert_eq!(
            stacks(&solver.solutions(&all_red, 2)),
            vec![
                vec![place(P, Side::Front, 0), place(X, Side::Front, 0)],
                vec![place(Q, Side::Front, 0), place(X, Side::Front, 0)],
            ]
        );
    }

    #[test]
    fn every_layer_of_a_solution_shows() {
        let set = tiny_set();
        let solver = Solver::new(&set);
        let all_red = keys(&["rr", "rr"]);
        // P and Q in two different corners, either on top, over X: 4 × 3 × 2 stacks, 4 of
        // them the same up to a whole turn. X on top would hide everything and is not counted.
        let three = solver.solutions(&all_red, 3);
        assert_eq!(three.len(), 6, "{three:?}");
        assert!(three.iter().all(|s| s.stack[2].layer == X));
        assert_eq!(solver.solvable_layer_counts(&all_red), vec![1, 2, 3]);
        // P alone in its corner: no way to add a layer that shows without changing the pattern.
        assert_eq!(solver.solvable_layer_counts(&keys(&["rw", "ww"])), vec![1]);
    }

    #[test]
    fn minimum_layers_of_bare_card_impossible_and_wrong_size_patterns() {
        let solver = Solver::new(&tiny_set());
        assert_eq!(solver.min_layers(&keys(&["ww", "ww"])), Some(0));
        assert_eq!(solver.min_layers(&keys(&["gg", "gg"])), Some(1));
        assert_eq!(solver.min_layers(&keys(&["bb", "bb"])), None);
        assert_eq!(solver.min_layers(&keys(&["rrr", "rrr"])), None);
        assert!(solver.solutions(&keys(&["rrr", "rrr"]), 1).is_empty());
        assert!(solver.solutions(&keys(&["rr", "rr"]), 4).is_empty());
    }

    #[test]
    fn solve_mission_reports_named_solutions_and_the_minimum() {
        let set = small_set();
        let report = set.solve_mission(set.mission("2-01").unwrap());
        assert_eq!(
            serde_json::to_value(&report).unwrap(),
            json!({
                "mission": "2-01",
                "layers": 2,
                "min_layers": 2,
                "solutions": [[
                    { "layer": "A", "side": "front", "quarter_turns": 0 },
                    { "layer": "B", "side": "front", "quarter_turns": 0 }
                ]]
            })
        );
    }

    /// Every stack of exactly `k` distinct layers, every orientation, that shows `pattern` with
    /// every layer showing — written out in full, then reduced to the solver's choice of one
    /// stack per physical solution, using grids only.
    fn brute_force(set: &LayersSet, pattern: &Grid<Key>, k: usize) -> BTreeSet<Vec<Placement>> {
        let looks: Vec<(Side, Turn)> = Side::ALL
            .into_iter()
            .flat_map(|s| set.layer_turns().iter().map(move |&t| (s, t)))
            .collect();
        let first_look = |p: Placement| {
            let layer = &set.layers()[p.layer];
            let shown = layer.shown(p.side, p.turn);
            let (side, turn) = looks
                .iter()
                .copied()
                .find(|&(s, t)| layer.shown(s, t) == shown)
                .unwrap();
            Placement::new(p.layer, side, turn)
        };
        let symmetries: Vec<Turn> = set
            .layer_turns()
            .iter()
            .copied()
            .filter(|&t| pattern.turned(t) == *pattern)
            .collect();
        let mut found = BTreeSet::new();
        let mut stack = Vec::new();
        fn extend(
            set: &LayersSet,
            looks: &[(Side, Turn)],
            k: usize,
            stack: &mut Vec<Placement>,
            visit: &mut dyn FnMut(&[Placement]),
        ) {
            if stack.len() == k {
                visit(stack);
                return;
            }
            for layer in 0..set.layers().len() {
                if stack.iter().any(|p| p.layer == layer) {
                    continue;
                }
                for &(side, turn) in looks {
                    stack.push(Placement::new(layer, side, turn));
                    extend(set, looks, k, stack, visit);
                    stack.pop();
                }
            }
        }
        extend(set, &looks, k, &mut stack, &mut |s: &[Placement]| {
            if set.compose(s).unwrap() != *pattern {
                return;
            }
            // Layer i shows when some cell of it is solid and every layer above has a hole.
            let shown: Vec<Grid<Option<Key>>> = s
                .iter()
                .map(|p| set.layers()[p.layer].shown(p.side, p.turn))
                .collect();
            let shows = (0..s.len()).all(|i| {
                shown[i].positions().any(|pos| {
                    shown[i][pos].is_some() && shown[..i].iter().all(|g| g[pos].is_none())
                })
            });
            if !shows {
                return;
            }
            let canonical = symmetries
                .iter()
                .map(|&t| {
                    s.iter()
                        .map(|p| first_look(Placement::new(p.layer, p.side, p.turn.then(t))))
                        .collect::<Vec<_>>()
                })
                .min()
                .unwrap();
            found.insert(canonical);
        });
        found
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn agrees_with_brute_force_on_small_sets(
            (set, stack) in arb_set(3).prop_flat_map(|set| {
                let square = set.is_square();
                (Just(set), arb_stack(3, 3, square))
            })
        ) {
            let solver = Solver::new(&set);
            let pattern = set.compose(&stack).unwrap();
            for k in 0..=3 {
                let solutions = solver.solutions(&pattern, k);
                let listed: BTreeSet<Vec<Placement>> =
                    solutions.iter().map(|s| s.stack.clone()).collect();
                prop_assert_eq!(listed.len(), solutions.len(), "a solution is listed twice");
                prop_assert_eq!(&listed, &brute_force(&set, &pattern, k), "k = {}", k);
                prop_assert_eq!(solver.has_solution(&pattern, k), !listed.is_empty());
                for s in &solutions {
                    let shown = set.compose(&s.stack).unwrap();
                    prop_assert_eq!(verify(&shown, &pattern), crate::layers::Verdict::Match {
                        turn: Turn::R0
                    });
                }
            }
            let min = solver.min_layers(&pattern).unwrap();
            prop_assert!(min <= stack.len());
        }
    }
}
