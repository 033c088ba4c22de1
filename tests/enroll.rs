//! `tablejudge layers enroll` from rendered photos of each layer side on the player card.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{
    render_layers, Degradation, Distractors, LayersSceneSpec, SceneOptions, StackChoice,
};
use tablejudge_rules::layers::{LayersSet, NamedPlacement, Side};
use tablejudge_rules::Turn;

use crate::assert_exit;
use crate::util::{model, path_str, tablejudge};

/// One side of one layer alone on the player card, no shadow or glare (the photo protocol).
fn layer_photo(set: &LayersSet, layer: &str, side: Side, seed: u64, path: &std::path::Path) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stack = vec![NamedPlacement {
        layer: layer.to_owned(),
        side,
        quarter_turns: Turn::R0,
    }];
    let options = SceneOptions {
        width: 800,
        height: 600,
        stack: StackChoice::Given { stack },
        distractors: Distractors::NONE,
        degradation: Degradation::Realistic,
    };
    let mut spec = LayersSceneSpec::random(set, &mut rng, &options).expect("a scene");
    spec.light.shadows.clear();
    spec.light.glares.clear();
    render_layers(set, &spec)
        .expect("render")
        .image
        .save(path)
        .expect("write the photo");
}

#[test]
fn enrolls_the_reference_box_from_photos_and_the_result_is_a_valid_set() {
    let path = model("layers/reference.json");
    let set = LayersSet::from_json(&std::fs::read_to_string(&path).unwrap(), "reference").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut photos = Vec::new();
    for (i, layer) in set.layers().iter().enumerate() {
        for (j, side) in Side::ALL.into_iter().enumerate() {
            let file = dir.path().join(format!("{}-{side}.png", layer.id()));
            layer_photo(&set, layer.id(), side, 100 + 2 * i as u64 + j as u64, &file);
            photos.push(file);
        }
    }
    let out = dir.path().join("mine.json");
    let mut args = vec![
        "layers".to_owned(),
        "enroll".into(),
        "--rows".into(),
        "4".into(),
        "--cols".into(),
        "4".into(),
    ];
    args.extend(["--out".into(), path_str(&out).to_owned(), "--json".into()]);
    args.extend(photos.iter().map(|p| path_str(p).to_owned()));
    let run = tablejudge(&args);
    assert_exit!(run, 0);
    let v = run.json();
    assert_eq!(v["status"], "enrolled");
    // Ten layer colours, the card and the frame.
    assert_eq!(v["colors"].as_array().unwrap().len(), 12, "{}", run.stdout);
    let check = tablejudge(["set", "check", path_str(&out), "--json"]);
    assert_exit!(check, 0);
    assert_eq!(check.json()["summary"]["layers"], 5);
}

#[test]
fn a_badly_named_photo_or_an_unwritable_output_fails_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("holiday.png");
    image::RgbImage::new(32, 32).save(&photo).unwrap();
    let run = tablejudge([
        "layers",
        "enroll",
        "--rows",
        "4",
        "--cols",
        "4",
        "--out",
        "no/such/dir/set.json",
        path_str(&photo),
    ]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("does not exist: create it first"),
        "{}",
        run.stderr
    );
    let out = dir.path().join("set.json");
    let run = tablejudge([
        "layers",
        "enroll",
        "--rows",
        "4",
        "--cols",
        "4",
        "--out",
        path_str(&out),
        path_str(&photo),
    ]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("holiday.png"), "{}", run.stderr);
    assert!(run.stderr.contains("docs/ENROLL.md"), "{}", run.stderr);
}
