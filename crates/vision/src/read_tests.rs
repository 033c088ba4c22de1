//! End-to-end tests of [`crate::read_grid`] on synthetic photos (see `test_scene`).

use crate::geom::{dist, homography_4, invert, rect};
use crate::read::{read_grid, GridReading, ReadError, ReadOptions};
use crate::rectify::{apply_homography, Quad};
use crate::test_scene::*;
use tablejudge_rules::{Grid, Key, Palette, Pos};

/// A Layers+-like palette: six layer colours and the white player card.
fn layers_palette() -> Palette {
    let json = r##"{"format":"tablejudge/palette@1","name":"layers","colors":{
        "r":{"name":"red","srgb":"#d62839"},"g":{"name":"green","srgb":"#2e9e4f"},
        "b":{"name":"blue","srgb":"#2f5fb3"},"y":{"name":"yellow","srgb":"#f2c12e"},
        "o":{"name":"orange","srgb":"#e8772e"},"p":{"name":"purple","srgb":"#7b3fa0"},
        "w":{"name":"card","srgb":"#f2efe6"}}}"##;
    Palette::from_json(json, "layers.json").unwrap()
}

fn key(c: char) -> Key {
    Key::new(c).unwrap()
}

/// A 4×4 stack pattern with same-colour neighbours (no edge between them) and card cells.
fn stack_pattern() -> Grid<Key> {
    Grid::parse_rows(&["rrgw", "rbbw", "yyop", "gpoo"])
        .unwrap()
        .map(|&c| key(c))
}

/// The truth cell under each read cell (through both homographies), so the test does not
/// depend on which orientation the reader chose.
fn expected_under(truth: &Grid<Key>, truth_corners: &Quad, read_corners: &Quad) -> Grid<Key> {
    let (r, c) = (truth.rows(), truth.cols());
    let g_truth = homography_4(&rect(0.0, 0.0, c as f32, r as f32), truth_corners).unwrap();
    let to_truth = invert(&g_truth).unwrap();
    // The read grid has `c` columns along its first side unless the reader turned a square.
    let g_read = homography_4(&rect(0.0, 0.0, c as f32, r as f32), read_corners).unwrap();
    Grid::from_fn(r, c, |p| {
        let img = apply_homography(&g_read, [p.col as f32 + 0.5, p.row as f32 + 0.5]).unwrap();
        let t = apply_homography(&to_truth, img).unwrap();
        truth[Pos::new(t[1].floor() as usize, t[0].floor() as usize)]
    })
}

/// The largest corner error after matching the read corners to the truth in any turn.
fn corner_error(read: &Quad, truth: &Quad) -> f32 {
    (0..4)
        .map(|t| {
            (0..4)
                .map(|i| dist(read[i], truth[(i + t) % 4]))
                .fold(0.0, f32::max)
        })
        .fold(f32::INFINITY, f32::min)
}

fn stack_scene(
    rot: f32,
    tilt: f32,
    light: [f32; 3],
    seed: u64,
) -> (image::RgbImage, Quad, Grid<Key>) {
    let palette = layers_palette();
    let truth = stack_pattern();
    let colours = truth.map(|k| palette.colors[k].srgb);
    let mut img = tablecloth(640, 480, seed);
    let corners = view(320.0, 240.0, 95.0, 1.0, rot, tilt);
    place(&mut img, &colours, &layer_style(40), corners);
    cast(&mut img, light, 2.0, seed + 1);
    (img, corners, truth)
}

/// Reads a scene and checks corners (within `tol` px) and every label.
fn check(
    img: &image::RgbImage,
    truth_corners: &Quad,
    truth: &Grid<Key>,
    palette: &Palette,
    what: &str,
) -> GridReading {
    let (r, c) = truth.size();
    let got = read_grid(img, r, c, Some(palette), &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: {e} {:?}", e.diagnostics()));
    let err = corner_error(&got.corners, truth_corners);
    assert!(
        err < 1.0,
        "{what}: corners off by {err:.2} px: {:?} vs {truth_corners:?}; {:?}",
        got.corners,
        got.diagnostics
    );
    let want = expected_under(truth, truth_corners, &got.corners);
    let labels = got.cells.map(|c| c.label.unwrap());
    assert_eq!(labels, want, "{what}: {}", got.diagnostics.reason);
    assert!(
        got.confidence > 0.3,
        "{what}: confidence {} cells {:?} {:?}",
        got.confidence,
        got.cells.map(|c| (c.confidence * 100.0) as i32),
        got.diagnostics
    );
    got
}

#[test]
fn a_framed_stack_reads_at_any_rotation_and_tilt_under_warm_and_cool_light() {
    let palette = layers_palette();
    let poses = [
        (0.0, 0.0),
        (37.0, 20.0),
        (95.0, 45.0),
        (142.0, 30.0),
        (188.0, 10.0),
        (233.0, 45.0),
        (281.0, 25.0),
        (326.0, 40.0),
    ];
    for (i, &(rot, tilt)) in poses.iter().enumerate() {
        let light = if i % 2 == 0 { WARM } else { COOL };
        let (img, corners, truth) = stack_scene(rot, tilt, light, 100 + i as u64);
        let got = check(
            &img,
            &corners,
            &truth,
            &palette,
            &format!("rot {rot} tilt {tilt}"),
        );
        // Read upright: the row-0 edge is the upper one.
        let top = (got.corners[0][1] + got.corners[1][1]) / 2.0;
        let bottom = (got.corners[2][1] + got.corners[3][1]) / 2.0;
        assert!(top <= bottom, "rot {rot}: {:?}", got.corners);
    }
}

#[test]
fn the_observation_form_carries_corners_and_cells() {
    let palette = layers_palette();
    let (img, _, _) = stack_scene(15.0, 10.0, WARM, 3);
    let got = read_grid(&img, 4, 4, Some(&palette), &ReadOptions::default()).unwrap();
    let o = got.to_observation("scene.png");
    assert_eq!((o.rows, o.cols, o.corners), (4, 4, got.corners));
    assert_eq!(o.readings().unwrap(), got.cells);
}

/// The classic chart: patches filling 80% of the pitch on a near-black body with a margin,
/// on the tablecloth, under warm light.
fn chart_scene(rot: f32, tilt: f32, seed: u64) -> (image::RgbImage, Quad, Grid<Key>) {
    let p = crate::classify::tests::classic();
    let keys: Vec<Key> = p.colors.keys().copied().collect();
    let truth = Grid::from_fn(4, 6, |q| keys[q.row * 6 + q.col]);
    let colours = truth.map(|k| p.colors[k].srgb);
    let (flat, flat_corners) = chart(
        &colours,
        40,
        0.8,
        0.35,
        tablejudge_rules::Srgb::new(0x1c, 0x1c, 0x1e),
    );
    let mut img = tablecloth(640, 480, seed);
    let corners = view(320.0, 240.0, 150.0, 1.5, rot, tilt);
    place_image(&mut img, &flat, flat_corners, corners);
    cast(&mut img, WARM, 2.0, seed + 1);
    (img, corners, truth)
}

#[test]
fn a_gapped_colour_chart_reads_24_of_24_under_warm_light_rotated_and_tilted() {
    let p = crate::classify::tests::classic();
    for (i, &(rot, tilt)) in [(0.0, 0.0), (-35.0, 30.0), (50.0, 40.0), (12.0, 45.0)]
        .iter()
        .enumerate()
    {
        let (img, corners, truth) = chart_scene(rot, tilt, 200 + i as u64);
        let got = check(
            &img,
            &corners,
            &truth,
            &p,
            &format!("chart rot {rot} tilt {tilt}"),
        );
        // Roughly upright charts are read in their printed orientation, brown first.
        assert_eq!(got.cells[Pos::new(0, 0)].label, Some(key('a')));
        assert!(
            got.diagnostics.grids[0].fill < 0.95,
            "{:?}",
            got.diagnostics.grids[0]
        );
    }
}

#[test]
fn an_upside_down_chart_is_read_upright_that_is_turned() {
    let p = crate::classify::tests::classic();
    let (img, corners, truth) = chart_scene(180.0, 20.0, 9);
    let got = check(&img, &corners, &truth, &p, "upside down");
    // The brown patch is now bottom right.
    assert_eq!(got.cells[Pos::new(3, 5)].label, Some(key('a')));
}

fn scene_with(grids: &[(Grid<Key>, Quad)], seed: u64) -> image::RgbImage {
    let palette = layers_palette();
    let mut img = tablecloth(640, 480, seed);
    for (g, corners) in grids {
        place(
            &mut img,
            &g.map(|k| palette.colors[k].srgb),
            &layer_style(40),
            *corners,
        );
    }
    cast(&mut img, COOL, 2.0, seed + 1);
    img
}

#[test]
fn same_colour_neighbours_without_an_edge_between_them_read_correctly() {
    let palette = layers_palette();
    // Large same-colour regions: only a few cell boundaries are visible at all.
    let truth = Grid::parse_rows(&["rrrr", "rrbb", "rrbb", "wwww"])
        .unwrap()
        .map(|&c| key(c));
    let corners = view(330.0, 230.0, 100.0, 1.0, 20.0, 25.0);
    let img = scene_with(&[(truth.clone(), corners)], 11);
    check(&img, &corners, &truth, &palette, "same-colour neighbours");
}

#[test]
fn a_grid_cut_by_the_picture_edge_asks_to_move_the_camera() {
    let palette = layers_palette();
    // A third of the grid hangs off the right edge.
    let corners = view(600.0, 240.0, 100.0, 1.0, 5.0, 10.0);
    let img = scene_with(&[(stack_pattern(), corners)], 12);
    let err = read_grid(&img, 4, 4, Some(&palette), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, ReadError::CutOff { .. }), "{err}");
    assert!(err
        .to_string()
        .contains("move the camera so the whole grid is in the picture"));
}

#[test]
fn two_equally_prominent_grids_are_reported_not_guessed() {
    let palette = layers_palette();
    let mission = Grid::parse_rows(&["gggg", "gbbg", "pbbp", "oooo"])
        .unwrap()
        .map(|&c| key(c));
    let left = view(170.0, 240.0, 80.0, 1.0, -8.0, 10.0);
    let right = view(470.0, 240.0, 80.0, 1.0, 6.0, 10.0);
    let img = scene_with(&[(stack_pattern(), left), (mission, right)], 13);
    let err = read_grid(&img, 4, 4, Some(&palette), &ReadOptions::default()).unwrap_err();
    let ReadError::Ambiguous {
        count,
        ref diagnostics,
        ..
    } = err
    else {
        panic!("expected ambiguity, got {err}");
    };
    assert_eq!(count, 2);
    // Both physical grids are in the diagnostics, for a judge that wants to look at each.
    // Located corners, before refinement: within a sixth of a cell.
    let near = |q: &Quad, t: &Quad| corner_error(q, t) < 6.0;
    assert!(
        diagnostics.grids.iter().any(|g| near(&g.corners, &left)),
        "{diagnostics:?}"
    );
    assert!(
        diagnostics.grids.iter().any(|g| near(&g.corners, &right)),
        "{diagnostics:?}"
    );
}

#[test]
fn a_smaller_second_grid_is_listed_but_the_prominent_one_is_read() {
    let palette = layers_palette();
    let mission = Grid::parse_rows(&["gggg", "gbbg", "pbbp", "oooo"])
        .unwrap()
        .map(|&c| key(c));
    let stack = view(250.0, 240.0, 120.0, 1.0, 4.0, 15.0);
    let card = view(530.0, 300.0, 50.0, 1.0, -10.0, 10.0);
    let img = scene_with(&[(stack_pattern(), stack), (mission, card)], 14);
    let got = check(
        &img,
        &stack,
        &stack_pattern(),
        &palette,
        "stack beside a mission card",
    );
    assert!(
        got.diagnostics.grids[1..]
            .iter()
            .any(|g| corner_error(&g.corners, &card) < 4.0),
        "{:?}",
        got.diagnostics
    );
}

#[test]
fn a_photo_without_a_grid_is_an_error() {
    let palette = layers_palette();
    let mut img = tablecloth(640, 480, 15);
    cast(&mut img, WARM, 2.0, 16);
    let err = read_grid(&img, 4, 4, Some(&palette), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, ReadError::NotFound { .. }), "{err}");
}

#[test]
fn a_5x5_grid_is_not_read_as_4x4() {
    let palette = layers_palette();
    let five = Grid::parse_rows(&["rgbyo", "gbyop", "byopr", "yoprg", "oprgb"])
        .unwrap()
        .map(|&c| key(c));
    let corners = view(320.0, 240.0, 120.0, 1.0, 10.0, 20.0);
    let img = scene_with(&[(five.clone(), corners)], 17);
    // Read as 5x5 it is fine...
    check(&img, &corners, &five, &palette, "5x5");
    // ...as 4x4 it is rejected, or read with low confidence.
    match read_grid(&img, 4, 4, Some(&palette), &ReadOptions::default()) {
        Err(e) => assert!(!matches!(e, ReadError::Vision(_)), "{e}"),
        Ok(r) => assert!(
            r.confidence < 0.2,
            "read as 4x4 with confidence {}: {:?}",
            r.confidence,
            r.diagnostics
        ),
    }
}

#[test]
fn glare_over_two_cells_names_them_and_asks_to_tilt_the_card() {
    let palette = layers_palette();
    let (mut img, corners, _) = stack_scene(0.0, 0.0, WARM, 21);
    // A specular highlight over the middle of the second row: saturated in all channels.
    let g = homography_4(&rect(0.0, 0.0, 4.0, 4.0), &corners).unwrap();
    let to_grid = invert(&g).unwrap();
    for (x, y, p) in img.enumerate_pixels_mut() {
        let [gx, gy] = apply_homography(&to_grid, [x as f32, y as f32]).unwrap();
        if ((gx - 2.0) / 1.1).hypot((gy - 1.5) / 0.3) < 1.0 {
            p.0 = [255, 255, 255];
        }
    }
    let err = read_grid(&img, 4, 4, Some(&palette), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, ReadError::Glare { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "glare over cells (2, 2), (2, 3): tilt the card or move the light"
    );
}

#[test]
fn a_calibrated_camera_s_lens_distortion_is_undone() {
    use crate::camera::Camera;
    let palette = layers_palette();
    let (ideal, ideal_corners, truth) = stack_scene(20.0, 25.0, COOL, 22);
    // Strong barrel distortion: what this camera records at p is the ideal image at
    // undistort(p).
    let cam = Camera {
        fx: 500.0,
        fy: 500.0,
        cx: 320.0,
        cy: 240.0,
        dist: [-0.3, 0.08, 0.0, 0.0, 0.0],
    };
    let photo = image::RgbImage::from_fn(640, 480, |x, y| {
        let [u, v] = cam.undistort([f64::from(x), f64::from(y)]);
        let (u, v) = (
            u.round().clamp(0.0, 639.0) as u32,
            v.round().clamp(0.0, 479.0) as u32,
        );
        *ideal.get_pixel(u, v)
    });
    let distorted_corners = ideal_corners.map(|p| {
        let q = cam.distort([f64::from(p[0]), f64::from(p[1])]);
        [q[0] as f32, q[1] as f32]
    });
    let options = ReadOptions {
        camera: Some(cam),
        ..ReadOptions::default()
    };
    let got = read_grid(&photo, 4, 4, Some(&palette), &options).unwrap();
    // Corners are reported where they are in the photo (distorted).
    let err = corner_error(&got.corners, &distorted_corners);
    assert!(
        err < 1.5,
        "corners off by {err}: {:?} vs {distorted_corners:?}",
        got.corners
    );
    let labels = got.cells.map(|c| c.label.unwrap());
    // Compare in ideal coordinates, where the grid is a homography of its lattice.
    let read_ideal = got.corners.map(|p| {
        let q = cam.undistort([f64::from(p[0]), f64::from(p[1])]);
        [q[0] as f32, q[1] as f32]
    });
    assert_eq!(labels, expected_under(&truth, &ideal_corners, &read_ideal));
}

#[test]
fn places_are_named_as_a_player_counts_them() {
    use crate::read::describe;
    let p = |row, col| Pos { row, col };
    assert_eq!(describe(&[p(1, 3)], 4, 4), "cell (2, 4)");
    assert_eq!(
        describe(&[p(1, 0), p(1, 1), p(1, 2), p(1, 3)], 4, 4),
        "row 2"
    );
    assert_eq!(describe(&[p(0, 2), p(1, 2), p(2, 2)], 3, 4), "column 3");
    // Part of a row is not the row.
    assert_eq!(describe(&[p(3, 2), p(3, 0)], 4, 4), "cells (4, 1), (4, 3)");
    assert_eq!(describe(&[p(0, 0), p(2, 1)], 4, 4), "cells (1, 1), (3, 2)");
}
