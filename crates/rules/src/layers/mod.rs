//! Layers+ (seed 000): double-sided layers with holes, stacked to match a mission card.
//!
//! - [`set`]: the set file (formats.md §2), validated into a [`LayersSet`].
//! - [`stack`]: placements and what a stack shows ([`LayersSet::compose`]).
//! - [`verify`](mod@verify): judging an observed grid against a mission.
//! - [`solver`]: every stack that makes a pattern, and the fewest layers that can.
//! - [`round`]: scoring a round, a six-round game, and the solo time attack.

pub mod round;
pub mod set;
pub mod solver;
pub mod stack;
pub mod verify;

pub use round::{
    score_round, solo_score, Finish, Game, GameError, PlayedRound, RoundError, RoundEvent,
    RoundOutcome, SoloRating,
};
pub use set::{
    Layer, LayersProblem, LayersSet, Mission, RawLayer, RawLayersSet, RawMission, LAYERS_SET_FORMAT,
};
pub use solver::{MissionSolutions, Solution, Solver};
pub use stack::{NamedPlacement, Placement, Side, StackError};
pub use verify::{verify, Verdict};

#[cfg(test)]
mod testing;
