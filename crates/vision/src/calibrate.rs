//! Lens calibration from chessboard photos (OpenCV calib3d): the inner corners found in each
//! photo, then the focal lengths, principal point and distortion that best explain them all.

use image::{imageops, RgbImage};
use opencv::calib3d;
use opencv::core::{Mat, Point2f, Point3f, Size, TermCriteria, TermCriteria_Type, Vector};
use opencv::prelude::*;

use crate::camera::Camera;
use crate::error::VisionError;
use crate::mat::grey_view;

/// A chessboard by its inner corners: where four squares meet, `cols` along a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chessboard {
    pub cols: u32,
    pub rows: u32,
}

/// A calibrated lens and how well it explains the photos.
#[derive(Clone, Debug)]
pub struct LensCalibration {
    pub camera: Camera,
    /// RMS reprojection error over every corner of every photo, pixels.
    pub rms: f64,
    /// RMS reprojection error of each photo used, pixels, in the order given.
    pub per_view_rms: Vec<f64>,
}

/// The fewest photos a calibration is made from: fewer cannot tell focal length from tilt.
pub const MIN_VIEWS: usize = 3;

/// The inner corners of `board` in `image`, row by row, to a fraction of a pixel; `None` when
/// the whole board is not found (cut by the picture's edge, too blurred, glare).
pub fn find_chessboard(
    image: &RgbImage,
    board: Chessboard,
) -> Result<Option<Vec<[f32; 2]>>, VisionError> {
    // Searched in grey, as OpenCV's detector wants.
    let grey = imageops::grayscale(image);
    let view = grey_view(&grey)?;
    let mut corners = Vector::<Point2f>::new();
    // The sector-based detector: sub-pixel corners of its own, and robust to blur and noise.
    let found = calib3d::find_chessboard_corners_sb(
        &view,
        Size::new(board.cols as i32, board.rows as i32),
        &mut corners,
        calib3d::CALIB_CB_NORMALIZE_IMAGE
            | calib3d::CALIB_CB_EXHAUSTIVE
            | calib3d::CALIB_CB_ACCURACY,
    )
    .map_err(VisionError::opencv("finding a chessboard"))?;
    Ok(
        (found && corners.len() == (board.cols * board.rows) as usize)
            .then(|| corners.iter().map(|p| [p.x, p.y]).collect()),
    )
}

/// Calibrates a lens from the corners of `board` found in photos of `size` (width, height):
/// OpenCV's `calibrateCamera` with its five distortion coefficients.
pub fn calibrate_lens(
    views: &[Vec<[f32; 2]>],
    board: Chessboard,
    size: (u32, u32),
) -> Result<LensCalibration, VisionError> {
    if views.len() < MIN_VIEWS {
        return Err(VisionError::Geometry(format!(
            "{} photo{} with the whole board; a calibration needs at least {MIN_VIEWS}",
            views.len(),
            if views.len() == 1 { "" } else { "s" }
        )));
    }
    let board_points: Vector<Point3f> = (0..board.rows)
        .flat_map(|j| (0..board.cols).map(move |i| Point3f::new(i as f32, j as f32, 0.0)))
        .collect();
    let mut object_points = Vector::<Vector<Point3f>>::new();
    let mut image_points = Vector::<Vector<Point2f>>::new();
    for corners in views {
        object_points.push(board_points.clone());
        image_points.push(corners.iter().map(|&[x, y]| Point2f::new(x, y)).collect());
    }
    let mut matrix = Mat::default();
    let mut dist = Mat::default();
    let mut rvecs = Vector::<Mat>::new();
    let mut tvecs = Vector::<Mat>::new();
    let criteria = TermCriteria::new(
        TermCriteria_Type::COUNT as i32 + TermCriteria_Type::EPS as i32,
        100,
        1e-10,
    )
    .map_err(VisionError::opencv("setting the calibration's criteria"))?;
    let rms = calib3d::calibrate_camera(
        &object_points,
        &image_points,
        Size::new(size.0 as i32, size.1 as i32),
        &mut matrix,
        &mut dist,
        &mut rvecs,
        &mut tvecs,
        0,
        criteria,
    )
    .map_err(VisionError::opencv("calibrating the camera"))?;
    let at = |m: &Mat, r: i32, c: i32| -> Result<f64, VisionError> {
        m.at_2d::<f64>(r, c)
            .copied()
            .map_err(VisionError::opencv("reading the calibration"))
    };
    let mut coefficients = [0.0; 5];
    for (i, k) in coefficients.iter_mut().enumerate() {
        // OpenCV returns the coefficients as one row (or column) of doubles.
        *k = *dist
            .at::<f64>(i as i32)
            .map_err(VisionError::opencv("reading the distortion"))?;
    }
    let camera = Camera {
        fx: at(&matrix, 0, 0)?,
        fy: at(&matrix, 1, 1)?,
        cx: at(&matrix, 0, 2)?,
        cy: at(&matrix, 1, 2)?,
        dist: coefficients,
    };
    let per_view_rms = views
        .iter()
        .zip(rvecs.iter().zip(tvecs.iter()))
        .map(|(corners, (r, t))| view_rms(&board_points, corners, &r, &t, &matrix, &dist))
        .collect::<Result<_, _>>()?;
    Ok(LensCalibration {
        camera,
        rms,
        per_view_rms,
    })
}

/// RMS distance between the corners found in one photo and where the calibration puts them.
fn view_rms(
    board_points: &Vector<Point3f>,
    corners: &[[f32; 2]],
    rvec: &Mat,
    tvec: &Mat,
    matrix: &Mat,
    dist: &Mat,
) -> Result<f64, VisionError> {
    let mut projected = Vector::<Point2f>::new();
    calib3d::project_points_def(board_points, rvec, tvec, matrix, dist, &mut projected)
        .map_err(VisionError::opencv("projecting the board"))?;
    let sum: f64 = projected
        .iter()
        .zip(corners)
        .map(|(p, &[x, y])| f64::from(p.x - x).powi(2) + f64::from(p.y - y).powi(2))
        .sum();
    Ok((sum / corners.len().max(1) as f64).sqrt())
}
