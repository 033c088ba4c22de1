//! Enrolling rendered photos of the shipped sets and comparing with the originals.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{
    render_layers, Degradation, Distractors, LayersSceneSpec, SceneOptions, StackChoice,
};
use tablejudge_rules::layers::{LayersSet, NamedPlacement, RawLayersSet, Side};
use tablejudge_rules::{Grid, Srgb, Turn};

use super::*;
use crate::colour::delta_e_srgb;

fn load(name: &str) -> LayersSet {
    let path = format!(
        "{}/../../models/layers/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let json = std::fs::read_to_string(&path).expect("the shipped set is readable");
    LayersSet::from_json(&json, &path).expect("the shipped set is valid")
}

fn scene_options(stack: StackChoice, distractors: Distractors) -> SceneOptions {
    SceneOptions {
        width: 960,
        height: 720,
        stack,
        distractors,
        degradation: Degradation::Realistic,
    }
}

/// A photo of one side of one layer alone on the player card, realistic light (its colour
/// temperature drawn per seed) without shadows or glare, as the protocol asks.
fn layer_photo(set: &LayersSet, layer: &str, side: Side, seed: u64) -> RgbImage {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stack = vec![NamedPlacement {
        layer: layer.to_owned(),
        side,
        quarter_turns: Turn::R0,
    }];
    let o = scene_options(StackChoice::Given { stack }, Distractors::NONE);
    let mut spec = LayersSceneSpec::random(set, &mut rng, &o).expect("spec");
    spec.light.shadows.clear();
    spec.light.glares.clear();
    render_layers(set, &spec).expect("render").image
}

/// A photo standing in for a mission card: the stack of one of the mission's solutions, whose
/// visible grid is the mission's pattern (the renderer draws mission cards only beside a
/// stack, and moving the stack away changes the scene's exposure).
fn mission_photo(set: &LayersSet, mission: &str, seed: u64) -> RgbImage {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let o = scene_options(
        StackChoice::MissionSolution {
            mission: Some(mission.to_owned()),
        },
        Distractors::NONE,
    );
    let mut spec = LayersSceneSpec::random(set, &mut rng, &o).expect("spec");
    spec.light.shadows.clear();
    spec.light.glares.clear();
    render_layers(set, &spec).expect("render").image
}

fn photos(set: &LayersSet, missions: &[&str]) -> EnrollPhotos {
    let mut photos = Vec::new();
    for (i, l) in set.layers().iter().enumerate() {
        for (j, side) in [Side::Front, Side::Back].into_iter().enumerate() {
            let name = if j == 0 { "front" } else { "back" };
            photos.push(EnrollPhoto {
                file: format!("{}-{name}.png", l.id()),
                image: layer_photo(set, l.id(), side, 100 + 2 * i as u64 + j as u64),
            });
        }
    }
    for (i, m) in missions.iter().enumerate() {
        let image = mission_photo(set, m, 1000 + i as u64);
        if std::env::var("ENROLL_DUMP").is_ok() {
            image.save(format!("/tmp/enroll-{m}.png")).expect("dump");
        }
        photos.push(EnrollPhoto {
            file: format!("{m}.jpg"),
            image,
        });
    }
    EnrollPhotos {
        rows: set.rows(),
        cols: set.cols(),
        photos,
    }
}

/// Extends `map` (learned key → original key) so that `learned` equals `original` cell for
/// cell; false (and `map` unchanged) when it cannot.
fn extend(map: &mut BTreeMap<char, char>, learned: &Grid<char>, original: &Grid<char>) -> bool {
    if learned.size() != original.size() {
        return false;
    }
    let mut m = map.clone();
    for (p, &l) in learned.iter() {
        let o = original[p];
        if (l == '.') != (o == '.') {
            return false;
        }
        if l == '.' {
            continue;
        }
        match m.get(&l) {
            Some(&x) if x != o => return false,
            Some(_) => {}
            None => {
                if m.values().any(|&x| x == o) {
                    return false;
                }
                m.insert(l, o);
            }
        }
    }
    *map = m;
    true
}

/// Finds turns under which every learned layer side (and mission) equals the original up to
/// one consistent renaming of keys; returns the renaming.
fn match_sets(learned: &RawLayersSet, original: &RawLayersSet) -> BTreeMap<char, char> {
    let g = |rows: &[String]| Grid::parse_rows(rows).expect("grid");
    let mut map = BTreeMap::from([('w', original.card.chars().next().unwrap_or('w'))]);
    map.insert('k', original.frame.chars().next().unwrap_or('k'));
    for (l, o) in learned.layers.iter().zip(&original.layers) {
        assert_eq!(l.id, o.id);
        for (lg, og) in [(&l.front, &o.front), (&l.back, &o.back)] {
            let ok = Turn::ALL
                .into_iter()
                .any(|t| extend(&mut map, &g(lg), &g(og).turned(t)));
            assert!(
                ok,
                "layer {}: {lg:?} is no turn of {og:?} under {map:?}",
                l.id
            );
        }
    }
    for lm in &learned.missions {
        let om = original
            .missions
            .iter()
            .find(|m| m.id == lm.id)
            .expect("mission ids come from the file names");
        assert_eq!(lm.layers, om.layers);
        let ok = Turn::ALL
            .into_iter()
            .any(|t| extend(&mut map, &g(&lm.pattern), &g(&om.pattern).turned(t)));
        assert!(
            ok,
            "mission {}: {:?} vs {:?} under {map:?}",
            lm.id, lm.pattern, om.pattern
        );
    }
    map
}

fn check_enrolment(name: &str, missions: &[&str], max_delta_e: f32) {
    let set = load(name);
    let original = set.to_raw();
    let photos = photos(&set, missions);
    let enrolled = enroll(&photos, &EnrollOptions::default()).expect("enrols");
    let raw = &enrolled.raw;
    for c in &enrolled.report.clusters {
        eprintln!(
            "{} {:<8} {} members {:3} spread {:.1} max {:.1}",
            c.key, c.name, c.srgb, c.members, c.spread, c.max_delta_e
        );
    }
    for p in &enrolled.report.photos {
        eprintln!(
            "{:<12} confidence {:.2} worst ΔE {:.1} frame {:?}",
            p.file, p.confidence, p.worst_cell_delta_e, p.frame_width
        );
    }
    eprintln!("conflicts: {:?}", enrolled.report.conflicts);
    eprintln!("problems: {:?}", enrolled.report.problems);
    assert_eq!((raw.rows, raw.cols), (original.rows, original.cols));
    assert_eq!(raw.colors.len(), original.colors.len(), "{:?}", raw.colors);
    assert_eq!(raw.layers.len(), original.layers.len());
    assert_eq!(raw.missions.len(), missions.len());
    let map = match_sets(raw, &original);
    assert_eq!(
        map.len(),
        original.colors.len(),
        "every colour is used: {map:?}"
    );
    for (l, o) in &map {
        let learned: Srgb = raw.colors[&l.to_string()].srgb.parse().expect("hex");
        let printed: Srgb = original.colors[&o.to_string()].srgb.parse().expect("hex");
        let d = delta_e_srgb(learned, printed);
        eprintln!("{l} → {o}: learned {learned} printed {printed} ΔE {d:.1}");
        assert!(
            d < max_delta_e,
            "{l} → {o}: {learned} vs {printed}, ΔE {d:.1}"
        );
    }
    assert!(
        enrolled.report.conflicts.is_empty(),
        "{:?}",
        enrolled.report.conflicts
    );
    assert!(
        (raw.frame_width - original.frame_width).abs() < 0.08,
        "{}",
        raw.frame_width
    );
    assert!(
        enrolled.report.problems.is_empty(),
        "{:?}",
        enrolled.report.problems
    );
}

#[test]
fn the_reference_box_is_enrolled_from_its_photos() {
    check_enrolment("reference", &["2-01", "3-01"], 10.0);
}

/// 5×5, a light frame on a dark card, a narrower frame.
///
/// Ignored: in layer B's front photo (holes along the right column and bottom row) the grid
/// reader's corners miss the cell area, so the ring profile finds no frame ("differ by only
/// ΔE 2.8"); a locator matter, see docs/ENROLL.md, Limitations.
#[test]
fn the_parlour_box_is_enrolled_from_its_photos() {
    check_enrolment("parlour", &["2-01"], 10.0);
}

#[test]
fn file_names_say_what_each_photo_shows() {
    assert_eq!(
        photo_role("photos/A-front.jpg").unwrap(),
        PhotoRole::Front { layer: "A".into() }
    );
    assert_eq!(
        photo_role("b_BACK.png").unwrap(),
        PhotoRole::Back { layer: "b".into() }
    );
    assert_eq!(
        photo_role("3-07.jpg").unwrap(),
        PhotoRole::Mission {
            id: "3-07".into(),
            layers: 3
        }
    );
    let e = photo_role("IMG_0042.jpg").unwrap_err().to_string();
    assert!(e.contains("IMG_0042.jpg") && e.contains("ENROLL.md"), "{e}");
    let e = photo_role("A-side.jpg").unwrap_err().to_string();
    assert!(e.contains("A-side.jpg"), "{e}");
}

#[test]
fn a_layer_without_its_back_is_named() {
    let image = RgbImage::new(8, 8);
    let photos = EnrollPhotos {
        rows: 4,
        cols: 4,
        photos: vec![
            EnrollPhoto {
                file: "A-front.jpg".into(),
                image: image.clone(),
            },
            EnrollPhoto {
                file: "A-back.jpg".into(),
                image: image.clone(),
            },
            EnrollPhoto {
                file: "B-front.jpg".into(),
                image,
            },
        ],
    };
    let e = enroll(&photos, &EnrollOptions::default()).unwrap_err();
    assert!(
        matches!(&e, EnrollError::MissingSide { layer, missing: "back", .. } if layer == "B"),
        "{e}"
    );
    assert!(e.to_string().contains("B-back.jpg"), "{e}");
}

/// A back photo of the wrong layer: its holes do not mirror the front's, and every cell where
/// only one side shows the card is reported with the file and position.
#[test]
fn holes_that_do_not_mirror_are_reported_as_conflicts() {
    let set = load("reference");
    let mut photos = photos(&set, &[]);
    let a_back = photos
        .photos
        .iter()
        .position(|p| p.file == "A-back.png")
        .expect("A's back");
    let b_back = photos
        .photos
        .iter()
        .position(|p| p.file == "B-back.png")
        .expect("B's back");
    photos.photos[a_back].image = photos.photos[b_back].image.clone();
    let enrolled = enroll(&photos, &EnrollOptions::default()).expect("enrols");
    let conflicts = &enrolled.report.conflicts;
    assert!(!conflicts.is_empty());
    assert!(
        conflicts.iter().all(|c| c.message.starts_with("layer A:")
            && (c.file == "A-front.png" || c.file == "A-back.png")
            && (1..=4).contains(&c.row)
            && (1..=4).contains(&c.col)),
        "{conflicts:?}"
    );
    // The result is still a valid set: conflicting cells are printed card-coloured cells.
    let a = &enrolled.raw.layers[0];
    assert!(
        a.front.iter().chain(&a.back).any(|r| r.contains('w')),
        "{a:?}"
    );
}
