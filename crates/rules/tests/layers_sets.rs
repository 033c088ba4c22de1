//! The shipped Layers+ sets (`models/layers/reference.json` and `models/layers/parlour.json`)
//! have the properties their generator (`examples/make_layers_reference.rs`) promises, proven
//! with the solver. Both sets are checked by the same code; only their [`Expected`] differs.

use std::collections::{BTreeMap, BTreeSet};

use palette::color_difference::Ciede2000;
use palette::white_point::D65;
use palette::FromColor;
use tablejudge_rules::grid::{Grid, Turn};
use tablejudge_rules::key::Key;
use tablejudge_rules::layers::{verify, LayersSet, Side, Solver, Verdict};
use tablejudge_rules::Srgb;

/// What a shipped set promises.
struct Expected {
    file: &'static str,
    json: &'static str,
    name: &'static str,
    size: usize,
    card: char,
    frame: char,
    frame_width: f64,
    /// Whether the frame is lighter than the player card (L*), i.e. which look the set has.
    light_frame_on_dark_card: bool,
    /// (level, count) in the file's order.
    missions: &'static [(usize, usize)],
    /// The least CIEDE2000 difference between any two of the set's colours.
    min_ciede2000: f64,
}

const REFERENCE: Expected = Expected {
    file: "models/layers/reference.json",
    json: include_str!("../../../models/layers/reference.json"),
    name: "reference",
    size: 4,
    card: 'w',
    frame: 'k',
    frame_width: 0.3,
    light_frame_on_dark_card: false,
    missions: &[(2, 15), (3, 15), (4, 15), (5, 10)],
    min_ciede2000: 24.0,
};

const PARLOUR: Expected = Expected {
    file: "models/layers/parlour.json",
    json: include_str!("../../../models/layers/parlour.json"),
    name: "parlour",
    size: 5,
    card: 'n',
    frame: 'i',
    frame_width: 0.22,
    light_frame_on_dark_card: true,
    missions: &[(2, 10), (3, 10), (4, 10), (5, 10)],
    min_ciede2000: 26.0,
};

/// Every shipped set has five layers.
const LAYERS: usize = 5;

fn load(e: &Expected) -> LayersSet {
    LayersSet::from_json(e.json, e.file).unwrap()
}

/// The one colour of a layer side (panics if it has several).
fn side_colour(grid: &Grid<Option<Key>>) -> Key {
    let colours: BTreeSet<Key> = grid.cells().iter().flatten().copied().collect();
    assert_eq!(colours.len(), 1, "a side should be one colour: {grid:?}");
    colours.into_iter().next().unwrap()
}

type Lab = palette::Lab<D65, f64>;

/// CIELAB (D65) of an sRGB colour, as the photo pipeline computes it.
fn lab(c: Srgb) -> Lab {
    Lab::from_color(palette::Srgb::new(c.r, c.g, c.b).into_format::<f64>())
}

fn validates_with_the_promised_shape(e: &Expected) {
    let set = load(e);
    assert_eq!(set.name(), e.name);
    assert_eq!((set.rows(), set.cols()), (e.size, e.size));
    assert_eq!(set.card(), Key::new(e.card).unwrap());
    assert_eq!(set.frame(), Key::new(e.frame).unwrap());
    assert_eq!(set.frame_width(), e.frame_width);
    assert_eq!(set.layers().len(), LAYERS);
    // Each side is one colour, and no colour is on two sides, the card or the frame.
    let mut side_colours = BTreeSet::new();
    for layer in set.layers() {
        for side in Side::ALL {
            let colour = side_colour(layer.side(side));
            assert!(colour != set.card() && colour != set.frame());
            assert!(side_colours.insert(colour), "{colour} used twice");
        }
    }
    assert_eq!(side_colours.len(), 2 * LAYERS);
    assert_eq!(set.colors().len(), 2 * LAYERS + 2);
    let lightness = |k: Key| lab(set.colors()[&k].srgb).l;
    assert_eq!(
        lightness(set.frame()) > lightness(set.card()),
        e.light_frame_on_dark_card
    );
}

fn missions_come_by_level_with_ids_by_level(e: &Expected) {
    let set = load(e);
    let mut per_level: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for m in set.missions() {
        per_level.entry(m.layers()).or_default().push(m.id());
    }
    let counts: Vec<(usize, usize)> = per_level.iter().map(|(l, ids)| (*l, ids.len())).collect();
    assert_eq!(counts, e.missions);
    // Grouped by level in the file, as the generator writes them.
    let levels: Vec<usize> = set.missions().iter().map(|m| m.layers()).collect();
    assert!(levels.is_sorted(), "missions out of level order");
    for (level, ids) in per_level {
        let expected: Vec<String> = (1..=ids.len()).map(|n| format!("{level}-{n:02}")).collect();
        assert_eq!(ids, expected);
    }
}

fn every_mission_needs_exactly_its_level_and_no_fewer_layers(e: &Expected) {
    let set = load(e);
    let solver = Solver::new(&set);
    for m in set.missions() {
        assert_eq!(
            solver.min_layers(m.pattern()),
            Some(m.layers()),
            "mission {}",
            m.id()
        );
        let solutions = solver.solutions(m.pattern(), m.layers());
        assert!(!solutions.is_empty(), "mission {} has no solution", m.id());
        for s in &solutions {
            assert_eq!(s.stack.len(), m.layers(), "mission {}", m.id());
            let shown = set.compose(&s.stack).unwrap();
            assert_eq!(
                verify(&shown, m.pattern()),
                Verdict::Match { turn: Turn::R0 }
            );
        }
    }
    assert!(set.check_missions(e.file).is_empty());
}

fn no_two_missions_look_alike_up_to_a_turn(e: &Expected) {
    let set = load(e);
    let missions = set.missions();
    for (i, a) in missions.iter().enumerate() {
        for b in &missions[i + 1..] {
            assert!(
                !a.pattern().eq_up_to_turn(b.pattern()),
                "missions {} and {} are the same up to a turn",
                a.id(),
                b.id()
            );
        }
    }
}

fn all_colours_are_far_apart(e: &Expected) {
    // CIEDE2000, the pipeline's colour difference: about 2 is "just noticeable", 10 "clearly
    // different"; the promised minimum leaves room for bad light. CIE76 ≥ 30 as well.
    let set = load(e);
    let colours: Vec<(Key, Lab)> = set
        .colors()
        .iter()
        .map(|(k, s)| (*k, lab(s.srgb)))
        .collect();
    let mut least = f64::INFINITY;
    for (i, (ka, a)) in colours.iter().enumerate() {
        for (kb, b) in &colours[i + 1..] {
            let de00 = a.difference(*b);
            let de76 = ((a.l - b.l).powi(2) + (a.a - b.a).powi(2) + (a.b - b.b).powi(2)).sqrt();
            assert!(
                de00 >= e.min_ciede2000,
                "{ka} and {kb} are only ΔE00 {de00:.1} apart"
            );
            assert!(de76 >= 30.0, "{ka} and {kb} are only ΔE76 {de76:.1} apart");
            least = least.min(de00);
        }
    }
    // The promise is tight: it is what the design reached (rounded down), not a loose bound.
    assert!(least < e.min_ciede2000 + 1.0, "least ΔE00 is {least:.2}");
}

fn the_file_is_what_writing_the_set_gives(e: &Expected) {
    // The generator prints one item per line; the set must survive write → read unchanged.
    let set = load(e);
    let json = serde_json::to_string(&set.to_raw()).unwrap();
    assert_eq!(LayersSet::from_json(&json, "again.json").unwrap(), set);
}

/// The same tests for each shipped set, in a module named after it.
macro_rules! shipped_set_tests {
    ($set:ident, $expected:expr) => {
        mod $set {
            use super::*;

            #[test]
            fn validates_with_the_promised_shape() {
                super::validates_with_the_promised_shape(&$expected);
            }

            #[test]
            fn missions_come_by_level_with_ids_by_level() {
                super::missions_come_by_level_with_ids_by_level(&$expected);
            }

            #[test]
            fn every_mission_needs_exactly_its_level_and_no_fewer_layers() {
                super::every_mission_needs_exactly_its_level_and_no_fewer_layers(&$expected);
            }

            #[test]
            fn no_two_missions_look_alike_up_to_a_turn() {
                super::no_two_missions_look_alike_up_to_a_turn(&$expected);
            }

            #[test]
            fn all_colours_are_far_apart() {
                super::all_colours_are_far_apart(&$expected);
            }

            #[test]
            fn the_file_is_what_writing_the_set_gives() {
                super::the_file_is_what_writing_the_set_gives(&$expected);
            }
        }
    };
}

shipped_set_tests!(reference, REFERENCE);
shipped_set_tests!(parlour, PARLOUR);

#[test]
fn the_two_sets_differ_in_size_frame_and_every_colour() {
    let (a, b) = (load(&REFERENCE), load(&PARLOUR));
    assert_ne!(a.rows(), b.rows());
    assert_ne!(a.frame_width(), b.frame_width());
    let srgbs = |s: &LayersSet| -> BTreeSet<Srgb> { s.colors().values().map(|c| c.srgb).collect() };
    assert!(srgbs(&a).is_disjoint(&srgbs(&b)));
}
