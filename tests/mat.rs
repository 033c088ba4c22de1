//! `tablejudge mat`, and the mat in a photo: found, and the photo read from straight above it,
//! white-balanced by its grey patches.

use image::RgbImage;
use tablejudge_render::{render_patches, GridStyle, Scene};
use tablejudge_rules::{Grid, Srgb};
use tablejudge_vision::colour_chart::ColourMatrix;

use crate::assert_exit;
use crate::util::{cell_labels, chart_palette, path_str, read_chart, tablejudge};

#[test]
fn the_mat_is_written_as_a_pdf_to_print_or_a_png() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("mat.pdf");
    assert_exit!(tablejudge(["mat", "--out", path_str(&pdf)]), 0);
    let bytes = std::fs::read(&pdf).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("/Helvetica"));
    // A4 in points.
    assert!(text.contains("/MediaBox [0 0 595.2756 841.8898]"), "{text}");

    let png = dir.path().join("mat.png");
    assert_exit!(
        tablejudge(["mat", "--out", path_str(&png), "--dpi", "100"]),
        0
    );
    let img = image::open(&png).unwrap();
    assert_eq!((img.width(), img.height()), (827, 1169));

    let run = tablejudge(["mat", "--out", path_str(&dir.path().join("mat.txt"))]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains(".pdf"), "{}", run.stderr);
}

/// The chart laid in the mat's play area, the mat printed at 100 dpi, photographed tilted
/// under warm light (red up, blue down), 1280×960.
fn chart_on_the_mat(dir: &std::path::Path) -> std::path::PathBuf {
    let png = dir.join("mat.png");
    assert_exit!(
        tablejudge(["mat", "--out", path_str(&png), "--dpi", "100"]),
        0
    );
    let mut mat = image::open(&png).unwrap().to_rgb8();
    let (_, palette) = chart_palette();
    let colours: Vec<Srgb> = palette.colors.values().map(|c| c.srgb).collect();
    let grid = Grid::from_fn(4, 6, |p| colours[p.row * 6 + p.col]);
    let style = GridStyle {
        cell_px: 60,
        frame: Srgb::new(0x1c, 0x1c, 0x1c),
        frame_width: 0.25,
        margin: 0.0,
        background: Srgb::new(0xff, 0xff, 0xff),
    };
    let chart = render_patches(&grid, &style, 0.25).unwrap().image;
    image::imageops::overlay(&mut mat, &chart, 240, 420);
    let (w, h) = (mat.width() as f32, mat.height() as f32);
    let sheet = Scene {
        image: mat,
        corners: [
            [-0.5, -0.5],
            [w - 0.5, -0.5],
            [w - 0.5, h - 0.5],
            [-0.5, h - 0.5],
        ],
    };
    let mut photo: RgbImage = sheet
        .perspective(
            [
                [380.0, 60.0],
                [930.0, 110.0],
                [1010.0, 900.0],
                [300.0, 860.0],
            ],
            1280,
            960,
            Srgb::new(0x6e, 0x5a, 0x46),
        )
        .unwrap()
        .image;
    ColourMatrix::diagonal([1.0, 0.8, 0.5]).apply_to_image(&mut photo);
    let path = dir.join("photo.png");
    photo.save(&path).unwrap();
    path
}

#[test]
fn a_photo_with_the_mat_is_read_from_straight_above_it_and_balanced() {
    let dir = tempfile::tempdir().unwrap();
    let photo = chart_on_the_mat(dir.path());
    let annotated = dir.path().join("annotated.png");
    let run = read_chart(&photo, &["--annotate", path_str(&annotated), "--json"]);
    assert_exit!(run, 0);
    assert!(
        run.stderr
            .contains("judge mat found (markers 0, 1, 2, 3): read from straight above it"),
        "{}",
        run.stderr
    );
    let v = run.json();
    let labels = cell_labels(&v);
    assert_eq!(labels, ('a'..='x').collect::<String>());
    // Read from the mat's top-down view (5 px a millimetre): the chart is square to it, its
    // 6 columns of 60 px at 100 dpi (15.24 mm each) about 76 px wide.
    let corners = v["corners"].as_array().unwrap();
    let x = |i: usize, k: usize| corners[i][k].as_f64().unwrap();
    assert!(
        (x(0, 1) - x(1, 1)).abs() < 2.0,
        "top edge level: {corners:?}"
    );
    let width = x(1, 0) - x(0, 0);
    assert!((width - 6.0 * 76.2).abs() < 6.0, "{width}");
    // The annotated image is the top-down view of the whole mat.
    let img = image::open(&annotated).unwrap();
    assert_eq!((img.width(), img.height()), (1050, 1485));
}

#[test]
fn a_colour_correction_is_fitted_from_the_mats_patches() {
    let dir = tempfile::tempdir().unwrap();
    let photo = chart_on_the_mat(dir.path());
    let out = dir.path().join("colour.json");
    let run = tablejudge([
        "calibrate",
        "colour",
        path_str(&photo),
        "--out",
        path_str(&out),
        "--json",
    ]);
    assert_exit!(run, 0);
    let v = run.json();
    assert_eq!(v["from"], "judge mat");
    assert_eq!(v["patches_used"], 8, "{v}");
    let before = v["calibration"]["delta_e_before"].as_f64().unwrap();
    let after = v["calibration"]["delta_e_after"].as_f64().unwrap();
    assert!(before > 5.0 && after < 2.0, "{v}");
    assert!(out.exists());
}
