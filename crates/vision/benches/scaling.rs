//! How time grows (issue 6): with the photo's pixels, from 0.9 to 12 megapixels, for the
//! Layers+ and Camouflage readers (decoding included: a bigger photo costs its decoding
//! too); and with the cards of a Camouflage game, for a replay's reading of its photos (the
//! first read whole, each next one followed from the readings before it, as `camouflage
//! replay` reads them). One core: OpenCV held to one thread, rayon to one.
//!
//! `cargo bench -p tablejudge-vision --bench scaling`; the curves are in docs/PERFORMANCE.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tablejudge_render::{
    random_series, render_camouflage, render_layers, CamouflageSceneSpec, Degradation,
    LayersSceneSpec, SceneOptions, StackChoice,
};
use tablejudge_rules::camouflage::{random_board, CamouflageSet, DeckIdx, SideIdx};
use tablejudge_rules::layers::LayersSet;
use tablejudge_vision::camouflage::{
    read_camouflage, reread_camouflage, CamouflageReadOptions, CamouflageReading, SideColours,
};
use tablejudge_vision::mat::{decode_rgb, encode_jpeg, set_opencv_threads};
use tablejudge_vision::{LayersReadOptions, LayersReader};

/// 1.2, 2.8, 4.9, 8.0 and 12 megapixels, all 4:3 (a phone's shape): the same scene, rendered
/// at the largest and scaled down, so that only the pixels change.
const SIZES: [(u32, u32); 5] = [
    (1280, 960),
    (1920, 1440),
    (2560, 1920),
    (3264, 2448),
    (4000, 3000),
];

/// `photo` at every size of [`SIZES`], each through JPEG as a camera would write it.
fn jpegs_at_every_size(photo: &image::RgbImage) -> Vec<((u32, u32), Vec<u8>)> {
    SIZES
        .iter()
        .map(|&(w, h)| {
            let scaled =
                image::imageops::resize(photo, w, h, image::imageops::FilterType::Triangle);
            ((w, h), encode_jpeg(&scaled, 90).expect("JPEG encoding"))
        })
        .collect()
}

fn one_core() {
    set_opencv_threads(1).expect("OpenCV threads");
    // A second build of the pool fails when another bench built it first: one core either way.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global();
}

fn layers_by_pixels(c: &mut Criterion) {
    one_core();
    let set = LayersSet::from_json(
        include_str!("../../../models/layers/reference.json"),
        "reference",
    )
    .expect("set");
    let mut reader = LayersReader::new(&set).expect("reader");
    let read = LayersReadOptions::default();
    // The first scene whose stack reads at every size: the bench must measure reads, not
    // fast failures.
    let (w, h) = SIZES[SIZES.len() - 1];
    let jpegs = (0..20)
        .find_map(|seed| {
            let options = SceneOptions {
                width: w,
                height: h,
                stack: StackChoice::MissionSolution { mission: None },
                ..SceneOptions::default()
            };
            let spec =
                LayersSceneSpec::random(&set, &mut ChaCha8Rng::seed_from_u64(seed), &options)
                    .expect("spec");
            let photo = render_layers(&set, &spec).expect("render").image;
            let jpegs = jpegs_at_every_size(&photo);
            jpegs
                .iter()
                .all(|(_, jpeg)| {
                    reader
                        .read(&decode_rgb(jpeg).expect("decoding"), &read)
                        .is_ok()
                })
                .then_some(jpegs)
        })
        .expect("a scene read at every size");
    let mut group = c.benchmark_group("layers_decode_and_read_by_pixels");
    group.sample_size(10);
    for ((w, h), jpeg) in &jpegs {
        group.throughput(Throughput::Elements(u64::from(w * h)));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{w}x{h}")),
            jpeg,
            |b, jpeg| {
                b.iter(|| {
                    let photo = decode_rgb(black_box(jpeg)).expect("decoding");
                    let _ = black_box(reader.read(&photo, &read));
                })
            },
        );
    }
    group.finish();
}

fn camouflage_set() -> CamouflageSet {
    let json = include_str!("../../../models/camouflage/reference.json");
    CamouflageSet::from_json(json, "reference.json").expect("the reference set")
}

/// Read with the set's colours, whichever side the board shows, no lens calibration.
fn read_options(set: &CamouflageSet) -> CamouflageReadOptions<'_> {
    CamouflageReadOptions {
        colours: Some(SideColours { set, side: None }),
        camera: None,
    }
}

fn camouflage_by_pixels(c: &mut Criterion) {
    one_core();
    let set = camouflage_set();
    let options = read_options(&set);
    let board = random_board(&set, SideIdx(0), false, DeckIdx(1), 16, 7).expect("a board");
    let (w, h) = SIZES[SIZES.len() - 1];
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let spec = CamouflageSceneSpec::random(&set, &board, &mut rng, (w, h), Degradation::Realistic)
        .expect("a scene");
    let photo = render_camouflage(&set, &spec).expect("rendering").image;
    let mut group = c.benchmark_group("camouflage_decode_and_read_by_pixels");
    group.sample_size(10);
    for ((w, h), jpeg) in jpegs_at_every_size(&photo) {
        let got = read_camouflage(&decode_rgb(&jpeg).expect("decoding"), &options)
            .expect("the board reads");
        assert!(
            got.centres.len() >= 8,
            "{} centres at {w}x{h}",
            got.centres.len()
        );
        group.throughput(Throughput::Elements(u64::from(w * h)));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{w}x{h}")),
            &jpeg,
            |b, jpeg| {
                b.iter(|| {
                    let photo = decode_rgb(black_box(jpeg)).expect("decoding");
                    let _ = black_box(read_camouflage(&photo, &options));
                })
            },
        );
    }
    group.finish();
}

/// Reads a game's photos as a replay does: whole at first, then each followed from the last
/// two readings, whole again where it cannot be followed.
fn read_series(photos: &[image::RgbImage], options: &CamouflageReadOptions) -> usize {
    let mut readings: Vec<CamouflageReading> = Vec::new();
    for photo in photos {
        let before: Vec<&CamouflageReading> = readings.iter().rev().take(2).rev().collect();
        let followed = if before.is_empty() {
            None
        } else {
            reread_camouflage(photo, options, &before).ok().flatten()
        };
        match followed
            .map(Ok)
            .unwrap_or_else(|| read_camouflage(photo, options))
        {
            Ok(r) => readings.push(r),
            Err(_) => continue,
        }
    }
    readings.last().map_or(0, |r| r.centres.len())
}

fn replay_by_cards(c: &mut Criterion) {
    one_core();
    let set = camouflage_set();
    let options = read_options(&set);
    let mut group = c.benchmark_group("camouflage_replay_reading_by_cards");
    group.sample_size(10);
    for cards in [8, 16, 24, 32] {
        let board = random_board(&set, SideIdx(0), false, DeckIdx(1), cards, 5).expect("a board");
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let frames = random_series(
            &set,
            &board,
            &mut rng,
            (1280, 720),
            Degradation::Realistic,
            0.0,
        )
        .expect("a series");
        let photos: Vec<image::RgbImage> = frames
            .iter()
            .map(|f| {
                let jpeg = render_camouflage(&set, &f.spec)
                    .expect("rendering")
                    .jpeg()
                    .expect("JPEG encoding");
                decode_rgb(&jpeg).expect("decoding")
            })
            .collect();
        let found = read_series(&photos, &options);
        assert!(found >= cards / 2, "{found} centres of {cards} cards");
        group.throughput(Throughput::Elements(cards as u64));
        group.bench_with_input(BenchmarkId::from_parameter(cards), &photos, |b, photos| {
            b.iter(|| read_series(black_box(photos), &options))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    layers_by_pixels,
    camouflage_by_pixels,
    replay_by_cards
);
criterion_main!(benches);
