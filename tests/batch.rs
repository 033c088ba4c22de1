//! `tablejudge batch` on rendered photos: every photo judged, results appended as JSON lines,
//! thumbnails and a report; a corrupt photo and a symlink loop reported and skipped; an
//! interrupted batch (or one killed with SIGKILL) resumed without judging a photo twice.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::assert_exit;
use crate::util::{model, path_str, render_layers, tablejudge, Run};

const SET: &str = "layers/reference.json";
const MISSION: &str = "2-05";

/// Renders the stack of `MISSION` (or a near-miss) at 1280×720 into `dir`.
fn render(dir: &Path, seed: u64, near_miss: bool) -> PathBuf {
    render_layers(dir, SET, MISSION, seed, near_miss, "realistic")
}

fn batch(dir: &Path, out: &Path, extra: &[&str]) -> Run {
    let set = model(SET);
    let mut args = vec![
        "batch",
        path_str(dir),
        "--game",
        "layers",
        "--set",
        path_str(&set),
        "--mission",
        MISSION,
        "--out",
        path_str(out),
    ];
    args.extend(extra);
    tablejudge(args)
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn by_photo<'a>(results: &'a [Value], photo: &str) -> &'a Value {
    let found: Vec<&Value> = results.iter().filter(|r| r["photo"] == photo).collect();
    assert_eq!(found.len(), 1, "{photo} once in {results:?}");
    found[0]
}

#[test]
fn a_batch_judges_every_photo_and_reports_the_unreadable_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let photos = tmp.path().join("photos");
    std::fs::create_dir_all(photos.join("table 2")).unwrap();
    std::fs::copy(
        render(&tmp.path().join("r1"), 11, false),
        photos.join("a.jpg"),
    )
    .unwrap();
    std::fs::copy(
        render(&tmp.path().join("r2"), 12, true),
        photos.join("table 2/b.jpg"),
    )
    .unwrap();
    std::fs::write(photos.join("broken.jpg"), b"\xff\xd8\xff\xe0 cut short").unwrap();
    std::fs::write(photos.join("notes.txt"), "not a photo").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", photos.join("table 2/loop")).unwrap();
    let out = tmp.path().join("out");

    let run = batch(&photos, &out, &["--json"]);
    // A mismatch outranks the unreadable photo.
    assert_exit!(run, 1);
    let summary = run.json();
    assert_eq!(summary["photos"], 3, "{summary}");
    assert_eq!(summary["matched"], 1);
    assert_eq!(summary["mismatched"], 1);
    assert_eq!(summary["unreadable"], 1);
    assert_eq!(summary["judged_now"], 3);
    #[cfg(unix)]
    {
        let not_walked = summary["not_walked"].as_array().unwrap();
        assert_eq!(not_walked.len(), 1, "{summary}");
        assert!(
            not_walked[0].as_str().unwrap().contains("loop"),
            "{summary}"
        );
        assert!(run.stderr.contains("loop"), "{}", run.stderr);
    }

    let results = results(&out);
    assert_eq!(results.len(), 3);
    let a = by_photo(&results, "a.jpg");
    assert_eq!(a["status"], 0);
    assert_eq!(a["verdict"], "match");
    assert_eq!(a["result"]["mission"]["id"], MISSION);
    let b = by_photo(&results, "table 2/b.jpg");
    assert_eq!(b["status"], 1);
    assert!(
        b["headline"].as_str().unwrap().starts_with("MISMATCH"),
        "{b}"
    );
    let broken = by_photo(&results, "broken.jpg");
    assert_eq!(broken["status"], 2);
    assert_eq!(broken["verdict"], "unreadable");
    assert!(
        broken["headline"]
            .as_str()
            .unwrap()
            .contains("the JPEG stops before its end"),
        "{broken}"
    );
    for r in [a, b] {
        let full = image::open(out.join(r["annotated"].as_str().unwrap())).unwrap();
        assert_eq!((full.width(), full.height()), (1280, 720));
        let thumb = image::open(out.join(r["thumbnail"].as_str().unwrap())).unwrap();
        assert_eq!((thumb.width(), thumb.height()), (320, 180));
    }

    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for needle in [
        "a.jpg",
        "table 2/b.jpg",
        "broken.jpg",
        "thumbs/a.jpg.jpg",
        "<table id=\"photos\">",
        "<script>",
    ] {
        assert!(report.contains(needle), "report.html lacks {needle:?}");
    }

    // Judged again into the same folder without --resume: refused, the results kept.
    let again = batch(&photos, &out, &[]);
    assert_exit!(again, 2);
    assert!(again.stderr.contains("--resume"), "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl"))
            .unwrap()
            .lines()
            .count(),
        3
    );
}

#[test]
fn an_interrupted_batch_resumes_without_judging_a_photo_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let photos = tmp.path().join("photos");
    std::fs::create_dir_all(&photos).unwrap();
    let matching = render(&tmp.path().join("r1"), 13, false);
    for name in ["1.jpg", "2.jpg"] {
        std::fs::copy(&matching, photos.join(name)).unwrap();
    }
    let out = tmp.path().join("out");
    assert_exit!(batch(&photos, &out, &["--jobs", "1"]), 0);
    let first = results(&out);
    assert_eq!(first.len(), 2);

    // As if stopped while writing the second line, with a third photo yet to come.
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let first_line = text.lines().find(|l| l.contains("\"1.jpg\"")).unwrap();
    let second_line = text.lines().find(|l| l.contains("\"2.jpg\"")).unwrap();
    std::fs::write(
        out.join("results.jsonl"),
        format!("{first_line}\n{}", &second_line[..40]),
    )
    .unwrap();
    std::fs::copy(&matching, photos.join("3.jpg")).unwrap();

    let run = batch(&photos, &out, &["--resume", "--json"]);
    assert_exit!(run, 0);
    let summary = run.json();
    assert_eq!(summary["photos"], 3, "{summary}");
    assert_eq!(summary["matched"], 3);
    // 1.jpg came from the results; 2.jpg (cut short) and 3.jpg were judged now.
    assert_eq!(summary["judged_now"], 2);
    let after = results(&out);
    assert_eq!(after.len(), 3);
    for photo in ["1.jpg", "2.jpg", "3.jpg"] {
        by_photo(&after, photo);
    }
    // Resumed against another mission: refused, the results kept.
    let set = model(SET);
    let other = tablejudge([
        "batch",
        path_str(&photos),
        "--game",
        "layers",
        "--set",
        path_str(&set),
        "--mission",
        "3-04",
        "--out",
        path_str(&out),
        "--resume",
    ]);
    assert_exit!(other, 2);
    assert!(
        other.stderr.contains("the same folder, set, mission"),
        "{}",
        other.stderr
    );
    assert_eq!(results(&out).len(), 3);
    // The first line is kept as it was (not judged again).
    assert_eq!(
        std::fs::read_to_string(out.join("results.jsonl"))
            .unwrap()
            .lines()
            .next(),
        Some(first_line)
    );
}

#[test]
fn a_batch_fails_before_any_work_when_its_output_cannot_be_written() {
    let tmp = tempfile::tempdir().unwrap();
    let photos = tmp.path().join("photos");
    std::fs::create_dir_all(&photos).unwrap();
    std::fs::copy(
        render(&tmp.path().join("r1"), 13, false),
        photos.join("1.jpg"),
    )
    .unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let run = batch(&photos, &file.join("out"), &[]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("a-file/out: cannot write"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    let run = batch(
        &tmp.path().join("no-such-folder"),
        &tmp.path().join("out"),
        &[],
    );
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("no-such-folder: not a folder"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_batch_killed_mid_way_keeps_what_it_finished_and_resume_does_the_rest() {
    const PHOTOS: usize = 16;
    let tmp = tempfile::tempdir().unwrap();
    let photos = tmp.path().join("photos");
    std::fs::create_dir_all(&photos).unwrap();
    let matching = render(&tmp.path().join("r1"), 13, false);
    for i in 0..PHOTOS {
        std::fs::copy(&matching, photos.join(format!("{i:02}.jpg"))).unwrap();
    }
    let out = tmp.path().join("out");
    let set = model(SET);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tablejudge"))
        .args(["batch", path_str(&photos), "--game", "layers", "--set"])
        .args([
            path_str(&set),
            "--mission",
            MISSION,
            "--out",
            path_str(&out),
        ])
        .args(["--jobs", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the batch starts");
    // Killed (SIGKILL: no handler runs) once three photos are in.
    let complete = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| serde_json::from_str::<Value>(l).is_ok())
            .map(str::to_owned)
            .collect()
    };
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
        if complete(&text).len() >= 3 {
            break;
        }
        assert!(started.elapsed().as_secs() < 300, "no results in 5 minutes");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the batch was killed, not finished");
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let kept = complete(&text);
    assert!(
        (3..PHOTOS).contains(&kept.len()),
        "{} photos were in when it was killed",
        kept.len()
    );

    let run = batch(&photos, &out, &["--resume", "--json"]);
    assert_exit!(run, 0);
    let summary = run.json();
    assert_eq!(summary["photos"], PHOTOS, "{summary}");
    assert_eq!(summary["matched"], PHOTOS, "{summary}");
    // What the killed batch finished was not judged again.
    assert_eq!(summary["judged_now"], PHOTOS - kept.len(), "{summary}");
    let after = results(&out);
    for i in 0..PHOTOS {
        by_photo(&after, &format!("{i:02}.jpg"));
    }
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    for line in &kept {
        assert!(text.lines().any(|l| l == line), "{line} kept as it was");
    }
}
