//! Memory budgets (issue 6): one 12-megapixel photo judged in under 250 MB, and a batch's
//! memory flat in the number of photos. Peak memory is the kernel's count of the process's
//! largest resident set, as GNU time reports it.

use std::path::Path;

use crate::util::{model, path_str, root};

/// Runs `tablejudge args` under GNU time: its exit status and peak resident memory, MB.
fn peak_mb(args: &[&str]) -> (i32, f64) {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "peak %M KB"])
        .arg(env!("CARGO_BIN_EXE_tablejudge"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("GNU time runs (Debian package `time`, installed by make)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb: f64 = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak ")?.strip_suffix(" KB")?.parse().ok())
        .unwrap_or_else(|| panic!("no peak in {stderr}"));
    (out.status.code().unwrap_or(-1), kb / 1024.0)
}

const BUDGET_MB: f64 = 250.0;

#[test]
fn a_twelve_megapixel_photo_is_judged_within_250_mb() {
    let dir = tempfile::tempdir().unwrap();
    let set = model("layers/reference.json");
    let run = crate::util::tablejudge([
        "render",
        "layers",
        "--set",
        path_str(&set),
        "--out",
        path_str(dir.path()),
        "--n",
        "1",
        "--size",
        "4000x3000",
        "--mission",
        "2-05",
        "--seed",
        "5",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let photo = dir.path().join("scene_0000.jpg");
    let (code, mb) = peak_mb(&[
        "layers",
        "verify",
        path_str(&photo),
        "--set",
        path_str(&set),
        "--mission",
        "2-05",
    ]);
    assert_eq!(code, 0, "the stack of 2-05 matches");
    assert!(mb < BUDGET_MB, "layers verify of 12 MP: {mb:.0} MB");

    let camouflage = model("camouflage/reference.json");
    let boards = dir.path().join("boards");
    let run = crate::util::tablejudge([
        "render",
        "camouflage",
        "--set",
        path_str(&camouflage),
        "--out",
        path_str(&boards),
        "--n",
        "1",
        "--size",
        "4000x3000",
        "--seed",
        "7",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (code, mb) = peak_mb(&[
        "camouflage",
        "read",
        path_str(&boards.join("board_0000.jpg")),
        "--set",
        path_str(&camouflage),
    ]);
    assert!(code == 0 || code == 3, "read or undecided, not {code}");
    assert!(mb < BUDGET_MB, "camouflage read of 12 MP: {mb:.0} MB");
}

/// `n` copies (hard links) of `photo` in a fresh folder `dir/name`.
fn folder_of(dir: &Path, name: &str, photo: &Path, n: usize) -> std::path::PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir(&folder).unwrap();
    for i in 0..n {
        std::fs::hard_link(photo, folder.join(format!("{i:04}.jpg"))).unwrap();
    }
    folder
}

#[test]
fn a_batchs_memory_does_not_grow_with_its_photos() {
    let dir = tempfile::tempdir().unwrap();
    // Small photos: what could pile up is per photo (a reading, an image), not per pixel.
    let set = model("layers/reference.json");
    let rendered = dir.path().join("r");
    let run = crate::util::tablejudge([
        "render",
        "layers",
        "--set",
        path_str(&set),
        "--out",
        path_str(&rendered),
        "--n",
        "1",
        "--size",
        "480x360",
        "--mission",
        "2-05",
        "--seed",
        "3",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let photo = rendered.join("scene_0000.jpg");
    let peak = |n: usize| {
        let folder = folder_of(dir.path(), &format!("p{n}"), &photo, n);
        let out = dir.path().join(format!("out{n}"));
        let (code, mb) = peak_mb(&[
            "batch",
            path_str(&folder),
            "--game",
            "layers",
            "--set",
            path_str(&set),
            "--mission",
            "2-05",
            "--out",
            path_str(&out),
        ]);
        assert_eq!(code, 0);
        let lines = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), n);
        assert!(lines.lines().all(|l| l.contains(r#""verdict":"match""#)));
        mb
    };
    let (few, many) = (peak(100), peak(1000));
    // The results kept for the report grow by a few hundred bytes a photo; the photos'
    // pixels must not stay behind.
    assert!(
        many < few + 16.0,
        "100 photos: {few:.0} MB at the peak; 1000 photos: {many:.0} MB"
    );
}
