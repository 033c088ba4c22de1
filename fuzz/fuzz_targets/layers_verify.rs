//! Layers+ stacks, `verify` and the solver, on the shipped sets (models/layers/*.json) and a
//! small non-square set.
//!
//! From the input: a set, a mission, a stack (arbitrary placements, or one of the solver's
//! solutions for the mission with edits: layers swapped, flipped, turned, taken out, added),
//! a turn of the whole stack and cells misread. Then:
//! - `compose` fails exactly when `check_stack` does; turning every layer of a stack turns
//!   what it shows;
//! - `verify` says "match" exactly when the stack (some whole-stack turn of it) shows the
//!   mission's pattern, or, with misread cells, when the grid equals the pattern under a turn;
//!   its turn and mismatched cells are those of the definition;
//! - every solution the solver gives for the mission composes to the pattern and verifies as
//!   a match; a stack of k showing layers is found by the solver with k layers.

#![no_main]

use std::sync::LazyLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tablejudge_rules::grid::{Grid, Pos, Turn};
use tablejudge_rules::key::Key;
use tablejudge_rules::layers::{
    verify, LayersSet, Placement, RawMission, Side, Solution, Solver, Verdict,
};

const REFERENCE: &str = include_str!("../../models/layers/reference.json");
const PARLOUR: &str = include_str!("../../models/layers/parlour.json");

/// 3 × 4: layers turn by 0° and 180° only. Missions are added at start-up from fixed stacks.
const NON_SQUARE: &str = r##"{
  "format": "tablejudge/layers-set@1", "name": "fuzz-3x4", "rows": 3, "cols": 4,
  "colors": {
    "w": { "name": "card", "srgb": "#f2efe6" }, "k": { "name": "frame", "srgb": "#2b2b30" },
    "r": { "name": "red", "srgb": "#d62839" }, "g": { "name": "green", "srgb": "#2f9e44" },
    "b": { "name": "blue", "srgb": "#1f5fbf" }, "y": { "name": "yellow", "srgb": "#f5c518" }
  },
  "card": "w", "frame": "k",
  "layers": [
    { "id": "P", "front": ["rr..", "r..b", "...."], "back": ["..gg", "b..g", "...."] },
    { "id": "Q", "front": ["b..b", ".yy.", "b..b"], "back": ["y..y", ".rr.", "y..y"] },
    { "id": "R", "front": ["g...", "gg..", "ggg."], "back": ["...r", "..rr", ".rrr"] },
    { "id": "S", "front": [".y.y", "y.y.", ".y.y"], "back": ["b.b.", ".b.b", "b.b."] }
  ],
  "missions": []
}"##;

struct Case {
    pattern: Grid<Key>,
    layers: usize,
    solutions: Vec<Solution>,
}

struct Fixture {
    set: LayersSet,
    solver: Solver,
    keys: Vec<Key>,
    cases: Vec<Case>,
}

static FIXTURES: LazyLock<Vec<Fixture>> = LazyLock::new(|| {
    let mut sets = vec![
        LayersSet::from_json(REFERENCE, "reference.json").expect("reference set loads"),
        LayersSet::from_json(PARLOUR, "parlour.json").expect("parlour set loads"),
    ];
    sets.push(non_square());
    sets.into_iter()
        .map(|set| {
            let solver = Solver::new(&set);
            let cases = set
                .missions()
                .iter()
                .map(|m| {
                    let solutions = solver.solutions(m.pattern(), m.layers());
                    let case = Case {
                        pattern: m.pattern().clone(),
                        layers: m.layers(),
                        solutions,
                    };
                    check_solutions(&set, &solver, &case);
                    case
                })
                .collect();
            Fixture {
                keys: set.colors().keys().copied().collect(),
                set,
                solver,
                cases,
            }
        })
        .collect()
});

fn non_square() -> LayersSet {
    let set = LayersSet::from_json(NON_SQUARE, "fuzz-3x4.json").expect("3x4 set loads");
    let p = |layer, side, q| Placement::new(layer, side, Turn::from_quarter_turns(q));
    let stacks = [
        vec![p(0, Side::Front, 0), p(1, Side::Front, 0)],
        vec![
            p(2, Side::Back, 2),
            p(3, Side::Front, 0),
            p(0, Side::Back, 0),
        ],
        vec![p(1, Side::Back, 2)],
        vec![
            p(3, Side::Back, 0),
            p(2, Side::Front, 0),
            p(1, Side::Front, 2),
            p(0, Side::Front, 2),
        ],
    ];
    let mut raw = set.to_raw();
    raw.missions = stacks
        .iter()
        .enumerate()
        .map(|(i, stack)| {
            let shown = set.compose(stack).expect("fixed stacks are valid");
            RawMission {
                id: format!("m{i}"),
                layers: showing_layers(&set, stack, &shown),
                pattern: shown.map(|k| k.char()).to_rows(),
            }
        })
        .collect();
    LayersSet::from_raw(&raw, "fuzz-3x4.json").expect("3x4 set with missions loads")
}

/// How many layers of `stack` show at least one cell of `shown` (its composition).
fn showing_layers(set: &LayersSet, stack: &[Placement], shown: &Grid<Key>) -> usize {
    let mut covered = Grid::filled(set.rows(), set.cols(), false);
    let mut showing = 0;
    for p in stack {
        let grid = set.layers()[p.layer].shown(p.side, p.turn);
        let mut shows = false;
        for (pos, cell) in grid.iter() {
            if let Some(key) = cell {
                if !covered[pos] {
                    assert_eq!(shown[pos], *key, "the top solid cell is what shows");
                    covered[pos] = true;
                    shows = true;
                }
            }
        }
        showing += usize::from(shows);
    }
    showing
}

/// Every solution composes to the pattern unturned, verifies as a match, uses exactly the
/// case's number of distinct layers, each showing; equivalent placements show the same.
fn check_solutions(set: &LayersSet, solver: &Solver, case: &Case) {
    assert_eq!(
        solver.has_solution(&case.pattern, case.layers),
        !case.solutions.is_empty()
    );
    if !case.solutions.is_empty() {
        let min = solver.min_layers(&case.pattern).expect("solvable");
        assert!(min <= case.layers);
    }
    for s in &case.solutions {
        check_solution(set, solver, &case.pattern, case.layers, s);
    }
}

fn check_solution(
    set: &LayersSet,
    solver: &Solver,
    pattern: &Grid<Key>,
    layers: usize,
    s: &Solution,
) {
    let shown = set
        .compose(&s.stack)
        .unwrap_or_else(|e| panic!("solution {s:?} is not a stack: {e}"));
    assert_eq!(&shown, pattern, "solution {s:?} does not show the pattern");
    assert_eq!(
        verify(&shown, pattern),
        Verdict::Match { turn: Turn::R0 },
        "solution {s:?} does not verify"
    );
    assert_eq!(
        s.stack.len(),
        layers,
        "solution {s:?} has the wrong layer count"
    );
    assert_eq!(
        showing_layers(set, &s.stack, &shown),
        layers,
        "a layer of solution {s:?} shows nothing"
    );
    for (i, &p) in s.stack.iter().enumerate() {
        let same = solver.equivalent_placements(p);
        assert!(
            same.contains(&p),
            "{p:?} not among its equivalents {same:?}"
        );
        for &q in &same {
            let mut other = s.stack.clone();
            other[i] = q;
            assert_eq!(
                set.compose(&other).as_ref(),
                Ok(&shown),
                "{q:?} is not like {p:?}"
            );
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Edit {
    Swap(u8, u8),
    Flip(u8),
    Turn(u8, u8),
    Remove(u8),
    Insert(u8, u8, bool, u8),
}

#[derive(Arbitrary, Debug)]
enum Base {
    Placements(Vec<(u8, bool, u8)>),
    Solution(u8, Vec<Edit>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    fixture: u8,
    mission: u8,
    base: Base,
    whole_turn: u8,
    misread: Vec<(u8, u8)>,
}

fn side(flipped: bool) -> Side {
    if flipped {
        Side::Back
    } else {
        Side::Front
    }
}

fn turn(q: u8) -> Turn {
    Turn::from_quarter_turns(i64::from(q))
}

fn build_stack(fx: &Fixture, case: &Case, base: &Base) -> Vec<Placement> {
    let n = fx.set.layers().len();
    // Out-of-range layer numbers are kept now and then: compose must refuse them.
    let layer = |l: u8| {
        if l >= 250 {
            n + usize::from(l - 250)
        } else {
            usize::from(l) % n
        }
    };
    match base {
        Base::Placements(ps) => ps
            .iter()
            .take(2 * n)
            .map(|&(l, f, q)| Placement::new(layer(l), side(f), turn(q)))
            .collect(),
        Base::Solution(index, edits) => {
            let mut stack = match case.solutions.len() {
                0 => Vec::new(),
                len => case.solutions[usize::from(*index) % len].stack.clone(),
            };
            for edit in edits.iter().take(8) {
                let at = |i: u8, len: usize| usize::from(i) % len.max(1);
                match *edit {
                    Edit::Swap(a, b) if !stack.is_empty() => {
                        let (a, b) = (at(a, stack.len()), at(b, stack.len()));
                        stack.swap(a, b);
                    }
                    Edit::Flip(a) if !stack.is_empty() => {
                        let i = at(a, stack.len());
                        stack[i].side = match stack[i].side {
                            Side::Front => Side::Back,
                            Side::Back => Side::Front,
                        };
                    }
                    Edit::Turn(a, q) if !stack.is_empty() => {
                        let i = at(a, stack.len());
                        stack[i].turn = stack[i].turn.then(turn(q));
                    }
                    Edit::Remove(a) if !stack.is_empty() => {
                        stack.remove(at(a, stack.len()));
                    }
                    Edit::Insert(a, l, f, q) => {
                        let i = at(a, stack.len() + 1);
                        stack.insert(i, Placement::new(layer(l), side(f), turn(q)));
                    }
                    _ => {}
                }
            }
            stack
        }
    }
}

/// The stack turned as a whole by `t`: every layer turned by `t`.
fn turned_stack(stack: &[Placement], t: Turn) -> Vec<Placement> {
    stack
        .iter()
        .map(|p| Placement::new(p.layer, p.side, p.turn.then(t)))
        .collect()
}

/// Checks a verdict against its definition (formats.md §2 and `Verdict`'s docs).
fn check_verdict(observed: &Grid<Key>, pattern: &Grid<Key>, verdict: &Verdict) {
    let (rows, cols) = observed.size();
    let fits: Vec<Turn> = Turn::ALL
        .into_iter()
        .filter(|t| t.turned_size(rows, cols) == pattern.size())
        .collect();
    let wrong = |t: Turn| -> Vec<Pos> {
        observed
            .iter()
            .filter(|&(p, k)| pattern[t.apply(p, rows, cols)] != *k)
            .map(|(p, _)| p)
            .collect()
    };
    let first_match = fits
        .iter()
        .copied()
        .find(|&t| observed.turned(t) == *pattern);
    match verdict {
        Verdict::Match { turn } => {
            assert_eq!(Some(*turn), first_match, "not the first matching turn");
            assert_eq!(observed.turned(*turn), *pattern);
        }
        Verdict::Mismatch {
            best_turn,
            mismatched,
        } => {
            assert_eq!(first_match, None, "a match was missed");
            assert!(
                fits.contains(best_turn),
                "best turn {best_turn:?} does not fit"
            );
            assert!(!mismatched.is_empty());
            assert_eq!(*mismatched, wrong(*best_turn));
            let fewest = fits.iter().map(|&t| wrong(t).len()).min();
            assert_eq!(Some(mismatched.len()), fewest, "not the fewest cells wrong");
            let first_best = fits
                .iter()
                .copied()
                .find(|&t| wrong(t).len() == mismatched.len());
            assert_eq!(Some(*best_turn), first_best, "not the first best turn");
        }
        Verdict::WrongSize { .. } => assert!(fits.is_empty(), "a fitting turn was missed"),
    }
}

fuzz_target!(|input: Input| {
    let fixtures = &*FIXTURES;
    let fx = &fixtures[usize::from(input.fixture) % fixtures.len()];
    let set = &fx.set;
    let case = &fx.cases[usize::from(input.mission) % fx.cases.len()];
    let mission = &set.missions()[usize::from(input.mission) % fx.cases.len()];
    assert_eq!(mission.pattern(), &case.pattern);

    let stack = build_stack(fx, case, &input.base);
    let composed = set.compose(&stack);
    assert_eq!(composed.is_ok(), set.check_stack(&stack).is_ok());
    let Ok(composed) = composed else {
        return;
    };

    // The whole stack turned (a square set's layers turn by quarter-turns, others by halves).
    let t = turn(input.whole_turn);
    let t = if set.is_square() || t.quarter_turns() % 2 == 0 {
        t
    } else {
        t.then(Turn::R90)
    };
    let stack = turned_stack(&stack, t);
    let observed = set.compose(&stack).expect("a turned valid stack is valid");
    assert_eq!(
        observed,
        composed.turned(t),
        "turning the stack turns what it shows"
    );

    // verify against the definition on whole stacks: some whole-stack turn shows the pattern.
    let stack_matches = set
        .layer_turns()
        .iter()
        .any(|&u| set.compose(&turned_stack(&stack, u)).as_ref() == Ok(&case.pattern));
    let verdict = verify(&observed, &case.pattern);
    assert_eq!(
        verdict.is_match(),
        stack_matches,
        "stack {stack:?} shows {observed:?}, pattern {:?}: {verdict:?}",
        case.pattern
    );
    assert_eq!(mission.verify(&observed), verdict);
    check_verdict(&observed, &case.pattern, &verdict);

    // The solver finds this stack's grid with as many layers as show in it, and whatever it
    // gives composes to it.
    let showing = showing_layers(set, &stack, &observed);
    let found = fx.solver.solutions(&observed, showing);
    assert!(
        !found.is_empty(),
        "no solution with {showing} layers for a grid {stack:?} shows"
    );
    assert!(fx
        .solver
        .min_layers(&observed)
        .is_some_and(|m| m <= showing));
    for s in found.iter().take(16) {
        check_solution(set, &fx.solver, &observed, showing, s);
    }
    // A solution of the mission, re-checked (cheap; the start-up check did them all).
    if let Some(s) = case
        .solutions
        .get(usize::from(input.whole_turn) % case.solutions.len().max(1))
    {
        check_solution(set, &fx.solver, &case.pattern, case.layers, s);
    }

    // Misread cells: now only the grid is known.
    if input.misread.is_empty() {
        return;
    }
    let mut misread = observed.clone();
    let cells: Vec<Pos> = misread.positions().collect();
    for &(c, k) in input.misread.iter().take(cells.len()) {
        misread[cells[usize::from(c) % cells.len()]] = fx.keys[usize::from(k) % fx.keys.len()];
    }
    let verdict = verify(&misread, &case.pattern);
    let grid_matches = Turn::ALL.iter().any(|&u| {
        u.turned_size(misread.rows(), misread.cols()) == case.pattern.size()
            && misread.turned(u) == case.pattern
    });
    assert_eq!(
        verdict.is_match(),
        grid_matches,
        "{misread:?} vs {:?}: {verdict:?}",
        case.pattern
    );
    check_verdict(&misread, &case.pattern, &verdict);
    for s in fx.solver.solutions(&misread, showing).iter().take(16) {
        check_solution(set, &fx.solver, &misread, showing, s);
    }
});
