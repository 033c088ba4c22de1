//! Rectification: from a grid's four outer corners in a photo to a fronto-parallel image of
//! its cells, `rows × cols` squares of `cell_px` pixels (OpenCV's perspective transform and
//! warp).

use image::RgbImage;
use opencv::core::{Mat, Point2f, Size, Vector, CV_64F};
use opencv::prelude::*;
use opencv::{calib3d, imgproc};

use crate::error::VisionError;
use crate::mat::{mat_to_rgb, rgb_to_mat};

/// Four points `[x, y]` in image pixels: a grid's outer corners, clockwise on screen from the
/// corner of the cell that becomes row 0, column 0 (top-left, top-right, bottom-right,
/// bottom-left when the grid is upright).
pub type Quad = [[f32; 2]; 4];

/// A 3 × 3 homography, row-major, mapping `[x, y, 1]` to homogeneous coordinates.
pub type Homography = [[f64; 3]; 3];

/// The rectified grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Rectified {
    /// `cols · cell_px` × `rows · cell_px` pixels; cell (r, c) covers pixel columns
    /// `c·cell_px .. (c+1)·cell_px` and the same rows.
    pub image: RgbImage,
    /// The map from source-image pixels to rectified pixels.
    pub homography: Homography,
}

/// The size of a rectified grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridSize {
    /// Number of cell rows.
    pub rows: usize,
    /// Number of cell columns.
    pub cols: usize,
    /// Side of one cell in the rectified image, in pixels.
    pub cell_px: u32,
}

impl GridSize {
    /// Width and height of the rectified image, checked to fit OpenCV's `i32`.
    fn pixels(self) -> Result<(i32, i32), VisionError> {
        let side = |n: usize| {
            u64::try_from(n)
                .ok()
                .and_then(|n| n.checked_mul(u64::from(self.cell_px)))
                .and_then(|v| i32::try_from(v).ok())
                .filter(|&v| v > 0)
        };
        match (side(self.cols), side(self.rows)) {
            (Some(w), Some(h)) => Ok((w, h)),
            _ => Err(VisionError::Geometry(format!(
                "a {}x{} grid of {} px cells has no usable size",
                self.rows, self.cols, self.cell_px
            ))),
        }
    }

    /// The outer corners of the rectified image (pixel centres at integers, so the image's
    /// outer edge is half a pixel outside the first and last pixel centres).
    fn target(self) -> Result<Quad, VisionError> {
        let (w, h) = self.pixels()?;
        let (l, t, r, b) = (-0.5, -0.5, w as f32 - 0.5, h as f32 - 0.5);
        Ok([[l, t], [r, t], [r, b], [l, b]])
    }
}

/// Convex, non-degenerate, finite and clockwise on screen (y pointing down). A quad given
/// anticlockwise would rectify to a mirror image, which the rules treat as a different grid.
pub fn check_quad(q: &Quad) -> Result<(), VisionError> {
    let ok = (0..4).all(|i| {
        let [a, b, c] = [q[i], q[(i + 1) % 4], q[(i + 2) % 4]];
        let cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        cross.is_finite() && cross > 1e-3
    });
    if ok {
        Ok(())
    } else {
        Err(VisionError::Geometry(format!(
            "corners {q:?} are not a convex quadrilateral listed clockwise"
        )))
    }
}

fn points(q: &Quad) -> Vector<Point2f> {
    q.iter().map(|&[x, y]| Point2f::new(x, y)).collect()
}

fn to_array(m: &Mat) -> Result<Homography, VisionError> {
    if m.empty() || m.rows() != 3 || m.cols() != 3 || m.typ() != CV_64F {
        return Err(VisionError::Geometry(
            "OpenCV found no homography for these points".into(),
        ));
    }
    let mut h = [[0.0; 3]; 3];
    for (r, row) in h.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            // r, c < 3: the casts cannot truncate.
            *v = *m
                .at_2d::<f64>(r as i32, c as i32)
                .map_err(VisionError::opencv("reading a homography"))?;
        }
    }
    Ok(h)
}

fn to_mat(h: &Homography) -> Result<Mat, VisionError> {
    Mat::from_slice_2d(&h[..]).map_err(VisionError::opencv("building a homography"))
}

/// The homography taking `corners` in a photo to the corners of the rectified grid image.
pub fn grid_homography(corners: &Quad, size: GridSize) -> Result<Homography, VisionError> {
    check_quad(corners)?;
    let m = imgproc::get_perspective_transform_def(&points(corners), &points(&size.target()?))
        .map_err(VisionError::opencv("get_perspective_transform"))?;
    to_array(&m)
}

/// The least-squares homography taking `from[i]` to `to[i]` (four or more correspondences,
/// e.g. every lattice point of a grid), with OpenCV's `find_homography`.
pub fn fit_homography(from: &[[f32; 2]], to: &[[f32; 2]]) -> Result<Homography, VisionError> {
    if from.len() != to.len() || from.len() < 4 {
        return Err(VisionError::Geometry(format!(
            "a homography needs at least 4 point pairs, got {} and {}",
            from.len(),
            to.len()
        )));
    }
    let pts = |p: &[[f32; 2]]| -> Vector<Point2f> {
        p.iter().map(|&[x, y]| Point2f::new(x, y)).collect()
    };
    let mut mask = Mat::default();
    let m = calib3d::find_homography_def(&pts(from), &pts(to), &mut mask)
        .map_err(VisionError::opencv("find_homography"))?;
    to_array(&m)
}

/// The homography taking `from[i]` to `to[i]` with perspective along the axes `perspective`
/// allows, [x, y] (an axis not allowed keeps lines parallel along it): an affine map for
/// `[false, false]`. Fitted by linear least squares on `u (h20 x + h21 y + 1) = h00 x +
/// h01 y + h02` and the same for v, the terms not allowed left out (OpenCV's `solve` on the
/// normal equations, by LU): a lattice is started from every seed of a photo, hundreds on a
/// patterned cloth, so the fit must be cheap. Needs three pairs not on one line, and one
/// more for each axis with perspective.
pub fn fit_projective(
    from: &[[f32; 2]],
    to: &[[f32; 2]],
    perspective: [bool; 2],
) -> Result<Homography, VisionError> {
    let free: Vec<usize> = (0..2).filter(|&k| perspective[k]).collect();
    let unknowns = 6 + free.len();
    if from.len() != to.len() || 2 * from.len() < unknowns {
        return Err(VisionError::Geometry(format!(
            "{} point pairs are too few for a map of {unknowns} terms",
            from.len().min(to.len())
        )));
    }
    let mut normal = vec![vec![0.0f64; unknowns]; unknowns];
    let mut rhs = vec![vec![0.0f64; 1]; unknowns];
    for (&[x, y], &[u, v]) in from.iter().zip(to) {
        let (x, y, u, v) = (f64::from(x), f64::from(y), f64::from(u), f64::from(v));
        for (target, own) in [
            (u, [x, y, 1.0, 0.0, 0.0, 0.0]),
            (v, [0.0, 0.0, 0.0, x, y, 1.0]),
        ] {
            // The terms of this equation, on the stack: a fit runs per refit of every start.
            let mut row = [0.0f64; 8];
            row[..6].copy_from_slice(&own);
            for (i, &k) in free.iter().enumerate() {
                row[6 + i] = -target * [x, y][k];
            }
            for r in 0..unknowns {
                for c in 0..unknowns {
                    normal[r][c] += row[r] * row[c];
                }
                rhs[r][0] += row[r] * target;
            }
        }
    }
    let cv = VisionError::opencv;
    let a = Mat::from_slice_2d(&normal).map_err(cv("building a projective fit"))?;
    let b = Mat::from_slice_2d(&rhs).map_err(cv("building a projective fit"))?;
    let mut h = Mat::default();
    let solved = opencv::core::solve(&a, &b, &mut h, opencv::core::DECOMP_LU)
        .map_err(cv("solving a projective fit"))?;
    if !solved {
        return Err(VisionError::Geometry(
            "the points lie on one line: they fit no map".into(),
        ));
    }
    let term = |i: usize| {
        h.at_2d::<f64>(i as i32, 0)
            .copied()
            .map_err(cv("reading a projective fit"))
    };
    let mut last = [0.0, 0.0, 1.0];
    for (i, &k) in free.iter().enumerate() {
        last[k] = term(6 + i)?;
    }
    Ok([
        [term(0)?, term(1)?, term(2)?],
        [term(3)?, term(4)?, term(5)?],
        last,
    ])
}

/// Where `h` takes the point `[x, y]`; `None` when it goes to infinity.
pub fn apply_homography(h: &Homography, [x, y]: [f32; 2]) -> Option<[f32; 2]> {
    let (x, y) = (f64::from(x), f64::from(y));
    let w = h[2][0] * x + h[2][1] * y + h[2][2];
    if w.abs() < 1e-12 {
        return None;
    }
    let u = (h[0][0] * x + h[0][1] * y + h[0][2]) / w;
    let v = (h[1][0] * x + h[1][1] * y + h[1][2]) / w;
    Some([u as f32, v as f32])
}

/// Warps `image` so that the grid with outer corners `corners` fills a fronto-parallel image
/// of `size` (bilinear interpolation; outside the photo is black).
pub fn rectify(image: &RgbImage, corners: &Quad, size: GridSize) -> Result<Rectified, VisionError> {
    let src = rgb_to_mat(image)?;
    let (w, h) = size.pixels()?;
    let homography = grid_homography(corners, size)?;
    let mut dst = Mat::default();
    imgproc::warp_perspective_def(&src, &mut dst, &to_mat(&homography)?, Size::new(w, h))
        .map_err(VisionError::opencv("warp_perspective"))?;
    Ok(Rectified {
        image: mat_to_rgb(&dst)?,
        homography,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tablejudge_render::{render_grid, GridStyle};
    use tablejudge_rules::{Grid, Srgb};

    fn colours() -> Grid<Srgb> {
        // Neighbours differ strongly, so a cell shifted by half a cell would be caught.
        Grid::from_fn(4, 6, |p| {
            let i = (p.row * 6 + p.col) as u8;
            Srgb::new(
                i.wrapping_mul(97),
                i.wrapping_mul(53).wrapping_add(40),
                255 - i * 9,
            )
        })
    }

    fn close(a: [u8; 3], b: Srgb, tol: u8) -> bool {
        a.iter()
            .zip(b.to_array())
            .all(|(&x, y)| x.abs_diff(y) <= tol)
    }

    #[test]
    fn a_rendered_perspective_view_rectifies_back_to_its_cells() {
        let g = colours();
        let flat = render_grid(&g, &GridStyle::default()).unwrap();
        // A steep view from the lower right, as a phone on the table would see it.
        let view: Quad = [[140.0, 60.0], [520.0, 95.0], [580.0, 330.0], [90.0, 300.0]];
        let photo = flat
            .perspective(view, 640, 400, Srgb::new(90, 80, 70))
            .unwrap();
        let size = GridSize {
            rows: 4,
            cols: 6,
            cell_px: 20,
        };
        let r = rectify(&photo.image, &photo.corners, size).unwrap();
        assert_eq!(r.image.dimensions(), (120, 80));
        for (p, &c) in g.iter() {
            // The centre and four points half-way to the cell's edges.
            let (cx, cy) = (p.col as u32 * 20 + 10, p.row as u32 * 20 + 10);
            for (x, y) in [
                (cx, cy),
                (cx - 5, cy - 5),
                (cx + 5, cy - 5),
                (cx - 5, cy + 5),
                (cx + 5, cy + 5),
            ] {
                let got = r.image.get_pixel(x, y).0;
                assert!(close(got, c, 3), "{p:?} at ({x}, {y}): {got:?} vs {c}");
            }
        }
        // The homography takes the photo's corners to the rectified image's corners.
        let corner = apply_homography(&r.homography, view[2]).unwrap();
        assert!((corner[0] - 119.5).abs() < 1e-3 && (corner[1] - 79.5).abs() < 1e-3);
    }

    #[test]
    fn fit_homography_recovers_a_known_map_from_lattice_points() {
        let view: Quad = [[140.0, 60.0], [520.0, 95.0], [580.0, 330.0], [90.0, 300.0]];
        let size = GridSize {
            rows: 3,
            cols: 4,
            cell_px: 10,
        };
        let truth = grid_homography(&view, size).unwrap();
        // Every lattice point of a 3x4 grid, mapped from the rectified image into the photo.
        let mut from = Vec::new();
        let mut to = Vec::new();
        for r in 0..=3 {
            for c in 0..=4 {
                let q = [c as f32 * 10.0 - 0.5, r as f32 * 10.0 - 0.5];
                let inv = invert(&truth);
                from.push(apply_homography(&inv, q).unwrap());
                to.push(q);
            }
        }
        let fitted = fit_homography(&from, &to).unwrap();
        for &p in &from {
            let (a, b) = (
                apply_homography(&truth, p).unwrap(),
                apply_homography(&fitted, p).unwrap(),
            );
            assert!(
                (a[0] - b[0]).abs() < 1e-2 && (a[1] - b[1]).abs() < 1e-2,
                "{a:?} vs {b:?}"
            );
        }
        assert!(fit_homography(&from[..3], &to[..3]).is_err());
    }

    #[test]
    fn fit_projective_recovers_perspective_along_the_axes_it_is_allowed() {
        // Perspective along x only: a row of cards seen foreshortened along it.
        let truth: Homography = [[20.0, -4.0, 600.0], [3.0, 18.0, 300.0], [0.02, 0.0, 1.0]];
        // The corners of seven squares in a row: they span one square across.
        let from: Vec<[f32; 2]> = (0..8)
            .flat_map(|c| [[c as f32 - 3.5, -0.5], [c as f32 - 3.5, 0.5]])
            .collect();
        let to: Vec<[f32; 2]> = from
            .iter()
            .map(|&p| apply_homography(&truth, p).unwrap())
            .collect();
        let fitted = fit_projective(&from, &to, [true, false]).unwrap();
        for p in [[-3.5, 2.0], [3.5, -2.0], [0.0, 2.5]] {
            let (a, b) = (
                apply_homography(&truth, p).unwrap(),
                apply_homography(&fitted, p).unwrap(),
            );
            assert!(
                (a[0] - b[0]).hypot(a[1] - b[1]) < 1e-2,
                "{p:?}: {a:?} vs {b:?}"
            );
        }
        assert_eq!(fitted[2][1], 0.0);
    }

    #[test]
    fn fit_projective_without_perspective_is_the_least_squares_affine_map() {
        let map = |[x, y]: [f32; 2]| [12.0 * x - 7.0 * y + 600.0, 6.0 * x + 11.0 * y + 300.0];
        let from = [
            [-0.5, -0.5],
            [0.5, -0.5],
            [0.5, 0.5],
            [-0.5, 0.5],
            [2.0, 0.0],
        ];
        let exact: Vec<[f32; 2]> = from.iter().map(|&p| map(p)).collect();
        let fitted = fit_projective(&from, &exact, [false; 2]).unwrap();
        assert_eq!(fitted[2], [0.0, 0.0, 1.0]);
        for p in [[2.0, 2.0], [-2.0, 2.0], [0.0, -2.0]] {
            let (a, b) = (map(p), apply_homography(&fitted, p).unwrap());
            assert!(
                (a[0] - b[0]).hypot(a[1] - b[1]) < 1e-3,
                "{p:?}: {a:?} vs {b:?}"
            );
        }
        // Targets nudged by a pixel: the least-squares fit (numpy's lstsq gives u = 11.762 x
        // - 7 y + 600.095, v = 6 x + 10 y + 300).
        let nudge = [[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0], [0.0, 0.0], [0.0, 0.0]];
        let noisy: Vec<[f32; 2]> = exact
            .iter()
            .zip(nudge)
            .map(|(&[u, v], [dx, dy])| [u + dx, v + dy])
            .collect();
        let fitted = fit_projective(&from, &noisy, [false; 2]).unwrap();
        let want = [[11.762, -7.0, 600.095], [6.0, 10.0, 300.0]];
        for (got, want) in fitted.iter().zip(want) {
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-3, "{fitted:?}");
            }
        }
        assert!(fit_projective(&from[..2], &exact[..2], [false; 2]).is_err());
        // Points on one line fit no affine map.
        let line = [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]];
        assert!(fit_projective(&line, &line, [false; 2]).is_err());
    }

    /// The inverse of a 3x3 matrix by cofactors (test helper; a homography is invertible).
    fn invert(m: &Homography) -> Homography {
        let c = |r0: usize, r1: usize, c0: usize, c1: usize| {
            m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
        };
        let adj = [
            [c(1, 2, 1, 2), -c(0, 2, 1, 2), c(0, 1, 1, 2)],
            [-c(1, 2, 0, 2), c(0, 2, 0, 2), -c(0, 1, 0, 2)],
            [c(1, 2, 0, 1), -c(0, 2, 0, 1), c(0, 1, 0, 1)],
        ];
        let det = m[0][0] * adj[0][0] + m[0][1] * adj[1][0] + m[0][2] * adj[2][0];
        adj.map(|row| row.map(|v| v / det))
    }

    #[test]
    fn mirrored_or_degenerate_corners_and_sizes_are_rejected() {
        let img = RgbImage::new(50, 50);
        let size = GridSize {
            rows: 2,
            cols: 2,
            cell_px: 8,
        };
        let anticlockwise: Quad = [[5.0, 5.0], [5.0, 40.0], [40.0, 40.0], [40.0, 5.0]];
        assert!(matches!(
            rectify(&img, &anticlockwise, size),
            Err(VisionError::Geometry(_))
        ));
        let flat: Quad = [[5.0, 5.0], [20.0, 5.0], [40.0, 5.0], [5.0, 40.0]];
        assert!(rectify(&img, &flat, size).is_err());
        let ok: Quad = [[5.0, 5.0], [40.0, 5.0], [40.0, 40.0], [5.0, 40.0]];
        assert!(rectify(&img, &ok, size).is_ok());
        let empty = GridSize { rows: 0, ..size };
        assert!(rectify(&img, &ok, empty).is_err());
        assert!(matches!(
            rectify(&RgbImage::new(0, 0), &ok, size),
            Err(VisionError::EmptyImage(_))
        ));
    }
}
