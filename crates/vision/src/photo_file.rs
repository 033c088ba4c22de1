//! What a photo file says about itself before a pixel is decoded: how large it declares
//! itself, and whether a JPEG's data runs to its end. Decoding allocates what the header
//! declares (a few kilobytes of PNG can declare 100,000 × 100,000 pixels, 30 GB), and OpenCV
//! decodes a truncated JPEG without complaint, greying the part that is missing.

use std::io::Cursor;

use crate::error::VisionError;

/// The most pixels a photo may declare: 100 megapixels, above what phones write by default
/// (12–50 MP) and far below what would exhaust a laptop's memory (3 bytes a pixel, several
/// copies while a photo is read).
pub const MAX_PHOTO_PIXELS: u64 = 100_000_000;

/// Refuses, before decoding, a photo that declares more than [`MAX_PHOTO_PIXELS`] and a JPEG
/// whose data stops before its end marker. A file whose format the header reader does not
/// know is left to the decoder (which has its own limit).
pub(crate) fn check_before_decoding(bytes: &[u8], name: &str) -> Result<(), VisionError> {
    if let Some((width, height)) = declared_size(bytes) {
        if u64::from(width) * u64::from(height) > MAX_PHOTO_PIXELS {
            return Err(VisionError::TooLarge {
                name: name.to_owned(),
                width,
                height,
            });
        }
    }
    if is_jpeg(bytes) && jpeg_ends_early(bytes) {
        return Err(VisionError::Truncated(name.to_owned()));
    }
    Ok(())
}

/// Width and height as the file's header declares them (before any EXIF rotation), for the
/// formats the `image` crate reads; `None` for others and for a header it cannot parse.
pub fn declared_size(bytes: &[u8]) -> Option<(u32, u32)> {
    image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

fn is_jpeg(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xD8, 0xFF])
}

/// Whether a JPEG's data stops before its end-of-image marker: each marker segment is
/// skipped by its length, and the entropy-coded data after a start-of-scan is walked to the
/// next marker (0xFF followed by neither 0x00, a byte stuffed into the data, nor a restart
/// marker), until the end marker or the end of the bytes. Data after the end marker (a
/// phone's motion-photo video, padding) is ignored; a file whose segments are garbled
/// (no marker where one must be) is not called truncated: that is the decoder's to report.
pub fn jpeg_ends_early(bytes: &[u8]) -> bool {
    const EOI: u8 = 0xD9;
    const SOS: u8 = 0xDA;
    let mut at = 2; // after the start-of-image marker
    loop {
        // Fill bytes (0xFF) may precede a marker.
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        let (Some(&first), Some(&marker)) = (bytes.get(at), bytes.get(at + 1)) else {
            return true;
        };
        if first != 0xFF {
            return false;
        }
        at += 2;
        match marker {
            EOI => return false,
            // Markers without a length: restarts and TEM.
            0xD0..=0xD7 | 0x01 => continue,
            _ => {}
        }
        let (Some(&hi), Some(&lo)) = (bytes.get(at), bytes.get(at + 1)) else {
            return true;
        };
        let length = usize::from(u16::from_be_bytes([hi, lo]));
        if length < 2 {
            return false;
        }
        at += length;
        if marker == SOS {
            // The scan's data runs to the next marker that is not a restart.
            loop {
                match (bytes.get(at), bytes.get(at + 1)) {
                    (Some(&0xFF), Some(&next))
                        if next != 0x00 && !(0xD0..=0xD7).contains(&next) =>
                    {
                        break
                    }
                    (Some(_), Some(_)) => at += 1,
                    _ => return true,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mat::{decode_rgb, encode_jpeg};
    use image::RgbImage;

    fn jpeg() -> Vec<u8> {
        let img = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, 90])
        });
        encode_jpeg(&img, 90).unwrap()
    }

    #[test]
    fn a_whole_jpeg_runs_to_its_end_and_every_cut_of_it_ends_early() {
        let whole = jpeg();
        assert!(!jpeg_ends_early(&whole));
        // Data after the end marker (a motion photo's video) does not make it end early.
        let mut longer = whole.clone();
        longer.extend_from_slice(b"\0\0\0\x18ftypmp42 and a video");
        assert!(!jpeg_ends_early(&longer));
        for cut in (3..whole.len() - 1).step_by(7) {
            assert!(
                jpeg_ends_early(&whole[..cut]),
                "cut at {cut} of {}",
                whole.len()
            );
        }
    }

    #[test]
    fn a_garbled_jpeg_is_left_to_the_decoder() {
        let mut garbled = jpeg();
        garbled[2..40].fill(0);
        assert!(!jpeg_ends_early(&garbled));
        assert!(matches!(
            decode_rgb(&garbled),
            Err(VisionError::EmptyImage(_))
        ));
    }

    #[test]
    fn a_truncated_jpeg_is_refused_before_decoding() {
        let whole = jpeg();
        let cut = &whole[..whole.len() * 2 / 3];
        // OpenCV alone decodes it, the missing part grey.
        assert!(matches!(
            decode_rgb(cut),
            Err(VisionError::Truncated(name)) if name == "decoded image"
        ));
        assert_eq!(decode_rgb(&whole).unwrap().dimensions(), (64, 48));
    }

    /// A PNG of a few bytes whose header declares `width` × `height` pixels.
    fn png_declaring(width: u32, height: u32) -> Vec<u8> {
        let mut png = Vec::new();
        let encoder = image::codecs::png::PngEncoder::new(&mut png);
        // Encode a real 1×1 image, then rewrite the size in its IHDR chunk (and its CRC).
        image::ImageEncoder::write_image(encoder, &[1, 2, 3], 1, 1, image::ExtendedColorType::Rgb8)
            .unwrap();
        png[16..20].copy_from_slice(&width.to_be_bytes());
        png[20..24].copy_from_slice(&height.to_be_bytes());
        let crc = crc32(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        png
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn a_photo_declaring_more_pixels_than_the_limit_is_refused_unread() {
        let bomb = png_declaring(100_000, 100_000);
        assert_eq!(declared_size(&bomb), Some((100_000, 100_000)));
        assert_eq!(
            decode_rgb(&bomb),
            Err(VisionError::TooLarge {
                name: "decoded image".into(),
                width: 100_000,
                height: 100_000
            })
        );
        // Just under the limit the header passes (and the decoder finds the data missing).
        assert_eq!(
            declared_size(&png_declaring(10_000, 10_000)),
            Some((10_000, 10_000))
        );
        assert!(check_before_decoding(&png_declaring(10_000, 10_000), "x").is_ok());
        assert!(check_before_decoding(&png_declaring(10_000, 10_001), "x").is_err());
    }

    /// `jpeg` with an EXIF block saying the camera was turned: `orientation` 6 means the
    /// stored pixels must be turned a quarter clockwise to be seen upright.
    fn with_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
        // A big-endian TIFF header and one IFD holding one SHORT entry: Orientation (0x0112).
        let mut tiff = b"MM\0\x2a\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01".to_vec();
        tiff.extend_from_slice(&orientation.to_be_bytes());
        tiff.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        let len = u16::try_from(2 + 6 + tiff.len()).unwrap();
        let mut out = jpeg[..2].to_vec();
        out.extend_from_slice(&[0xFF, 0xE1]);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(b"Exif\0\0");
        out.extend_from_slice(&tiff);
        out.extend_from_slice(&jpeg[2..]);
        out
    }

    #[test]
    fn a_photo_stored_turned_is_decoded_upright_by_its_exif_orientation() {
        let turned = with_orientation(&jpeg(), 6);
        assert!(!jpeg_ends_early(&turned));
        let upright = decode_rgb(&turned).unwrap();
        assert_eq!(upright.dimensions(), (48, 64));
        // The stored top-left pixel (dark red, blue 90) is now at the top right.
        let stored = decode_rgb(&jpeg()).unwrap();
        let near = |a: &image::Rgb<u8>, b: &image::Rgb<u8>| {
            a.0.iter().zip(b.0).all(|(x, y)| x.abs_diff(y) <= 12)
        };
        assert!(near(upright.get_pixel(47, 0), stored.get_pixel(0, 0)));
        assert!(near(upright.get_pixel(0, 63), stored.get_pixel(63, 47)));
    }
}
