//! The shipped Layers+ reference set (`models/layers/reference.json`) has the properties its
//! generator (`examples/make_layers_reference.rs`) promises, proven with the solver.

use std::collections::{BTreeMap, BTreeSet};

use tablejudge_rules::grid::{Grid, Turn};
use tablejudge_rules::key::Key;
use tablejudge_rules::layers::{verify, LayersSet, Side, Solver, Verdict};
use tablejudge_rules::Srgb;

const REFERENCE: &str = include_str!("../../../models/layers/reference.json");

fn reference() -> LayersSet {
    LayersSet::from_json(REFERENCE, "models/layers/reference.json").unwrap()
}

/// The one colour of a layer side (panics if it has several).
fn side_colour(grid: &Grid<Option<Key>>) -> Key {
    let colours: BTreeSet<Key> = grid.cells().iter().flatten().copied().collect();
    assert_eq!(colours.len(), 1, "a side should be one colour: {grid:?}");
    colours.into_iter().next().unwrap()
}

#[test]
fn the_reference_set_validates_with_the_promised_shape() {
    let set = reference();
    assert_eq!(set.name(), "reference");
    assert_eq!((set.rows(), set.cols()), (4, 4));
    assert_eq!(set.card(), Key::new('w').unwrap());
    assert_eq!(set.frame(), Key::new('k').unwrap());
    assert_eq!(set.frame_width(), 0.3);
    assert_eq!(set.layers().len(), 5);
    // Each side is one colour, and no colour is on two sides, the card or the frame.
    let mut side_colours = BTreeSet::new();
    for layer in set.layers() {
        for side in Side::ALL {
            let colour = side_colour(layer.side(side));
            assert!(colour != set.card() && colour != set.frame());
            assert!(side_colours.insert(colour), "{colour} used twice");
        }
    }
    assert_eq!(side_colours.len(), 10);
    assert_eq!(set.colors().len(), 12);
}

#[test]
fn missions_come_15_15_15_10_by_level_with_ids_by_level() {
    let set = reference();
    let mut per_level: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for m in set.missions() {
        per_level.entry(m.layers()).or_default().push(m.id());
    }
    let counts: Vec<(usize, usize)> = per_level.iter().map(|(l, ids)| (*l, ids.len())).collect();
    assert_eq!(counts, vec![(2, 15), (3, 15), (4, 15), (5, 10)]);
    for (level, ids) in per_level {
        let expected: Vec<String> = (1..=ids.len()).map(|n| format!("{level}-{n:02}")).collect();
        assert_eq!(ids, expected);
    }
}

#[test]
fn every_mission_needs_exactly_its_level_and_no_fewer_layers() {
    let set = reference();
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
            let shown = set.compose(&s.stack).unwrap();
            assert_eq!(
                verify(&shown, m.pattern()),
                Verdict::Match { turn: Turn::R0 }
            );
        }
    }
    assert!(set.check_missions("reference.json").is_empty());
}

#[test]
fn no_two_missions_look_alike_up_to_a_turn() {
    let set = reference();
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

/// CIELAB (D65) of an sRGB colour.
fn lab(c: Srgb) -> [f64; 3] {
    let linear = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (linear(c.r), linear(c.g), linear(c.b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

#[test]
fn all_colours_are_far_apart() {
    // CIE76 ΔE; 30 is well beyond "clearly different" (about 10), leaving room for bad light.
    let set = reference();
    let colours: Vec<(Key, [f64; 3])> = set
        .colors()
        .iter()
        .map(|(k, s)| (*k, lab(s.srgb)))
        .collect();
    for (i, (ka, a)) in colours.iter().enumerate() {
        for (kb, b) in &colours[i + 1..] {
            let delta_e = a
                .iter()
                .zip(b)
                .map(|(p, q)| (p - q).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                delta_e >= 30.0,
                "{ka} and {kb} are only ΔE {delta_e:.1} apart"
            );
        }
    }
}

#[test]
fn the_file_is_what_writing_the_set_gives() {
    // The generator prints one item per line; the set must survive write → read unchanged.
    let set = reference();
    let json = serde_json::to_string(&set.to_raw()).unwrap();
    assert_eq!(LayersSet::from_json(&json, "again.json").unwrap(), set);
}
