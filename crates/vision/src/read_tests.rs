//! End-to-end tests of [`crate::read_grid`] on synthetic photos (see `test_scene`).

use crate::geom::{dist, homography_4, invert, rect};
use crate::read::{read_grid, GridReading, ReadOptions};
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
        "{what}: corners off by {err:.2} px: {:?} vs {truth_corners:?}",
        got.corners
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
