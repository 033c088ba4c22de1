//! Stacks of layers and what they show (formats.md §2).

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::grid::{Grid, Turn};
use crate::key::Key;

use super::set::LayersSet;

/// Which side of a layer faces up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Front,
    Back,
}

impl Side {
    /// Both sides, front first (the solver's order).
    pub const ALL: [Side; 2] = [Side::Front, Side::Back];
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Front => "front",
            Side::Back => "back",
        })
    }
}

/// One layer of a stack: which layer (its index in [`LayersSet::layers`]), which side up, and
/// how far it is turned clockwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    pub layer: usize,
    pub side: Side,
    pub turn: Turn,
}

impl Placement {
    /// Layer `layer` (index into [`LayersSet::layers`]) with `side` up, turned by `turn`.
    pub const fn new(layer: usize, side: Side, turn: Turn) -> Placement {
        Placement { layer, side, turn }
    }
}

/// A placement written for people and JSON: the layer by id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedPlacement {
    pub layer: String,
    pub side: Side,
    /// Clockwise quarter-turns, 0..=3.
    pub quarter_turns: Turn,
}

impl fmt::Display for NamedPlacement {
    /// E.g. "C back 90°".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.layer, self.side, self.quarter_turns)
    }
}

/// Why a stack cannot be built from a set's layers.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum StackError {
    #[error("layer number {layer} does not exist: the set has {available} layers")]
    UnknownLayer { layer: usize, available: usize },
    #[error("layer {id} is used twice: a stack uses each layer at most once")]
    LayerUsedTwice { id: String },
    #[error(
        "layer {id} is turned {turn}, but the set's layers are not square, so a layer only \
         lines up with the others turned 0° or 180°"
    )]
    QuarterTurnOnNonSquare { id: String, turn: Turn },
}

impl LayersSet {
    /// Checks that `stack` (top first) uses existing layers, each at most once, with turns
    /// that line up with the set's shape.
    pub fn check_stack(&self, stack: &[Placement]) -> Result<(), StackError> {
        let mut used = vec![false; self.layers().len()];
        for p in stack {
            let layer = self.layers().get(p.layer).ok_or(StackError::UnknownLayer {
                layer: p.layer,
                available: self.layers().len(),
            })?;
            if std::mem::replace(&mut used[p.layer], true) {
                return Err(StackError::LayerUsedTwice {
                    id: layer.id().to_owned(),
                });
            }
            if !self.layer_turns().contains(&p.turn) {
                return Err(StackError::QuarterTurnOnNonSquare {
                    id: layer.id().to_owned(),
                    turn: p.turn,
                });
            }
        }
        Ok(())
    }

    /// What a stack (top first) shows from above: at each cell, the colour of the first layer
    /// from the top without a hole there, else the player card.
    pub fn compose(&self, stack: &[Placement]) -> Result<Grid<Key>, StackError> {
        self.check_stack(stack)?;
        let shown: Vec<Grid<Option<Key>>> = stack
            .iter()
            .map(|p| self.layers()[p.layer].shown(p.side, p.turn))
            .collect();
        Ok(Grid::from_fn(self.rows(), self.cols(), |pos| {
            shown
                .iter()
                .find_map(|g| g[pos])
                .unwrap_or_else(|| self.card())
        }))
    }

    /// The placement with the layer written by id, for output.
    pub fn named(&self, placement: &Placement) -> Option<NamedPlacement> {
        self.layers()
            .get(placement.layer)
            .map(|layer| NamedPlacement {
                layer: layer.id().to_owned(),
                side: placement.side,
                quarter_turns: placement.turn,
            })
    }

    /// Resolves a placement written by layer id.
    pub fn placement(&self, named: &NamedPlacement) -> Option<Placement> {
        self.layer(&named.layer)
            .map(|(index, _)| Placement::new(index, named.side, named.quarter_turns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::testing::{keys, place, small_set, small_set_json};
    use serde_json::json;

    const A: usize = 0;
    const B: usize = 1;

    #[test]
    fn the_top_layer_without_a_hole_shows_else_the_card() {
        let set = small_set();
        let stack = [place(A, Side::Front, 0), place(B, Side::Front, 0)];
        assert_eq!(set.compose(&stack).unwrap(), keys(&["rrb", "rbw", "bwb"]));
        let swapped = [place(B, Side::Front, 0), place(A, Side::Front, 0)];
        assert_eq!(set.compose(&swapped).unwrap(), keys(&["brb", "rbw", "bwb"]));
        assert_eq!(set.compose(&[]).unwrap(), keys(&["www", "www", "www"]));
    }

    #[test]
    fn a_flipped_layer_shows_its_back_as_written_then_turned() {
        // A's back is ".gg/..g/..." as seen after flipping; a quarter-turn clockwise moves the
        // right column to the bottom row.
        let set = small_set();
        let shown = set.compose(&[place(A, Side::Back, 1)]).unwrap();
        assert_eq!(shown, keys(&["www", "wwg", "wgg"]));
        let upside_down = set.compose(&[place(A, Side::Front, 2)]).unwrap();
        assert_eq!(upside_down, keys(&["www", "wwr", "wrr"]));
    }

    #[test]
    fn rejects_a_layer_used_twice_and_unknown_layers() {
        let set = small_set();
        let twice = [place(A, Side::Front, 0), place(A, Side::Back, 2)];
        assert_eq!(
            set.compose(&twice),
            Err(StackError::LayerUsedTwice { id: "A".into() })
        );
        assert_eq!(
            set.compose(&[place(3, Side::Front, 0)]),
            Err(StackError::UnknownLayer {
                layer: 3,
                available: 3
            })
        );
    }

    #[test]
    fn a_non_square_layer_turns_by_half_turns_only() {
        let mut v = small_set_json();
        v["rows"] = json!(2);
        v["layers"] = json!([{ "id": "A", "front": ["rr.", "r.."], "back": [".gg", "..g"] }]);
        v["missions"] = json!([]);
        let set = LayersSet::from_json(&v.to_string(), "n.json").unwrap();
        assert_eq!(
            set.compose(&[place(A, Side::Front, 2)]).unwrap(),
            keys(&["wwr", "wrr"])
        );
        for q in [1, 3] {
            let e = set.compose(&[place(A, Side::Front, q)]).unwrap_err();
            assert_eq!(
                e,
                StackError::QuarterTurnOnNonSquare {
                    id: "A".into(),
                    turn: Turn::from_quarter_turns(q.into())
                }
            );
        }
    }

    #[test]
    fn placements_are_named_by_layer_id_and_back() {
        let set = small_set();
        let p = place(2, Side::Back, 3);
        let named = set.named(&p).unwrap();
        assert_eq!(named.to_string(), "C back 270°");
        assert_eq!(
            serde_json::to_value(&named).unwrap(),
            json!({ "layer": "C", "side": "back", "quarter_turns": 3 })
        );
        assert_eq!(set.placement(&named), Some(p));
        assert_eq!(set.named(&place(7, Side::Back, 0)), None);
    }
}
