//! `tablejudge calibrate camera` on chessboard photos rendered through a known lens (the
//! focal length recovered within 1%, the reprojection error under half a pixel), and
//! `calibrate colour` on a chart seen through a camera that mixes its channels.

use std::path::Path;

use serde_json::Value;
use tablejudge_vision::colour_chart::ColourMatrix;

use crate::assert_exit;
use crate::util::{cell_labels, chart_photo, model, path_str, read_chart, tablejudge};

fn render(out: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["render", "chessboard", "--out", path_str(out)];
    args.extend(extra);
    assert_exit!(tablejudge(args), 0);
    serde_json::from_str(&std::fs::read_to_string(out.join("lens.json")).unwrap()).unwrap()
}

fn calibrate(photos: &Path, out: &Path) -> crate::util::Run {
    tablejudge([
        "calibrate",
        "camera",
        "--board",
        "9x6",
        path_str(photos),
        "--out",
        path_str(out),
        "--json",
    ])
}

#[test]
fn a_lens_is_recovered_from_rendered_chessboard_photos() {
    for (seed, extra) in [
        ("1", vec!["--n", "10"]),
        // Stronger barrel distortion and a wider lens.
        ("2", vec!["--n", "10", "--k1", "0.15", "--focal", "720"]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let photos = dir.path().join("photos");
        let mut args = vec!["--seed", seed];
        args.extend(extra);
        let truth = render(&photos, &args);
        let lens = &truth["lens"];
        let focal = lens["focal_px"].as_f64().unwrap();
        let out = dir.path().join("calibration/camera.json");
        let run = calibrate(&photos, &out);
        assert_exit!(run, 0);
        let got = run.json();
        for f in ["fx", "fy"] {
            let v = got[f].as_f64().unwrap();
            assert!(
                (v - focal).abs() / focal < 0.01,
                "seed {seed}: {f} {v} against {focal}"
            );
        }
        for (c, i, side) in [("cx", 0, "width"), ("cy", 1, "height")] {
            let v = got[c].as_f64().unwrap();
            let want = lens["principal"][i].as_f64().unwrap();
            let size = lens[side].as_f64().unwrap();
            assert!(
                (v - want).abs() < 0.01 * size,
                "seed {seed}: {c} {v} against {want}"
            );
        }
        let rms = got["rms"].as_f64().unwrap();
        assert!(rms < 0.5, "seed {seed}: RMS {rms} px");
        assert_eq!(got["distortion"].as_array().unwrap().len(), 5);
        assert_eq!(got["photos_used"].as_array().unwrap().len(), 10);
        // Barrel distortion: OpenCV's k1, which maps ideal to distorted points, is negative.
        if seed == "2" {
            assert!(got["distortion"][0].as_f64().unwrap() < -0.05, "{got}");
        }

        // The saved file is the camera@1 format every photo command takes.
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(saved["format"], "tablejudge/camera@1");
        assert_eq!(saved["fx"], got["fx"]);
        let set = model("layers/reference.json");
        let read = tablejudge([
            "layers",
            "read",
            path_str(&photos.join("view_00.jpg")),
            "--set",
            path_str(&set),
            "--camera-calibration",
            path_str(&out),
        ]);
        // No stack in a chessboard photo: undecided, but the calibration was taken.
        assert_exit!(read, 3);
    }
}

#[test]
fn too_few_photos_with_the_board_are_undecided_and_say_what_to_retake() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    render(&photos, &["--n", "2"]);
    // A photo without a chessboard.
    let set = model("layers/reference.json");
    assert_exit!(
        tablejudge([
            "render",
            "layers",
            "--set",
            path_str(&set),
            "--out",
            path_str(&dir.path().join("layers")),
            "--size",
            "1280x720",
        ]),
        0
    );
    std::fs::copy(
        dir.path().join("layers/scene_0000.jpg"),
        photos.join("view_99.jpg"),
    )
    .unwrap();
    let out = dir.path().join("camera.json");
    let run = calibrate(&photos, &out);
    assert_exit!(run, 3);
    let v = run.json();
    assert_eq!(v["verdict"], "undecided");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("found in 2 photos"), "{reason}");
    assert!(reason.contains("retake"), "{reason}");
    assert!(
        run.stderr.contains("view_99.jpg: not used"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "no calibration is saved from too few photos");
}

#[test]
fn photos_of_two_sizes_or_a_file_that_is_no_photo_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    render(&a, &["--n", "3"]);
    render(&b, &["--n", "1", "--size", "640x480"]);
    let run = tablejudge([
        "calibrate",
        "camera",
        "--board",
        "9x6",
        path_str(&a),
        path_str(&b.join("view_00.jpg")),
        "--out",
        path_str(&dir.path().join("c.json")),
    ]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("640x480 pixels"), "{}", run.stderr);

    let run = tablejudge([
        "calibrate",
        "camera",
        "--board",
        "9x6",
        path_str(&a.join("lens.json")),
        "--out",
        path_str(&dir.path().join("c.json")),
    ]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("lens.json: not a photo"),
        "{}",
        run.stderr
    );

    let run = tablejudge(["calibrate", "camera", "--board", "9", path_str(&a)]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("COLSxROWS"), "{}", run.stderr);
}

/// The 24-patch chart seen through a camera that mixes its channels and tints warm.
fn chart_through_a_camera(dir: &Path, upside_down: bool) -> std::path::PathBuf {
    let camera = ColourMatrix([[0.80, 0.15, 0.03], [0.07, 0.66, 0.09], [0.02, 0.12, 0.40]]);
    chart_photo(dir, &|c| camera.apply_srgb(c), upside_down).0
}

#[test]
fn a_colour_correction_from_a_chart_undoes_the_camera_and_is_used_by_the_readers() {
    for upside_down in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let photo = chart_through_a_camera(dir.path(), upside_down);
        let out = dir.path().join("calibration/colour.json");
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
        let before = v["calibration"]["delta_e_before"].as_f64().unwrap();
        let after = v["calibration"]["delta_e_after"].as_f64().unwrap();
        assert!(before > 8.0, "{v}");
        assert!(after < 2.0, "{v}");
        assert_eq!(v["chart_turned_degrees"], if upside_down { 180 } else { 0 });
        assert_eq!(v["calibration"]["format"], "tablejudge/colour@1");

        // Read with the correction, the chart's patches come out as printed.
        let run = read_chart(&photo, &["--colour-calibration", path_str(&out), "--json"]);
        assert_exit!(run, 0);
        let labels = cell_labels(&run.json());
        let expected: String = if upside_down {
            ('a'..='x').rev().collect()
        } else {
            ('a'..='x').collect()
        };
        assert_eq!(labels, expected);
    }
}

#[test]
fn a_photo_without_the_chart_is_undecided_and_a_bad_calibration_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("cb");
    render(&photos, &["--n", "1"]);
    let run = tablejudge([
        "calibrate",
        "colour",
        path_str(&photos.join("view_00.jpg")),
        "--out",
        path_str(&dir.path().join("colour.json")),
    ]);
    assert_exit!(run, 3);
    assert!(run.stdout.contains("retake"), "{}", run.stdout);
    assert!(!dir.path().join("colour.json").exists());

    let (_kept, bad) =
        crate::util::temp_file("colour.json", "{\"format\": \"tablejudge/colour@1\"}");
    let set = model("layers/reference.json");
    let run = tablejudge([
        "layers",
        "read",
        path_str(&photos.join("view_00.jpg")),
        "--set",
        path_str(&set),
        "--colour-calibration",
        path_str(&bad),
    ]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("colour.json: not a colour calibration"),
        "{}",
        run.stderr
    );
}
