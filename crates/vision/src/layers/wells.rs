//! Deep wells: a lighter colour in a deep well's shade passes for a darker one.
//!
//! A cell that shows a layer low in the stack lies at the bottom of a well whose walls are the
//! layers above it; under a lamp off to the side, little light reaches it. Some palettes hold
//! pairs of colours one of which is nearly the other in shade (the reference set's bright and
//! forest green, the parlour's aqua and teal: a third of the light away), and there the colour
//! alone cannot tell the darker colour from the lighter one in a deep well. How deep a cell lies
//! the rules tell: every stack of the set that shows the grid as read puts each cell's colour on
//! some layer, under the layers above it. Where some such stack puts a cell deep, its label
//! fits it poorly though the cell is brighter than the label (no shade explains that), and a
//! lighter colour in shade explains it clearly better, the cell is doubtful, and the rules (see
//! `complete`) or a retake decide. A cell that fits its label plainly keeps it: most wells are
//! shallow enough for forest green to be forest green.

use tablejudge_rules::layers::{LayersSet, Solver};
use tablejudge_rules::{Grid, Key, Pos};

use crate::classify::Reading;
use crate::colour::{Clipped, Lab, LinRgb, Measured};
use crate::sample::CellSample;

/// From this many layers above it, a cell may lie in a well's deep shade.
const DEEP: usize = 2;
/// A label this far (ΔE₀₀) from a deep cell fits it poorly: beyond the spread of a plainly
/// read cell (the classifier's σ is 4).
const POOR_FIT: f32 = 5.0;
/// How much better (ΔE₀₀) a lighter colour in shade must explain a poorly fitting deep cell
/// than its label does before the cell is doubtful.
const TWIN_MARGIN: f32 = 3.0;
/// At most this many stacks are looked at per layer count (a grid with many holes has many
/// stacks; the deepest cells are found among the first few).
const MAX_STACKS: usize = 64;

/// The most layers above each cell's visible colour over the stacks of `set` that show
/// `keys` (every layer count that makes it). When no stack shows it, something is misread
/// and any cell may lie deep: [`DEEP`] everywhere.
pub(super) fn well_depths(set: &LayersSet, solver: &Solver, keys: &Grid<Key>) -> Grid<usize> {
    let counts = solver.solvable_layer_counts(keys);
    if counts.is_empty() {
        return Grid::filled(keys.rows(), keys.cols(), DEEP);
    }
    let mut depth = Grid::filled(keys.rows(), keys.cols(), 0usize);
    for k in counts {
        for solution in solver.solutions(keys, k).into_iter().take(MAX_STACKS) {
            let shown: Vec<Grid<Option<Key>>> = solution
                .stack
                .iter()
                .map(|p| set.layers()[p.layer].shown(p.side, p.turn))
                .collect();
            for p in keys.positions() {
                // The first layer from the top without a hole here, else the card beneath all.
                let d = shown
                    .iter()
                    .position(|g| g[p].is_some())
                    .unwrap_or(shown.len());
                depth[p] = depth[p].max(d);
            }
        }
    }
    depth
}

/// Caps at ½ the confidence of every cell at least [`DEEP`] layers down (`depths`, asked
/// for only when some cell needs them: the stacks are the costly part) that its label fits
/// poorly while being brighter than it (so no shade explains the misfit), and that a lighter
/// printed colour (white-balanced linear `printed`) in shade explains clearly better (by
/// [`TWIN_MARGIN`]): an aqua in a deep well's half light reads nearer teal than aqua.
pub(super) fn doubt_shaded_twins(
    cells: &mut Grid<Reading>,
    samples: &Grid<CellSample>,
    depths: impl FnOnce() -> Grid<usize>,
    printed: &[(Key, LinRgb)],
) {
    let sum = |c: LinRgb| c.r + c.g + c.b;
    let suspects: Vec<Pos> = cells
        .iter()
        .filter(|&(p, r)| {
            let Some(&(label, own)) = printed.iter().find(|(k, _)| Some(*k) == r.label) else {
                return false;
            };
            let measured = Measured::new(
                LinRgb::from_srgb(r.srgb),
                Clipped::of(LinRgb::from_srgb(samples[p].srgb)),
            );
            let fit = measured.delta_e(own, Lab::from_linear(own));
            fit > POOR_FIT
                && sum(measured.corrected()) > sum(own)
                && printed.iter().any(|&(k, c)| {
                    k != label
                        && sum(c) > sum(own)
                        && measured.delta_e_relit(c, 1.0) < fit - TWIN_MARGIN
                })
        })
        .map(|(p, _)| p)
        .collect();
    if suspects.is_empty() {
        return;
    }
    let depths = depths();
    for p in suspects {
        if depths[p] >= DEEP {
            cells[p].confidence = cells[p].confidence.min(0.5);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::tests::set;
    use tablejudge_rules::layers::{Placement, Side};
    use tablejudge_rules::Turn;

    fn key(c: char) -> Key {
        Key::new(c).expect("a key")
    }

    fn printed(set: &LayersSet) -> Vec<(Key, LinRgb)> {
        set.colors()
            .iter()
            .filter(|(&k, _)| k != set.frame())
            .map(|(&k, s)| (k, LinRgb::from_srgb(s.srgb)))
            .collect()
    }

    /// Cells read as exactly their printed colours, confidently.
    fn read_exactly(set: &LayersSet, keys: &Grid<Key>) -> (Grid<Reading>, Grid<CellSample>) {
        let cells = keys.map(|&k| Reading {
            label: Some(k),
            srgb: set.colors()[&k].srgb,
            confidence: 0.9999,
        });
        let samples = cells.map(|r| CellSample::plain(r.srgb));
        (cells, samples)
    }

    #[test]
    fn a_cell_lies_as_deep_as_the_layers_above_it() {
        let set = set("reference");
        let solver = Solver::new(&set);
        // One layer alone: its colours on top, the card beneath each hole.
        let top = Placement::new(0, Side::Front, Turn::R0);
        let keys = set.compose(&[top]).expect("a stack");
        let depths = well_depths(&set, &solver, &keys);
        for p in keys.positions() {
            let expected = usize::from(keys[p] == set.card());
            assert!(depths[p] >= expected, "{p}: {}", depths[p]);
        }
        // Three layers: a cell that only the third shows lies two layers down in every stack
        // that shows the grid, and is found so.
        let stack = [
            top,
            Placement::new(1, Side::Front, Turn::R0),
            Placement::new(2, Side::Front, Turn::R0),
        ];
        let keys = set.compose(&stack).expect("a stack");
        let depths = well_depths(&set, &solver, &keys);
        let third = set.layers()[2].shown(Side::Front, Turn::R0);
        let deep: Vec<Pos> = keys
            .positions()
            .filter(|&p| keys[p] != set.card() && third[p] == Some(keys[p]))
            .filter(|&p| {
                stack[..2]
                    .iter()
                    .all(|q| set.layers()[q.layer].shown(q.side, q.turn)[p].is_none())
            })
            .collect();
        assert!(!deep.is_empty());
        for p in deep {
            assert!(depths[p] >= 2, "{p}: {}", depths[p]);
        }
    }

    #[test]
    fn a_grid_no_stack_shows_may_be_deep_anywhere() {
        let set = set("reference");
        let solver = Solver::new(&set);
        // Red and salmon together: the two sides of one layer.
        let mut keys = Grid::filled(4, 4, key('r'));
        keys[Pos::new(0, 0)] = key('s');
        assert!(solver.min_layers(&keys).is_none());
        let depths = well_depths(&set, &solver, &keys);
        assert!(depths.iter().all(|(_, &d)| d == DEEP));
    }

    #[test]
    fn a_dark_label_on_a_lighter_colour_deep_in_a_well_is_doubtful() {
        // Bright green at 45% of the light: brighter than forest green, nearer it than bright
        // green lit fully, and just bright green in shade.
        let set = set("reference");
        let printed = printed(&set);
        let (forest, bright) = (key('f'), key('g'));
        let lin = LinRgb::from_srgb(set.colors()[&bright].srgb).to_array();
        let half_lit = LinRgb::from_array(lin.map(|c| c * 0.45)).to_srgb();
        let keys = Grid::filled(4, 4, forest);
        let (mut cells, samples) = read_exactly(&set, &keys);
        let (deep, shallow, plain) = (Pos::new(1, 1), Pos::new(2, 2), Pos::new(3, 3));
        for p in [deep, shallow] {
            cells[p].srgb = half_lit;
        }
        let mut depths = Grid::filled(4, 4, DEEP);
        depths[shallow] = DEEP - 1;
        let before = cells.clone();
        doubt_shaded_twins(&mut cells, &samples, || depths, &printed);
        assert_eq!(cells[deep].confidence, 0.5);
        assert_eq!(cells[shallow], before[shallow]);
        // Forest green as printed, deep down: it fits plainly and stays sure.
        assert_eq!(cells[plain], before[plain]);
        // Bright green deep down has no lighter twin.
        let (mut cells, samples) = read_exactly(&set, &Grid::filled(4, 4, bright));
        let before = cells.clone();
        doubt_shaded_twins(&mut cells, &samples, || Grid::filled(4, 4, 4), &printed);
        assert_eq!(cells, before);
    }
}
