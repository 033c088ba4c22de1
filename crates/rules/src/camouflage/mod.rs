//! Camouflage (seed 004): overlapping 3×3 cards on one square lattice.

mod set;

pub use set::CamouflageProblem;
