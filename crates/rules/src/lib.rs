//! Pure game logic of tablejudge: the grid model, set files, and the rules of each game.
//!
//! No OpenCV, no files, no clocks: everything here is a function of its inputs, so the vision
//! side and the command line can trust it and tests can pin it down exactly.

#![forbid(unsafe_code)]

pub mod camouflage;
pub mod colour;
pub mod error;
pub mod grid;
pub mod key;
pub mod layers;
pub mod palette;
pub mod set;

pub use colour::Srgb;
pub use error::{Place, SetError, SetProblem};
pub use grid::{Grid, GridError, Pos, Turn};
pub use key::Key;
pub use palette::Palette;
