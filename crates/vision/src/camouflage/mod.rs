//! Camouflage boards from photos: the lattice the cards share, found from their centres;
//! each visible square's kind; the centres' symbols grouped by deck; a game replayed from
//! readings taken one after another.

mod lattice;
mod locations;
mod looks;
mod puzzle;
mod read;
mod replay;
mod seeds;
mod working;

pub use lattice::BoardLattice;
pub use locations::{FoundPlay, LocationReplay, LocationsReplay, LocationsTracker};
pub use looks::SquareLooks;
pub use puzzle::{judge_puzzle, PuzzleJudgement};
pub use read::{
    read_camouflage, read_camouflage_boards, reread_camouflage, CamouflageReadError,
    CamouflageReadOptions, CamouflageReading, CentreReading, SideColours, SquareKind,
    SquareReading,
};
pub use replay::{FrameOutcome, Replay, TrackedCard, Tracker};
pub use working::WORKING_LONG_SIDE;

#[cfg(test)]
mod locations_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
