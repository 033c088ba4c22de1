//! `tablejudge set check`: every shipped set is valid; every kind of broken file is named.

use crate::assert_exit;
use crate::util::{model, path_str, tablejudge, temp_file};

#[test]
fn shipped_layers_set_is_valid() {
    let run = tablejudge(["set", "check", path_str(&model("layers/reference.json"))]);
    assert_exit!(run, 0);
    assert!(
        run.stdout.contains(
            "5 layers, 55 missions (15 of level 2, 15 of level 3, 15 of level 4, 10 of level 5)"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn shipped_camouflage_set_is_valid() {
    let run = tablejudge([
        "set",
        "check",
        path_str(&model("camouflage/reference.json")),
        "--json",
    ]);
    assert_exit!(run, 0);
    let v = run.json();
    assert_eq!(v["valid"], true);
    assert_eq!(v["format"], "tablejudge/camouflage-set@1");
    assert_eq!(v["summary"]["decks"], 8);
    assert_eq!(v["summary"]["cards"], 48);
    assert_eq!(v["summary"]["puzzles"], 20);
}

#[test]
fn shared_colour_chart_palette_is_valid() {
    let chart = crate::util::root().join("../shared/palettes/colorchecker-classic.json");
    if !chart.exists() {
        // The shared folder sits beside the checkout in CI and in development; a lone
        // checkout still checks a palette through `palette_file_is_valid`.
        return;
    }
    let run = tablejudge(["set", "check", path_str(&chart)]);
    assert_exit!(run, 0);
    assert!(
        run.stdout
            .contains("palette \"colorchecker-classic\" of 24 colours"),
        "{}",
        run.stdout
    );
}

#[test]
fn palette_file_is_valid() {
    let (_dir, path) = temp_file(
        "p.json",
        r##"{"format":"tablejudge/palette@1","name":"two","colors":{"a":{"name":"x","srgb":"#010203"},"b":{"name":"y","srgb":"#fefdfc"}}}"##,
    );
    let run = tablejudge(["set", "check", path_str(&path), "--json"]);
    assert_exit!(run, 0);
    assert_eq!(run.json()["summary"]["colors"], 2);
}

#[test]
fn missing_file_is_bad_input_naming_the_file() {
    let run = tablejudge(["set", "check", "no/such/set.json"]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("no/such/set.json: cannot read"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("check the path"), "{}", run.stderr);
}

#[test]
fn invalid_json_reports_line_and_column() {
    let (_dir, path) = temp_file(
        "broken.json",
        "{\n  \"format\": \"tablejudge/palette@1\",\n  \"name\": ,\n}\n",
    );
    let run = tablejudge(["set", "check", path_str(&path)]);
    assert_exit!(run, 2);
    assert!(
        run.stderr
            .contains("broken.json: invalid JSON at line 3, column 11"),
        "{}",
        run.stderr
    );
}

#[test]
fn invalid_file_as_json_lists_the_error_with_its_place() {
    let (_dir, path) = temp_file(
        "p.json",
        r##"{"format":"tablejudge/palette@1","name":"p","colors":{"a":{"name":"x","srgb":"red"}}}"##,
    );
    let run = tablejudge(["set", "check", path_str(&path), "--json"]);
    assert_exit!(run, 2);
    let v = run.json();
    assert_eq!(v["valid"], false);
    assert_eq!(v["errors"][0]["place"], "colour \"a\"");
}

#[test]
fn unknown_format_is_named() {
    let (_dir, path) = temp_file("x.json", r#"{"format":"tablejudge/layers-set@9"}"#);
    let run = tablejudge(["set", "check", path_str(&path)]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("a version this tablejudge cannot read"),
        "{}",
        run.stderr
    );
}

/// A 3×3 Layers+ set whose layer B breaks the mirror rule at row 1, column 1 of its back.
const MIRROR_BROKEN: &str = r##"{
  "format": "tablejudge/layers-set@1", "name": "t", "rows": 3, "cols": 3,
  "colors": { "w": {"name": "card", "srgb": "#f2efe6"}, "k": {"name": "frame", "srgb": "#2b2b30"},
              "r": {"name": "red", "srgb": "#d62839"}, "b": {"name": "blue", "srgb": "#1f4e9e"} },
  "card": "w", "frame": "k",
  "layers": [
    { "id": "A", "front": ["r..", "rrr", "rrr"], "back": ["..b", "bbb", "bbb"] },
    { "id": "B", "front": ["r..", "rrr", "rrr"], "back": ["b.b", "bbb", "bbb"] }
  ],
  "missions": []
}"##;

#[test]
fn layers_mirror_rule_breach_names_layer_row_and_column() {
    let (_dir, path) = temp_file("mine.json", MIRROR_BROKEN);
    let run = tablejudge(["set", "check", path_str(&path)]);
    assert_exit!(run, 2);
    assert!(
        run.stderr
            .contains("mine.json: layer B, back, row 1, column 1"),
        "{}",
        run.stderr
    );
}

#[test]
fn layers_mission_not_solvable_with_its_count_is_rejected() {
    let text = MIRROR_BROKEN
        .replace(r#"["b.b", "bbb", "bbb"]"#, r#"["..b", "bbb", "bbb"]"#)
        .replace(
            r#""missions": []"#,
            r#""missions": [{ "id": "m1", "layers": 1, "pattern": ["bbb", "bbb", "bbb"] }]"#,
        );
    let (_dir, path) = temp_file("mine.json", &text);
    let run = tablejudge(["set", "check", path_str(&path)]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("mine.json: mission m1"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("cannot be made with exactly 1 distinct layers; it can be made with 2"),
        "{}",
        run.stderr
    );
}

#[test]
fn identical_layers_are_rejected_naming_the_twin() {
    // Layer B is layer A again: the seed asks players to check their layers all differ.
    let text = MIRROR_BROKEN.replace(r#"["b.b", "bbb", "bbb"]"#, r#"["..b", "bbb", "bbb"]"#);
    let (_dir, path) = temp_file("mine.json", &text);
    let run = tablejudge(["set", "check", path_str(&path)]);
    assert_exit!(run, 2);
    assert!(
        run.stderr
            .contains("mine.json: layer B: this layer is the same as layer A"),
        "{}",
        run.stderr
    );
}
