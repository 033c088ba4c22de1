//! The Layers+ set file, `tablejudge/layers-set@1` (formats.md §2).

use thiserror::Error;

/// What can be wrong in a Layers+ set file beyond the common problems.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LayersProblem {
    #[error("rows and cols must be 2..=8, found {found}")]
    Size { found: usize },
}
