//! Scene-level tests of the Layers+ renderer against its own truth.

use image::RgbImage;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_rules::layers::LayersSet;
use tablejudge_rules::Srgb;

use crate::{
    projection, render_layers, Degradation, Distractors, LayersScene, LayersSceneSpec,
    SceneOptions, StackChoice,
};

fn set() -> LayersSet {
    let json = include_str!("../../../models/layers/reference.json");
    LayersSet::from_json(json, "reference.json").unwrap()
}

fn options(degradation: Degradation, distractors: Distractors) -> SceneOptions {
    SceneOptions {
        width: 480,
        height: 360,
        stack: StackChoice::Random {
            min_layers: 1,
            max_layers: 5,
        },
        distractors,
        degradation,
    }
}

fn spec(set: &LayersSet, seed: u64, o: &SceneOptions) -> LayersSceneSpec {
    LayersSceneSpec::random(set, &mut ChaCha8Rng::seed_from_u64(seed), o).unwrap()
}

fn pixel(img: &RgbImage, p: [f64; 2]) -> Option<Srgb> {
    let (x, y) = (p[0].round(), p[1].round());
    let inside = x >= 0.0 && y >= 0.0 && x < f64::from(img.width()) && y < f64::from(img.height());
    inside.then(|| {
        let v = img.get_pixel(x as u32, y as u32).0;
        Srgb::new(v[0], v[1], v[2])
    })
}

fn close(a: Srgb, b: Srgb, tol: i32) -> bool {
    let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).abs();
    d(a.r, b.r) <= tol && d(a.g, b.g) <= tol && d(a.b, b.b) <= tol
}

fn srgb_of(set: &LayersSet, key: tablejudge_rules::Key) -> Srgb {
    set.colors()[&key].srgb
}

#[test]
fn clean_cells_show_their_colour_where_the_truth_puts_them() {
    let set = set();
    let mut checked = 0;
    for seed in 0..6 {
        let s = spec(
            &set,
            seed,
            &options(Degradation::Clean, Distractors::default()),
        );
        let scene = render_layers(&set, &s).unwrap();
        let t = &scene.truth;
        assert_eq!(
            t.visible,
            set.compose(&stack_of(&set, &scene)).unwrap().to_rows_keys()
        );
        for row in &t.cells {
            for c in row {
                if c.visible < 1.0 {
                    continue;
                }
                let got = pixel(&scene.image, c.center).unwrap();
                let want = s.expected_srgb(srgb_of(&set, c.key));
                assert!(
                    close(got, want, 6),
                    "seed {seed}: {c:?} shows {got}, want {want}"
                );
                checked += 1;
            }
        }
        // The corners: a homography from the grid to them lands every cell the top layer
        // shows on that cell's colour.
        let (rows, cols) = (t.rows as f32, t.cols as f32);
        let grid = [[0.0, 0.0], [cols, 0.0], [cols, rows], [0.0, rows]];
        let to = t.corners.map(|[x, y]| [x as f32, y as f32]);
        let h = projection(grid, to).unwrap();
        let top = &t.stack[0].layer;
        for (r, row) in t.cells.iter().enumerate() {
            for (col, c) in row.iter().enumerate() {
                if c.layer.as_ref() != Some(top) || c.visible < 1.0 {
                    continue;
                }
                let [x, y] = crate::project(&h, [col as f32 + 0.5, r as f32 + 0.5]);
                let got = pixel(&scene.image, [f64::from(x), f64::from(y)]).unwrap();
                let want = s.expected_srgb(srgb_of(&set, c.key));
                assert!(
                    close(got, want, 6),
                    "seed {seed} ({r}, {col}): {got} vs {want}"
                );
            }
        }
    }
    assert!(checked > 40, "only {checked} cells checked");
}

trait KeyRows {
    fn to_rows_keys(&self) -> Vec<String>;
}

impl KeyRows for tablejudge_rules::Grid<tablejudge_rules::Key> {
    fn to_rows_keys(&self) -> Vec<String> {
        (0..self.rows())
            .map(|r| self.row(r).iter().map(|k| k.char()).collect())
            .collect()
    }
}

fn stack_of(set: &LayersSet, scene: &LayersScene) -> Vec<tablejudge_rules::layers::Placement> {
    scene
        .truth
        .stack
        .iter()
        .map(|n| set.placement(n).unwrap())
        .collect()
}

fn inside_convex(q: &[[f64; 2]; 4], p: [f64; 2]) -> bool {
    (0..4).all(|i| {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0.0
    })
}

#[test]
fn the_player_card_surrounds_the_frame_in_its_own_colour() {
    let set = set();
    for seed in 10..14 {
        let s = spec(&set, seed, &options(Degradation::Clean, Distractors::NONE));
        let scene = render_layers(&set, &s).unwrap();
        let t = &scene.truth;
        let card = t.player_card_corners;
        for c in t.corners {
            assert!(
                inside_convex(&card, c),
                "seed {seed}: {c:?} outside {card:?}"
            );
        }
        // Just inside each edge of the card, between its edge and the frame: the card colour.
        let want = s.expected_srgb(srgb_of(&set, set.card()));
        let centre = [0, 1].map(|k| card.iter().map(|p| p[k]).sum::<f64>() / 4.0);
        for i in 0..4 {
            let (a, b) = (card[i], card[(i + 1) % 4]);
            let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
            let p = [
                mid[0] + 0.07 * (centre[0] - mid[0]),
                mid[1] + 0.07 * (centre[1] - mid[1]),
            ];
            let got = pixel(&scene.image, p).unwrap();
            assert!(
                close(got, want, 12),
                "seed {seed} edge {i}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn the_same_spec_renders_the_same_pixels_and_seeds_differ() {
    let set = set();
    let o = options(Degradation::Realistic, Distractors::ALL);
    let (a, b) = (spec(&set, 7, &o), spec(&set, 7, &o));
    assert_eq!(a, b);
    let (ra, rb) = (
        render_layers(&set, &a).unwrap(),
        render_layers(&set, &b).unwrap(),
    );
    assert_eq!(ra.image, rb.image);
    assert_eq!(ra.truth, rb.truth);
    let c = spec(&set, 8, &o);
    assert_ne!(a, c);
    assert_ne!(ra.image, render_layers(&set, &c).unwrap().image);
}

#[test]
fn the_mission_card_prints_its_level_digit() {
    let set = set();
    let mut o = options(Degradation::Clean, Distractors::NONE);
    o.distractors.mission_card = 1.0;
    o.stack = StackChoice::MissionSolution { mission: None };
    let mut seen = 0;
    for seed in 0..12 {
        let s = spec(&set, seed, &o);
        let scene = render_layers(&set, &s).unwrap();
        let Some(m) = &scene.truth.mission else {
            continue;
        };
        assert!(m.matches_stack, "a mission's solution matches its card");
        let q = m.digit_corners;
        let (x0, x1) = (
            q.iter().map(|p| p[0]).fold(f64::MAX, f64::min),
            q.iter().map(|p| p[0]).fold(f64::MIN, f64::max),
        );
        let (y0, y1) = (
            q.iter().map(|p| p[1]).fold(f64::MAX, f64::min),
            q.iter().map(|p| p[1]).fold(f64::MIN, f64::max),
        );
        let mc = s.mission_card.as_ref().unwrap();
        let (ink, body) = (s.expected_srgb(mc.ink), s.expected_srgb(mc.body));
        let (mut inked, mut blank, mut total) = (0, 0, 0);
        for y in y0.ceil() as i64..=y1.floor() as i64 {
            for x in x0.ceil() as i64..=x1.floor() as i64 {
                let p = [x as f64, y as f64];
                if !inside_convex(&q, p) {
                    continue;
                }
                let Some(c) = pixel(&scene.image, p) else {
                    continue;
                };
                total += 1;
                // Thin strokes blend with the card: count pixels nearer the ink than the card.
                let dist = |a: Srgb, b: Srgb| {
                    let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2);
                    d(a.r, b.r) + d(a.g, b.g) + d(a.b, b.b)
                };
                inked += usize::from(dist(c, ink) < dist(c, body));
                blank += usize::from(close(c, body, 40));
            }
        }
        if std::env::var_os("RENDER_DEBUG").is_some() {
            scene.image.save(format!("/tmp/digit_{seed}.png")).unwrap();
            eprintln!("{seed}: {q:?} ink {ink} body {body}");
        }
        if total < 60 {
            continue; // Too small or cut off to judge.
        }
        assert!(inked * 12 > total, "seed {seed}: {inked} inked of {total}");
        assert!(blank * 6 > total, "seed {seed}: {blank} blank of {total}");
        seen += 1;
    }
    assert!(seen >= 3, "only {seen} mission cards checked");
}

#[test]
fn loose_layers_show_the_table_through_their_holes() {
    let set = set();
    let mut o = options(Degradation::Clean, Distractors::NONE);
    o.distractors.loose_layers = 1.0;
    let (mut holes, mut hidden, mut middles) = (0, 0, 0);
    for seed in 0..8 {
        let s = spec(&set, seed, &o);
        if s.loose_layers.is_empty() {
            continue;
        }
        let with = render_layers(&set, &s).unwrap();
        for l in &with.truth.distractors.loose_layers {
            for &h in &l.holes {
                let Some(a) = pixel(&with.image, h) else {
                    continue;
                };
                let b = crate::layers_render::bare_table_srgb(&set, &s, h[0].round(), h[1].round())
                    .unwrap();
                assert!(
                    close(a, b, 8),
                    "seed {seed}: hole at {h:?} shows {a}, table is {b}"
                );
                holes += 1;
            }
            // Elsewhere the layer hides the table: most solid cells differ from it.
            let c = l.corners;
            let mid = [(c[0][0] + c[2][0]) / 2.0, (c[0][1] + c[2][1]) / 2.0];
            if let Some(a) = pixel(&with.image, mid) {
                let b =
                    crate::layers_render::bare_table_srgb(&set, &s, mid[0].round(), mid[1].round())
                        .unwrap();
                hidden += usize::from(!close(a, b, 8));
                middles += 1;
            }
        }
    }
    assert!(
        hidden * 2 >= middles,
        "{hidden} of {middles} layer middles hide the table"
    );
    assert!(holes >= 5, "only {holes} holes checked");
}

#[test]
fn warm_light_makes_white_card_reddish_and_jpeg_round_trips() {
    let set = set();
    let mut s = spec(&set, 3, &options(Degradation::Clean, Distractors::NONE));
    s.light.kelvin = 2800.0;
    s.light.white_balance_correction = 0.2;
    let scene = render_layers(&set, &s).unwrap();
    let card = scene.truth.player_card_corners;
    let centre = [0, 1].map(|k| card.iter().map(|p| p[k]).sum::<f64>() / 4.0);
    let (a, b) = (card[0], card[1]);
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    let p = [
        mid[0] + 0.07 * (centre[0] - mid[0]),
        mid[1] + 0.07 * (centre[1] - mid[1]),
    ];
    let c = pixel(&scene.image, p).unwrap();
    assert!(c.r > c.b + 30, "{c}");
    let bytes = scene.jpeg().unwrap();
    let back = image::load_from_memory(&bytes).unwrap().to_rgb8();
    assert_eq!(back.dimensions(), scene.image.dimensions());
    let d = pixel(&back, p).unwrap();
    assert!(close(c, d, 12), "{c} vs {d} after JPEG");
}

#[test]
fn truth_round_trips_through_json_and_near_misses_do_not_match() {
    let set = set();
    let mut o = options(Degradation::Harsh, Distractors::ALL);
    o.stack = StackChoice::NearMiss { mission: None };
    for seed in 0..3 {
        let s = spec(&set, seed, &o);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<LayersSceneSpec>(&json).unwrap(), s);
        let scene = render_layers(&set, &s).unwrap();
        let json = serde_json::to_string(&scene.truth).unwrap();
        assert_eq!(
            serde_json::from_str::<crate::LayersTruth>(&json).unwrap(),
            scene.truth
        );
        if let Some(m) = &scene.truth.mission {
            assert!(!m.matches_stack, "seed {seed}: a near miss matched");
        }
    }
}

#[test]
fn bad_specs_are_rejected() {
    let set = set();
    let mut s = spec(&set, 1, &options(Degradation::Clean, Distractors::NONE));
    s.stack.layers[0].placement.layer = "Z".to_owned();
    assert!(matches!(
        render_layers(&set, &s),
        Err(crate::RenderError::UnknownLayer(_))
    ));
    let mut o = options(Degradation::Clean, Distractors::NONE);
    o.width = 4;
    assert!(LayersSceneSpec::random(&set, &mut ChaCha8Rng::seed_from_u64(1), &o).is_err());
    o.width = 480;
    o.stack = StackChoice::MissionSolution {
        mission: Some("nope".to_owned()),
    };
    assert!(matches!(
        LayersSceneSpec::random(&set, &mut ChaCha8Rng::seed_from_u64(1), &o),
        Err(crate::RenderError::UnknownMission(_))
    ));
}
