//! Layers+ (seed 000): double-sided layers with holes, stacked to match a mission card.

mod set;

pub use set::LayersProblem;
