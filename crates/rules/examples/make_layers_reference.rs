//! Generates `models/layers/reference.json`, our own Layers+ set (the real artwork is not
//! public), deterministically from a fixed seed:
//!
//! ```text
//! cargo run -p tablejudge-rules --example make_layers_reference > models/layers/reference.json
//! ```
//!
//! 4×4 cells, five double-sided layers, each side one colour like the real game: fronts in five
//! well-separated hues, backs in related but distinct shades (every pair of the twelve colours,
//! card and frame included, is at least 24 CIEDE2000 apart). Holes are drawn at random until
//! enough stacks of all five layers show every layer. Missions are composed from random stacks
//! and kept when the solver proves they need exactly their level and no earlier mission looks
//! the same up to a turn: 15 each of levels 2, 3 and 4, and 10 of level 5.

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tablejudge_rules::grid::{Grid, Turn};
use tablejudge_rules::key::Key;
use tablejudge_rules::layers::{
    LayersSet, Placement, RawLayer, RawLayersSet, RawMission, Side, Solver, LAYERS_SET_FORMAT,
};
use tablejudge_rules::palette::RawSwatch;

const SEED: u64 = 0x1a7e_25e7;
const SIZE: usize = 4;
/// Missions per level (the number of layers), as in the real game.
const MISSIONS: [(usize, usize); 4] = [(2, 15), (3, 15), (4, 15), (5, 10)];
/// Random stacks tried per hole design before drawing new holes.
const STACK_TRIES: usize = 20_000;

/// (key, name, sRGB) of the player card, the frame, and each layer's front and back.
const CARD: (&str, &str, &str) = ("w", "player card (warm white)", "#f2efe6");
const FRAME: (&str, &str, &str) = ("k", "frame (charcoal)", "#2b2b30");
const SIDES: [[(&str, &str, &str); 2]; 5] = [
    [("r", "red", "#b51e2d"), ("s", "salmon", "#e18264")],
    [
        ("y", "mustard yellow", "#d2ad34"),
        ("o", "dark olive", "#695621"),
    ],
    [
        ("g", "bright green", "#38d453"),
        ("f", "forest green", "#257627"),
    ],
    [("b", "blue", "#2160b7"), ("c", "sky blue", "#8dbcdf")],
    [("v", "purple", "#9327b0"), ("p", "orchid pink", "#e084df")],
];
const LAYER_IDS: [&str; 5] = ["A", "B", "C", "D", "E"];

fn main() -> Result<(), Box<dyn Error>> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let raw = loop {
        let layers = draw_layers(&mut rng);
        if let Some(missions) = draw_missions(&layers, &mut rng)? {
            break set_with(layers, missions);
        }
    };
    let text = to_json_lines(&raw)?;
    // The written text must read back as the same set.
    let set = LayersSet::from_json(&text, "reference.json")?;
    assert_eq!(set.to_raw(), raw, "the written set reads back differently");
    print!("{text}");
    Ok(())
}

fn set_with(layers: Vec<RawLayer>, missions: Vec<RawMission>) -> RawLayersSet {
    let swatch = |(key, name, srgb): (&str, &str, &str)| {
        let raw = RawSwatch {
            name: name.to_owned(),
            srgb: srgb.to_owned(),
        };
        (key.to_owned(), raw)
    };
    let mut colors: BTreeMap<String, RawSwatch> = [swatch(CARD), swatch(FRAME)].into();
    colors.extend(SIDES.iter().flatten().copied().map(swatch));
    RawLayersSet {
        format: LAYERS_SET_FORMAT.to_owned(),
        name: "reference".to_owned(),
        rows: SIZE,
        cols: SIZE,
        colors,
        card: CARD.0.to_owned(),
        frame: FRAME.0.to_owned(),
        frame_width: 0.3,
        layers,
        missions,
    }
}

/// Five layers with 6 to 10 holes each, no two with the same holes up to turning and flipping.
fn draw_layers(rng: &mut ChaCha8Rng) -> Vec<RawLayer> {
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut layers = Vec::new();
    while layers.len() < LAYER_IDS.len() {
        let holes = rng.gen_range(6..=10);
        let mut cells: Vec<bool> = (0..SIZE * SIZE).map(|i| i < holes).collect();
        cells.shuffle(rng);
        let shape = Grid::from_fn(SIZE, SIZE, |p| cells[p.row * SIZE + p.col]);
        let looks: Vec<Vec<String>> = [shape.clone(), shape.mirrored()]
            .iter()
            .flat_map(|g| {
                Turn::ALL.map(|t| rows_of(&g.turned(t), |&hole| if hole { '.' } else { '#' }))
            })
            .collect();
        if looks.iter().any(|l| seen.contains(l)) {
            continue;
        }
        seen.extend(looks);
        let [(front, _, _), (back, _, _)] = SIDES[layers.len()];
        let paint = |g: &Grid<bool>, colour: &str| {
            rows_of(g, |&hole| if hole { '.' } else { colour_char(colour) })
        };
        layers.push(RawLayer {
            id: LAYER_IDS[layers.len()].to_owned(),
            front: paint(&shape, front),
            // The back as seen after flipping: holes mirrored left-right.
            back: paint(&shape.mirrored(), back),
        });
    }
    layers
}

fn colour_char(key: &str) -> char {
    key.chars().next().unwrap_or('.')
}

fn rows_of<T>(grid: &Grid<T>, cell: impl Fn(&T) -> char) -> Vec<String> {
    (0..grid.rows())
        .map(|r| grid.row(r).iter().map(&cell).collect())
        .collect()
}

/// Missions for these layers, or `None` if random stacks do not give enough of every level.
fn draw_missions(
    layers: &[RawLayer],
    rng: &mut ChaCha8Rng,
) -> Result<Option<Vec<RawMission>>, Box<dyn Error>> {
    let set = LayersSet::from_raw(&set_with(layers.to_vec(), Vec::new()), "draft")?;
    let solver = Solver::new(&set);
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut missions = Vec::new();
    for (level, count) in MISSIONS {
        let mut found = 0;
        for _ in 0..STACK_TRIES {
            if found == count {
                break;
            }
            let pattern = set.compose(&random_stack(&set, level, rng))?;
            let looks = Turn::ALL.map(|t| rows_of(&pattern.turned(t), |k: &Key| k.char()));
            if looks.iter().any(|l| seen.contains(l))
                || solver.min_layers(&pattern) != Some(level)
                || !solver.has_solution(&pattern, level)
            {
                continue;
            }
            seen.extend(looks.iter().cloned());
            found += 1;
            missions.push(RawMission {
                id: format!("{level}-{found:02}"),
                layers: level,
                pattern: looks[0].clone(),
            });
        }
        if found < count {
            return Ok(None);
        }
    }
    Ok(Some(missions))
}

fn random_stack(set: &LayersSet, level: usize, rng: &mut ChaCha8Rng) -> Vec<Placement> {
    let mut order: Vec<usize> = (0..set.layers().len()).collect();
    order.shuffle(rng);
    order
        .into_iter()
        .take(level)
        .map(|layer| {
            let side = Side::ALL[rng.gen_range(0..2)];
            let turn = Turn::ALL[rng.gen_range(0..4)];
            Placement::new(layer, side, turn)
        })
        .collect()
}

/// Pretty JSON with one layer or mission per line, so reviews of the file read like cards.
fn to_json_lines(raw: &RawLayersSet) -> Result<String, serde_json::Error> {
    let mut out = String::from("{\n");
    out += &format!("  \"format\": {},\n", serde_json::to_string(&raw.format)?);
    out += &format!("  \"name\": {},\n", serde_json::to_string(&raw.name)?);
    out += &format!("  \"rows\": {},\n  \"cols\": {},\n", raw.rows, raw.cols);
    out += "  \"colors\": {\n";
    let colors: Vec<String> = raw
        .colors
        .iter()
        .map(|(k, s)| {
            Ok(format!(
                "    {}: {}",
                serde_json::to_string(k)?,
                serde_json::to_string(s)?
            ))
        })
        .collect::<Result<_, serde_json::Error>>()?;
    out += &colors.join(",\n");
    out += "\n  },\n";
    out += &format!("  \"card\": {},\n", serde_json::to_string(&raw.card)?);
    out += &format!("  \"frame\": {},\n", serde_json::to_string(&raw.frame)?);
    out += &format!(
        "  \"frame_width\": {},\n",
        serde_json::to_string(&raw.frame_width)?
    );
    out += "  \"layers\": [\n";
    let layers: Vec<String> = raw
        .layers
        .iter()
        .map(|l| Ok(format!("    {}", serde_json::to_string(l)?)))
        .collect::<Result<_, serde_json::Error>>()?;
    out += &layers.join(",\n");
    out += "\n  ],\n  \"missions\": [\n";
    let missions: Vec<String> = raw
        .missions
        .iter()
        .map(|m| Ok(format!("    {}", serde_json::to_string(m)?)))
        .collect::<Result<_, serde_json::Error>>()?;
    out += &missions.join(",\n");
    out += "\n  ]\n}\n";
    Ok(out)
}
