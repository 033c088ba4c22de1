//! The Camouflage set file, `tablejudge/camouflage-set@1` (formats.md §3).

use thiserror::Error;

/// What can be wrong in a Camouflage set file beyond the common problems.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CamouflageProblem {
    #[error("a card is 3×3 squares, found {rows}×{cols}")]
    CardSize { rows: usize, cols: usize },
}
