//! Photos and camera calibrations from the user's files, with messages that name the file.

use std::path::Path;

use anyhow::Result;
use image::RgbImage;
use serde::{Deserialize, Serialize};
use tablejudge_vision::colour_chart::ColourMatrix;
use tablejudge_vision::judge_mat::{find_mat, rectified};
use tablejudge_vision::{Camera, VisionError};

use crate::input::read_text;
use crate::outcome::BadInput;

/// Decodes a photo (JPEG, PNG, … as OpenCV reads them), honouring its EXIF orientation.
pub fn load_photo(path: &Path) -> Result<RgbImage> {
    decode_photo(path).map_err(|why| BadInput(format!("{}: {why}", path.display())).into())
}

/// [`load_photo`], its error saying why and the fix without naming the photo, for callers
/// that name it themselves (a folder's photo in a batch or a watch).
pub fn decode_photo(path: &Path) -> Result<RgbImage, String> {
    tablejudge_vision::mat::read_rgb(path).map_err(|e| {
        let (why, fix) = match e {
            VisionError::NoFile { why, .. } => (why, "check the path"),
            VisionError::TooLarge { width, height, .. } => (
                format!(
                    "it declares {width}x{height} pixels ({:.0} megapixels), over tablejudge's limit of {} megapixels (a guard against images that would exhaust memory)",
                    f64::from(width) * f64::from(height) / 1e6,
                    tablejudge_vision::photo_file::MAX_PHOTO_PIXELS / 1_000_000
                ),
                "scale it down; 12 megapixels is plenty",
            ),
            VisionError::Truncated(_) => (
                "the JPEG stops before its end (a truncated copy or download)".to_owned(),
                "copy the photo from the camera or phone again",
            ),
            VisionError::EmptyImage(_) => (
                "not an image OpenCV can decode (empty, truncated or corrupt)".to_owned(),
                "check that the file is a whole JPEG or PNG image",
            ),
            other => (
                other.to_string(),
                "check that the file is a JPEG or PNG image",
            ),
        };
        format!("cannot read the photo: {why}: {fix}")
    })
}

/// When the photo was taken, by its EXIF `DateTimeOriginal` (with `SubSecTimeOriginal`), as
/// text that sorts in time order; `None` when the file has no such tag. Phones and cameras
/// write it; the file's own times change when photos are copied.
pub fn taken_at(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let exif = exif::Reader::new()
        .read_from_container(&mut std::io::BufReader::new(file))
        .ok()?;
    let ascii = |tag| match exif.get_field(tag, exif::In::PRIMARY).map(|f| &f.value) {
        Some(exif::Value::Ascii(v)) => v.first().cloned(),
        _ => None,
    };
    let mut t = exif::DateTime::from_ascii(&ascii(exif::Tag::DateTimeOriginal)?).ok()?;
    if let Some(sub) = ascii(exif::Tag::SubSecTimeOriginal) {
        // A malformed fraction leaves the whole seconds, which still order the photos.
        let _ = t.parse_subsec(&sub);
    }
    Some(format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:09}",
        t.year,
        t.month,
        t.day,
        t.hour,
        t.minute,
        t.second,
        t.nanosecond.unwrap_or(0)
    ))
}

/// Writes an annotated image; the format follows the extension (PNG or JPEG).
pub fn save_image(img: &RgbImage, path: &Path) -> Result<()> {
    img.save(path).map_err(|e| {
        BadInput(format!(
            "{}: cannot write the image ({e}): check that the folder exists and ends in .png or .jpg",
            path.display()
        ))
        .into()
    })
}

pub const CAMERA_FORMAT: &str = "tablejudge/camera@1";

/// A lens calibration file: intrinsics in pixels and OpenCV's distortion `[k1, k2, p1, p2, k3]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CameraFile {
    pub format: String,
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
    pub cy: f64,
    pub distortion: [f64; 5],
    /// RMS reprojection error of the calibration, pixels.
    #[serde(default)]
    pub rms: Option<f64>,
}

/// The lens calibration a photo command was given, if any.
pub fn photo_camera(options: &crate::cli::PhotoOptions) -> Result<Option<Camera>> {
    options
        .camera_calibration
        .as_deref()
        .map(load_camera)
        .transpose()
}

/// Reads a camera calibration file (`tablejudge/camera@1`).
pub fn load_camera(path: &Path) -> Result<Camera> {
    let text = read_text(path)?;
    let file: CameraFile = serde_json::from_str(&text).map_err(|e| {
        BadInput(format!(
            "{}: not a camera calibration ({e}); expected {{\"format\": \"{CAMERA_FORMAT}\", \"fx\", \"fy\", \"cx\", \"cy\", \"distortion\": [k1, k2, p1, p2, k3]}}",
            path.display()
        ))
    })?;
    if file.format != CAMERA_FORMAT {
        return Err(BadInput(format!(
            "{}: format {:?} is not \"{CAMERA_FORMAT}\"",
            path.display(),
            file.format
        ))
        .into());
    }
    if !(file.fx > 0.0 && file.fy > 0.0) {
        return Err(BadInput(format!(
            "{}: fx and fy must be positive focal lengths in pixels",
            path.display()
        ))
        .into());
    }
    Ok(Camera {
        fx: file.fx,
        fy: file.fy,
        cx: file.cx,
        cy: file.cy,
        dist: file.distortion,
    })
}

pub const COLOUR_FORMAT: &str = "tablejudge/colour@1";

/// A colour calibration file: `printed = matrix · measured` on linear RGB, and how well it
/// fitted the chart it came from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ColourFile {
    pub format: String,
    pub matrix: ColourMatrix,
    /// The chart's palette name and the photo it was fitted on.
    #[serde(default)]
    pub chart: Option<String>,
    #[serde(default)]
    pub photo: Option<String>,
    /// Mean and largest ΔE₀₀ of the chart's patches from their printed colours, before and
    /// after the correction.
    #[serde(default)]
    pub delta_e_before: Option<f32>,
    #[serde(default)]
    pub delta_e_after: Option<f32>,
    #[serde(default)]
    pub delta_e_max_after: Option<f32>,
}

/// Reads a colour calibration file (`tablejudge/colour@1`).
pub fn load_colour(path: &Path) -> Result<ColourMatrix> {
    let text = read_text(path)?;
    let file: ColourFile = serde_json::from_str(&text).map_err(|e| {
        BadInput(format!(
            "{}: not a colour calibration ({e}); expected {{\"format\": \"{COLOUR_FORMAT}\", \"matrix\": [[r], [g], [b]]}}, as `tablejudge calibrate colour` writes",
            path.display()
        ))
    })?;
    if file.format != COLOUR_FORMAT {
        return Err(BadInput(format!(
            "{}: format {:?}, expected {COLOUR_FORMAT:?}",
            path.display(),
            file.format
        ))
        .into());
    }
    if file.matrix.0.iter().flatten().any(|v| !v.is_finite()) {
        return Err(BadInput(format!(
            "{}: the matrix has a value that is not a number: calibrate again",
            path.display()
        ))
        .into());
    }
    Ok(file.matrix)
}

/// The colour calibration a photo command was given, if any.
pub fn photo_colour(options: &crate::cli::PhotoOptions) -> Result<Option<ColourMatrix>> {
    options
        .colour_calibration
        .as_deref()
        .map(load_colour)
        .transpose()
}

/// Decodes a photo and prepares it for reading ([`prepare`]).
pub fn load_corrected(path: &Path, options: &crate::cli::PhotoOptions) -> Result<RgbImage> {
    let image = load_photo(path)?;
    let colour = photo_colour(options)?;
    let prepared = prepare(
        &image,
        colour.as_ref(),
        options.camera_calibration.is_some(),
        &path.display().to_string(),
    )?;
    Ok(prepared.map_or(image, |(p, _)| p))
}

/// Resolution of the top-down view of a judge mat that the readers are given.
pub const MAT_PX_PER_MM: f64 = 5.0;

/// A photo made ready for reading: its colours corrected with the colour calibration, if
/// any; then, where a judge mat lies in it, balanced by the mat's grey patches and seen from
/// straight above the mat (the table's plane exactly). With a lens calibration the photo keeps
/// its geometry (the readers undo the lens themselves) and only the balance is applied.
/// `None` when there is nothing to change; else the new image and whether it is the mat's
/// top-down view (other pixels than the photo's).
pub fn prepare(
    image: &RgbImage,
    colour: Option<&ColourMatrix>,
    lens_calibrated: bool,
    source: &str,
) -> Result<Option<(RgbImage, bool)>> {
    let corrected = colour.map(|m| {
        let mut copy = image.clone();
        m.apply_to_image(&mut copy);
        copy
    });
    let image = corrected.as_ref().unwrap_or(image);
    let found = find_mat(image).map_err(|e| BadInput(format!("{source}: {e}")))?;
    let Some(mat) = found else {
        return Ok(corrected.map(|c| (c, false)));
    };
    let markers: Vec<String> = mat.markers.iter().map(ToString::to_string).collect();
    if lens_calibrated {
        let mut balanced = image.clone();
        ColourMatrix::diagonal(mat.white_balance).apply_to_image(&mut balanced);
        eprintln!(
            "tablejudge: {source}: judge mat found (markers {}): balanced by its grey patches",
            markers.join(", ")
        );
        return Ok(Some((balanced, false)));
    }
    eprintln!(
        "tablejudge: {source}: judge mat found (markers {}): read from straight above it, \
         balanced by its grey patches",
        markers.join(", ")
    );
    let top_down =
        rectified(image, &mat, MAT_PX_PER_MM).map_err(|e| BadInput(format!("{source}: {e}")))?;
    Ok(Some((top_down, true)))
}
