//! `tablejudge render camouflage`.

use std::path::Path;

use crate::assert_exit;
use crate::util::{path_str, root, tablejudge, Run};

/// `tablejudge render camouflage --set SET --out OUT` and `extra`.
fn render_camouflage(set: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "render",
        "camouflage",
        "--set",
        path_str(set),
        "--out",
        path_str(out),
    ];
    args.extend_from_slice(extra);
    tablejudge(args)
}

#[test]
fn render_camouflage_writes_boards_with_truth() {
    let dir = tempfile::tempdir().unwrap();
    let set = root().join("models/camouflage/reference.json");
    let run = render_camouflage(
        &set,
        dir.path(),
        &[
            "--n", "2", "--cards", "7", "--side", "gems", "--size", "640x480",
        ],
    );
    assert_exit!(run, 0);
    for i in 0..2 {
        let img = image::open(dir.path().join(format!("board_{i:04}.jpg"))).unwrap();
        assert_eq!((img.width(), img.height()), (640, 480));
        let truth: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(format!("board_{i:04}.truth.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(truth["side"], "gems");
        assert_eq!(truth["cards"].as_array().unwrap().len(), 7);
        let centres = truth["squares"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|q| q["square"] == "*")
            .count();
        assert_eq!(centres, 7, "every card's centre shows");
    }
}

#[test]
fn render_camouflage_names_a_missing_side_and_the_sides_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let set = root().join("models/camouflage/reference.json");
    let run = render_camouflage(&set, dir.path(), &["--side", "plants"]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("no side \"plants\""), "{}", run.stderr);
    assert!(run.stderr.contains("animal, gems"), "{}", run.stderr);
    // A Layers+ set is not a Camouflage set.
    let layers = root().join("models/layers/reference.json");
    let run = render_camouflage(&layers, dir.path(), &[]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("not a Camouflage set"),
        "{}",
        run.stderr
    );
}

#[test]
fn render_camouflage_series_writes_a_photo_per_placement_and_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let set = root().join("models/camouflage/reference.json");
    let run = render_camouflage(
        &set,
        dir.path(),
        &["--series", "--players", "2", "--size", "320x240"],
    );
    assert_exit!(run, 0);
    let game = dir.path().join("game_0000");
    let series: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(game.join("series.json")).unwrap()).unwrap();
    let frames = series["frames"].as_array().unwrap();
    let history = &series["history"];
    assert_eq!(history["players"].as_array().unwrap().len(), 2);
    assert_eq!(history["start"].as_array().unwrap().len(), 3);
    let plays = history["plays"].as_array().unwrap().len();
    let settled = frames.iter().filter(|f| f["hand"] == false).count();
    // One settled photo of the starting board, then one after each play.
    assert_eq!(settled, plays + 1);
    for f in frames {
        assert!(game.join(f["file"].as_str().unwrap()).is_file());
    }
}

#[test]
fn camouflage_read_finds_every_card_of_a_rendered_board() {
    let dir = tempfile::tempdir().unwrap();
    let set = root().join("models/camouflage/reference.json");
    let run = render_camouflage(
        &set,
        dir.path(),
        &["--cards", "8", "--seed", "1", "--size", "960x720"],
    );
    assert_exit!(run, 0);
    let photo = dir.path().join("board_0000.jpg");
    let annotated = dir.path().join("read.png");
    let run = tablejudge([
        "camouflage",
        "read",
        path_str(&photo),
        "--set",
        path_str(&set),
        "--json",
        "--annotate",
        path_str(&annotated),
    ]);
    assert_exit!(run, 0);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["format"], "tablejudge/camouflage-reading@1");
    assert_eq!(v["status"], "read");
    assert_eq!(v["side"], "animal");
    assert_eq!(v["centres"].as_array().unwrap().len(), 8);
    let stars: usize = v["picture"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().matches('*').count())
        .sum();
    assert_eq!(stars, 8);
    let img = image::open(&annotated).unwrap();
    assert_eq!((img.width(), img.height()), (960, 720));
}

#[test]
fn camouflage_read_of_a_missing_photo_or_side_is_bad_input() {
    let set = root().join("models/camouflage/reference.json");
    let run = tablejudge(["camouflage", "read", "no-such-photo.jpg"]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("no-such-photo.jpg"));
    let photo = root().join("fixtures/parlour-2-03.jpg");
    let run = tablejudge([
        "camouflage",
        "read",
        path_str(&photo),
        "--set",
        path_str(&set),
        "--side",
        "plants",
    ]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("animal, gems"));
}
