//! Small sets and generators shared by the Layers+ unit tests.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::grid::{Grid, Turn};
use crate::key::Key;

use super::set::LayersSet;
use super::stack::{Placement, Side};

/// A 3×3 set with three layers, one of them multi-coloured:
///
/// ```text
/// A front  rr.   back  .gg      B front  b.b   back  y.y     C front  ry.   back  .gb
///          r..         ..g               .b.         .y.              ...         ...
///          ...         ...               b.b         y.y              ..b         g..
/// ```
pub fn small_set_json() -> Value {
    json!({
        "format": "tablejudge/layers-set@1",
        "name": "small",
        "rows": 3,
        "cols": 3,
        "colors": {
            "w": { "name": "card", "srgb": "#f2efe6" },
            "k": { "name": "frame", "srgb": "#2b2b30" },
            "r": { "name": "red", "srgb": "#d62839" },
            "g": { "name": "green", "srgb": "#2f9e44" },
            "b": { "name": "blue", "srgb": "#1f5fbf" },
            "y": { "name": "yellow", "srgb": "#f5c518" }
        },
        "card": "w",
        "frame": "k",
        "layers": [
            { "id": "A", "front": ["rr.", "r..", "..."], "back": [".gg", "..g", "..."] },
            { "id": "B", "front": ["b.b", ".b.", "b.b"], "back": ["y.y", ".y.", "y.y"] },
            { "id": "C", "front": ["ry.", "...", "..b"], "back": [".gb", "...", "g.."] }
        ],
        "missions": [
            { "id": "2-01", "layers": 2, "pattern": ["rrb", "rbw", "bwb"] }
        ]
    })
}

pub fn small_set() -> LayersSet {
    LayersSet::from_json(&small_set_json().to_string(), "small.json").unwrap()
}

pub fn keys(rows: &[&str]) -> Grid<Key> {
    Grid::parse_rows(rows)
        .unwrap()
        .map(|&c| Key::new(c).unwrap())
}

pub fn turn(quarter_turns: u8) -> Turn {
    Turn::try_from(quarter_turns).unwrap()
}

pub fn place(layer: usize, side: Side, quarter_turns: u8) -> Placement {
    Placement::new(layer, side, turn(quarter_turns))
}

/// A random valid set: 2..=3 × 2..=3 cells, `layers` layers coloured from `r g b` with holes
/// (about one cell in three), backs with mirrored holes and their own colours.
pub fn arb_set(layers: usize) -> impl Strategy<Value = LayersSet> {
    (2usize..=3, 2usize..=3).prop_flat_map(move |(rows, cols)| {
        let cell = prop_oneof![1 => Just('.'), 2 => prop::sample::select(vec!['r', 'g', 'b'])];
        let colour = prop::sample::select(vec!['r', 'g', 'b']);
        let n = rows * cols;
        let layer = (
            prop::collection::vec(cell, n),
            prop::collection::vec(colour, n),
        );
        prop::collection::vec(layer, layers).prop_map(move |raw_layers| {
            let layers: Vec<Value> = raw_layers
                .iter()
                .enumerate()
                .map(|(i, (front, back_colours))| {
                    let row_of = |cells: &dyn Fn(usize) -> char, r: usize| -> String {
                        (0..cols).map(|c| cells(r * cols + c)).collect()
                    };
                    let front_at = |i: usize| front[i];
                    let back_at = |i: usize| {
                        let (r, c) = (i / cols, i % cols);
                        if front[r * cols + (cols - 1 - c)] == '.' {
                            '.'
                        } else {
                            back_colours[i]
                        }
                    };
                    json!({
                        "id": ((b'A' + i as u8) as char).to_string(),
                        "front": (0..rows).map(|r| row_of(&front_at, r)).collect::<Vec<_>>(),
                        "back": (0..rows).map(|r| row_of(&back_at, r)).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let mut set = small_set_json();
            set["rows"] = json!(rows);
            set["cols"] = json!(cols);
            set["layers"] = json!(layers);
            set["missions"] = json!([]);
            LayersSet::from_json(&set.to_string(), "random.json").unwrap()
        })
    })
}

/// A random stack of 1..=`max` distinct layers of a set with `layer_count` layers, with turns
/// allowed by a set of the given squareness.
pub fn arb_stack(
    layer_count: usize,
    max: usize,
    square: bool,
) -> impl Strategy<Value = Vec<Placement>> {
    let order = Just((0..layer_count).collect::<Vec<_>>()).prop_shuffle();
    let turns = if square {
        vec![0u8, 1, 2, 3]
    } else {
        vec![0u8, 2]
    };
    let looks = prop::collection::vec(
        (
            prop::sample::select(Side::ALL.to_vec()),
            prop::sample::select(turns),
        ),
        layer_count,
    );
    (order, looks, 1..=max).prop_map(|(order, looks, len)| {
        order
            .into_iter()
            .zip(looks)
            .take(len)
            .map(|(layer, (side, q))| place(layer, side, q))
            .collect()
    })
}
