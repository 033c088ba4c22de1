//! `tablejudge layers solve`.

use crate::assert_exit;
use crate::util::{model, path_str, tablejudge};

fn solve(mission: &str, json: bool) -> crate::util::Run {
    let set = model("layers/reference.json");
    let mut args = vec![
        "layers",
        "solve",
        "--set",
        path_str(&set),
        "--mission",
        mission,
    ];
    if json {
        args.push("--json");
    }
    tablejudge(args)
}

#[test]
fn solve_lists_solutions_with_exactly_the_missions_level() {
    for mission in ["2-01", "3-07", "4-15", "5-10"] {
        let run = solve(mission, true);
        assert_exit!(run, 0);
        let v = run.json();
        let level = v["layers"].as_u64().unwrap();
        assert_eq!(v["mission"], mission);
        assert_eq!(v["min_layers"].as_u64(), Some(level), "{mission}");
        let solutions = v["solutions"].as_array().unwrap();
        assert!(!solutions.is_empty(), "{mission}");
        for stack in solutions {
            let stack = stack.as_array().unwrap();
            assert_eq!(stack.len() as u64, level, "{mission}: {stack:?}");
            let mut ids: Vec<&str> = stack.iter().map(|p| p["layer"].as_str().unwrap()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(
                ids.len() as u64,
                level,
                "{mission}: layers must be distinct"
            );
        }
    }
}

#[test]
fn solve_text_shows_pattern_and_stacks() {
    let run = solve("2-01", false);
    assert_exit!(run, 0);
    assert!(
        run.stdout.starts_with("mission 2-01 (level 2):"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("fewest layers that make it: 2"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("   1. "), "{}", run.stdout);
}

#[test]
fn unknown_mission_is_bad_input_listing_the_range() {
    let run = solve("9-99", false);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("no mission \"9-99\""), "{}", run.stderr);
    assert!(run.stderr.contains("from 2-01 to 5-10"), "{}", run.stderr);
}

#[test]
fn a_camouflage_set_is_not_a_layers_set() {
    let set = model("camouflage/reference.json");
    let run = tablejudge([
        "layers",
        "solve",
        "--set",
        path_str(&set),
        "--mission",
        "2-01",
    ]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("not a Layers+ set"), "{}", run.stderr);
}

#[test]
fn missing_arguments_are_usage_errors() {
    let run = tablejudge(["layers", "solve", "--mission", "2-01"]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("--set"), "{}", run.stderr);
}

/// Regression: `tablejudge … | head` closed the pipe and the binary panicked.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    use std::process::{Command, Stdio};
    let set = model("layers/reference.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tablejudge"))
        .args([
            "layers",
            "solve",
            "--set",
            path_str(&set),
            "--mission",
            "5-01",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // Close our end of stdout before the binary writes its solutions.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("the binary ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn eval_looks_again_at_chosen_scenes_numbered_as_in_a_full_run() {
    let set = model("layers/reference.json");
    let dir = tempfile::tempdir().unwrap();
    let eval = |n: &str, only: &str| {
        let run = tablejudge([
            "eval",
            "layers",
            "--set",
            path_str(&set),
            "--n",
            n,
            "--seed",
            "2026",
            "--only",
            only,
            "--failures",
            path_str(dir.path()),
            "--json",
        ]);
        assert_exit!(run, 0);
        run.json()
    };
    let some = eval("40", "3,17");
    let scenes = some["scenes"].as_array().unwrap();
    let indices: Vec<u64> = scenes
        .iter()
        .map(|s| s["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indices, [3, 17]);
    assert_eq!(some["summary"]["scenes"], 2);
    assert_eq!(some["summary"]["without_stack"], 0);
    // A scene's number names the same scene in a run of any length.
    let again = &eval("18", "17")["scenes"][0];
    for field in ["index", "mission", "truth_matches", "verdict", "wrong"] {
        assert_eq!(again[field], scenes[1][field], "{field}");
    }
    // A scene past N is named, not silently skipped.
    let past = tablejudge([
        "eval",
        "layers",
        "--set",
        path_str(&set),
        "--n",
        "10",
        "--only",
        "12",
    ]);
    assert_exit!(past, 2);
    assert!(past.stderr.contains("--only 12"), "{}", past.stderr);
}
