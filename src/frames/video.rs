//! A video file as a frame source (OpenCV videoio).

use std::path::Path;

use anyhow::Result;
use tablejudge_vision::video::VideoReader;

use super::{Frame, FrameSource, SourceEvent};
use crate::outcome::BadInput;

/// The frames of a video file, each stamped with its time in the video.
pub struct VideoFile {
    name: String,
    reader: VideoReader,
    index: u64,
    /// Set once a frame failed to decode: what follows a damaged frame is not trusted.
    ended: bool,
}

impl VideoFile {
    pub fn open(path: &Path) -> Result<VideoFile> {
        let reader = VideoReader::open(path).map_err(|e| BadInput(e.to_string()))?;
        Ok(VideoFile {
            name: path.display().to_string(),
            reader,
            index: 0,
            ended: false,
        })
    }
}

impl FrameSource for VideoFile {
    fn next_event(&mut self) -> Result<SourceEvent> {
        if self.ended {
            return Ok(SourceEvent::End);
        }
        let index = self.index;
        let name = format!("{} frame {index}", self.name);
        let decoded = self.reader.next_frame();
        self.index += 1;
        Ok(match decoded {
            Ok(Some(image)) => SourceEvent::Frame(Frame {
                image,
                name,
                index,
                time_s: Some(index as f64 / self.reader.fps()),
            }),
            Ok(None) => SourceEvent::End,
            Err(e) => {
                // The frames before it stand; a decoder that lost its place is not trusted.
                self.ended = true;
                SourceEvent::Unreadable {
                    name,
                    why: format!("the video cannot be decoded from here on: {e}"),
                }
            }
        })
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn fps(&self) -> Option<f64> {
        Some(self.reader.fps())
    }

    fn is_stream(&self) -> bool {
        true
    }
}
