//! Where frames come from: a photo, a folder of photos, a video file or a webcam, behind one
//! [`FrameSource`] trait, so the commands that watch a table run the same code on all of them
//! (and the tests run it without a camera).

pub mod files;
pub mod video;
pub mod webcam;

use std::path::Path;

use anyhow::Result;
use image::RgbImage;

pub use files::{is_photo, photos_in, PhotoFiles, PhotoOrder};
pub use video::VideoFile;
pub use webcam::Webcam;

use crate::outcome::BadInput;

/// One frame and where it came from.
pub struct Frame {
    pub image: RgbImage,
    /// For messages and results: the photo's path, or the source and the frame's number.
    pub name: String,
    /// The frame's number in its source, from 0.
    pub index: u64,
    /// Seconds since the source started (a video's own clock, a webcam's wall clock); `None`
    /// for photos, which carry no common clock.
    pub time_s: Option<f64>,
}

/// What a source gave next.
pub enum SourceEvent {
    Frame(Frame),
    /// A frame or photo that cannot be decoded; the source goes on with the next.
    Unreadable {
        name: String,
        why: String,
    },
    /// The camera stopped giving frames; the next call waits for it and reopens it.
    Lost {
        why: String,
    },
    /// The camera gives frames again.
    Reopened,
    /// No more frames (a webcam never ends).
    End,
}

/// A source of frames read one after another. An `Err` ends the source; every event that
/// can be lived with is a [`SourceEvent`].
pub trait FrameSource {
    fn next_event(&mut self) -> Result<SourceEvent>;
    /// The source, for messages: a path, or "camera N".
    fn name(&self) -> &str;
    /// Frames per second of a stream (video, webcam).
    fn fps(&self) -> Option<f64> {
        None
    }
    /// Whether frames come as a stream, where a scene must be still for a moment before it
    /// is judged; photos are each a still scene of their own.
    fn is_stream(&self) -> bool;
    /// Whether frames come at their own pace whether or not they are read (a camera): then a
    /// slow judgement must not hold up the reading of the frames. A file waits to be read.
    fn is_live(&self) -> bool {
        false
    }
}

/// Opens `path` as a source: a folder of photos (in file-name order, or EXIF time when every
/// photo has one), a video file (by its extension), or one photo.
pub fn open_path(path: &Path) -> Result<Box<dyn FrameSource>> {
    if path.is_dir() {
        return Ok(Box::new(PhotoFiles::folder(path, PhotoOrder::Auto)?));
    }
    if !path.exists() {
        return Err(BadInput(format!(
            "{}: no such file or folder: give a photo, a folder of photos or a video file",
            path.display()
        ))
        .into());
    }
    if tablejudge_vision::video::is_video(path) {
        return Ok(Box::new(VideoFile::open(path)?));
    }
    Ok(Box::new(PhotoFiles::photo(path)))
}
