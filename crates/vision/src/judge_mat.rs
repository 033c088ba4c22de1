//! The judge mat: a printable A4 sheet with an ArUco marker in each corner and a strip of
//! neutral and coloured patches. Found in a photo, its markers give the table's plane exactly
//! (a homography from millimetres on the mat to pixels) and its neutral patches the light's
//! colour; without it everything works as before.

use image::{Rgb, RgbImage};
use opencv::aruco;
use opencv::calib3d;
use opencv::core::{self, Mat, Point2f, Ptr, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use serde::Serialize;
use tablejudge_rules::Srgb;

use crate::colour::LinRgb;
use crate::colour_chart::ColourMatrix;
use crate::error::VisionError;
use crate::mat::{grey_view, mat_to_rgb, rgb_to_mat, rgb_view};

/// A4 portrait, millimetres.
pub const PAPER_MM: (f64, f64) = (210.0, 297.0);
/// Side of a marker, black border included, and its distance from the paper's edges.
pub const MARKER_MM: f64 = 30.0;
pub const MARKER_MARGIN_MM: f64 = 10.0;
/// The markers' ids in OpenCV's 4×4 dictionary of 50, clockwise from the top left.
pub const MARKER_IDS: [i32; 4] = [0, 1, 2, 3];
/// The left end of the 100 mm bar that checks the print's scale, mm.
pub const SCALE_BAR_MM: (f64, f64) = (55.0, 34.0);
/// The play area: where the stack or the cards go (left, top, right, bottom).
pub const PLAY_AREA_MM: [f64; 4] = [20.0, 50.0, 190.0, 250.0];

/// The reference strip: each patch's printed colour and whether it is neutral (grey).
pub const PATCHES: [(Srgb, bool); 8] = [
    (Srgb::new(0xf2, 0xf2, 0xf2), true),
    (Srgb::new(0xbe, 0xbe, 0xbe), true),
    (Srgb::new(0x80, 0x80, 0x80), true),
    (Srgb::new(0x44, 0x44, 0x44), true),
    (Srgb::new(0x1a, 0x1a, 0x1a), true),
    (Srgb::new(0xc8, 0x32, 0x32), false),
    (Srgb::new(0x32, 0xa0, 0x46), false),
    (Srgb::new(0x32, 0x46, 0xb4), false),
];
/// The strip's patches: squares this side, one gap apart, from `PATCH_ORIGIN_MM`.
pub const PATCH_MM: f64 = 12.0;
pub const PATCH_GAP_MM: f64 = 1.5;
pub const PATCH_ORIGIN_MM: (f64, f64) = (52.0, 266.0);

/// Where marker `k` (0..4, clockwise from the top left) lies: its top-left corner, mm.
pub fn marker_origin_mm(k: usize) -> (f64, f64) {
    let far_x = PAPER_MM.0 - MARKER_MARGIN_MM - MARKER_MM;
    let far_y = PAPER_MM.1 - MARKER_MARGIN_MM - MARKER_MM;
    match k {
        0 => (MARKER_MARGIN_MM, MARKER_MARGIN_MM),
        1 => (far_x, MARKER_MARGIN_MM),
        2 => (far_x, far_y),
        _ => (MARKER_MARGIN_MM, far_y),
    }
}

/// Patch `i` of the strip: its top-left corner, mm.
pub fn patch_origin_mm(i: usize) -> (f64, f64) {
    (
        PATCH_ORIGIN_MM.0 + i as f64 * (PATCH_MM + PATCH_GAP_MM),
        PATCH_ORIGIN_MM.1,
    )
}

fn dictionary() -> Result<Ptr<aruco::Dictionary>, VisionError> {
    aruco::get_predefined_dictionary_i32(aruco::DICT_4X4_50)
        .map_err(VisionError::opencv("loading the ArUco dictionary"))
}

/// Marker `id`'s cells, black border included: 6 × 6, row by row, `true` for black.
pub fn marker_cells(id: i32) -> Result<[[bool; 6]; 6], VisionError> {
    let mut img = Mat::default();
    aruco::draw_marker(&dictionary()?, id, 6, &mut img, 1)
        .map_err(VisionError::opencv("drawing an ArUco marker"))?;
    let mut cells = [[false; 6]; 6];
    for (r, row) in cells.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = *img
                .at_2d::<u8>(r as i32, c as i32)
                .map_err(VisionError::opencv("reading an ArUco marker"))?
                < 128;
        }
    }
    Ok(cells)
}

/// The black squares of the four markers, each `(x, y, side)` in mat millimetres from the
/// top left: what both the raster and the PDF mat draw.
pub fn marker_squares_mm() -> Result<Vec<(f64, f64, f64)>, VisionError> {
    let cell = MARKER_MM / 6.0;
    let mut squares = Vec::new();
    for (k, &id) in MARKER_IDS.iter().enumerate() {
        let (mx, my) = marker_origin_mm(k);
        for (r, row) in marker_cells(id)?.iter().enumerate() {
            for (c, &black) in row.iter().enumerate() {
                if black {
                    squares.push((mx + c as f64 * cell, my + r as f64 * cell, cell));
                }
            }
        }
    }
    Ok(squares)
}

/// The mat drawn at `px_per_mm` (11.8 for 300 dpi): the markers, the play area's outline and
/// the reference strip, on white.
pub fn draw_mat(px_per_mm: f64) -> Result<RgbImage, VisionError> {
    let px = |mm: f64| (mm * px_per_mm).round() as i64;
    let (w, h) = (px(PAPER_MM.0) as u32, px(PAPER_MM.1) as u32);
    let mut img = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
    let mut fill = |x0: f64, y0: f64, x1: f64, y1: f64, c: Rgb<u8>| {
        for y in px(y0).max(0)..px(y1).min(i64::from(h)) {
            for x in px(x0).max(0)..px(x1).min(i64::from(w)) {
                img.put_pixel(x as u32, y as u32, c);
            }
        }
    };
    for (x, y, side) in marker_squares_mm()? {
        fill(x, y, x + side, y + side, Rgb([0, 0, 0]));
    }
    let [l, t, r, b] = PLAY_AREA_MM;
    let line = 0.5;
    let grey = Rgb([170, 170, 170]);
    fill(l, t, r, t + line, grey);
    fill(l, b - line, r, b, grey);
    fill(l, t, l + line, b, grey);
    fill(r - line, t, r, b, grey);
    for (i, (c, _)) in PATCHES.iter().enumerate() {
        let (x, y) = patch_origin_mm(i);
        fill(x, y, x + PATCH_MM, y + PATCH_MM, Rgb([c.r, c.g, c.b]));
    }
    // The bar that checks the print's scale: 100 mm long.
    let (bx, by) = SCALE_BAR_MM;
    fill(bx, by, bx + 100.0, by + 1.0, Rgb([0, 0, 0]));
    Ok(img)
}

/// The mat found in a photo.
#[derive(Clone, Debug, Serialize)]
pub struct FoundMat {
    /// The markers seen, by id.
    pub markers: Vec<i32>,
    /// From the mat's millimetres to the photo's pixels, row-major 3 × 3.
    pub to_photo: [f64; 9],
    /// The light's correction from the neutral patches: multiplying linear RGB by these
    /// makes them grey again.
    pub white_balance: [f32; 3],
}

/// The longest side of the copy of a photo the markers are searched on, pixels: a mat across
/// half the photo's width still shows markers of 40 pixels there, and the search costs about
/// 6 ms a 1920×1080 photo on one core (23 ms on a copy 960 long, 90 ms on the whole photo).
const SEARCH_SIDE: f64 = 640.0;

/// Finds the mat: at least two of its markers (each gives four corners in millimetres), and
/// its neutral patches through the homography they give. `None` without the mat.
pub fn find_mat(image: &RgbImage) -> Result<Option<FoundMat>, VisionError> {
    // Searched on a grey copy at most SEARCH_SIDE pixels long; only where markers are found is
    // the whole photo made grey, to refine their corners on.
    let scale = (SEARCH_SIDE / f64::from(image.width().max(image.height()))).min(1.0);
    let mut small = Mat::default();
    imgproc::resize(
        &rgb_view(image)?,
        &mut small,
        Size::default(),
        scale,
        scale,
        imgproc::INTER_AREA,
    )
    .map_err(VisionError::opencv("shrinking a photo"))?;
    let mut small_grey = Mat::default();
    imgproc::cvt_color_def(&small, &mut small_grey, imgproc::COLOR_RGB2GRAY)
        .map_err(VisionError::opencv("a photo's grey copy"))?;
    let mut found = Vector::<Vector<Point2f>>::new();
    let mut ids = Vector::<i32>::new();
    let mut rejected = Vector::<Vector<Point2f>>::new();
    let params =
        aruco::DetectorParameters::create().map_err(VisionError::opencv("ArUco parameters"))?;
    aruco::detect_markers(
        &small_grey,
        &dictionary()?,
        &mut found,
        &mut ids,
        &params,
        &mut rejected,
    )
    .map_err(VisionError::opencv("finding ArUco markers"))?;
    if ids.iter().filter(|id| MARKER_IDS.contains(id)).count() < 2 {
        return Ok(None);
    }
    let grey = image::imageops::grayscale(image);
    let view = grey_view(&grey)?;
    let mut corners = Vector::<Vector<Point2f>>::new();
    for quad in found.iter() {
        let mut full: Vector<Point2f> = quad
            .iter()
            .map(|p| Point2f::new(p.x / scale as f32, p.y / scale as f32))
            .collect();
        if scale < 1.0 {
            let half = (0.5 / scale).ceil().max(2.0) as i32;
            imgproc::corner_sub_pix(
                &view,
                &mut full,
                Size::new(half, half),
                Size::new(-1, -1),
                core::TermCriteria::new(
                    core::TermCriteria_Type::COUNT as i32 + core::TermCriteria_Type::EPS as i32,
                    20,
                    0.01,
                )
                .map_err(VisionError::opencv("corner criteria"))?,
            )
            .map_err(VisionError::opencv("refining the markers' corners"))?;
        }
        corners.push(full);
    }
    let mut mat_points = Vector::<Point2f>::new();
    let mut photo_points = Vector::<Point2f>::new();
    let mut markers = Vec::new();
    for (id, quad) in ids.iter().zip(corners.iter()) {
        let Some(k) = MARKER_IDS.iter().position(|&m| m == id) else {
            continue;
        };
        if markers.contains(&id) {
            // The same marker twice: not our mat (or a reflection); trust neither.
            return Ok(None);
        }
        markers.push(id);
        let (mx, my) = marker_origin_mm(k);
        // OpenCV gives a marker's corners clockwise from its own top left.
        let square = [
            (0.0, 0.0),
            (MARKER_MM, 0.0),
            (MARKER_MM, MARKER_MM),
            (0.0, MARKER_MM),
        ];
        for ((dx, dy), p) in square.iter().zip(quad.iter()) {
            mat_points.push(Point2f::new((mx + dx) as f32, (my + dy) as f32));
            photo_points.push(p);
        }
    }
    if markers.len() < 2 {
        return Ok(None);
    }
    markers.sort_unstable();
    let h = calib3d::find_homography(&mat_points, &photo_points, &mut Mat::default(), 0, 3.0)
        .map_err(VisionError::opencv("fitting the mat's homography"))?;
    if h.empty() {
        return Ok(None);
    }
    let mut to_photo = [0.0; 9];
    for (i, v) in to_photo.iter_mut().enumerate() {
        *v = *h
            .at_2d::<f64>((i / 3) as i32, (i % 3) as i32)
            .map_err(VisionError::opencv("reading the mat's homography"))?;
    }
    let white_balance = neutral_gains(image, &to_photo);
    Ok(Some(FoundMat {
        markers,
        to_photo,
        white_balance,
    }))
}

/// Where the mat's point (`x`, `y`) mm lies in the photo.
pub fn mat_to_photo(h: &[f64; 9], (x, y): (f64, f64)) -> (f64, f64) {
    let w = h[6] * x + h[7] * y + h[8];
    (
        (h[0] * x + h[1] * y + h[2]) / w,
        (h[3] * x + h[4] * y + h[5]) / w,
    )
}

/// The colour of each of the mat's patches in the photo (the median over the middle half of
/// the patch), and whether it can be used to judge the light: neither clipped nor black.
pub fn patch_colours(image: &RgbImage, mat: &FoundMat) -> Vec<(Srgb, bool)> {
    (0..PATCHES.len())
        .map(|i| match patch_median(image, &mat.to_photo, i) {
            Some(m) => (
                Srgb::new(m[0], m[1], m[2]),
                m.iter().all(|c| (12..250).contains(c)),
            ),
            None => (Srgb::new(0, 0, 0), false),
        })
        .collect()
}

/// The per-channel median of patch `i` over the middle half of it (7 × 7 points), or `None`
/// when too little of it lies in the photo.
fn patch_median(image: &RgbImage, h: &[f64; 9], i: usize) -> Option<[u8; 3]> {
    let (x0, y0) = patch_origin_mm(i);
    let mut samples: Vec<[u8; 3]> = Vec::new();
    for a in 0..7 {
        for b in 0..7 {
            let mm = (
                x0 + PATCH_MM * (0.25 + 0.5 * f64::from(a) / 6.0),
                y0 + PATCH_MM * (0.25 + 0.5 * f64::from(b) / 6.0),
            );
            let (px, py) = mat_to_photo(h, mm);
            let (px, py) = (px.round(), py.round());
            if px < 0.0
                || py < 0.0
                || px >= f64::from(image.width())
                || py >= f64::from(image.height())
            {
                continue;
            }
            samples.push(image.get_pixel(px as u32, py as u32).0);
        }
    }
    if samples.len() < 25 {
        return None;
    }
    let median = |c: usize| {
        let mut v: Vec<u8> = samples.iter().map(|s| s[c]).collect();
        v.sort_unstable();
        v[v.len() / 2]
    };
    Some([median(0), median(1), median(2)])
}

/// Per-channel gains that make the mat's unclipped neutral patches grey: for each channel the
/// median over the patches of (green / channel), measured in linear light at the patches'
/// middles; 1 where no patch can be used.
fn neutral_gains(image: &RgbImage, h: &[f64; 9]) -> [f32; 3] {
    let mut ratios: [Vec<f32>; 3] = Default::default();
    for (i, (_, neutral)) in PATCHES.iter().enumerate() {
        if !neutral {
            continue;
        }
        let Some(m) = patch_median(image, h, i) else {
            continue;
        };
        // Clipped or nearly black patches say nothing of the light's colour.
        if m.iter().any(|c| !(12..250).contains(c)) {
            continue;
        }
        let lin = LinRgb::from_srgb(Srgb::new(m[0], m[1], m[2]));
        ratios[0].push(lin.g / lin.r);
        ratios[1].push(1.0);
        ratios[2].push(lin.g / lin.b);
    }
    let median = |v: &mut Vec<f32>| {
        if v.is_empty() {
            return 1.0;
        }
        v.sort_by(f32::total_cmp);
        v[v.len() / 2]
    };
    [
        median(&mut ratios[0]),
        median(&mut ratios[1]),
        median(&mut ratios[2]),
    ]
}

/// The photo white-balanced by the mat's neutral patches and warped to a top-down view of the
/// mat, `px_per_mm` pixels to the millimetre: the table's plane exactly, whatever the camera.
pub fn rectified(
    image: &RgbImage,
    mat: &FoundMat,
    px_per_mm: f64,
) -> Result<RgbImage, VisionError> {
    let mut balanced = image.clone();
    ColourMatrix::diagonal(mat.white_balance).apply_to_image(&mut balanced);
    // Photo pixels from rectified pixels: (mat mm = pixel / px_per_mm) then to_photo.
    let h = mat.to_photo;
    let s = 1.0 / px_per_mm;
    let m = [
        h[0] * s,
        h[1] * s,
        h[2],
        h[3] * s,
        h[4] * s,
        h[5],
        h[6] * s,
        h[7] * s,
        h[8],
    ];
    let map = Mat::from_slice_2d(&[[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]])
        .map_err(VisionError::opencv("building the mat's warp"))?;
    let size = Size::new(
        (PAPER_MM.0 * px_per_mm).round() as i32,
        (PAPER_MM.1 * px_per_mm).round() as i32,
    );
    let mut out = Mat::default();
    imgproc::warp_perspective(
        &rgb_to_mat(&balanced)?,
        &mut out,
        &map,
        size,
        imgproc::INTER_LINEAR | imgproc::WARP_INVERSE_MAP,
        core::BORDER_CONSTANT,
        core::Scalar::all(255.0),
    )
    .map_err(VisionError::opencv("rectifying the mat"))?;
    mat_to_rgb(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mat drawn at 4 px/mm, seen tilted (a homography) under warm light, 1280×960.
    fn photo_of_the_mat(gains: [f32; 3]) -> (RgbImage, [f64; 9]) {
        let mat = draw_mat(4.0).unwrap();
        // Mat pixels to photo pixels: the sheet's corners to a tilted quadrilateral.
        let (w, h) = (f64::from(mat.width()), f64::from(mat.height()));
        let src = Vector::<Point2f>::from_iter([
            Point2f::new(0.0, 0.0),
            Point2f::new(w as f32, 0.0),
            Point2f::new(w as f32, h as f32),
            Point2f::new(0.0, h as f32),
        ]);
        let dst = Vector::<Point2f>::from_iter([
            Point2f::new(380.0, 60.0),
            Point2f::new(930.0, 110.0),
            Point2f::new(1010.0, 900.0),
            Point2f::new(300.0, 860.0),
        ]);
        let homography = imgproc::get_perspective_transform(&src, &dst, core::DECOMP_LU).unwrap();
        let mut out = Mat::default();
        imgproc::warp_perspective(
            &rgb_to_mat(&mat).unwrap(),
            &mut out,
            &homography,
            Size::new(1280, 960),
            imgproc::INTER_AREA,
            core::BORDER_CONSTANT,
            core::Scalar::new(70.0, 90.0, 110.0, 0.0),
        )
        .unwrap();
        let mut photo = mat_to_rgb(&out).unwrap();
        ColourMatrix::diagonal(gains).apply_to_image(&mut photo);
        // Millimetres to photo pixels: 4 px/mm, then the homography.
        let mut to_photo = [0.0; 9];
        for (i, v) in to_photo.iter_mut().enumerate() {
            let scale = if i % 3 < 2 { 4.0 } else { 1.0 };
            *v = homography
                .at_2d::<f64>((i / 3) as i32, (i % 3) as i32)
                .unwrap()
                * scale;
        }
        (photo, to_photo)
    }

    #[test]
    fn the_mat_is_found_where_it_lies_and_its_grey_patches_give_the_light() {
        // Warm light: red up, blue down.
        let (photo, truth) = photo_of_the_mat([1.0, 0.8, 0.5]);
        let found = find_mat(&photo).unwrap().expect("the mat is found");
        assert_eq!(found.markers, vec![0, 1, 2, 3]);
        for corner in [
            (0.0, 0.0),
            (210.0, 0.0),
            (210.0, 297.0),
            (0.0, 297.0),
            (105.0, 150.0),
        ] {
            let (x, y) = mat_to_photo(&found.to_photo, corner);
            let (tx, ty) = mat_to_photo(&truth, corner);
            assert!(
                (x - tx).hypot(y - ty) < 2.0,
                "{corner:?}: ({x}, {y}) vs ({tx}, {ty})"
            );
        }
        // The gains undo the light: red down to green's level, blue up.
        let [r, g, b] = found.white_balance;
        assert!((r - 0.8).abs() < 0.04, "{:?}", found.white_balance);
        assert_eq!(g, 1.0);
        assert!((b - 1.6).abs() < 0.08, "{:?}", found.white_balance);
        // Rectified and balanced, the white patch is grey again.
        let top_down = rectified(&photo, &found, 4.0).unwrap();
        let (x, y) = patch_origin_mm(1);
        let p = top_down
            .get_pixel(((x + 6.0) * 4.0) as u32, ((y + 6.0) * 4.0) as u32)
            .0;
        let spread = p.iter().max().unwrap() - p.iter().min().unwrap();
        assert!(spread <= 6, "{p:?}");
    }

    #[test]
    fn a_photo_without_the_mat_has_none() {
        let plain = RgbImage::from_pixel(640, 480, Rgb([120, 110, 100]));
        assert!(find_mat(&plain).unwrap().is_none());
    }
}
