//! Video files in and out, and the moments a watched table settles.
//!
//! Frames are read with OpenCV's videoio (whatever its FFmpeg backend decodes) and written as
//! Motion-JPEG AVI, which OpenCV encodes itself with no codec library. [`SettleDetector`]
//! picks from a stream of frames the ones worth reading: the scene has stopped moving (no
//! hand passing) and differs from the last settled scene (a card was laid).

use std::path::Path;

use image::{imageops, GrayImage, RgbImage};
use opencv::core::{Mat, Size};
use opencv::prelude::*;
use opencv::videoio::{self, VideoCapture, VideoWriter};

use crate::error::VisionError;
use crate::mat::{bgr_mat_to_rgb, rgb_to_mat, rgb_view, shrink};

/// File extensions taken for video.
pub const VIDEO_EXTENSIONS: [&str; 7] = ["avi", "mp4", "mov", "mkv", "webm", "m4v", "mjpeg"];

/// Whether `path` names a video file by its extension.
pub fn is_video(path: &Path) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| VIDEO_EXTENSIONS.contains(&x.to_ascii_lowercase().as_str()))
}

/// The frames of a video file, in order.
pub struct VideoReader {
    cap: VideoCapture,
    fps: f64,
    path: String,
    frame: Mat,
}

impl VideoReader {
    pub fn open(path: &Path) -> Result<VideoReader, VisionError> {
        let name = path.display().to_string();
        if !path.is_file() {
            return Err(VisionError::NoFile {
                path: name,
                why: "no such video file".into(),
            });
        }
        let cap = VideoCapture::from_file(&name, videoio::CAP_ANY)
            .map_err(VisionError::opencv("opening a video"))?;
        if !cap
            .is_opened()
            .map_err(VisionError::opencv("opening a video"))?
        {
            return Err(VisionError::NoFile {
                path: name,
                why: "OpenCV cannot decode it: not a video, or a codec its FFmpeg lacks; \
                      convert it to H.264 MP4 or Motion-JPEG AVI"
                    .into(),
            });
        }
        let fps = cap
            .get(videoio::CAP_PROP_FPS)
            .map_err(VisionError::opencv("reading a video's frame rate"))?;
        Ok(VideoReader {
            cap,
            // Some containers carry no rate; 30 is what webcams and phones record.
            fps: if fps.is_finite() && fps > 0.0 {
                fps
            } else {
                30.0
            },
            path: name,
            frame: Mat::default(),
        })
    }

    /// Frames per second, as the file says.
    pub fn fps(&self) -> f64 {
        self.fps
    }

    /// The next frame, or `None` at the end.
    pub fn next_frame(&mut self) -> Result<Option<RgbImage>, VisionError> {
        if !self.advance()? {
            return Ok(None);
        }
        self.frame().map(Some)
    }

    /// Decodes the next frame, kept until the next call; `false` at the end. Watching a
    /// table needs only a thumbnail of most frames ([`VideoReader::thumbnail`]): turning a
    /// whole 1280×720 frame into an `RgbImage` costs more than shrinking it.
    pub fn advance(&mut self) -> Result<bool, VisionError> {
        let got = self
            .cap
            .read(&mut self.frame)
            .map_err(VisionError::opencv("decoding a video frame"))?;
        Ok(got && !self.frame.empty())
    }

    /// The frame decoded last.
    pub fn frame(&self) -> Result<RgbImage, VisionError> {
        bgr_mat_to_rgb(&self.frame).map_err(|e| match e {
            VisionError::EmptyImage(_) => VisionError::EmptyImage(self.path.clone()),
            e => e,
        })
    }

    /// The frame decoded last as a grey thumbnail for [`SettleDetector::push_thumbnail`]:
    /// shrunk by OpenCV's area averaging before it becomes an image, the same thumbnail as
    /// [`SettleDetector::push`] makes of the whole frame (but for rounding).
    pub fn thumbnail(&self) -> Result<GrayImage, VisionError> {
        let (w, h) = (self.frame.cols(), self.frame.rows());
        let (tw, th) = thumbnail_size(w.unsigned_abs(), h.unsigned_abs());
        let small = shrink(&self.frame, tw, th)?;
        Ok(imageops::grayscale(&bgr_mat_to_rgb(&small)?))
    }
}

/// Writes frames into a Motion-JPEG AVI file.
pub struct VideoFileWriter {
    writer: VideoWriter,
    size: (u32, u32),
}

impl VideoFileWriter {
    pub fn create(path: &Path, fps: f64, size: (u32, u32)) -> Result<VideoFileWriter, VisionError> {
        let name = path.display().to_string();
        let fourcc = VideoWriter::fourcc('M', 'J', 'P', 'G')
            .map_err(VisionError::opencv("naming the Motion-JPEG codec"))?;
        let frame = Size::new(size.0 as i32, size.1 as i32);
        let writer = VideoWriter::new(&name, fourcc, fps, frame, true)
            .map_err(VisionError::opencv("creating a video file"))?;
        if !writer
            .is_opened()
            .map_err(VisionError::opencv("creating a video file"))?
        {
            return Err(VisionError::NoFile {
                path: name,
                why: "cannot create the video file (is the folder writable, the name .avi?)".into(),
            });
        }
        Ok(VideoFileWriter { writer, size })
    }

    /// Appends `frame`, which must be of the size the file was created with.
    pub fn write(&mut self, frame: &RgbImage) -> Result<(), VisionError> {
        if frame.dimensions() != self.size {
            return Err(VisionError::Geometry(format!(
                "a {}x{} frame in a {}x{} video",
                frame.width(),
                frame.height(),
                self.size.0,
                self.size.1
            )));
        }
        self.writer
            .write(&rgb_to_mat(frame)?)
            .map_err(VisionError::opencv("writing a video frame"))
    }

    /// Closes the file, writing its index.
    pub fn finish(mut self) -> Result<(), VisionError> {
        self.writer
            .release()
            .map_err(VisionError::opencv("closing a video file"))
    }
}

/// Width of the thumbnails frames are compared at: averaging many pixels into one takes the
/// sensor noise out, and comparing 160×90 pixels costs next to nothing.
const THUMB_WIDTH: u32 = 160;
/// A thumbnail pixel has changed when it differs by more than this many grey levels, after
/// the frames' mean difference (exposure drifting) is taken out.
const CHANGED_LEVELS: f32 = 10.0;
/// Two frames show the same scene when at most this fraction of pixels changed: far less than
/// a card (a few percent of a photo of the table) or a hand.
const SAME_SCENE: f32 = 0.002;

/// What a frame is, to the detector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameState {
    /// Something moves: a hand, the camera.
    Moving,
    /// Still, but not long enough yet, or the same scene as the last settled one.
    Still,
    /// The scene has been still for long enough and is not the last settled one: read this.
    Settled,
}

/// Finds, in a stream of frames, the moments the scene settles into a new state.
#[derive(Debug)]
pub struct SettleDetector {
    still_frames: usize,
    previous: Option<GrayImage>,
    still: usize,
    settled: Option<GrayImage>,
}

impl SettleDetector {
    /// A scene is settled after `still_frames` frames in a row without motion (at least 1).
    pub fn new(still_frames: usize) -> SettleDetector {
        SettleDetector {
            still_frames: still_frames.max(1),
            previous: None,
            still: 0,
            settled: None,
        }
    }

    /// Feeds the next frame.
    pub fn push(&mut self, frame: &RgbImage) -> FrameState {
        self.push_thumbnail(thumbnail(frame))
    }

    /// Feeds the next frame as its grey thumbnail, [`THUMB_WIDTH`] wide
    /// ([`VideoReader::thumbnail`]).
    pub fn push_thumbnail(&mut self, thumb: GrayImage) -> FrameState {
        let moved = self
            .previous
            .as_ref()
            .is_none_or(|p| changed_fraction(p, &thumb) > SAME_SCENE);
        self.still = if moved { 0 } else { self.still + 1 };
        let state = if self.still == self.still_frames
            && self
                .settled
                .as_ref()
                .is_none_or(|s| changed_fraction(s, &thumb) > SAME_SCENE)
        {
            self.settled = Some(thumb.clone());
            FrameState::Settled
        } else if moved {
            FrameState::Moving
        } else {
            FrameState::Still
        };
        self.previous = Some(thumb);
        state
    }
}

fn thumbnail(frame: &RgbImage) -> GrayImage {
    let (tw, th) = thumbnail_size(frame.width(), frame.height());
    // OpenCV's area averaging over a view of the pixels, as `VideoReader::thumbnail` does: a
    // few times cheaper than `imageops::thumbnail` (a live watch shrinks every frame). An
    // image OpenCV cannot view (empty) is shrunk by the image crate instead.
    area_thumbnail(frame, tw, th)
        .unwrap_or_else(|_| imageops::grayscale(&imageops::thumbnail(frame, tw, th)))
}

fn area_thumbnail(frame: &RgbImage, tw: u32, th: u32) -> Result<GrayImage, VisionError> {
    let small = shrink(&rgb_view(frame)?, tw, th)?;
    // The view is RGB, so the shrunk copy is too (a new Mat: continuous).
    let bytes = small
        .data_bytes()
        .map_err(VisionError::opencv("reading a frame's thumbnail"))?;
    let rgb = RgbImage::from_raw(tw, th, bytes.to_vec())
        .ok_or_else(|| VisionError::Geometry("a thumbnail of the wrong size".into()))?;
    Ok(imageops::grayscale(&rgb))
}

/// The size of a `w` × `h` frame's thumbnail.
fn thumbnail_size(w: u32, h: u32) -> (u32, u32) {
    let tw = THUMB_WIDTH.min(w).max(1);
    let th = ((u64::from(h) * u64::from(tw)) / u64::from(w.max(1))).max(1) as u32;
    (tw, th)
}

/// The fraction of pixels that changed between two thumbnails (of one size; different sizes
/// count as all changed).
fn changed_fraction(a: &GrayImage, b: &GrayImage) -> f32 {
    if a.dimensions() != b.dimensions() {
        return 1.0;
    }
    let diffs: Vec<f32> = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| f32::from(x) - f32::from(y))
        .collect();
    let mean = diffs.iter().sum::<f32>() / diffs.len().max(1) as f32;
    let changed = diffs
        .iter()
        .filter(|d| (*d - mean).abs() > CHANGED_LEVELS)
        .count();
    changed as f32 / diffs.len().max(1) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn scene(card_at: Option<(u32, u32)>, hand_at: Option<u32>) -> RgbImage {
        RgbImage::from_fn(640, 360, |x, y| {
            if hand_at.is_some_and(|hx| x >= hx && x < hx + 120 && y < 250) {
                return Rgb([200, 150, 120]);
            }
            if card_at.is_some_and(|(cx, cy)| x >= cx && x < cx + 60 && y >= cy && y < cy + 60) {
                return Rgb([240, 240, 235]);
            }
            // A cloth with a pattern, and sensor-like noise that differs frame to frame.
            let noise = ((x * 7919 + y * 104_729 + hand_at.unwrap_or(0) * 31) % 9) as u8;
            Rgb([
                60 + ((x / 20 + y / 20) % 2) as u8 * 40 + noise,
                90 + noise,
                70,
            ])
        })
    }

    #[test]
    fn a_new_card_settles_once_and_a_passing_hand_never() {
        let mut d = SettleDetector::new(3);
        let empty = scene(None, None);
        let states: Vec<FrameState> = [
            &empty,
            &empty,
            &empty,
            &empty, // settled: the first scene
            &empty,
            &scene(None, Some(100)),
            &scene(Some((300, 100)), Some(200)),
            &scene(Some((300, 100)), Some(320)),
            &scene(Some((300, 100)), None),
            &scene(Some((300, 100)), None),
            &scene(Some((300, 100)), None),
            &scene(Some((300, 100)), None), // settled: the card laid
            &scene(Some((300, 100)), None),
            &scene(Some((300, 100)), None),
        ]
        .iter()
        .map(|f| d.push(f))
        .collect();
        use FrameState::*;
        assert_eq!(
            states,
            [
                Moving, Still, Still, Settled, Still, Moving, Moving, Moving, Moving, Still, Still,
                Settled, Still, Still
            ]
        );
    }

    #[test]
    fn a_change_of_exposure_is_not_motion() {
        let mut d = SettleDetector::new(1);
        let a = scene(None, None);
        let brighter = RgbImage::from_fn(640, 360, |x, y| {
            let p = a.get_pixel(x, y);
            Rgb([p[0] + 12, p[1] + 12, p[2] + 12])
        });
        assert_eq!(d.push(&a), FrameState::Moving);
        assert_eq!(d.push(&brighter), FrameState::Settled);
    }

    #[test]
    fn frames_written_are_read_back_in_order() {
        let dir = std::env::temp_dir().join(format!("tablejudge-video-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.avi");
        let frames = [
            scene(None, None),
            scene(Some((300, 100)), Some(250)),
            scene(Some((300, 100)), None),
        ];
        let mut w = VideoFileWriter::create(&path, 5.0, (640, 360)).unwrap();
        for f in &frames {
            w.write(f).unwrap();
        }
        assert!(w.write(&RgbImage::new(10, 10)).is_err());
        w.finish().unwrap();
        let mut r = VideoReader::open(&path).unwrap();
        assert!((r.fps() - 5.0).abs() < 1e-6);
        let mut n = 0;
        while let Some(f) = r.next_frame().unwrap() {
            assert_eq!(f.dimensions(), (640, 360));
            // Motion JPEG is lossy: the hand is where it was, within JPEG's error.
            let p = f.get_pixel(260, 50);
            let hand = n == 1;
            assert_eq!(p[0] > 180 && p[2] > 100, hand, "frame {n}: {p:?}");
            n += 1;
        }
        assert_eq!(n, 3);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A frame watched as a thumbnail shrunk by OpenCV is the thumbnail of the whole frame
    /// but for rounding, so a settled scene is judged the same either way.
    #[test]
    fn a_frames_thumbnail_is_that_of_its_image() {
        let dir = std::env::temp_dir().join(format!("tablejudge-thumb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.avi");
        let frames = [scene(None, None), scene(Some((300, 100)), Some(250))];
        let mut w = VideoFileWriter::create(&path, 5.0, (640, 360)).unwrap();
        for f in &frames {
            w.write(f).unwrap();
        }
        w.finish().unwrap();
        let mut r = VideoReader::open(&path).unwrap();
        let mut n = 0;
        while r.advance().unwrap() {
            let (fast, whole) = (r.thumbnail().unwrap(), thumbnail(&r.frame().unwrap()));
            assert_eq!(fast.dimensions(), (160, 90));
            assert_eq!(fast.dimensions(), whole.dimensions());
            let most = fast
                .as_raw()
                .iter()
                .zip(whole.as_raw())
                .map(|(&a, &b)| a.abs_diff(b))
                .max()
                .unwrap();
            assert!(most <= 2, "frame {n}: {most} grey levels apart");
            assert!(changed_fraction(&fast, &whole) == 0.0);
            n += 1;
        }
        assert_eq!(n, 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_that_is_not_a_video_is_named() {
        let dir = std::env::temp_dir().join(format!("tablejudge-novideo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("not.avi");
        std::fs::write(&path, b"this is text").unwrap();
        let e = VideoReader::open(&path).err().unwrap();
        assert!(e.to_string().contains("not.avi"), "{e}");
        assert!(VideoReader::open(&dir.join("missing.avi")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
