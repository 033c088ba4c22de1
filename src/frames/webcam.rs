//! A webcam as a frame source (nokhwa), which reopens the camera when it disappears.
//!
//! The camera is reached through [`Capture`], so the reopening logic is tested with a
//! stand-in camera on machines that have none.

use std::thread;
use std::time::{Duration, Instant};

use anyhow::Result;
use image::RgbImage;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{
    ApiBackend, CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType,
    Resolution,
};
use serde::Serialize;

use super::{Frame, FrameSource, SourceEvent};
use crate::outcome::BadInput;

/// A camera giving frames one by one.
pub trait Capture {
    /// The next frame; an error means the camera stopped giving frames (unplugged, taken by
    /// another program).
    fn grab(&mut self) -> Result<RgbImage, String>;
    /// Frames per second the camera was set to.
    fn fps(&self) -> f64;
}

/// Opens camera number `index`.
pub type Opener = Box<dyn FnMut(u32) -> Result<Box<dyn Capture>, String>>;

/// How long to wait between tries to reopen a lost camera.
const REOPEN_EVERY: Duration = Duration::from_secs(1);

/// A webcam's frames, stamped with the time since the source opened. A camera that stops
/// giving frames is reported ([`SourceEvent::Lost`]) and reopened on the next call, which
/// waits until it is back ([`SourceEvent::Reopened`]).
pub struct Webcam {
    index: u32,
    name: String,
    opener: Opener,
    capture: Option<Box<dyn Capture>>,
    reopen_every: Duration,
    started: Instant,
    frames: u64,
    fps: f64,
}

impl Webcam {
    /// Opens camera `index` (0 is the first; `tablejudge cameras` lists them) at the size
    /// nearest `size`.
    pub fn open(index: u32, size: (u32, u32)) -> Result<Webcam> {
        Webcam::with_opener(index, Box::new(move |i| open_nokhwa(i, size)), REOPEN_EVERY)
    }

    /// Opens camera `index` with `opener`, trying again every `reopen_every` once lost. The
    /// first opening must succeed: a camera that was never there is bad input.
    pub fn with_opener(index: u32, mut opener: Opener, reopen_every: Duration) -> Result<Webcam> {
        let capture = opener(index).map_err(|why| {
            BadInput(format!(
                "camera {index}: cannot open it ({why}): list the cameras with `tablejudge \
                 cameras`, check it is plugged in and not used by another program, and that \
                 you may read /dev/video* (the `video` group)"
            ))
        })?;
        let fps = capture.fps();
        Ok(Webcam {
            index,
            name: format!("camera {index}"),
            opener,
            capture: Some(capture),
            reopen_every,
            started: Instant::now(),
            frames: 0,
            fps,
        })
    }
}

impl FrameSource for Webcam {
    fn next_event(&mut self) -> Result<SourceEvent> {
        let Some(capture) = self.capture.as_mut() else {
            // Lost: wait until the camera is back (the user plugs it in again, or quits).
            loop {
                thread::sleep(self.reopen_every);
                if let Ok(capture) = (self.opener)(self.index) {
                    self.fps = capture.fps();
                    self.capture = Some(capture);
                    return Ok(SourceEvent::Reopened);
                }
            }
        };
        match capture.grab() {
            Ok(image) => {
                let index = self.frames;
                self.frames += 1;
                Ok(SourceEvent::Frame(Frame {
                    image,
                    name: format!("{} frame {index}", self.name),
                    index,
                    time_s: Some(self.started.elapsed().as_secs_f64()),
                }))
            }
            Err(why) => {
                self.capture = None;
                Ok(SourceEvent::Lost { why })
            }
        }
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn fps(&self) -> Option<f64> {
        Some(self.fps)
    }

    fn is_stream(&self) -> bool {
        true
    }

    fn is_live(&self) -> bool {
        true
    }
}

struct NokhwaCapture {
    camera: nokhwa::Camera,
}

impl Capture for NokhwaCapture {
    fn grab(&mut self) -> Result<RgbImage, String> {
        let buffer = self.camera.frame().map_err(|e| e.to_string())?;
        buffer
            .decode_image::<RgbFormat>()
            .map_err(|e| e.to_string())
    }

    fn fps(&self) -> f64 {
        f64::from(self.camera.frame_rate())
    }
}

/// Opens a camera with nokhwa at the format nearest `size` at 30 frames a second: Motion-JPEG
/// first (what USB cameras send at 720p and above), then raw YUYV, then whatever it has.
fn open_nokhwa(index: u32, (w, h): (u32, u32)) -> Result<Box<dyn Capture>, String> {
    let near =
        |format| RequestedFormatType::Closest(CameraFormat::new(Resolution::new(w, h), format, 30));
    let requests = [
        near(FrameFormat::MJPEG),
        near(FrameFormat::YUYV),
        RequestedFormatType::AbsoluteHighestFrameRate,
    ];
    let mut last = String::new();
    for request in requests {
        let format = RequestedFormat::new::<RgbFormat>(request);
        match nokhwa::Camera::new(CameraIndex::Index(index), format) {
            Ok(mut camera) => {
                camera.open_stream().map_err(|e| e.to_string())?;
                return Ok(Box::new(NokhwaCapture { camera }));
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

/// A camera the system offers, with the formats it can send.
#[derive(Debug, Serialize)]
pub struct CameraListing {
    pub index: String,
    pub name: String,
    pub description: String,
    /// "WIDTHxHEIGHT@FPS FORMAT".
    pub formats: Vec<String>,
    /// Why the formats could not be asked for (another program holds the camera).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formats_error: Option<String>,
}

/// The cameras of this machine (Video4Linux on Linux, the native API elsewhere).
pub fn list_cameras() -> Result<Vec<CameraListing>, String> {
    let cameras = nokhwa::query(ApiBackend::Auto).map_err(|e| e.to_string())?;
    Ok(cameras
        .into_iter()
        .map(|info| {
            let formats = nokhwa::Camera::new(
                info.index().clone(),
                RequestedFormat::new::<RgbFormat>(RequestedFormatType::None),
            )
            .and_then(|mut c| c.compatible_camera_formats())
            .map(|mut formats| {
                formats.sort_by_key(|f| (f.width(), f.height(), f.frame_rate()));
                formats
                    .iter()
                    .map(|f| {
                        format!(
                            "{}x{}@{} {}",
                            f.width(),
                            f.height(),
                            f.frame_rate(),
                            f.format()
                        )
                    })
                    .collect()
            })
            .map_err(|e| e.to_string());
            CameraListing {
                index: info.index().to_string(),
                name: info.human_name(),
                description: info.description().to_owned(),
                formats_error: formats.as_ref().err().cloned(),
                formats: formats.unwrap_or_default(),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// A camera that gives `frames` frames and is then unplugged.
    struct Flaky {
        frames: usize,
    }

    impl Capture for Flaky {
        fn grab(&mut self) -> Result<RgbImage, String> {
            if self.frames == 0 {
                return Err("unplugged".into());
            }
            self.frames -= 1;
            Ok(RgbImage::new(4, 3))
        }

        fn fps(&self) -> f64 {
            30.0
        }
    }

    fn describe(event: SourceEvent) -> String {
        match event {
            SourceEvent::Frame(f) => format!("frame {} ({})", f.index, f.name),
            SourceEvent::Unreadable { name, .. } => format!("unreadable {name}"),
            SourceEvent::Lost { why } => format!("lost: {why}"),
            SourceEvent::Reopened => "reopened".into(),
            SourceEvent::End => "end".into(),
        }
    }

    #[test]
    fn a_camera_that_disappears_is_reported_and_reopened_when_it_is_back() {
        let opens = Rc::new(Cell::new(0));
        let counted = Rc::clone(&opens);
        // Opened with 2 frames to give; then gone for two tries; then back with 1 frame.
        let opener: Opener = Box::new(move |index| {
            assert_eq!(index, 1);
            counted.set(counted.get() + 1);
            match counted.get() {
                1 => Ok(Box::new(Flaky { frames: 2 })),
                4 => Ok(Box::new(Flaky { frames: 1 })),
                _ => Err("no such device".into()),
            }
        });
        let mut camera = Webcam::with_opener(1, opener, Duration::ZERO).unwrap();
        let events: Vec<String> = (0..6)
            .map(|_| describe(camera.next_event().unwrap()))
            .collect();
        assert_eq!(
            events,
            [
                "frame 0 (camera 1 frame 0)",
                "frame 1 (camera 1 frame 1)",
                "lost: unplugged",
                "reopened",
                "frame 2 (camera 1 frame 2)",
                "lost: unplugged",
            ]
        );
        assert_eq!(opens.get(), 4);
        assert_eq!(camera.name(), "camera 1");
        assert_eq!(camera.fps(), Some(30.0));
    }

    #[test]
    fn a_camera_that_cannot_be_opened_at_all_is_bad_input_that_names_it() {
        let opener: Opener = Box::new(|_| Err("no such device".into()));
        let err = match Webcam::with_opener(3, opener, Duration::ZERO) {
            Ok(_) => panic!("a camera that never opened was taken"),
            Err(e) => e.to_string(),
        };
        assert!(
            err.starts_with("camera 3: cannot open it (no such device)"),
            "{err}"
        );
        assert!(err.contains("tablejudge cameras"), "{err}");
    }
}
