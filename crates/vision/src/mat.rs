//! Conversions between [`image::RgbImage`] and OpenCV `Mat`, and reading photos with OpenCV.
//!
//! OpenCV stores colour images as BGR and reports an unreadable file as an empty `Mat`, not an
//! error; both are handled here so no other module has to remember.

use image::{GrayImage, RgbImage};
use opencv::boxed_ref::BoxedRef;
use opencv::core::{Mat, Scalar, Vec3b, Vector, CV_8UC1, CV_8UC3};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc};

use crate::error::VisionError;

/// Copies an RGB image into a new 8-bit 3-channel BGR `Mat`.
pub fn rgb_to_mat(img: &RgbImage) -> Result<Mat, VisionError> {
    let (w, h) = dims(img)?;
    let mut mat = Mat::new_rows_cols_with_default(h, w, CV_8UC3, Scalar::all(0.0))
        .map_err(VisionError::opencv("allocating a Mat"))?;
    // A freshly allocated Mat is continuous, so its bytes are the whole image, row-major.
    let dst = mat
        .data_bytes_mut()
        .map_err(VisionError::opencv("writing a Mat"))?;
    for (d, s) in dst.chunks_exact_mut(3).zip(img.as_raw().chunks_exact(3)) {
        d.copy_from_slice(&[s[2], s[1], s[0]]);
    }
    Ok(mat)
}

/// Copies an 8-bit BGR (3-channel) or grey (1-channel) `Mat` into an RGB image.
/// Takes a `Mat` or a view of one (a region of interest).
pub fn mat_to_rgb(mat: &impl MatTraitConst) -> Result<RgbImage, VisionError> {
    if mat.empty() {
        return Err(VisionError::EmptyImage("Mat".into()));
    }
    let typ = mat.typ();
    if typ != CV_8UC3 && typ != CV_8UC1 {
        return Err(VisionError::UnsupportedMat {
            typ,
            channels: mat.channels(),
        });
    }
    // A region of interest is not continuous; copy it so the bytes are one row-major block.
    if !mat.is_continuous() {
        let owned = mat
            .try_clone()
            .map_err(VisionError::opencv("copying a Mat"))?;
        return mat_to_rgb(&owned);
    }
    let bytes = mat
        .data_bytes()
        .map_err(VisionError::opencv("reading a Mat"))?;
    let raw: Vec<u8> = if typ == CV_8UC3 {
        bytes
            .chunks_exact(3)
            .flat_map(|p| [p[2], p[1], p[0]])
            .collect()
    } else {
        bytes.iter().flat_map(|&v| [v, v, v]).collect()
    };
    let (w, h) = (mat.cols(), mat.rows());
    RgbImage::from_raw(w.unsigned_abs(), h.unsigned_abs(), raw)
        .ok_or_else(|| VisionError::Geometry(format!("a {w}x{h} Mat does not hold {w}x{h} pixels")))
}

/// Reads a photo (any format OpenCV decodes) as RGB, honouring its EXIF orientation.
pub fn read_rgb(path: &std::path::Path) -> Result<RgbImage, VisionError> {
    let name = path.to_string_lossy();
    // Checked first so that OpenCV does not print its own warning for a missing file, and so
    // that the message says what is wrong with the path rather than "empty image".
    let no_file = |why: String| VisionError::NoFile {
        path: name.clone().into_owned(),
        why,
    };
    // `stat`, not `open`: opening a named pipe waits for a writer for ever.
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(no_file("no such file".into()))
        }
        Err(e) => return Err(no_file(format!("cannot open it ({e})"))),
        Ok(m) if m.is_dir() => return Err(no_file("a folder, not an image file".into())),
        Ok(m) if !m.is_file() => {
            return Err(no_file(
                "not a regular file (a pipe, socket or device)".into(),
            ))
        }
        Ok(_) => {}
    }
    let bytes = std::fs::read(path).map_err(|e| no_file(format!("cannot read it ({e})")))?;
    decode_named(&bytes, &name)
}

/// `src` shrunk to `w` × `h` by OpenCV's area averaging (each pixel the mean of the source
/// pixels under it, as a sensor bins them: noise averages out, nothing aliases). The channel
/// order is kept.
pub(crate) fn shrink(
    src: &impl opencv::core::ToInputArray,
    w: u32,
    h: u32,
) -> Result<Mat, VisionError> {
    let mut small = Mat::default();
    imgproc::resize(
        src,
        &mut small,
        opencv::core::Size::new(w as i32, h as i32),
        0.0,
        0.0,
        imgproc::INTER_AREA,
    )
    .map_err(VisionError::opencv("shrinking an image"))?;
    Ok(small)
}

/// A zero-copy 8-bit 3-channel `Mat` over the pixels of `img`, in RGB order (not BGR):
/// callers that convert colour must use the `RGB` conversion codes.
pub(crate) fn rgb_view(img: &RgbImage) -> Result<BoxedRef<'_, Mat>, VisionError> {
    let (w, h) = dims(img)?;
    Mat::new_rows_cols_with_bytes::<Vec3b>(h, w, img.as_raw())
        .map_err(VisionError::opencv("viewing an image as a Mat"))
}

/// A zero-copy 8-bit 1-channel `Mat` over the pixels of a grey image.
pub(crate) fn grey_view(img: &GrayImage) -> Result<BoxedRef<'_, Mat>, VisionError> {
    let (w, h) = (img.width(), img.height());
    if w == 0 || h == 0 {
        return Err(VisionError::EmptyImage("GrayImage".into()));
    }
    Mat::new_rows_cols_with_data(h as i32, w as i32, img.as_raw().as_slice())
        .map_err(VisionError::opencv("viewing an image as a Mat"))
}

/// Copies an 8-bit 3-channel `Mat` that already holds RGB (made from [`rgb_view`]) into an
/// image, without swapping channels.
pub(crate) fn rgb_mat_to_image(mat: &Mat) -> Result<RgbImage, VisionError> {
    if mat.empty() || mat.typ() != CV_8UC3 {
        return Err(VisionError::UnsupportedMat {
            typ: mat.typ(),
            channels: mat.channels(),
        });
    }
    let (w, h) = (mat.cols(), mat.rows());
    let mut out = RgbImage::new(w.unsigned_abs(), h.unsigned_abs());
    {
        let mut dst = Mat::new_rows_cols_with_bytes_mut::<Vec3b>(h, w, &mut out)
            .map_err(VisionError::opencv("viewing an image as a Mat"))?;
        mat.copy_to(&mut dst)
            .map_err(VisionError::opencv("copying a Mat"))?;
    }
    Ok(out)
}

/// Decodes an encoded photo (JPEG, PNG, … anything OpenCV reads) held in memory into RGB.
/// The colour-order conversion writes straight into the returned image's buffer.
pub fn decode_rgb(bytes: &[u8]) -> Result<RgbImage, VisionError> {
    decode_named(bytes, "decoded image")
}

/// [`decode_rgb`], its errors naming the photo `name`: refused unread when it declares too
/// many pixels or is a truncated JPEG ([`crate::photo_file`]).
fn decode_named(bytes: &[u8], name: &str) -> Result<RgbImage, VisionError> {
    // OpenCV asserts on an empty buffer rather than reporting it.
    if bytes.is_empty() {
        return Err(VisionError::EmptyImage(name.to_owned()));
    }
    crate::photo_file::check_before_decoding(bytes, name)?;
    let buf = Vector::<u8>::from_slice(bytes);
    // IMREAD_COLOR applies the EXIF orientation.
    let bgr = imgcodecs::imdecode(&buf, imgcodecs::IMREAD_COLOR)
        .map_err(VisionError::opencv("decoding an image"))?;
    // OpenCV reports an undecodable file as an empty Mat, not as an error.
    if bgr.empty() {
        return Err(VisionError::EmptyImage(name.to_owned()));
    }
    bgr_mat_to_rgb(&bgr)
}

/// Copies a decoded 8-bit BGR `Mat` into a new RGB image with one OpenCV colour conversion
/// (no per-pixel Rust loop).
pub fn bgr_mat_to_rgb(bgr: &Mat) -> Result<RgbImage, VisionError> {
    if bgr.empty() {
        return Err(VisionError::EmptyImage("decoded image".into()));
    }
    if bgr.typ() != CV_8UC3 {
        return Err(VisionError::UnsupportedMat {
            typ: bgr.typ(),
            channels: bgr.channels(),
        });
    }
    let (w, h) = (bgr.cols(), bgr.rows());
    let mut out = RgbImage::new(w.unsigned_abs(), h.unsigned_abs());
    {
        let mut dst = Mat::new_rows_cols_with_bytes_mut::<Vec3b>(h, w, &mut out)
            .map_err(VisionError::opencv("viewing an image as a Mat"))?;
        imgproc::cvt_color_def(bgr, &mut dst, imgproc::COLOR_BGR2RGB)
            .map_err(VisionError::opencv("cvt_color BGR to RGB"))?;
    }
    Ok(out)
}

/// Encodes an RGB image as JPEG at `quality` (1..=100) with OpenCV.
pub fn encode_jpeg(img: &RgbImage, quality: i32) -> Result<Vec<u8>, VisionError> {
    let view = rgb_view(img)?;
    let mut bgr = Mat::default();
    imgproc::cvt_color_def(&view, &mut bgr, imgproc::COLOR_RGB2BGR)
        .map_err(VisionError::opencv("cvt_color RGB to BGR"))?;
    let mut buf = Vector::<u8>::new();
    let params = Vector::<i32>::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, quality]);
    imgcodecs::imencode(".jpg", &bgr, &mut buf, &params)
        .map_err(VisionError::opencv("encoding a JPEG"))?;
    Ok(buf.to_vec())
}

/// Sets how many threads OpenCV may use (`1`: everything on the calling thread, which is how
/// the speed bar of one core is measured; `0`: OpenCV's default).
pub fn set_opencv_threads(n: i32) -> Result<(), VisionError> {
    opencv::core::set_num_threads(n).map_err(VisionError::opencv("set_num_threads"))
}

/// Width and height as OpenCV's `i32`, rejecting empty and oversized images.
pub(crate) fn dims(img: &RgbImage) -> Result<(i32, i32), VisionError> {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return Err(VisionError::EmptyImage("RgbImage".into()));
    }
    match (i32::try_from(w), i32::try_from(h)) {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(VisionError::Geometry(format!("{w}x{h} is too large"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;
    use opencv::core::{Rect, Vec3b};

    fn sample_image() -> RgbImage {
        RgbImage::from_fn(5, 3, |x, y| Rgb([x as u8 * 50, y as u8 * 100, 7]))
    }

    #[test]
    fn rgb_becomes_bgr_in_a_mat_and_comes_back() {
        let img = sample_image();
        let mat = rgb_to_mat(&img).unwrap();
        assert_eq!((mat.cols(), mat.rows(), mat.typ()), (5, 3, CV_8UC3));
        // Pixel (x=4, y=2) is RGB (200, 200, 7): BGR in OpenCV.
        let p = *mat.at_2d::<Vec3b>(2, 4).unwrap();
        assert_eq!(p.0, [7, 200, 200]);
        let q = *mat.at_2d::<Vec3b>(1, 1).unwrap();
        assert_eq!(q.0, [7, 100, 50]);
        assert_eq!(mat_to_rgb(&mat).unwrap(), img);
    }

    #[test]
    fn a_region_of_interest_converts_too() {
        let img = sample_image();
        let mat = rgb_to_mat(&img).unwrap();
        let roi = Mat::roi(&mat, Rect::new(1, 1, 3, 2)).unwrap();
        assert!(!roi.is_continuous());
        let part = mat_to_rgb(&roi).unwrap();
        assert_eq!(part.dimensions(), (3, 2));
        assert_eq!(part.get_pixel(0, 0), img.get_pixel(1, 1));
        assert_eq!(part.get_pixel(2, 1), img.get_pixel(3, 2));
    }

    #[test]
    fn empty_inputs_are_errors() {
        assert!(matches!(
            mat_to_rgb(&Mat::default()),
            Err(VisionError::EmptyImage(_))
        ));
        assert!(matches!(
            rgb_to_mat(&RgbImage::new(0, 4)),
            Err(VisionError::EmptyImage(_))
        ));
        let float = Mat::new_rows_cols_with_default(2, 2, opencv::core::CV_32FC1, Scalar::all(1.0))
            .unwrap();
        assert!(matches!(
            mat_to_rgb(&float),
            Err(VisionError::UnsupportedMat { .. })
        ));
    }

    #[test]
    fn read_rgb_decodes_a_png_in_rgb_order_and_reports_missing_files_and_folders() {
        let img = sample_image();
        let dir = std::env::temp_dir().join(format!("tablejudge-vision-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sample.png");
        img.save(&path).unwrap();
        let back = read_rgb(&path);
        let missing = read_rgb(&dir.join("missing.png"));
        let folder = read_rgb(&dir);
        let garbage_path = dir.join("garbage.png");
        std::fs::write(&garbage_path, b"not a picture").unwrap();
        let garbage = read_rgb(&garbage_path);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(back.unwrap(), img);
        let message = |r: Result<RgbImage, VisionError>| r.unwrap_err().to_string();
        assert!(message(missing).ends_with("missing.png: no such file"));
        assert!(message(folder).ends_with(": a folder, not an image file"));
        assert!(matches!(garbage, Err(VisionError::EmptyImage(_))));
    }
}
