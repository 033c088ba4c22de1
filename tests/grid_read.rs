//! `tablejudge grid read` on generated photos: a colour chart with a palette, a rendered
//! Layers+ stack, and photos with no grid or no photo at all.

use image::{Rgb, RgbImage};
use tablejudge_vision::WhiteBalance;

use crate::assert_exit;
use crate::util::{
    cell_labels, chart_palette, chart_photo, path_str, read_chart, root, tablejudge,
};

/// The chart under warm light.
fn warm_chart_photo(dir: &std::path::Path) -> (std::path::PathBuf, [[f32; 2]; 4]) {
    let warm = WhiteBalance {
        gains: [0.95, 0.95 * 0.55, 0.95 * 0.22],
    };
    chart_photo(dir, &|c| warm.apply(c), false)
}

#[test]
fn reads_a_tilted_colour_chart_under_warm_light_with_its_palette() {
    let dir = tempfile::tempdir().unwrap();
    let (photo, corners) = warm_chart_photo(dir.path());
    let (_, palette) = chart_palette();
    let out = dir.path().join("annotated.png");
    let run = read_chart(&photo, &["--json", "--annotate", path_str(&out)]);
    assert_exit!(run, 0);
    let v = run.json();
    assert_eq!(v["format"], "tablejudge/observation@1");
    assert_eq!(v["status"], "read");
    let keys: String = palette.colors.keys().map(|k| k.char()).collect();
    assert_eq!(cell_labels(&v), keys, "the patches read in chart order");
    for (i, c) in v["corners"].as_array().unwrap().iter().enumerate() {
        let (x, y) = (c[0].as_f64().unwrap() as f32, c[1].as_f64().unwrap() as f32);
        let d = ((x - corners[i][0]).powi(2) + (y - corners[i][1]).powi(2)).sqrt();
        assert!(
            d < 3.0,
            "corner {i} off by {d:.1} px: {c} vs {:?}",
            corners[i]
        );
    }
    let annotated = image::open(&out).expect("the annotated image was written");
    assert_eq!((annotated.width(), annotated.height()), (960, 600));
}

#[test]
fn reads_a_rendered_layers_stack_without_a_palette() {
    let dir = tempfile::tempdir().unwrap();
    let set = root().join("models/layers/reference.json");
    let run = tablejudge([
        "render",
        "layers",
        "--set",
        path_str(&set),
        "--out",
        path_str(dir.path()),
        "--n",
        "1",
        "--seed",
        "3",
        "--degradation",
        "clean",
        "--distractors",
        "none",
    ]);
    assert_exit!(run, 0);
    let photo = dir.path().join("scene_0000.jpg");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("scene_0000.truth.json")).unwrap(),
    )
    .unwrap();
    let run = tablejudge([
        "grid",
        "read",
        path_str(&photo),
        "--rows",
        "4",
        "--cols",
        "4",
        "--json",
    ]);
    assert_exit!(run, 0);
    let v = run.json();
    // Orientation may differ from the truth's (row 0 is chosen upright), so compare as sets.
    let truth_corners: Vec<(f64, f64)> = truth["corners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_f64().unwrap(), c[1].as_f64().unwrap()))
        .collect();
    for c in v["corners"].as_array().unwrap() {
        let (x, y) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
        let nearest = truth_corners
            .iter()
            .map(|(tx, ty)| ((x - tx).powi(2) + (y - ty).powi(2)).sqrt())
            .fold(f64::MAX, f64::min);
        assert!(
            nearest < 4.0,
            "corner ({x:.1}, {y:.1}) is {nearest:.1} px from the truth"
        );
    }
}

#[test]
fn a_photo_without_a_grid_is_undecided_and_says_what_to_retake() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table.png");
    RgbImage::from_fn(640, 480, |x, y| {
        Rgb([120 + (x % 7) as u8, 100 + (y % 5) as u8, 80])
    })
    .save(&path)
    .unwrap();
    let run = tablejudge([
        "grid",
        "read",
        path_str(&path),
        "--rows",
        "4",
        "--cols",
        "4",
    ]);
    assert_exit!(run, 3);
    assert!(
        run.stdout.contains("undecided: no 4x4 grid found"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("make sure the whole grid is in the picture"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_missing_or_corrupt_photo_is_bad_input() {
    let run = tablejudge([
        "grid",
        "read",
        "no/such/photo.jpg",
        "--rows",
        "4",
        "--cols",
        "4",
    ]);
    assert_exit!(run, 2);
    assert!(
        run.stderr
            .contains("no/such/photo.jpg: cannot read the photo"),
        "{}",
        run.stderr
    );
    let (_dir, path) = crate::util::temp_file("broken.jpg", "not a jpeg at all");
    let run = tablejudge([
        "grid",
        "read",
        path_str(&path),
        "--rows",
        "4",
        "--cols",
        "4",
    ]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("broken.jpg: cannot read the photo"),
        "{}",
        run.stderr
    );
}

#[test]
fn render_writes_photos_with_truth() {
    let dir = tempfile::tempdir().unwrap();
    let set = root().join("models/layers/parlour.json");
    let run = tablejudge([
        "render",
        "layers",
        "--set",
        path_str(&set),
        "--out",
        path_str(dir.path()),
        "--n",
        "2",
        "--seed",
        "9",
        "--size",
        "640x480",
        "--mission",
        "3-02",
        "--near-miss",
    ]);
    assert_exit!(run, 0);
    for i in 0..2 {
        let img = image::open(dir.path().join(format!("scene_{i:04}.jpg"))).unwrap();
        assert_eq!((img.width(), img.height()), (640, 480));
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(format!("scene_{i:04}.truth.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(
            truth["visible"].as_array().unwrap().len(),
            5,
            "parlour is 5×5"
        );
    }
    let run = tablejudge([
        "render",
        "layers",
        "--set",
        path_str(&set),
        "--out",
        path_str(dir.path()),
        "--mission",
        "9-99",
    ]);
    assert_exit!(run, 2);
}
