//! Generates the shipped Layers+ sets (our own designs; the real artwork is not public),
//! deterministically from a fixed seed per design:
//!
//! ```text
//! cargo run -p tablejudge-rules --example make_layers_reference > models/layers/reference.json
//! cargo run -p tablejudge-rules --example make_layers_reference -- --set parlour > models/layers/parlour.json
//! ```
//!
//! Each design (a [`Design`]) fixes the grid size, the colours, the frame width, the number of
//! missions per level and the seed; the program is the same for all. Every layer side is one
//! colour, like the real game: fronts in well-separated hues, backs in related but distinct
//! shades. Holes are drawn at random until enough stacks of all the layers show every layer.
//! Missions are composed from random stacks and kept when the solver proves they need exactly
//! their level and no earlier mission looks the same up to a turn.
//!
//! - `reference` (the default): 4×4 cells, a charcoal frame on a warm-white player card, red,
//!   mustard, green, blue and purple layers; 15 missions each of levels 2, 3 and 4, and 10 of
//!   level 5. Every pair of its twelve colours is at least 24 CIEDE2000 apart.
//! - `parlour`: a second look, so the photo pipeline is not tuned to one design: 5×5 cells, a
//!   narrower ivory frame on a dark slate-navy felt card (the reference's opposite), teal, coral,
//!   lemon, plum and leaf-green layers; 10 missions each of levels 2 to 5. Every pair of its
//!   twelve colours is at least 26 CIEDE2000 apart.

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::ops::RangeInclusive;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tablejudge_rules::grid::{Grid, Turn};
use tablejudge_rules::key::Key;
use tablejudge_rules::layers::{
    LayersSet, Placement, RawLayer, RawLayersSet, RawMission, Side, Solver, LAYERS_SET_FORMAT,
};
use tablejudge_rules::palette::RawSwatch;

/// Random stacks tried per level and hole design before drawing new holes.
const STACK_TRIES: usize = 20_000;

/// (key, name, sRGB) of one colour.
type Colour = (&'static str, &'static str, &'static str);

/// Everything that differs between the generated sets.
struct Design {
    /// The set's `name`, and what `--set` picks it by.
    name: &'static str,
    seed: u64,
    /// Rows and columns (square grids only).
    size: usize,
    card: Colour,
    frame: Colour,
    frame_width: f64,
    /// Front and back colour of each layer; the layers are named A, B, … in this order.
    sides: &'static [[Colour; 2]],
    /// How many holes a layer may have.
    holes: RangeInclusive<usize>,
    /// (level, count): missions per level (the number of layers), in the file's order.
    missions: &'static [(usize, usize)],
}

const REFERENCE: Design = Design {
    name: "reference",
    seed: 0x1a7e_25e7,
    size: 4,
    card: ("w", "player card (warm white)", "#f2efe6"),
    frame: ("k", "frame (charcoal)", "#2b2b30"),
    frame_width: 0.3,
    sides: &[
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
    ],
    holes: 6..=10,
    // As in the real game.
    missions: &[(2, 15), (3, 15), (4, 15), (5, 10)],
};

const PARLOUR: Design = Design {
    name: "parlour",
    seed: 0x9a21_0025,
    size: 5,
    card: ("n", "player card (slate navy felt)", "#1f3d54"),
    frame: ("i", "frame (ivory)", "#f6ede2"),
    frame_width: 0.22,
    sides: &[
        [("t", "teal", "#118386"), ("a", "aqua", "#2ce1e9")],
        [("c", "coral", "#f6847e"), ("r", "rust", "#873a1b")],
        [("l", "lemon", "#dcdb2c"), ("m", "amber", "#c3862a")],
        [("p", "plum", "#a1378b"), ("v", "lavender", "#a39cda")],
        [
            ("g", "leaf green", "#39ad4c"),
            ("d", "bottle green", "#0c5e1b"),
        ],
    ],
    holes: 9..=15,
    missions: &[(2, 10), (3, 10), (4, 10), (5, 10)],
};

const DESIGNS: [&Design; 2] = [&REFERENCE, &PARLOUR];

fn main() -> Result<(), Box<dyn Error>> {
    let design = design_from_args(std::env::args().skip(1))?;
    let mut rng = ChaCha8Rng::seed_from_u64(design.seed);
    let raw = loop {
        let layers = draw_layers(design, &mut rng);
        if let Some(missions) = draw_missions(design, &layers, &mut rng)? {
            break set_with(design, layers, missions);
        }
    };
    let text = to_json_lines(&raw)?;
    // The written text must read back as the same set.
    let set = LayersSet::from_json(&text, &format!("{}.json", design.name))?;
    assert_eq!(set.to_raw(), raw, "the written set reads back differently");
    print!("{text}");
    Ok(())
}

/// `--set NAME` (or `--set=NAME`) picks a design; none gives the reference set.
fn design_from_args(
    mut args: impl Iterator<Item = String>,
) -> Result<&'static Design, Box<dyn Error>> {
    let names = |sep: &str| DESIGNS.map(|d| d.name).join(sep);
    let mut name = REFERENCE.name.to_owned();
    while let Some(arg) = args.next() {
        if let Some(value) = arg.strip_prefix("--set=") {
            name = value.to_owned();
        } else if arg == "--set" {
            name = args.next().ok_or("--set needs a name")?;
        } else {
            return Err(format!("unknown argument {arg:?}; usage: [--set {}]", names("|")).into());
        }
    }
    DESIGNS
        .into_iter()
        .find(|d| d.name == name)
        .ok_or_else(|| format!("no design named {name:?}; known: {}", names(", ")).into())
}

fn set_with(design: &Design, layers: Vec<RawLayer>, missions: Vec<RawMission>) -> RawLayersSet {
    let swatch = |(key, name, srgb): (&str, &str, &str)| {
        let raw = RawSwatch {
            name: name.to_owned(),
            srgb: srgb.to_owned(),
        };
        (key.to_owned(), raw)
    };
    let mut colors: BTreeMap<String, RawSwatch> =
        [swatch(design.card), swatch(design.frame)].into();
    colors.extend(design.sides.iter().flatten().copied().map(swatch));
    RawLayersSet {
        format: LAYERS_SET_FORMAT.to_owned(),
        name: design.name.to_owned(),
        rows: design.size,
        cols: design.size,
        colors,
        card: design.card.0.to_owned(),
        frame: design.frame.0.to_owned(),
        frame_width: design.frame_width,
        layers,
        missions,
    }
}

/// The design's layers, with a number of holes in its range each, no two with the same holes up
/// to turning and flipping.
fn draw_layers(design: &Design, rng: &mut ChaCha8Rng) -> Vec<RawLayer> {
    let size = design.size;
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut layers = Vec::new();
    while layers.len() < design.sides.len() {
        let holes = rng.gen_range(design.holes.clone());
        let mut cells: Vec<bool> = (0..size * size).map(|i| i < holes).collect();
        cells.shuffle(rng);
        let shape = Grid::from_fn(size, size, |p| cells[p.row * size + p.col]);
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
        let [(front, _, _), (back, _, _)] = design.sides[layers.len()];
        let paint = |g: &Grid<bool>, colour: &str| {
            rows_of(g, |&hole| if hole { '.' } else { colour_char(colour) })
        };
        layers.push(RawLayer {
            id: layer_id(layers.len()),
            front: paint(&shape, front),
            // The back as seen after flipping: holes mirrored left-right.
            back: paint(&shape.mirrored(), back),
        });
    }
    layers
}

/// A, B, C, … for the layers in order.
fn layer_id(index: usize) -> String {
    char::from(b'A' + u8::try_from(index).expect("few layers")).to_string()
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
    design: &Design,
    layers: &[RawLayer],
    rng: &mut ChaCha8Rng,
) -> Result<Option<Vec<RawMission>>, Box<dyn Error>> {
    let set = LayersSet::from_raw(&set_with(design, layers.to_vec(), Vec::new()), "draft")?;
    let solver = Solver::new(&set);
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut missions = Vec::new();
    for &(level, count) in design.missions {
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
