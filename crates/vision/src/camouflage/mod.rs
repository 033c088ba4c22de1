//! Camouflage boards from photos: the lattice the cards share, found from their centres;
//! each visible square's kind; the centres' symbols grouped by deck.

mod lattice;
mod read;
mod seeds;

pub use lattice::BoardLattice;
pub use read::{
    read_camouflage, CamouflageReadError, CamouflageReadOptions, CamouflageReading, CentreReading,
    SideColours, SquareKind, SquareReading,
};

#[cfg(test)]
mod tests;
