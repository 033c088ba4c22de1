//! Rendered scenes of both shipped sets, read and judged.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{
    render_layers, Degradation, Distractors, LayersScene, LayersSceneSpec, SceneOptions,
    StackChoice,
};
use tablejudge_rules::layers::LayersSet;
use tablejudge_rules::{Grid, Key, Pos};

use crate::sample::VeilLight;

use super::*;

pub(crate) fn set(name: &str) -> LayersSet {
    let json = match name {
        "reference" => include_str!("../../../../models/layers/reference.json"),
        _ => include_str!("../../../../models/layers/parlour.json"),
    };
    LayersSet::from_json(json, name).unwrap()
}

/// A set, its reader and the reader's classifier under the default options.
fn reader_of(name: &str) -> (LayersSet, LayersReader, Classifier) {
    let set = set(name);
    let reader = LayersReader::new(&set).unwrap();
    let classifier = reader.classifier(&LayersReadOptions::default()).unwrap();
    (set, reader, classifier)
}

pub(crate) fn scene(
    set: &LayersSet,
    seed: u64,
    stack: StackChoice,
    distractors: Distractors,
    degradation: Degradation,
) -> LayersScene {
    let o = SceneOptions {
        width: 960,
        height: 540,
        stack,
        distractors,
        degradation,
    };
    let spec = LayersSceneSpec::random(set, &mut ChaCha8Rng::seed_from_u64(seed), &o).unwrap();
    render_layers(set, &spec).unwrap()
}

pub(crate) fn truth_grid(rows: &[String]) -> Grid<Key> {
    let g = Grid::parse_rows(rows).unwrap();
    g.map(|&c| Key::new(c).unwrap())
}

fn mission_of(set: &LayersSet, scene: &LayersScene) -> Grid<Key> {
    let id = &scene.truth.mission.as_ref().unwrap().id;
    set.mission(id).unwrap().pattern().clone()
}

fn solution(set: &LayersSet) -> StackChoice {
    StackChoice::MissionSolution {
        mission: Some(set.missions()[0].id().to_string()),
    }
}

const ONLY_MISSION: Distractors = Distractors {
    mission_card: 1.0,
    ..Distractors::NONE
};

#[test]
fn a_matching_stack_is_read_and_judged_a_match_in_both_sets() {
    for name in ["reference", "parlour"] {
        let set = set(name);
        let mut matched = 0;
        for seed in 0..6 {
            let s = scene(&set, seed, solution(&set), ONLY_MISSION, Degradation::Clean);
            let Ok(r) = read_layers(&s.image, &set, &LayersReadOptions::default()) else {
                continue; // undecided is allowed; a wrong verdict is not
            };
            let truth = truth_grid(&s.truth.visible);
            assert!(aligned(&r.cells, &truth).is_some(), "{name} {seed}");
            assert!(r.min_layers.is_some());
            let j = judge(&r.cells, &mission_of(&set, &s), &JudgeOptions::default());
            assert!(
                !matches!(j, Judgement::Mismatch { .. }),
                "{name} {seed}: {j:?}"
            );
            if matches!(j, Judgement::Match { .. }) {
                matched += 1;
            }
        }
        assert!(matched >= 4, "{name}: only {matched} of 6 matched");
    }
}

#[test]
fn a_grid_the_first_search_misses_is_found_by_a_later_one() {
    let set = set("reference");
    let s = scene(
        &set,
        11,
        solution(&set),
        Distractors::NONE,
        Degradation::Clean,
    );
    // A detection copy of 64 px shows no cells at all: only a later search can find them.
    let blind = LocateParams {
        detect_long_side: 64,
        ..LocateParams::default()
    };
    let without = LayersReadOptions {
        locate: vec![blind],
        ..LayersReadOptions::default()
    };
    assert!(matches!(
        read_layers(&s.image, &set, &without),
        Err(LayersError::NotFound { .. })
    ));
    let with = LayersReadOptions {
        locate: vec![blind, LocateParams::default()],
        ..LayersReadOptions::default()
    };
    let r = read_layers(&s.image, &set, &with).unwrap();
    let truth = truth_grid(&s.truth.visible);
    assert!(aligned(&r.cells, &truth).is_some());
}

#[test]
fn a_near_miss_is_judged_a_mismatch_at_the_right_cells() {
    for name in ["reference", "parlour"] {
        let set = set(name);
        let mission = set.missions()[1].id().to_string();
        let s = scene(
            &set,
            7,
            StackChoice::NearMiss {
                mission: Some(mission.clone()),
            },
            Distractors::NONE,
            Degradation::Clean,
        );
        let r = read_layers(&s.image, &set, &LayersReadOptions::default()).unwrap();
        let truth = truth_grid(&s.truth.visible);
        let pattern = set.mission(&mission).unwrap().pattern().clone();
        let j = judge(&r.cells, &pattern, &JudgeOptions::default());
        let read = r.cells.map(|c| c.label.unwrap());
        assert!(aligned(&r.cells, &truth).is_some(), "{name}");
        let expected = tablejudge_rules::layers::verify(&read, &pattern);
        match (&j, &expected) {
            (
                Judgement::Mismatch {
                    best_quarter_turns: a,
                    mismatched: m,
                },
                tablejudge_rules::layers::Verdict::Mismatch {
                    best_turn,
                    mismatched,
                },
            ) => {
                assert_eq!(a, best_turn, "{name}");
                assert_eq!(m, mismatched, "{name}");
            }
            _ => panic!("{name}: {j:?} vs {expected:?}"),
        }
        assert_eq!(j.exit_status(), 1);
    }
}

#[test]
fn a_loose_layer_alone_is_not_a_stack() {
    for name in ["reference", "parlour"] {
        let set = set(name);
        let s = scene(
            &set,
            3,
            solution(&set),
            Distractors {
                loose_layers: 1.0,
                ..Distractors::NONE
            },
            Degradation::Clean,
        );
        assert!(!s.truth.distractors.loose_layers.is_empty());
        // Cover the player card and stack with tablecloth: only loose layers remain.
        let mut img = s.image.clone();
        let pc = s.truth.player_card_corners;
        let (x0, x1) = pc
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[0]), b.max(p[0])));
        let (y0, y1) = pc
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[1]), b.max(p[1])));
        let fill = *img.get_pixel(2, 2);
        for y in (y0.max(0.0) as u32)..(y1.min(img.height() as f64 - 1.0) as u32) {
            for x in (x0.max(0.0) as u32)..(x1.min(img.width() as f64 - 1.0) as u32) {
                img.put_pixel(x, y, fill);
            }
        }
        match read_layers(&img, &set, &LayersReadOptions::default()) {
            Err(LayersError::NotFound { .. } | LayersError::CutOff { .. }) => {}
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn glare_over_cells_is_undecided_or_filled_in_by_the_rules_never_a_wrong_verdict() {
    for name in ["reference", "parlour"] {
        let set = set(name);
        let s = scene(
            &set,
            11,
            solution(&set),
            Distractors::NONE,
            Degradation::Clean,
        );
        let r = read_layers(&s.image, &set, &LayersReadOptions::default()).unwrap();
        // A reflection washes out two cells (pixels at the sensor's white).
        let mut img = s.image.clone();
        for pos in [Pos::new(1, 1), Pos::new(1, 2)] {
            let c = s.truth.cells[pos.row][pos.col].center;
            let q = quarter_cell(&r.corners, set.cols());
            for dy in -q..=q {
                for dx in -q..=q {
                    let (x, y) = (c[0] as i32 + dx, c[1] as i32 + dy);
                    img.put_pixel(x as u32, y as u32, image::Rgb([255, 255, 255]));
                }
            }
        }
        let pattern = mission_of_solution(&set);
        match read_layers(&img, &set, &LayersReadOptions::default()) {
            Ok(r) => {
                let j = judge(&r.cells, &pattern, &JudgeOptions::default());
                match &j {
                    Judgement::Undecided {
                        doubtful, retake, ..
                    } => {
                        assert!(doubtful.iter().any(|d| d.cause == Doubt::Glare), "{j:?}");
                        assert!(retake.contains("glare"), "{retake}");
                    }
                    // The rules may fill in what the glare hides, when only one colouring
                    // makes a stack of the set; then the verdict is the true one.
                    Judgement::Match { .. } => {
                        assert_eq!(r.inferred.len(), 2, "{name}: {:?}", r.inferred);
                        assert!(aligned(&r.cells, &truth_grid(&s.truth.visible)).is_some());
                    }
                    _ => panic!("{name}: {j:?}"),
                }
            }
            Err(e) => panic!("{name}: the stack should still be found: {e}"),
        }
    }
}

#[test]
fn a_stack_one_stop_over_exposed_is_found_and_its_holes_read_as_card() {
    // One EV over, the white card clips to (255, 255, 255) around the stack and in its holes:
    // a clipped channel only says "at least this bright".
    let set = set("reference");
    let (mut read, mut holes) = (0, 0);
    for seed in 0..4 {
        let o = SceneOptions {
            width: 960,
            height: 540,
            stack: StackChoice::Random {
                min_layers: 3,
                max_layers: 5,
            },
            distractors: Distractors::NONE,
            degradation: Degradation::Clean,
        };
        let mut spec =
            LayersSceneSpec::random(&set, &mut ChaCha8Rng::seed_from_u64(40 + seed), &o).unwrap();
        spec.light.exposure_ev = 1.0;
        let s = render_layers(&set, &spec).unwrap();
        let truth = truth_grid(&s.truth.visible);
        let r = read_layers(&s.image, &set, &LayersReadOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let turn = aligned(&r.cells, &truth);
        assert!(turn.is_some(), "seed {seed}: {:?}", r.keys());
        assert!(
            r.cells.iter().all(|(_, c)| c.confidence > 0.9),
            "seed {seed}"
        );
        read += 1;
        holes += truth.iter().filter(|(_, &k)| k == set.card()).count();
    }
    assert_eq!(read, 4);
    assert!(
        holes >= 2,
        "the scenes should show some of the card through the stack"
    );
}

/// The turn under which the read grid equals `truth` (the reader reads upright, the truth is in
/// the stack's own orientation).
fn aligned(read: &Grid<Reading>, truth: &Grid<Key>) -> Option<tablejudge_rules::Turn> {
    read.map(|c| c.label.unwrap()).turn_to(truth)
}

fn mission_of_solution(set: &LayersSet) -> Grid<Key> {
    set.missions()[0].pattern().clone()
}

/// About a third of a cell's side in pixels, from the read corners.
fn quarter_cell(q: &Quad, cols: usize) -> i32 {
    let d = ((q[1][0] - q[0][0]).powi(2) + (q[1][1] - q[0][1]).powi(2)).sqrt();
    (d / cols as f32 / 3.0) as i32
}

#[test]
fn the_mission_card_beside_the_stack_is_read_too_under_the_same_light() {
    for name in ["reference", "parlour"] {
        let set = set(name);
        let mut both = 0;
        for seed in 0..8 {
            let s = scene(&set, seed, solution(&set), ONLY_MISSION, Degradation::Clean);
            let Ok((stack, mission)) =
                read_stack_and_mission(&s.image, &set, &LayersReadOptions::default())
            else {
                continue; // e.g. the mission card partly out of the picture
            };
            assert_eq!(stack.white_balance, mission.white_balance);
            let truth = s.truth.mission.as_ref().unwrap();
            assert!(
                aligned(&mission.cells, &mission_of(&set, &s)).is_some(),
                "{name} {seed}"
            );
            assert_eq!(mission.mission.as_ref().map(|m| &m.id), Some(&truth.id));
            let j = judge_against_photo(&stack.cells, &mission.cells, &JudgeOptions::default());
            assert!(matches!(j, Judgement::Match { .. }), "{name} {seed}: {j:?}");
            both += 1;
        }
        assert!(both >= 3, "{name}: both read in only {both} of 8 scenes");
    }
}

#[test]
fn a_stack_is_called_cut_off_only_when_nothing_but_cut_grids_was_found() {
    let set = set("reference");
    let reader = LayersReader::new(&set).unwrap();
    let grid = |kind| FoundGrid::located([[0.0; 2]; 4], kind, 0.5);
    let cut = [grid(GridKind::CutOff)];
    assert!(matches!(
        reader.pick_stack(&[], &cut),
        Err(LayersError::CutOff { .. })
    ));
    // A whole grid with a number beside it, and a cut one: either may be the stack.
    let both = [grid(GridKind::MissionCard), grid(GridKind::CutOff)];
    match reader.pick_stack(&[], &both) {
        Err(e @ LayersError::NotFound { .. }) => {
            assert!(e.to_string().contains("MissionCard, CutOff"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_rival_explained_far_worse_and_no_more_prominent_is_no_rival() {
    let grid = |misfit_refs, prominence| FoundGrid {
        misfit_refs,
        ..FoundGrid::located([[0.0; 2]; 4], GridKind::Stack, prominence)
    };
    // The stack on its card, and a loose layer on a table that looks like card (eval layers,
    // reference set, seed 2026, scene 118).
    let (stack, loose) = (grid(1.4, 0.11), grid(8.5, 0.06));
    assert_eq!(clearly_the_stack(&[&loose, &stack]), Some(1));
    // Explained about as well: a tie (scene 412, where the loose layer even fits better).
    assert_eq!(
        clearly_the_stack(&[&grid(2.5, 0.2), &grid(3.2, 0.12)]),
        None
    );
    // Far worse but more prominent (a stack under glare, say): a tie.
    assert_eq!(
        clearly_the_stack(&[&grid(1.4, 0.05), &grid(8.5, 0.2)]),
        None
    );
    // Twice as bad, but by less than the margin.
    assert_eq!(clearly_the_stack(&[&grid(1.0, 0.2), &grid(5.5, 0.1)]), None);
    // The best must beat every other.
    assert_eq!(clearly_the_stack(&[&stack, &loose, &grid(3.0, 0.05)]), None);
}

/// A cell's sample showing one surface.
fn sample(srgb: Srgb, coverage: f32, veiled: f32) -> CellSample {
    CellSample {
        coverage,
        veiled,
        ..CellSample::plain(srgb)
    }
}

#[test]
fn a_hole_as_bright_as_the_best_lit_card_is_no_washed_out_colour() {
    // A hole beside a highlight: near white, two channels clipped. The card's median around
    // the grid lies partly in the stack's shadow and is dimmer in blue than the hole; the
    // best-lit card is not. Only light added to the hole (glare) could make it brighter than
    // that, and then another colour could lie beneath.
    let (set, reader, classifier) = reader_of("reference");
    let cell = |srgb: Srgb, coverage: f32| sample(srgb, coverage, 0.0);
    let mut samples = Grid::filled(4, 4, cell(Srgb::new(181, 30, 45), 1.0));
    let hole = Pos::new(0, 0);
    samples[hole] = cell(Srgb::new(248, 246, 233), 1.0);
    // The highlight clips the neighbour, so the hole may lie under its veil.
    samples[Pos::new(0, 1)] = cell(Srgb::new(255, 255, 255), 0.4);
    let read = |card: Srgb| {
        reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card))[hole]
    };
    let in_shade = read(Srgb::new(246, 243, 228));
    let best_lit = read(Srgb::new(249, 247, 235));
    assert_eq!(best_lit.label, Some(set.card()));
    assert!(best_lit.confidence > 0.99, "{best_lit:?}");
    assert!(in_shade.confidence <= 0.5, "{in_shade:?}");
}

#[test]
fn quantiles_are_per_channel() {
    let colours: Vec<Srgb> = (0..10u8).map(|i| Srgb::new(i, 100 - i, 50)).collect();
    assert_eq!(quantile(colours.iter(), 0.5), Some(Srgb::new(5, 96, 50)));
    assert_eq!(quantile(colours.iter(), 0.9), Some(Srgb::new(9, 100, 50)));
    assert_eq!(quantile(colours.iter(), 1.0), Some(Srgb::new(9, 100, 50)));
    assert_eq!(quantile([].iter(), 0.9), None);
}

#[test]
fn a_cell_showing_two_surfaces_of_different_colours_is_doubtful() {
    let (set, reader, classifier) = reader_of("parlour");
    let printed = |k: char| set.colors()[&Key::new(k).unwrap()].srgb;
    let plain = CellSample::plain(printed('d'));
    let mut samples = Grid::filled(5, 5, plain);
    let p = Pos::new(4, 2);
    // The card's sliver past a shifted lavender layer, and the lavender that is most of it.
    samples[p] = CellSample {
        srgb: printed('n'),
        veiled: 0.85,
        other: Some(printed('v')),
        ..plain
    };
    // A lavender of two tones (a sharp shadow edge) is lavender either way.
    let q = Pos::new(0, 0);
    samples[q] = CellSample {
        srgb: Srgb::new(150, 143, 200),
        veiled: 0.6,
        other: Some(printed('v')),
        ..plain
    };
    let cells = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, None);
    assert!(cells[p].confidence <= 0.5, "{:?}", cells[p]);
    assert_eq!(cells[q].label, Key::new('v').ok());
    assert!(cells[q].confidence > 0.99, "{:?}", cells[q]);
}

/// `read` tests grids off a player card for a number only when it must: a mission card on
/// card-coloured stock passes the on-card test, so it is still tested and never read as the
/// stack; `read_mission` tests every grid and names the card.
#[test]
fn a_mission_card_alone_is_never_the_stack_and_is_named_when_wanted() {
    for name in ["reference", "parlour"] {
        let set = set(name);
        let o = SceneOptions {
            width: 960,
            height: 540,
            stack: solution(&set),
            distractors: ONLY_MISSION,
            degradation: Degradation::Clean,
        };
        let (mut on_card, mut named) = (0, 0);
        for seed in 0..8 {
            let mut spec =
                LayersSceneSpec::random(&set, &mut ChaCha8Rng::seed_from_u64(seed), &o).unwrap();
            // The stack far off the table: only the mission card remains.
            spec.stack.origin[0] += 1.0e4;
            let s = render_layers(&set, &spec).unwrap();
            let options = LayersReadOptions::default();
            match read_layers(&s.image, &set, &options) {
                Err(LayersError::NotFound { grids, .. } | LayersError::CutOff { grids, .. }) => {
                    on_card += usize::from(grids.iter().any(|g| g.kind == GridKind::MissionCard));
                }
                other => panic!("{name} {seed}: {other:?}"),
            }
            if let Ok(m) = read_mission_card(&s.image, &set, &options) {
                let truth = s.truth.mission.as_ref().unwrap();
                assert_eq!(
                    m.mission.as_ref().map(|m| &m.id),
                    Some(&truth.id),
                    "{name} {seed}"
                );
                named += 1;
            }
        }
        assert!(
            on_card >= 1 && named >= 4,
            "{name}: {on_card} on a card, {named} named"
        );
    }
}

#[test]
fn a_stack_in_shadow_on_a_lit_card_still_lies_on_the_card() {
    // An arm's shadow can darken the raised stack and spare the card around it: the card's
    // gain then undershoots the cells' by the shadow's depth, a scale and no change of hue.
    let set = set("reference");
    edited_stacks_read_right(&set, |s| {
        let mut mask = image::GrayImage::new(s.image.width(), s.image.height());
        let corners: Vec<imageproc::point::Point<i32>> = s
            .truth
            .corners
            .iter()
            .map(|p| imageproc::point::Point::new(p[0].round() as i32, p[1].round() as i32))
            .collect();
        imageproc::drawing::draw_polygon_mut(&mut mask, &corners, image::Luma([255]));
        // Two thirds of an EV darker, in linear light.
        for (x, y, p) in s.image.enumerate_pixels_mut() {
            if mask.get_pixel(x, y)[0] > 0 {
                relight(p, |v| v * 0.63);
            }
        }
    });
}

/// Renders three scenes of `set`'s first mission's solution alone on the table, lets `edit`
/// change each photo, and checks that every stack is still read right.
fn edited_stacks_read_right(set: &LayersSet, edit: impl Fn(&mut LayersScene)) {
    for seed in 0..3 {
        let mut s = scene(
            set,
            seed,
            solution(set),
            Distractors::NONE,
            Degradation::Clean,
        );
        edit(&mut s);
        let r = read_layers(&s.image, set, &LayersReadOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let truth = truth_grid(&s.truth.visible);
        assert!(
            aligned(&r.cells, &truth).is_some(),
            "seed {seed}: {:?}",
            r.keys()
        );
    }
}

/// Changes a pixel's every channel by `f` in linear light.
fn relight(p: &mut image::Rgb<u8>, f: impl Fn(f32) -> f32) {
    let lin = LinRgb::from_srgb(Srgb::new(p[0], p[1], p[2]));
    let c = LinRgb::from_array(lin.to_array().map(f)).to_srgb();
    p.0 = [c.r, c.g, c.b];
}

#[test]
fn a_cell_brighter_than_the_card_in_its_roll_off_is_washed_out() {
    // One stop over, the best-lit card reads (254, 254, 246): every channel in the camera's
    // highlight roll-off, blue still below full scale. A sky-blue cell under a veil reads
    // (248, 255, 255), bluer than any hole can be: light was added to it, and a colour
    // beneath the veil fits as well as the card. A hole beside it reads like the card.
    let (set, reader, classifier) = reader_of("reference");
    let cell = |srgb: Srgb, veiled: f32| sample(srgb, 1.0, veiled);
    let mut samples = Grid::filled(4, 4, cell(Srgb::new(181, 30, 45), 0.0));
    // The veil's edge shows in a neighbour.
    samples[Pos::new(1, 1)] = cell(Srgb::new(252, 220, 83), 0.75);
    let (veiled, hole) = (Pos::new(0, 0), Pos::new(0, 1));
    samples[veiled] = cell(Srgb::new(248, 255, 255), 0.0);
    samples[hole] = cell(Srgb::new(253, 253, 245), 0.0);
    let card = Srgb::new(254, 254, 246);
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    assert!(read[veiled].confidence <= 0.5, "{:?}", read[veiled]);
    assert_eq!(read[hole].label, Some(set.card()));
    assert!(read[hole].confidence > 0.99, "{:?}", read[hole]);
}

#[test]
fn a_veiled_colour_reads_as_the_darker_colour_beneath_but_the_card_stays_card() {
    // A highlight veils a blue cell (it looks sky blue) and a hole (a greyish card, which
    // olive under a veil mimics exactly). Both are doubtful; the blue is read as blue, the
    // likelier colour beneath; the hole stays card, the lightest surface.
    let (set, reader, classifier) = reader_of("reference");
    let lin = |k: char| LinRgb::from_srgb(set.colors()[&Key::new(k).unwrap()].srgb);
    let veiled = |k: char, v: f32| {
        let c = LinRgb::from_array(lin(k).to_array().map(|c| c + v)).to_srgb();
        sample(c, 1.0, 0.8)
    };
    let mut samples = Grid::filled(4, 4, sample(Srgb::new(181, 30, 45), 1.0, 0.0));
    let (blue, hole) = (Pos::new(0, 0), Pos::new(0, 1));
    samples[blue] = veiled('b', 0.25);
    samples[hole] = veiled('o', 0.6);
    let card = Srgb::new(0xf2, 0xef, 0xe6);
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    assert_eq!(read[blue].label, Key::new('b').ok(), "{:?}", read[blue]);
    assert!(read[blue].confidence <= 0.5, "{:?}", read[blue]);
    assert_eq!(read[hole].label, Some(set.card()), "{:?}", read[hole]);
    assert!(read[hole].confidence <= 0.5, "{:?}", read[hole]);
}

#[test]
fn a_hole_partly_in_its_walls_shade_is_card_unless_glare_shows_beside_it() {
    // A hole whose darker part is greyish, as olive under a veil would be, and whose lighter
    // part is the card as lit around the grid: nothing was added to it, so alone it is a
    // hole in the shade of the layers around it. Beside a veiled cell, a highlight may
    // cover both, and the hole is doubtful, as in the test above.
    let (set, reader, classifier) = reader_of("reference");
    let lin = |k: char| LinRgb::from_srgb(set.colors()[&Key::new(k).unwrap()].srgb);
    let card = Srgb::new(0xf2, 0xef, 0xe6);
    let dark = LinRgb::from_array(lin('o').to_array().map(|c| c + 0.6));
    let lit = LinRgb::from_srgb(card).to_array();
    let added = LinRgb::from_array(std::array::from_fn(|c| lit[c] - dark.to_array()[c]));
    let shaded_hole = CellSample {
        veiled: 0.8,
        veil_light: Some(VeilLight {
            added,
            compressed: Clipped([false; 3]),
        }),
        ..CellSample::plain(dark.to_srgb())
    };
    let mut samples = Grid::filled(4, 4, sample(Srgb::new(181, 30, 45), 1.0, 0.0));
    let (hole, beside) = (Pos::new(0, 1), Pos::new(0, 0));
    samples[hole] = shaded_hole;
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    assert_eq!(read[hole].label, Some(set.card()), "{:?}", read[hole]);
    assert!(read[hole].confidence > 0.99, "{:?}", read[hole]);
    let blue = LinRgb::from_array(lin('b').to_array().map(|c| c + 0.25)).to_srgb();
    samples[beside] = sample(blue, 1.0, 0.8);
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    let proves = JudgeOptions::default().mismatch_confidence;
    assert!(read[hole].confidence < proves, "{:?}", read[hole]);
}

#[test]
fn the_card_dim_at_the_bottom_of_a_well_is_read_surely_as_the_card() {
    // A hole whose card lies in its walls' shade, at 60% of the light on the card around
    // the grid: a grey that a plain read takes for "none of them" as much as for the card.
    // No other colour of the set, in any shade, is that grey. Darker than any well leaves
    // the card, a grey stays unsure.
    let (set, reader, classifier) = reader_of("reference");
    let card = Srgb::new(0xf2, 0xef, 0xe6);
    let in_light = |light: f32| {
        LinRgb::from_array(LinRgb::from_srgb(card).to_array().map(|c| c * light)).to_srgb()
    };
    let mut samples = Grid::filled(4, 4, sample(Srgb::new(181, 30, 45), 1.0, 0.0));
    let (well, deep) = (Pos::new(1, 1), Pos::new(2, 2));
    samples[well] = CellSample::plain(in_light(0.6));
    samples[deep] = CellSample::plain(in_light(0.12));
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    let sure = 1.0 - JudgeOptions::default().max_cell_error;
    assert_eq!(read[well].label, Some(set.card()), "{:?}", read[well]);
    assert!(read[well].confidence >= sure, "{:?}", read[well]);
    assert!(read[deep].confidence < sure, "{:?}", read[deep]);
}

#[test]
fn pixels_at_the_glare_level_are_the_card_itself_where_the_lit_card_reaches_it() {
    // A bright photo: the best-lit card around the grid reads (253, 252, 250), and a tenth
    // of a hole's pixels reach the glare level (250) too. Where the card stays below that
    // level, such pixels are light added.
    let hole = CellSample {
        coverage: 0.91,
        ..CellSample::plain(Srgb::new(243, 241, 234))
    };
    let glare_min = SampleParams::default().glare_min;
    assert!(card_in_shade(&hole, Srgb::new(253, 252, 250), glare_min));
    assert!(!card_in_shade(&hole, Srgb::new(246, 244, 238), glare_min));
    // Brighter than the lit card in a channel: light was added.
    assert!(!card_in_shade(&hole, Srgb::new(253, 252, 220), glare_min));
}

#[test]
fn a_mostly_clipped_hole_is_card_when_its_fringe_is_the_card_dimmed() {
    // An over-exposed photo: the card around the grid reads (254, 254, 252), and most pixels
    // of a hole and of a sky-blue cell under a highlight are above the glare level. The few
    // left of the hole are the card a little dimmer; those of the sky-blue cell are bluer
    // than the card, the colour beneath the highlight showing at its edge.
    let (set, reader, classifier) = reader_of("reference");
    let mostly_glare = |srgb: Srgb, fringe: Srgb| CellSample {
        fringe: Some(fringe),
        ..sample(srgb, 0.04, 0.0)
    };
    let mut samples = Grid::filled(4, 4, sample(Srgb::new(181, 30, 45), 1.0, 0.0));
    let (hole, sky) = (Pos::new(0, 0), Pos::new(3, 3));
    samples[hole] = mostly_glare(Srgb::new(253, 253, 251), Srgb::new(251, 251, 249));
    samples[sky] = mostly_glare(Srgb::new(252, 255, 255), Srgb::new(249, 254, 255));
    let card = Srgb::new(254, 254, 252);
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    assert_eq!(read[hole].label, Some(set.card()));
    assert!(read[hole].confidence > 0.99, "{:?}", read[hole]);
    assert!(read[sky].confidence < 0.5, "{:?}", read[sky]);
    // A warm card's fringe turns warmer as it dims (its blue leaves the roll-off first).
    samples[hole] = mostly_glare(Srgb::new(254, 254, 252), Srgb::new(254, 253, 247));
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, Some(card));
    assert!(read[hole].confidence > 0.99, "{:?}", read[hole]);
}

#[test]
fn glare_on_part_of_a_dark_card_beside_the_stack_leaves_it_on_the_card() {
    // A highlight adds the lamp's light to the parlour set's navy card along part of one side
    // of the stack, sparing the frame's inside and the cells.
    let set = set("parlour");
    let (cols, fw) = (set.cols() as f32, set.frame_width() as f32);
    // Centred half a cell past the frame, a third of the way along the top side.
    let centre = [0.35 * cols, -(fw + 0.5)];
    edited_stacks_read_right(&set, |s| {
        paint_around_stack(s, &set, |[u, v], p, _| {
            let d2 = (u - centre[0]).powi(2) + (v - centre[1]).powi(2);
            let added = 0.5 * (-d2 / (2.0 * 0.45f32.powi(2))).exp();
            if added > 1e-3 && v < -fw + 0.1 {
                relight(p, |c| c + added);
            }
        });
    });
}

#[test]
fn a_clipped_ivory_frame_leaves_the_gain_to_the_fallback_within_its_bounds() {
    let fallback = WhiteBalance {
        gains: [0.9, 0.92, 1.0],
    };
    let ratio = |(measured, printed): (Srgb, Srgb), c: usize| {
        let [m, p] = [measured, printed].map(|s| LinRgb::from_srgb(s).to_array()[c]);
        p / m
    };
    // In red and green, where `light` is clipped, the darker reference alone gives a lower
    // bound (flare only adds light to it), the clipped one an upper bound; the fallback's gain
    // is taken between them, not the lower bound.
    let check = |frame: (Srgb, Srgb), card: (Srgb, Srgb), light: (Srgb, Srgb), dark| {
        let b = balance_from_frame_and_card(frame, card, &fallback).unwrap();
        for c in 0..2 {
            let (lower, upper) = (ratio(dark, c), ratio(light, c));
            assert!(lower < fallback.gains[c] - 0.05, "channel {c}");
            assert_eq!(
                b.gains[c],
                fallback.gains[c].clamp(lower, upper),
                "channel {c}"
            );
        }
        // Blue is clipped in neither: both references set it.
        assert_ne!(b.gains[2], fallback.gains[2]);
    };
    // The parlour set's ivory frame over-exposed (red and green in the roll-off) beside its
    // navy card lit by flare.
    let frame = (Srgb::new(255, 252, 236), Srgb::new(0xf6, 0xed, 0xe2));
    let card = (Srgb::new(44, 72, 90), Srgb::new(0x1f, 0x3d, 0x54));
    check(frame, card, frame, card);
    // A white card clipped beside a dark frame with flare: the same rule.
    let frame = (Srgb::new(52, 52, 60), Srgb::new(0x2b, 0x2b, 0x30));
    let card = (Srgb::new(255, 254, 238), Srgb::new(0xf2, 0xef, 0xe6));
    check(frame, card, card, frame);
}

#[test]
fn a_cell_under_a_veil_of_known_colour_is_read_as_the_colour_beneath() {
    let (set, reader, classifier) = reader_of("reference");
    let printed = |k: char| set.colors()[&Key::new(k).unwrap()].srgb;
    let mut samples = Grid::filled(4, 4, sample(printed('r'), 1.0, 0.0));
    // Forest green under a neutral veil a third of white, most of the cell veiled even more.
    let p = Pos::new(1, 2);
    let forest = LinRgb::from_srgb(printed('f')).to_array();
    let seen = LinRgb::from_array(forest.map(|c| c + 0.3)).to_srgb();
    let light = crate::sample::VeilLight {
        added: LinRgb::new(0.2, 0.2, 0.2),
        compressed: Clipped::default(),
    };
    samples[p] = CellSample {
        veil_light: Some(light),
        ..sample(seen, 1.0, 0.8)
    };
    // Salmon as printed, in a cell as veiled: its least veiled pixels show salmon plainly.
    let q = Pos::new(2, 0);
    samples[q] = CellSample {
        veil_light: Some(light),
        ..sample(printed('s'), 1.0, 0.8)
    };
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, None);
    assert_eq!(read[p].label, Key::new('f').ok(), "{:?}", read[p]);
    assert!(read[p].confidence > 0.998, "{:?}", read[p]);
    assert_eq!(read[q].label, Key::new('s').ok(), "{:?}", read[q]);
    assert!(read[q].confidence > 0.998, "{:?}", read[q]);
    // Without the veil's colour, the colour beneath is only a rival to the nearest colour
    // as seen: not a confident reading.
    samples[p].veil_light = None;
    let read = reader.classify(&classifier, &samples, &WhiteBalance::IDENTITY, None);
    assert!(
        read[p].label != Key::new('f').ok() || read[p].confidence <= 0.5,
        "{:?}",
        read[p]
    );
}

#[test]
fn a_colour_the_balance_lifts_past_white_is_not_the_card() {
    let (set, reader, classifier) = reader_of("reference");
    let printed = |k: char| set.colors()[&Key::new(k).unwrap()].srgb;
    // A dim photo: the balance doubles every channel.
    let dim = |c: Srgb| {
        let l = LinRgb::from_srgb(c).to_array();
        LinRgb::from_array(l.map(|v| v / 2.0)).to_srgb()
    };
    let balance = WhiteBalance { gains: [2.0; 3] };
    let mut samples = Grid::filled(4, 4, sample(dim(printed('r')), 1.0, 0.0));
    // Glare over an orchid pink cell: the balance lifts every channel past white, though the
    // camera clipped none.
    let p = Pos::new(1, 1);
    samples[p] = sample(Srgb::new(215, 190, 205), 0.74, 0.0);
    let card_lit = dim(printed('w'));
    let read = reader.classify(&classifier, &samples, &balance, Some(card_lit));
    assert!(
        read[p].label != Some(set.card()) || read[p].confidence <= 0.5,
        "{:?}",
        read[p]
    );
}

/// Lets `paint` recolour every pixel of a rendered stack's photo from its grid coordinates
/// (cells span 0..cols × 0..rows; the frame lies within `set.frame_width()` of them), given
/// the pixel and the table's colour in the photo's corner.
fn paint_around_stack(
    s: &mut LayersScene,
    set: &LayersSet,
    paint: impl Fn([f32; 2], &mut image::Rgb<u8>, image::Rgb<u8>),
) {
    let (rows, cols) = (set.rows() as f32, set.cols() as f32);
    let corners = s.truth.corners.map(|[x, y]| [x as f32, y as f32]);
    let g = homography_4(&rect(0.0, 0.0, cols, rows), &corners).unwrap();
    let to_grid = crate::geom::invert(&g).unwrap();
    let table = *s.image.get_pixel(2, 2);
    for (x, y, p) in s.image.enumerate_pixels_mut() {
        if let Some(uv) = apply_homography(&to_grid, [x as f32, y as f32]) {
            paint(uv, p, table);
        }
    }
}

#[test]
fn a_stack_at_its_cards_very_edge_lies_on_the_card() {
    // The player card ends at the frame along the top side: table right past it.
    for name in ["reference", "parlour"] {
        let set = set(name);
        let fw = set.frame_width() as f32;
        edited_stacks_read_right(&set, |s| {
            paint_around_stack(s, &set, |[_, v], p, table| {
                if v < -fw {
                    *p = table;
                }
            });
        });
    }
}

#[test]
fn a_stack_with_table_past_two_sides_does_not_lie_on_a_card() {
    // Past the top and the right side alike: a loose layer on a card's corner looks so.
    for name in ["reference", "parlour"] {
        let set = set(name);
        let (fw, cols) = (set.frame_width() as f32, set.cols() as f32);
        let mut s = scene(
            &set,
            0,
            solution(&set),
            Distractors::NONE,
            Degradation::Clean,
        );
        paint_around_stack(&mut s, &set, |[u, v], p, table| {
            if v < -fw || u > cols + fw {
                *p = table;
            }
        });
        match read_layers(&s.image, &set, &LayersReadOptions::default()) {
            Err(LayersError::NotFound { .. }) => {}
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn a_thick_stacks_walls_and_shadow_past_the_frame_leave_it_on_the_card() {
    // Four thick layers seen at a tilt: past the bottom and the right side of the frame, a
    // third of a cell of side wall (the frame's colour in shade) and then a fifth of a cell
    // of drop shadow on the card, before the lit card.
    for name in ["reference", "parlour"] {
        let set = set(name);
        let (fw, rows, cols) = (
            set.frame_width() as f32,
            set.rows() as f32,
            set.cols() as f32,
        );
        let frame = LinRgb::from_srgb(set.colors()[&set.frame()].srgb).to_array();
        edited_stacks_read_right(&set, |s| {
            paint_around_stack(s, &set, |[u, v], p, _| {
                let past = (u - cols - fw).max(v - rows - fw);
                let inside = u > -fw && v > -fw;
                if !inside || past <= 0.0 {
                    return;
                }
                if past < 0.33 {
                    let wall = LinRgb::from_array(frame.map(|c| 0.6 * c)).to_srgb();
                    p.0 = [wall.r, wall.g, wall.b];
                } else if past < 0.53 {
                    relight(p, |c| 0.3 * c);
                }
            });
        });
    }
}

#[test]
fn the_card_past_the_frame_is_measured_on_the_sides_that_look_like_card() {
    let card = Srgb::new(242, 239, 230);
    let wall = Srgb::new(40, 40, 44);
    let side = |c: Srgb| vec![c; 12];
    let within = LayersReadOptions::default().card_delta_e;
    let b = WhiteBalance::IDENTITY;
    // Walls on two sides: the card is what the other two show.
    let walls = [side(card), side(wall), side(wall), side(card)];
    assert_eq!(card_sides_median(&walls, &b, card, within), Some(card));
    // Card on one side only: no side is trusted over the others, and all four are taken.
    let table = [side(card), side(wall), side(wall), side(wall)];
    assert_eq!(card_sides_median(&table, &b, card, within), Some(wall));
}

#[test]
fn glare_over_a_quarter_of_the_cells_is_no_misfit_of_the_balance() {
    // Five of sixteen cells lie under a highlight (light added to their colours, most of
    // their pixels veiled): they fit no printed colour as they are, but each is a printed
    // colour under a veil. The balance that shows every other cell exactly is no misfit.
    let set = set("reference");
    let reader = LayersReader::new(&set).unwrap();
    let srgb = |k: char| set.colors()[&Key::new(k).unwrap()].srgb;
    let veiled = |k: char, v: f32| {
        let c = LinRgb::from_srgb(srgb(k)).to_array().map(|c| c + v);
        sample(LinRgb::from_array(c).to_srgb(), 1.0, 0.8)
    };
    let mut samples = Grid::filled(4, 4, sample(srgb('r'), 1.0, 0.0));
    for (i, k) in ['b', 'g', 'o', 'p', 'f'].into_iter().enumerate() {
        samples[Pos::new(i % 4, i / 4 + 2)] = veiled(k, 0.3);
    }
    let misfit = reader.misfit_allowing_glare(&samples, &WhiteBalance::IDENTITY);
    assert!(misfit < 1.0, "{misfit}");
    // Seen plainly, the same colours are a misfit: no printed colour is that light.
    let plain = samples.map(|s| sample(s.srgb, 1.0, 0.0));
    let misfit = reader.misfit_allowing_glare(&plain, &WhiteBalance::IDENTITY);
    assert!(misfit > 5.0, "{misfit}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// The glare-tolerant misfit tries a veil only on the glared cells that can move the
    /// quartile; it equals the quartile with every glared cell's veil fit taken.
    #[test]
    fn the_glare_tolerant_misfit_skips_only_cells_that_cannot_move_it(
        cells in proptest::collection::vec(
            (proptest::array::uniform3(proptest::num::u8::ANY), 0u8..4),
            16,
        ),
    ) {
        let set = set("reference");
        let reader = LayersReader::new(&set).unwrap();
        // Kinds: 0 and 1 plain, 2 mostly veiled, 3 mostly glare (little coverage).
        let samples = Grid::from_fn(4, 4, |p: Pos| {
            let ([r, g, b], kind) = cells[p.row * 4 + p.col];
            let (coverage, veiled) = match kind {
                2 => (1.0, 0.8),
                3 => (0.1, 0.0),
                _ => (1.0, 0.0),
            };
            sample(Srgb::new(r, g, b), coverage, veiled)
        });
        let printed: Vec<(LinRgb, Lab)> = reader
            .printed_linear()
            .into_iter()
            .map(|(_, c)| (c, Lab::from_linear(c)))
            .collect();
        let any_tint = veil_tints(None);
        let mut full: Vec<f32> = samples
            .cells()
            .iter()
            .map(|s| {
                let raw = LinRgb::from_srgb(s.srgb);
                let m = Measured::new(raw, Clipped::of(raw));
                let plain = m.nearest(&printed).map_or(f32::INFINITY, |(_, d)| d);
                if s.veiled > MOSTLY_VEILED || s.coverage < SampleParams::default().min_coverage {
                    nearest_under_veil(&m, printed.iter().map(|&(l, _)| l), plain, &any_tint)
                } else {
                    plain
                }
            })
            .collect();
        full.sort_by(f32::total_cmp);
        let misfit = reader.misfit_allowing_glare(&samples, &WhiteBalance::IDENTITY);
        proptest::prop_assert_eq!(misfit, full[12]);
    }
}
