//! Photos to grids: rectify, sample cells, normalise colour, classify.
//!
//! One module per technique (imageproc/kornia style). OpenCV lives here and never leaks out:
//! the public API takes and returns [`image::RgbImage`] and the rules crate's types; only
//! [`mat`] speaks `Mat`, for the stages that call OpenCV.
//!
//! Pixel coordinates follow OpenCV (and imageproc): the centre of pixel `(x, y)` is at
//! `(x, y)`, so the image's outer top-left corner is at `(-0.5, -0.5)`.

#![forbid(unsafe_code)]

pub mod classify;
pub mod colour;
pub mod error;
pub mod mat;
pub mod observation;
pub mod rectify;
pub mod white_balance;

pub use classify::{Classifier, ClassifierParams, Reading};
pub use colour::{Lab, LinRgb, Xyz};
pub use error::VisionError;
pub use observation::Observation;
pub use rectify::{GridSize, Quad, Rectified};
pub use white_balance::WhiteBalance;
