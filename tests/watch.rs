//! `tablejudge watch` on a video and on a folder, headless: each new verdict announced once,
//! a hand over the table skipped, a corrupt photo reported and passed over.

use std::path::{Path, PathBuf};

use image::{Rgb, RgbImage};
use serde_json::Value;
use tablejudge_vision::video::VideoFileWriter;

use crate::assert_exit;
use crate::util::{model, path_str, render_layers, tablejudge};

const SET: &str = "layers/reference.json";
const MISSION: &str = "2-05";

/// Renders the stack of `MISSION` (or a near-miss) at 1280×720 into `dir`.
fn render(dir: &Path, seed: u64, near_miss: bool) -> PathBuf {
    render_layers(dir, SET, MISSION, seed, near_miss, "realistic")
}

/// `photo` with a hand-coloured disc over it, `t` of the way across the frame.
fn hand_over(photo: &RgbImage, t: f32) -> RgbImage {
    let mut frame = photo.clone();
    let (w, h) = frame.dimensions();
    let centre = (w as f32 * (0.1 + 0.8 * t), h as f32 * 0.5);
    imageproc::drawing::draw_filled_circle_mut(
        &mut frame,
        (centre.0 as i32, centre.1 as i32),
        (h / 4) as i32,
        Rgb([214, 160, 128]),
    );
    frame
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn watch(source: &Path, extra: &[&str]) -> crate::util::Run {
    let set = model(SET);
    let mut args = vec![
        "watch",
        "--source",
        path_str(source),
        "--game",
        "layers",
        "--set",
        path_str(&set),
        "--mission",
        MISSION,
        "--headless",
    ];
    args.extend(extra);
    tablejudge(args)
}

/// `watch` with its preview window (no `--headless`), with each of `env` set (`Some`) or
/// removed (`None`).
fn watch_with_window(source: &Path, env: &[(&str, Option<&str>)]) -> std::process::Output {
    let set = model(SET);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tablejudge"));
    command.args([
        "watch",
        "--source",
        path_str(source),
        "--game",
        "layers",
        "--set",
        path_str(&set),
        "--mission",
        MISSION,
    ]);
    for (name, value) in env {
        match value {
            Some(v) => command.env(name, v),
            None => command.env_remove(name),
        };
    }
    command.output().unwrap()
}

#[test]
fn a_watched_video_announces_each_new_verdict_once_and_skips_the_hand() {
    let dir = tempfile::tempdir().unwrap();
    let matching = image::open(render(&dir.path().join("a"), 11, false))
        .unwrap()
        .to_rgb8();
    let near_miss = image::open(render(&dir.path().join("b"), 12, true))
        .unwrap()
        .to_rgb8();
    // 8 frames a second: the stack still for 1.5 s, a hand passing over it, the same stack
    // still again, then another stack (a near-miss).
    let video = dir.path().join("table.avi");
    let mut writer = VideoFileWriter::create(&video, 8.0, (1280, 720)).unwrap();
    let mut frames: Vec<RgbImage> = vec![matching.clone(); 12];
    frames.extend((0..8).map(|i| hand_over(&matching, i as f32 / 7.0)));
    frames.extend(vec![matching.clone(); 12]);
    frames.extend(vec![near_miss.clone(); 12]);
    for f in &frames {
        writer.write(f).unwrap();
    }
    writer.finish().unwrap();

    let out = dir.path().join("verdicts");
    let run = watch(&video, &["--annotate", path_str(&out)]);
    // The last verdict is the near-miss's mismatch.
    assert_exit!(run, 1);
    let events = events(&run.stdout);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["started", "verdict", "verdict", "ended"],
        "{}",
        run.stdout
    );
    assert_eq!(events[0]["format"], "tablejudge/watch@1");
    assert_eq!(events[0]["stream"], true);
    // 0.5 s at 8 frames a second.
    assert_eq!(events[0]["still_frames"], 4);
    let (first, second) = (&events[1], &events[2]);
    assert_eq!(first["status"], 0, "{first}");
    assert_eq!(first["result"]["verdict"], "match");
    // Judged once the stack had been still for 4 frames, well before the hand came.
    let at = first["time_s"].as_f64().unwrap();
    assert!(at < 1.0, "{first}");
    assert_eq!(second["status"], 1, "{second}");
    assert_eq!(second["result"]["verdict"], "mismatch");
    assert!(second["time_s"].as_f64().unwrap() > 32.0 / 8.0, "{second}");
    // The same stack after the hand is judged again, but not announced again.
    let ended = &events[3];
    assert_eq!(ended["frames"], 44);
    assert_eq!(ended["judged"], 2, "{ended}");
    assert_eq!(ended["announced"], 2);
    let judge_ms = |key: &str| {
        ended[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key}: {ended}"))
    };
    assert!(
        0.0 < judge_ms("judge_ms_median")
            && judge_ms("judge_ms_median") <= judge_ms("judge_ms_max"),
        "{ended}"
    );
    for verdict in [first, second] {
        let path = verdict["annotated"].as_str().expect("an annotated frame");
        let img = image::open(path).expect("the annotated frame was written");
        assert_eq!((img.width(), img.height()), (1280, 720));
    }
}

#[test]
fn a_watched_folder_judges_every_photo_and_reports_a_corrupt_one() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    let a = render(&dir.path().join("a"), 13, false);
    std::fs::copy(&a, photos.join("1.jpg")).unwrap();
    std::fs::write(photos.join("2.jpg"), b"\xff\xd8 not really a JPEG").unwrap();
    std::fs::copy(&a, photos.join("3.jpg")).unwrap();
    let b = render(&dir.path().join("b"), 13, true);
    std::fs::copy(&b, photos.join("4.jpg")).unwrap();

    let run = watch(&photos, &[]);
    assert_exit!(run, 1);
    let events = events(&run.stdout);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    // Photo 3 shows what photo 1 did: judged, not announced again.
    assert_eq!(
        kinds,
        ["started", "verdict", "unreadable", "verdict", "ended"],
        "{}",
        run.stdout
    );
    assert_eq!(events[0]["stream"], false);
    assert!(events[1]["frame"].as_str().unwrap().ends_with("1.jpg"));
    assert_eq!(events[1]["status"], 0);
    assert!(events[2]["frame"].as_str().unwrap().ends_with("2.jpg"));
    assert!(
        events[2]["why"]
            .as_str()
            .unwrap()
            .starts_with("cannot read the photo: not an image"),
        "{}",
        events[2]
    );
    assert!(events[3]["frame"].as_str().unwrap().ends_with("4.jpg"));
    assert_eq!(events[3]["status"], 1);
    assert_eq!(events[4]["judged"], 3);
}

#[test]
fn watch_refuses_a_missing_source_and_an_unknown_mission_before_watching() {
    let dir = tempfile::tempdir().unwrap();
    let run = watch(&dir.path().join("nothing.avi"), &[]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("nothing.avi"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    let set = model(SET);
    let run = tablejudge([
        "watch",
        "--source",
        path_str(dir.path()),
        "--game",
        "layers",
        "--set",
        path_str(&set),
        "--mission",
        "9-99",
        "--headless",
    ]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("no mission \"9-99\""), "{}", run.stderr);
}

#[test]
fn watch_without_a_display_asks_for_headless_instead_of_crashing() {
    let dir = tempfile::tempdir().unwrap();
    let photo = render(dir.path(), 13, false);
    let out = watch_with_window(
        &photo,
        &[
            ("DISPLAY", None),
            ("WAYLAND_DISPLAY", None),
            ("QT_QPA_PLATFORM", None),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--headless"), "{stderr}");
    assert!(stderr.contains("no display"), "{stderr}");
}

#[test]
fn the_preview_window_shows_each_frame_where_qt_draws_offscreen() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    std::fs::copy(
        render(&dir.path().join("a"), 13, false),
        photos.join("1.jpg"),
    )
    .unwrap();
    std::fs::copy(
        render(&dir.path().join("b"), 13, true),
        photos.join("2.jpg"),
    )
    .unwrap();
    let out = watch_with_window(&photos, &[("QT_QPA_PLATFORM", Some("offscreen"))]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[1].ends_with("1.jpg: MATCH (stack turned 270 degrees)"),
        "{stdout}"
    );
    assert!(lines[2].contains("2.jpg: MISMATCH"), "{stdout}");
    assert!(
        lines[3].starts_with("2 frames, 2 scenes judged, 2 announced"),
        "{stdout}"
    );
}

#[test]
fn cameras_lists_the_webcams_there_are_or_says_there_are_none() {
    let run = tablejudge(["cameras"]);
    assert_exit!(run, 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(!lines.is_empty());
    // A machine without a camera (CI) says so; one with cameras lists each with its formats.
    assert!(
        lines[0].starts_with("no cameras found") || lines[0].starts_with("camera "),
        "{}",
        run.stdout
    );
    let run = tablejudge(["cameras", "--json"]);
    assert_exit!(run, 0);
    let listed = run.json();
    let cameras = listed.as_array().expect("a JSON array of cameras");
    assert_eq!(cameras.is_empty(), lines[0].starts_with("no cameras found"));
    for c in cameras {
        assert!(c["name"].is_string() && c["formats"].is_array(), "{c}");
    }
}
