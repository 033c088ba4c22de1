//! The vision crate's error type.

use thiserror::Error;

/// Why a vision stage could not produce its result.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum VisionError {
    /// OpenCV reported an error; kept as text so that no OpenCV type leaks out of this crate.
    #[error("OpenCV failed in {context}: {message}")]
    OpenCv {
        context: &'static str,
        message: String,
    },
    /// A path that names no readable file: missing, a folder, or not permitted.
    #[error("{path}: {why}")]
    NoFile { path: String, why: String },
    /// An empty image, which is also how OpenCV reports a file it could not read.
    #[error("{0}: the image is empty (unreadable file or no frame)")]
    EmptyImage(String),
    /// A photo whose header declares more pixels than [`crate::photo_file::MAX_PHOTO_PIXELS`],
    /// refused before decoding.
    #[error("{name}: the image declares {width}x{height} pixels, over the limit of {} megapixels", crate::photo_file::MAX_PHOTO_PIXELS / 1_000_000)]
    TooLarge {
        name: String,
        width: u32,
        height: u32,
    },
    /// A JPEG whose data stops before its end marker (a copy or a download cut short).
    #[error("{0}: the JPEG data stops before its end (a truncated file)")]
    Truncated(String),
    /// A `Mat` of a pixel type this crate does not convert.
    #[error("unsupported image type {typ} with {channels} channels: expected 8-bit BGR or grey")]
    UnsupportedMat { typ: i32, channels: i32 },
    /// A window was asked for where there is no display to show it on.
    #[error("no display to show a window on (neither DISPLAY nor WAYLAND_DISPLAY is set)")]
    NoDisplay,
    /// Grid geometry that cannot be used (zero rows, a degenerate quad, …).
    #[error("invalid geometry: {0}")]
    Geometry(String),
}

impl VisionError {
    /// Wraps an OpenCV error with the name of the step that failed.
    pub(crate) fn opencv(context: &'static str) -> impl FnOnce(opencv::Error) -> VisionError {
        move |e| VisionError::OpenCv {
            context,
            message: e.to_string(),
        }
    }
}
