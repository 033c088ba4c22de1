//! Chessboard photos through a known lens, for checking camera calibration: the board flat
//! on the table, seen from many poses by one camera whose focal length, principal point and
//! radial distortion are known exactly.

use image::RgbImage;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::camera::{Camera, CameraSpec};
use crate::degrade::{develop, Linear, SensorSpec};

/// The lens and sensor every view shares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LensSpec {
    pub width: u32,
    pub height: u32,
    pub focal_px: f64,
    pub principal: [f64; 2],
    /// Radial distortion as [`CameraSpec::distortion_k1`] has it.
    pub distortion_k1: f64,
}

impl LensSpec {
    /// A webcam-like lens for a `width` × `height` picture: about 65° across, the principal
    /// point a little off centre, mild barrel distortion.
    pub fn webcam(width: u32, height: u32) -> LensSpec {
        LensSpec {
            width,
            height,
            focal_px: 0.78 * f64::from(width),
            principal: [0.503 * f64::from(width), 0.495 * f64::from(height)],
            distortion_k1: 0.06,
        }
    }
}

/// One photo of the board: where the camera stood and what its sensor did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChessboardView {
    pub camera: CameraSpec,
    pub sensor: SensorSpec,
}

/// A chessboard of `cols` × `rows` inner corners (squares one more each way), squares one
/// table unit wide, with a white margin of one square, centred on the table's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chessboard {
    pub cols: u32,
    pub rows: u32,
}

impl Chessboard {
    /// The table position of inner corner (`i`, `j`), `i` along the columns.
    pub fn corner(&self, i: u32, j: u32) -> [f64; 2] {
        [
            f64::from(i + 1) - f64::from(self.cols + 1) / 2.0,
            f64::from(j + 1) - f64::from(self.rows + 1) / 2.0,
        ]
    }

    /// Reflectance at table position `p`: the board's squares and margin, else the table.
    fn reflectance(&self, [x, y]: [f64; 2]) -> f32 {
        let (w, h) = (f64::from(self.cols + 1), f64::from(self.rows + 1));
        let (u, v) = (x + w / 2.0, y + h / 2.0);
        if !(-1.0..w + 1.0).contains(&u) || !(-1.0..h + 1.0).contains(&v) {
            return 0.18;
        }
        let inside = (0.0..w).contains(&u) && (0.0..h).contains(&v);
        if inside && (u.floor() as i64 + v.floor() as i64) % 2 == 0 {
            0.04
        } else {
            0.80
        }
    }
}

/// `n` views of `board` through `lens`: tilts to 45°, every direction and roll, the board
/// filling a third to two thirds of the picture and wholly in it.
pub fn chessboard_views(
    lens: &LensSpec,
    board: Chessboard,
    n: usize,
    seed: u64,
) -> Vec<ChessboardView> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut views = Vec::with_capacity(n);
    while views.len() < n {
        let spread = f64::from(board.cols + 3).max(f64::from(board.rows + 3));
        let camera = CameraSpec {
            width: lens.width,
            height: lens.height,
            focal_px: lens.focal_px,
            principal: lens.principal,
            distortion_k1: lens.distortion_k1,
            target: [rng.gen_range(-1.5..1.5), rng.gen_range(-1.0..1.0)],
            // The board's larger side over a third to two thirds of the picture's width.
            distance: lens.focal_px * spread / (f64::from(lens.width) * rng.gen_range(0.4..0.75)),
            tilt_deg: rng.gen_range(0.0..45.0),
            azimuth_deg: rng.gen_range(0.0..360.0),
            roll_deg: rng.gen_range(-180.0..180.0),
        };
        if !board_in_view(&camera, board) {
            continue;
        }
        let sensor = SensorSpec {
            defocus_sigma_px: rng.gen_range(0.3..0.9),
            vignetting: rng.gen_range(0.0..0.25),
            shot_noise: 0.0004,
            read_noise: 0.004,
            noise_luma_share: 0.6,
            jpeg_quality: 92,
            noise_seed: rng.gen(),
            ..SensorSpec::ideal()
        };
        views.push(ChessboardView { camera, sensor });
    }
    views
}

/// Whether the board with its margin lies wholly in the picture, 12 pixels from its edges.
fn board_in_view(spec: &CameraSpec, board: Chessboard) -> bool {
    let camera = Camera::new(spec);
    let (w, h) = (
        f64::from(board.cols + 1) / 2.0 + 1.0,
        f64::from(board.rows + 1) / 2.0 + 1.0,
    );
    let edge = 12.0;
    [[-w, -h], [w, -h], [w, h], [-w, h]].iter().all(|&[x, y]| {
        camera.project([x, y, 0.0]).is_some_and(|[px, py]| {
            (edge..f64::from(spec.width) - edge).contains(&px)
                && (edge..f64::from(spec.height) - edge).contains(&py)
        })
    })
}

/// The photo of one view: each pixel the average of 4 × 4 rays onto the table.
pub fn render_chessboard(view: &ChessboardView, board: Chessboard) -> RgbImage {
    let camera = Camera::new(&view.camera);
    let (w, h) = (view.camera.width as usize, view.camera.height as usize);
    let mut linear = Linear::new(w, h);
    const SUB: usize = 4;
    for py in 0..h {
        for px in 0..w {
            let mut sum = 0.0;
            for sy in 0..SUB {
                for sx in 0..SUB {
                    let x = px as f64 + (sx as f64 + 0.5) / SUB as f64 - 0.5;
                    let y = py as f64 + (sy as f64 + 0.5) / SUB as f64 - 0.5;
                    sum += camera
                        .ground(x, y, 0.0)
                        .map_or(0.0, |p| board.reflectance(p));
                }
            }
            let v = sum / (SUB * SUB) as f32;
            let i = 3 * (py * w + px);
            linear.data[i..i + 3].copy_from_slice(&[v, v, v]);
        }
    }
    develop(linear, &view.sensor)
}

/// Where the lens puts inner corner (`i`, `j`) in the picture: the truth a calibration's
/// detected corners are checked against.
pub fn corner_pixel(view: &ChessboardView, board: Chessboard, i: u32, j: u32) -> Option<[f64; 2]> {
    let [x, y] = board.corner(i, j);
    Camera::new(&view.camera).project([x, y, 0.0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_view_shows_the_whole_board_and_its_corners_where_the_lens_puts_them() {
        let lens = LensSpec::webcam(320, 240);
        let board = Chessboard { cols: 5, rows: 4 };
        let views = chessboard_views(&lens, board, 4, 7);
        assert_eq!(views.len(), 4);
        for view in &views {
            let img = render_chessboard(view, board);
            assert_eq!(img.dimensions(), (320, 240));
            // Around an inner corner the four squares alternate dark and light.
            let [cx, cy] = corner_pixel(view, board, 2, 1).unwrap();
            let camera = Camera::new(&view.camera);
            let [x, y] = board.corner(2, 1);
            let shade = |dx: f64, dy: f64| {
                let [px, py] = camera.project([x + dx, y + dy, 0.0]).unwrap();
                img.get_pixel(px.round() as u32, py.round() as u32)[0]
            };
            let (a, b) = (shade(0.35, 0.35), shade(-0.35, 0.35));
            let (c, d) = (shade(-0.35, -0.35), shade(0.35, -0.35));
            assert!(
                a.abs_diff(b) > 80 && c.abs_diff(d) > 80,
                "{cx} {cy}: {a} {b} {c} {d}"
            );
            assert!(a.abs_diff(c) < 60 && b.abs_diff(d) < 60, "{a} {b} {c} {d}");
        }
    }

    #[test]
    fn views_are_the_same_for_the_same_seed() {
        let lens = LensSpec::webcam(320, 240);
        let board = Chessboard { cols: 5, rows: 4 };
        assert_eq!(
            chessboard_views(&lens, board, 3, 1),
            chessboard_views(&lens, board, 3, 1)
        );
        assert_ne!(
            chessboard_views(&lens, board, 3, 1),
            chessboard_views(&lens, board, 3, 2)
        );
    }
}
