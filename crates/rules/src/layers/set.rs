//! The Layers+ set file, `tablejudge/layers-set@1` (formats.md §2).
//!
//! [`RawLayersSet`] mirrors the file exactly; [`LayersSet`] is the validated form, reachable only
//! through [`LayersSet::from_raw`] / [`LayersSet::from_json`], so everything downstream (stack
//! composition, verification, the solver) may rely on its invariants.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::RangeInclusive;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::error::{check_format, parse_json, Place, SetError, SetProblem};
use crate::grid::{Grid, Pos, Turn};
use crate::key::Key;
use crate::palette::{parse_swatches, raw_swatches, RawSwatch, Swatch};

use super::solver::Solver;
use super::stack::Side;

/// The `format` string of a Layers+ set file.
pub const LAYERS_SET_FORMAT: &str = "tablejudge/layers-set@1";

/// Frame width in cell sizes when the file leaves `frame_width` out.
pub const DEFAULT_FRAME_WIDTH: f64 = 0.3;

/// Allowed values of `rows` and `cols`.
pub const GRID_SIZE_RANGE: RangeInclusive<usize> = 2..=8;

/// The character that marks a hole in a layer side.
pub const HOLE: char = '.';

fn default_frame_width() -> f64 {
    DEFAULT_FRAME_WIDTH
}

/// A Layers+ set file as written, before validation. Unknown fields are ignored, so newer
/// files with extra optional fields still load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RawLayersSet {
    pub format: String,
    pub name: String,
    pub rows: usize,
    pub cols: usize,
    pub colors: BTreeMap<String, RawSwatch>,
    pub card: String,
    pub frame: String,
    #[serde(default = "default_frame_width")]
    pub frame_width: f64,
    pub layers: Vec<RawLayer>,
    pub missions: Vec<RawMission>,
}

/// A layer as written: two grids of colour keys, `.` for a hole.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawLayer {
    pub id: String,
    pub front: Vec<String>,
    pub back: Vec<String>,
}

/// A mission card as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawMission {
    pub id: String,
    pub layers: usize,
    pub pattern: Vec<String>,
}

/// What can be wrong in a Layers+ set file beyond the common problems.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LayersProblem {
    #[error("{dimension} must be 2..=8, found {found}: a layer has 2 to 8 cells each way")]
    Size {
        dimension: &'static str,
        found: usize,
    },
    #[error(
        "frame_width must be a width in cell sizes of 0 or more, found {found}: \
         leave it out for the default {DEFAULT_FRAME_WIDTH}"
    )]
    FrameWidth { found: String },
    #[error("the set has no layers: add at least one to \"layers\"")]
    NoLayers,
    #[error(
        "this layer is the same as layer {first}, turned or flipped: every layer of a set \
         is different (\"check the layers to make sure they are all different\"); correct one of them"
    )]
    IdenticalLayers { first: String },
    #[error("the id is empty: give every {item} a non-empty id")]
    EmptyId { item: &'static str },
    #[error("the id {id:?} is used twice: give every {item} its own id")]
    DuplicateId { item: &'static str, id: String },
    #[error(
        "the grid is {found_rows}×{found_cols} cells but the set declares rows {rows}, \
         cols {cols}: write {rows} strings of {cols} characters"
    )]
    GridSize {
        found_rows: usize,
        found_cols: usize,
        rows: usize,
        cols: usize,
    },
    #[error(
        "{}: the back is written as seen after turning the layer over left to right, \
         so its holes are the front's holes mirrored in each row; make the two agree",
        if *back_has_hole {
            format!("the back has a hole here but the front has none at {front}")
        } else {
            format!("the back has no hole here but the front has one at {front}")
        }
    )]
    HolesNotMirrored { back_has_hole: bool, front: Pos },
    #[error(
        "a mission pattern shows what is seen, so it has no holes ('.'): \
         write the card's key '{card}' where the player card shows through"
    )]
    HoleInMission { card: Key },
    #[error(
        "\"layers\" is {found}, but a mission uses 1 to {available} layers \
         (the number of layers in the set): correct the number on the card"
    )]
    MissionLayerCount { found: usize, available: usize },
    #[error("{}", unsolvable_message(*layers, solvable_with))]
    MissionNotSolvable {
        layers: usize,
        solvable_with: Vec<usize>,
    },
}

fn unsolvable_message(layers: usize, solvable_with: &[usize]) -> String {
    let head = format!("the pattern cannot be made with exactly {layers} distinct layers");
    if solvable_with.is_empty() {
        format!("{head}, nor with any other number of these layers: correct the pattern")
    } else {
        let counts: Vec<String> = solvable_with.iter().map(usize::to_string).collect();
        format!(
            "{head}; it can be made with {}: correct \"layers\" or the pattern",
            counts.join(" or ")
        )
    }
}

/// One double-sided layer. `back` is as seen after turning the layer over about its vertical
/// axis, so its holes are `front`'s holes mirrored left-right (checked on loading).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    id: String,
    front: Grid<Option<Key>>,
    back: Grid<Option<Key>>,
}

impl Layer {
    /// The layer's id in the set file.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The front side; `None` is a hole.
    pub fn front(&self) -> &Grid<Option<Key>> {
        &self.front
    }

    /// The back side as seen after turning the layer over; `None` is a hole.
    pub fn back(&self) -> &Grid<Option<Key>> {
        &self.back
    }

    /// One side, unturned.
    /// Every way the layer can lie (both sides, all four turns), as a set: two layers with the
    /// same set are the same physical layer.
    fn all_orientations(&self) -> BTreeSet<Vec<String>> {
        Side::ALL
            .iter()
            .flat_map(|&side| Turn::ALL.iter().map(move |&turn| (side, turn)))
            .map(|(side, turn)| {
                let shown = self.shown(side, turn);
                (0..shown.rows())
                    .map(|r| {
                        shown
                            .row(r)
                            .iter()
                            .map(|k| k.map_or(HOLE, Key::char))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    pub fn side(&self, side: Side) -> &Grid<Option<Key>> {
        match side {
            Side::Front => &self.front,
            Side::Back => &self.back,
        }
    }

    /// What the layer shows lying with `side` up, turned clockwise by `turn`.
    pub fn shown(&self, side: Side, turn: Turn) -> Grid<Option<Key>> {
        self.side(side).turned(turn)
    }
}

/// One mission card: the pattern to make and how many layers its solution uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mission {
    id: String,
    layers: usize,
    pattern: Grid<Key>,
}

impl Mission {
    /// The mission's id, e.g. `"3-07"`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// How many distinct layers the solution uses (the number on the card's back; its level).
    pub fn layers(&self) -> usize {
        self.layers
    }

    /// The pattern as printed, `rows` × `cols`.
    pub fn pattern(&self) -> &Grid<Key> {
        &self.pattern
    }
}

/// A validated Layers+ set.
///
/// Invariants: `rows`, `cols` in [`GRID_SIZE_RANGE`]; every grid is `rows` × `cols`; every key
/// (cells, `card`, `frame`) is in `colors`; each back's holes mirror its front's; layer ids and
/// mission ids are unique and non-empty; missions have no holes and use 1..=`layers().len()`.
#[derive(Clone, Debug, PartialEq)]
pub struct LayersSet {
    name: String,
    rows: usize,
    cols: usize,
    colors: BTreeMap<Key, Swatch>,
    card: Key,
    frame: Key,
    frame_width: f64,
    layers: Vec<Layer>,
    missions: Vec<Mission>,
}

impl LayersSet {
    /// Validates a set read from `file` (the name is only used in error messages).
    pub fn from_raw(raw: &RawLayersSet, file: &str) -> Result<LayersSet, SetError> {
        check_format(&raw.format, LAYERS_SET_FORMAT, file)?;
        let err = |place: Place, problem: SetProblem| SetError {
            file: file.to_owned(),
            place,
            problem,
        };
        for (dimension, found) in [("rows", raw.rows), ("cols", raw.cols)] {
            if !GRID_SIZE_RANGE.contains(&found) {
                let problem = LayersProblem::Size { dimension, found };
                return Err(err(Place::item(dimension), problem.into()));
            }
        }
        let colors = parse_swatches(&raw.colors, file)?;
        let card = colour_key(&raw.card, "card", &colors, file)?;
        let frame = colour_key(&raw.frame, "frame", &colors, file)?;
        if !(raw.frame_width.is_finite() && raw.frame_width >= 0.0) {
            let found = raw.frame_width.to_string();
            let problem = LayersProblem::FrameWidth { found };
            return Err(err(Place::item("frame_width"), problem.into()));
        }
        if raw.layers.is_empty() {
            return Err(err(Place::item("layers"), LayersProblem::NoLayers.into()));
        }
        let grids = GridReader {
            rows: raw.rows,
            cols: raw.cols,
            colors: &colors,
            card,
            file,
        };

        let mut layers = Vec::with_capacity(raw.layers.len());
        let mut layer_ids = BTreeSet::new();
        for (index, raw_layer) in raw.layers.iter().enumerate() {
            let place = Place::item(format!("layer {}", raw_layer.id));
            check_id(
                &raw_layer.id,
                "layer",
                index,
                &mut layer_ids,
                place.clone(),
                file,
            )?;
            let front = grids.layer_side(&raw_layer.front, place.clone().part("front"))?;
            let back = grids.layer_side(&raw_layer.back, place.clone().part("back"))?;
            check_mirrored_holes(&front, &back, place.part("back"), file)?;
            let layer = Layer {
                id: raw_layer.id.clone(),
                front,
                back,
            };
            layers.push(layer);
        }

        let mut missions = Vec::with_capacity(raw.missions.len());
        let mut mission_ids = BTreeSet::new();
        for (index, raw_mission) in raw.missions.iter().enumerate() {
            let place = Place::item(format!("mission {}", raw_mission.id));
            check_id(
                &raw_mission.id,
                "mission",
                index,
                &mut mission_ids,
                place.clone(),
                file,
            )?;
            if !(1..=layers.len()).contains(&raw_mission.layers) {
                let problem = LayersProblem::MissionLayerCount {
                    found: raw_mission.layers,
                    available: layers.len(),
                };
                return Err(err(place.part("layers"), problem.into()));
            }
            let pattern = grids.pattern(&raw_mission.pattern, place.part("pattern"))?;
            missions.push(Mission {
                id: raw_mission.id.clone(),
                layers: raw_mission.layers,
                pattern,
            });
        }

        Ok(LayersSet {
            name: raw.name.clone(),
            rows: raw.rows,
            cols: raw.cols,
            colors,
            card,
            frame,
            frame_width: raw.frame_width,
            layers,
            missions,
        })
    }

    /// Parses and validates the JSON text of a set file.
    pub fn from_json(json: &str, file: &str) -> Result<LayersSet, SetError> {
        LayersSet::from_raw(&parse_json(json, file)?, file)
    }

    /// The file form; `from_raw(&set.to_raw(), _)` gives `set` back.
    pub fn to_raw(&self) -> RawLayersSet {
        let side_rows =
            |g: &Grid<Option<Key>>| g.map(|cell| cell.map_or(HOLE, Key::char)).to_rows();
        RawLayersSet {
            format: LAYERS_SET_FORMAT.to_owned(),
            name: self.name.clone(),
            rows: self.rows,
            cols: self.cols,
            colors: raw_swatches(&self.colors),
            card: self.card.to_string(),
            frame: self.frame.to_string(),
            frame_width: self.frame_width,
            layers: self
                .layers
                .iter()
                .map(|l| RawLayer {
                    id: l.id.clone(),
                    front: side_rows(&l.front),
                    back: side_rows(&l.back),
                })
                .collect(),
            missions: self
                .missions
                .iter()
                .map(|m| RawMission {
                    id: m.id.clone(),
                    layers: m.layers,
                    pattern: m.pattern.map(|k| k.char()).to_rows(),
                })
                .collect(),
        }
    }

    /// The set's name, e.g. `"reference"`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Cells per column of every layer and pattern.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Cells per row of every layer and pattern.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// A square set allows quarter-turns of single layers; otherwise only 0° and 180°.
    pub fn is_square(&self) -> bool {
        self.rows == self.cols
    }

    /// The turns a single layer may be given within a stack (it must still line up with the
    /// others): all four on a square set, 0° and 180° otherwise.
    pub fn layer_turns(&self) -> &'static [Turn] {
        if self.is_square() {
            &Turn::ALL
        } else {
            &[Turn::R0, Turn::R180]
        }
    }

    /// The colour table: every key a layer, pattern, `card` or `frame` uses.
    pub fn colors(&self) -> &BTreeMap<Key, Swatch> {
        &self.colors
    }

    /// The key of the player card, seen wherever every layer has a hole.
    pub fn card(&self) -> Key {
        self.card
    }

    /// The key of the layers' frame.
    pub fn frame(&self) -> Key {
        self.frame
    }

    /// The frame's width in cell sizes.
    pub fn frame_width(&self) -> f64 {
        self.frame_width
    }

    /// The layers in file order; a [`Placement`](super::Placement) refers to them by index.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The index and layer with this id.
    pub fn layer(&self, id: &str) -> Option<(usize, &Layer)> {
        self.layers.iter().enumerate().find(|(_, l)| l.id == id)
    }

    /// The missions in file order.
    pub fn missions(&self) -> &[Mission] {
        &self.missions
    }

    /// The mission with this id.
    pub fn mission(&self, id: &str) -> Option<&Mission> {
        self.missions.iter().find(|m| m.id == id)
    }

    /// Layers that are the same physical layer as an earlier one, turned or flipped (the seed:
    /// "check the layers to make sure they are all different"). Each error names the later
    /// layer and its twin. Kept out of parsing so tests may build deliberately symmetric sets.
    pub fn check_layers_differ(&self, file: &str) -> Vec<SetError> {
        let shapes: Vec<_> = self.layers.iter().map(Layer::all_orientations).collect();
        (0..self.layers.len())
            .filter_map(|i| {
                let twin = (0..i).find(|&j| shapes[j] == shapes[i])?;
                let problem = LayersProblem::IdenticalLayers {
                    first: self.layers[twin].id.clone(),
                };
                let place = Place::item(format!("layer {}", self.layers[i].id));
                Some(SetError::new(file, place, problem))
            })
            .collect()
    }

    /// The missions that cannot be made with exactly their `layers` count of distinct layers
    /// (formats.md: every mission of a shipped set must be). Each error names the mission and
    /// the counts that would work. Uses the solver; fast for real sets.
    pub fn check_missions(&self, file: &str) -> Vec<SetError> {
        let solver = Solver::new(self);
        self.missions
            .iter()
            .filter(|m| !solver.has_solution(&m.pattern, m.layers))
            .map(|m| {
                let problem = LayersProblem::MissionNotSolvable {
                    layers: m.layers,
                    solvable_with: solver.solvable_layer_counts(&m.pattern),
                };
                SetError::new(file, Place::item(format!("mission {}", m.id)), problem)
            })
            .collect()
    }
}

/// Checks a `card`/`frame` key: valid and present in `colors`.
fn colour_key(
    raw: &str,
    field: &'static str,
    colors: &BTreeMap<Key, Swatch>,
    file: &str,
) -> Result<Key, SetError> {
    let key = Key::from_str_key(raw).map_err(|e| SetError::new(file, Place::item(field), e))?;
    if colors.contains_key(&key) {
        Ok(key)
    } else {
        let problem = SetProblem::UnknownKey {
            key: key.char(),
            table: "colors",
        };
        Err(SetError::new(file, Place::item(field), problem))
    }
}

fn check_id(
    id: &str,
    item: &'static str,
    index: usize,
    seen: &mut BTreeSet<String>,
    place: Place,
    file: &str,
) -> Result<(), SetError> {
    if id.is_empty() {
        // An empty id gives an unreadable place, so say which entry it is.
        let place = Place::item(format!("{item} number {}", index + 1));
        return Err(SetError::new(file, place, LayersProblem::EmptyId { item }));
    }
    if !seen.insert(id.to_owned()) {
        let problem = LayersProblem::DuplicateId {
            item,
            id: id.to_owned(),
        };
        return Err(SetError::new(file, place, problem));
    }
    Ok(())
}

fn check_mirrored_holes(
    front: &Grid<Option<Key>>,
    back: &Grid<Option<Key>>,
    place: Place,
    file: &str,
) -> Result<(), SetError> {
    let cols = front.cols();
    for (pos, cell) in back.iter() {
        let front_pos = Pos::new(pos.row, cols - 1 - pos.col);
        let back_has_hole = cell.is_none();
        if back_has_hole != front[front_pos].is_none() {
            let problem = LayersProblem::HolesNotMirrored {
                back_has_hole,
                front: front_pos,
            };
            return Err(SetError::new(file, place.at(pos), problem));
        }
    }
    Ok(())
}

/// Reads the grids of one set: declared size, colour table and card key.
struct GridReader<'a> {
    rows: usize,
    cols: usize,
    colors: &'a BTreeMap<Key, Swatch>,
    card: Key,
    file: &'a str,
}

impl GridReader<'_> {
    fn chars(&self, rows: &[String], place: &Place) -> Result<Grid<char>, SetError> {
        let grid =
            Grid::parse_rows(rows).map_err(|e| SetError::new(self.file, place.clone(), e))?;
        if grid.size() != (self.rows, self.cols) {
            let problem = LayersProblem::GridSize {
                found_rows: grid.rows(),
                found_cols: grid.cols(),
                rows: self.rows,
                cols: self.cols,
            };
            return Err(SetError::new(self.file, place.clone(), problem));
        }
        Ok(grid)
    }

    fn key(&self, c: char, place: &Place, pos: Pos) -> Result<Key, SetError> {
        let at = || place.clone().at(pos);
        let key = Key::new(c).map_err(|e| SetError::new(self.file, at(), e))?;
        if self.colors.contains_key(&key) {
            Ok(key)
        } else {
            let problem = SetProblem::UnknownKey {
                key: c,
                table: "colors",
            };
            Err(SetError::new(self.file, at(), problem))
        }
    }

    fn layer_side(&self, rows: &[String], place: Place) -> Result<Grid<Option<Key>>, SetError> {
        let chars = self.chars(rows, &place)?;
        let mut cells = Vec::with_capacity(chars.len());
        for (pos, &c) in chars.iter() {
            cells.push(if c == HOLE {
                None
            } else {
                Some(self.key(c, &place, pos)?)
            });
        }
        Ok(Grid::from_fn(self.rows, self.cols, |p| {
            cells[p.row * self.cols + p.col]
        }))
    }

    fn pattern(&self, rows: &[String], place: Place) -> Result<Grid<Key>, SetError> {
        let chars = self.chars(rows, &place)?;
        let mut cells = Vec::with_capacity(chars.len());
        for (pos, &c) in chars.iter() {
            if c == HOLE {
                let problem = LayersProblem::HoleInMission { card: self.card };
                return Err(SetError::new(self.file, place.at(pos), problem));
            }
            cells.push(self.key(c, &place, pos)?);
        }
        Ok(Grid::from_fn(self.rows, self.cols, |p| {
            cells[p.row * self.cols + p.col]
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::testing::{arb_set, keys, small_set, small_set_json};
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn load(v: &Value) -> Result<LayersSet, SetError> {
        LayersSet::from_json(&v.to_string(), "sets/mine.json")
    }

    /// The error message of loading the small set after `edit`.
    fn rejection(edit: impl FnOnce(&mut Value)) -> SetError {
        let mut v = small_set_json();
        edit(&mut v);
        load(&v).expect_err("the edited set should be rejected")
    }

    #[test]
    fn reads_the_small_set() {
        let set = small_set();
        assert_eq!((set.rows(), set.cols()), (3, 3));
        assert_eq!(set.card(), Key::new('w').unwrap());
        assert_eq!(set.frame(), Key::new('k').unwrap());
        assert_eq!(set.frame_width(), DEFAULT_FRAME_WIDTH);
        assert_eq!(set.layers().len(), 3);
        let (index, c) = set.layer("C").unwrap();
        assert_eq!(index, 2);
        let r = Key::new('r').unwrap();
        assert_eq!(c.front()[Pos::new(0, 0)], Some(r));
        assert_eq!(c.front()[Pos::new(0, 2)], None);
        assert_eq!(c.back()[Pos::new(2, 0)], Some(Key::new('g').unwrap()));
        let m = set.mission("2-01").unwrap();
        assert_eq!(m.layers(), 2);
        assert_eq!(*m.pattern(), keys(&["rrb", "rbw", "bwb"]));
        assert!(set.mission("9-99").is_none());
    }

    #[test]
    fn accepts_unknown_fields_and_reads_frame_width() {
        let mut v = small_set_json();
        v["designer"] = json!("someone");
        v["frame_width"] = json!(0.25);
        v["layers"][0]["material"] = json!("card");
        v["missions"][0]["artwork"] = json!("a.png");
        assert_eq!(load(&v).unwrap().frame_width(), 0.25);
    }

    #[test]
    fn rejects_other_formats() {
        let e = rejection(|v| v["format"] = json!("tablejudge/layers-set@2"));
        assert_eq!(e.place, Place::item("format"));
        assert!(matches!(e.problem, SetProblem::Format { .. }));
    }

    #[test]
    fn rejects_sizes_outside_2_to_8() {
        for (field, value) in [("rows", 1), ("cols", 9), ("rows", 0)] {
            let e = rejection(|v| v[field] = json!(value));
            assert_eq!(
                e.problem,
                SetProblem::Layers(LayersProblem::Size {
                    dimension: field,
                    found: value
                })
            );
            assert!(e.to_string().contains("must be 2..=8"), "{e}");
        }
    }

    #[test]
    fn accepts_non_square_sets_whose_layers_turn_by_half_turns_only() {
        let mut v = small_set_json();
        v["rows"] = json!(2);
        v["layers"] = json!([{ "id": "A", "front": ["rr.", "r.."], "back": [".gg", "..g"] }]);
        v["missions"] = json!([{ "id": "1-01", "layers": 1, "pattern": ["rrw", "rww"] }]);
        let set = load(&v).unwrap();
        assert!(!set.is_square());
        assert_eq!(set.layer_turns(), &[Turn::R0, Turn::R180]);
        assert_eq!(small_set().layer_turns(), &Turn::ALL);
    }

    #[test]
    fn rejects_a_grid_of_the_wrong_size_naming_layer_and_side() {
        let e = rejection(|v| v["layers"][1]["back"] = json!(["y.y", ".y."]));
        assert_eq!(e.place, Place::item("layer B").part("back"));
        assert_eq!(
            e.problem,
            SetProblem::Layers(LayersProblem::GridSize {
                found_rows: 2,
                found_cols: 3,
                rows: 3,
                cols: 3
            })
        );
        let e = rejection(|v| v["missions"][0]["pattern"] = json!(["rrbw", "rbww", "bwbw"]));
        assert_eq!(e.place, Place::item("mission 2-01").part("pattern"));
        assert!(
            e.to_string().contains("write 3 strings of 3 characters"),
            "{e}"
        );
    }

    #[test]
    fn rejects_ragged_rows() {
        let e = rejection(|v| v["layers"][0]["front"] = json!(["rr.", "r.", "..."]));
        assert_eq!(e.place, Place::item("layer A").part("front"));
        assert!(matches!(e.problem, SetProblem::Grid(_)), "{e}");
    }

    #[test]
    fn rejects_unknown_and_invalid_keys_with_their_cell() {
        let e = rejection(|v| v["layers"][2]["back"] = json!([".gb", "...", "q.."]));
        assert_eq!(
            e.to_string(),
            "sets/mine.json: layer C, back, row 3, column 1: 'q' is not a key of colors: \
             add it there or correct the cell"
        );
        let e = rejection(|v| v["missions"][0]["pattern"] = json!(["rrb", "rbW", "bwb"]));
        assert_eq!(
            e.place,
            Place::item("mission 2-01")
                .part("pattern")
                .at(Pos::new(1, 2))
        );
        assert!(matches!(e.problem, SetProblem::Key(_)), "{e}");
    }

    #[test]
    fn card_and_frame_must_be_colours_of_the_set() {
        let e = rejection(|v| v["card"] = json!("x"));
        assert_eq!(
            e.to_string(),
            "sets/mine.json: card: 'x' is not a key of colors: add it there or correct the cell"
        );
        let e = rejection(|v| v["frame"] = json!("q"));
        assert_eq!(e.place, Place::item("frame"));
        let e = rejection(|v| v["frame"] = json!("kk"));
        assert!(matches!(e.problem, SetProblem::Key(_)), "{e}");
    }

    #[test]
    fn rejects_a_negative_frame_width() {
        let e = rejection(|v| v["frame_width"] = json!(-0.5));
        assert_eq!(e.place, Place::item("frame_width"));
        assert_eq!(
            e.problem,
            SetProblem::Layers(LayersProblem::FrameWidth {
                found: "-0.5".into()
            })
        );
    }

    #[test]
    fn back_holes_must_mirror_front_holes() {
        // Written unmirrored: the back's hole at column 3 of row 1 should be at column 1.
        let e = rejection(|v| v["layers"][0]["back"] = json!(["gg.", "g..", "..."]));
        assert_eq!(
            e.place,
            Place::item("layer A").part("back").at(Pos::new(0, 0))
        );
        assert_eq!(
            e.problem,
            SetProblem::Layers(LayersProblem::HolesNotMirrored {
                back_has_hole: false,
                front: Pos::new(0, 2)
            })
        );
        assert!(
            e.to_string().starts_with(
                "sets/mine.json: layer A, back, row 1, column 1: the back has no hole here but \
                 the front has one at row 1, column 3"
            ),
            "{e}"
        );
        let e = rejection(|v| v["layers"][1]["back"] = json!(["y.y", "...", "y.y"]));
        assert_eq!(
            e.problem,
            SetProblem::Layers(LayersProblem::HolesNotMirrored {
                back_has_hole: true,
                front: Pos::new(1, 1)
            })
        );
        assert!(
            e.to_string().contains("layer B, back, row 2, column 2"),
            "{e}"
        );
    }

    #[test]
    fn mission_patterns_have_no_holes() {
        let e = rejection(|v| v["missions"][0]["pattern"] = json!(["rrb", "rb.", "bwb"]));
        assert_eq!(
            e.place,
            Place::item("mission 2-01")
                .part("pattern")
                .at(Pos::new(1, 2))
        );
        assert!(e.to_string().ends_with(
            "a mission pattern shows what is seen, so it has no holes ('.'): write the card's \
             key 'w' where the player card shows through"
        ));
    }

    #[test]
    fn mission_layer_count_is_between_1_and_the_number_of_layers() {
        for bad in [0, 4] {
            let e = rejection(|v| v["missions"][0]["layers"] = json!(bad));
            assert_eq!(e.place, Place::item("mission 2-01").part("layers"));
            assert_eq!(
                e.problem,
                SetProblem::Layers(LayersProblem::MissionLayerCount {
                    found: bad,
                    available: 3
                })
            );
        }
        let mut v = small_set_json();
        v["missions"][0]["layers"] = json!(3);
        assert!(load(&v).is_ok());
    }

    #[test]
    fn a_layer_identical_to_another_turned_or_flipped_is_reported() {
        // D is A turned over and a quarter-turn round: the same physical layer.
        let turned = |rows: &Value, t: Turn| {
            let rows: Vec<String> = serde_json::from_value(rows.clone()).unwrap();
            json!(Grid::parse_rows(&rows).unwrap().turned(t).to_rows())
        };
        let mut v = small_set_json();
        let a = v["layers"][0].clone();
        let d = json!({ "id": "D", "front": turned(&a["back"], Turn::R90),
                        "back": turned(&a["front"], Turn::R270) });
        v["layers"].as_array_mut().unwrap().push(d);
        let errors = load(&v).unwrap().check_layers_differ("s.json");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].place, Place::item("layer D"));
        assert_eq!(
            errors[0].problem,
            SetProblem::Layers(LayersProblem::IdenticalLayers { first: "A".into() })
        );
        // Same holes but another colour is a different layer.
        let mut v = small_set_json();
        let mut d = v["layers"][0].clone();
        d["id"] = json!("D");
        d["front"] = json!(["yy.", "y..", "..."]);
        v["layers"].as_array_mut().unwrap().push(d);
        assert!(load(&v).unwrap().check_layers_differ("s.json").is_empty());
    }

    #[test]
    fn ids_are_unique_and_not_empty() {
        let e = rejection(|v| v["layers"][2]["id"] = json!("A"));
        assert_eq!(e.place, Place::item("layer A"));
        assert_eq!(
            e.problem,
            SetProblem::Layers(LayersProblem::DuplicateId {
                item: "layer",
                id: "A".into()
            })
        );
        let e = rejection(|v| {
            let first = v["missions"][0].clone();
            v["missions"].as_array_mut().unwrap().push(first);
        });
        assert_eq!(e.place, Place::item("mission 2-01"));
        assert!(e.to_string().contains("used twice"), "{e}");
        let e = rejection(|v| v["layers"][1]["id"] = json!(""));
        assert_eq!(e.place, Place::item("layer number 2"));
        assert_eq!(
            e.problem,
            SetProblem::Layers(LayersProblem::EmptyId { item: "layer" })
        );
    }

    #[test]
    fn a_set_needs_layers() {
        let e = rejection(|v| {
            v["layers"] = json!([]);
            v["missions"] = json!([]);
        });
        assert_eq!(e.problem, SetProblem::Layers(LayersProblem::NoLayers));
    }

    #[test]
    fn check_missions_reports_missions_not_solvable_with_their_count() {
        let mut v = small_set_json();
        v["missions"] = json!([
            { "id": "ok", "layers": 2, "pattern": ["rrb", "rbw", "bwb"] },
            { "id": "too-many", "layers": 1, "pattern": ["rrb", "rbw", "bwb"] },
            { "id": "impossible", "layers": 2, "pattern": ["bbb", "bbb", "bbb"] }
        ]);
        let set = load(&v).unwrap();
        let errors = set.check_missions("sets/mine.json");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].place, Place::item("mission too-many"));
        assert_eq!(
            errors[0].problem,
            SetProblem::Layers(LayersProblem::MissionNotSolvable {
                layers: 1,
                solvable_with: vec![2, 3]
            })
        );
        assert_eq!(
            errors[0].to_string(),
            "sets/mine.json: mission too-many: the pattern cannot be made with exactly 1 \
             distinct layers; it can be made with 2 or 3: correct \"layers\" or the pattern"
        );
        assert_eq!(
            errors[1].problem,
            SetProblem::Layers(LayersProblem::MissionNotSolvable {
                layers: 2,
                solvable_with: vec![]
            })
        );
        assert!(small_set().check_missions("small.json").is_empty());
    }

    proptest! {
        #[test]
        fn write_then_read_is_the_identity(set in arb_set(3), eighths in 0u8..16) {
            let mut raw = set.to_raw();
            raw.frame_width = f64::from(eighths) / 8.0;
            raw.missions = vec![RawMission {
                id: "m".into(),
                layers: 2,
                pattern: raw.layers[0].front.iter().map(|r| r.replace('.', "w")).collect(),
            }];
            let set = LayersSet::from_raw(&raw, "r.json").unwrap();
            let json = serde_json::to_string(&set.to_raw()).unwrap();
            let again = LayersSet::from_json(&json, "r.json").unwrap();
            prop_assert_eq!(again.to_raw(), set.to_raw());
            prop_assert_eq!(again, set);
        }
    }
}
