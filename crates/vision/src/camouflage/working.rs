//! The size a Camouflage photo is read at. The reader measures everything against the photo
//! (symbols from a 250th of its short side, windows of a 24th), so a phone's 12 megapixels
//! tell it nothing that 1920 pixels across do not, and cost six times the time and memory.
//! A larger photo is read from a copy scaled down (area-averaged, as a camera bins pixels),
//! and the reading is given back in the photo's own pixels.

use std::borrow::Cow;

use image::RgbImage;

use crate::camera::Camera;
use crate::error::VisionError;
use crate::mat::{rgb_mat_to_image, rgb_view, shrink};
use crate::rectify::Homography;

/// The longest side a Camouflage photo is read at, pixels: a Full HD frame's width.
pub const WORKING_LONG_SIDE: u32 = 1920;

/// A photo as the reader works on it, and how its pixels map to the photo's.
pub(crate) struct Working<'a> {
    pub image: Cow<'a, RgbImage>,
    pub camera: Option<Camera>,
    pub map: PixelMap,
}

/// Photo pixels per working pixel, across and down (1 when the photo is read as it is).
/// Pixel centres correspond: working pixel `x` covers photo pixels from `x·s` to `(x+1)·s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PixelMap {
    sx: f64,
    sy: f64,
}

impl PixelMap {
    pub fn is_identity(self) -> bool {
        self.sx == 1.0 && self.sy == 1.0
    }

    pub fn to_photo(self, [x, y]: [f32; 2]) -> [f32; 2] {
        let f = |v: f32, s: f64| ((f64::from(v) + 0.5) * s - 0.5) as f32;
        [f(x, self.sx), f(y, self.sy)]
    }

    /// The inverse map: photo pixels to working pixels.
    pub fn inverse(self) -> PixelMap {
        PixelMap {
            sx: self.sx.recip(),
            sy: self.sy.recip(),
        }
    }

    /// A homography into working pixels followed by this map: into photo pixels.
    pub fn after(self, h: &Homography) -> Homography {
        let (cx, cy) = ((self.sx - 1.0) / 2.0, (self.sy - 1.0) / 2.0);
        [
            std::array::from_fn(|k| self.sx * h[0][k] + cx * h[2][k]),
            std::array::from_fn(|k| self.sy * h[1][k] + cy * h[2][k]),
            h[2],
        ]
    }

    /// A length (a symbol's size) in photo pixels.
    pub fn length(self, v: f32) -> f32 {
        (f64::from(v) * (self.sx * self.sy).sqrt()) as f32
    }
}

/// `image` scaled down to [`WORKING_LONG_SIDE`] when it is longer, with `camera` scaled
/// alike (its distortion, in normalised coordinates, is unchanged).
pub(crate) fn working_copy<'a>(
    image: &'a RgbImage,
    camera: Option<&Camera>,
) -> Result<Working<'a>, VisionError> {
    let (w, h) = image.dimensions();
    let long = w.max(h);
    if long <= WORKING_LONG_SIDE {
        return Ok(Working {
            image: Cow::Borrowed(image),
            camera: camera.copied(),
            map: PixelMap { sx: 1.0, sy: 1.0 },
        });
    }
    let f = f64::from(WORKING_LONG_SIDE) / f64::from(long);
    let (ww, wh) = (
        ((f64::from(w) * f).round() as u32).max(1),
        ((f64::from(h) * f).round() as u32).max(1),
    );
    let small = shrink(&rgb_view(image)?, ww, wh)?;
    // Resized from a view of the RGB image, the Mat holds RGB.
    let small = rgb_mat_to_image(&small)?;
    let map = PixelMap {
        sx: f64::from(w) / f64::from(ww),
        sy: f64::from(h) / f64::from(wh),
    };
    let camera = camera.map(|c| {
        let back = map.inverse();
        let [cx, cy] = back.to_photo([c.cx as f32, c.cy as f32]);
        Camera {
            fx: c.fx * back.sx,
            fy: c.fy * back.sy,
            cx: f64::from(cx),
            cy: f64::from(cy),
            dist: c.dist,
        }
    });
    Ok(Working {
        image: Cow::Owned(small),
        camera,
        map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_photo_up_to_the_working_size_is_read_as_it_is() {
        let image = RgbImage::new(1920, 1080);
        let w = working_copy(&image, None).unwrap();
        assert!(matches!(w.image, Cow::Borrowed(_)));
        assert!(w.map.is_identity());
    }

    #[test]
    fn a_larger_photo_is_scaled_down_and_its_pixels_map_back() {
        // A white dot at (3001, 1499) on a 4000 × 3000 photo.
        let mut image = RgbImage::new(4000, 3000);
        for y in 1497..1502 {
            for x in 2999..3004 {
                image.put_pixel(x, y, image::Rgb([255, 200, 100]));
            }
        }
        let camera = Camera {
            fx: 3000.0,
            fy: 3000.0,
            cx: 1999.5,
            cy: 1499.5,
            dist: [0.1, 0.0, 0.0, 0.0, 0.0],
        };
        let w = working_copy(&image, Some(&camera)).unwrap();
        assert_eq!(w.image.dimensions(), (1920, 1440));
        // The dot, brightest in the copy, in RGB order still.
        let (mut best, mut at) = (0u32, (0, 0));
        for (x, y, p) in w.image.enumerate_pixels() {
            let v = u32::from(p[0]) + u32::from(p[1]);
            if v > best {
                (best, at) = (v, (x, y));
            }
        }
        let px = w.image.get_pixel(at.0, at.1);
        assert!(px[0] > px[1] && px[1] > px[2], "{px:?}");
        let back = w.map.to_photo([at.0 as f32, at.1 as f32]);
        assert!(
            (back[0] - 3001.0).abs() < 2.0 && (back[1] - 1499.0).abs() < 2.0,
            "{back:?}"
        );
        // The lens scaled alike: the photo's centre is the copy's.
        let c = w.camera.unwrap();
        assert!(
            (c.cx - 959.5).abs() < 1e-9 && (c.cy - 719.5).abs() < 1e-9,
            "{c:?}"
        );
        assert!((c.fx - 1440.0).abs() < 1e-9 && c.dist == camera.dist);
        // A homography into the copy, then the map: the same as mapping its points.
        let h: Homography = [[2.0, 0.1, 5.0], [0.2, 3.0, 7.0], [0.001, 0.0, 1.0]];
        let p = crate::rectify::apply_homography(&h, [10.0, 20.0]).unwrap();
        let q = crate::rectify::apply_homography(&w.map.after(&h), [10.0, 20.0]).unwrap();
        let r = w.map.to_photo(p);
        assert!((q[0] - r[0]).abs() < 1e-3 && (q[1] - r[1]).abs() < 1e-3);
        let there_and_back = w.map.inverse().to_photo(w.map.to_photo([10.0, 20.0]));
        assert!((there_and_back[0] - 10.0).abs() < 1e-4);
    }
}
