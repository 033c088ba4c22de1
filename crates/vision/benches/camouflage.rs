//! The Camouflage reader's speed (issue 4): one photo of a board in mid-game, 1280×720, read
//! after decoding on one core (OpenCV held to one thread). A replay reads every photo of a
//! series this way, so its time per photo is this plus decoding.
//!
//! `cargo bench -p tablejudge-vision --bench camouflage`

use criterion::{criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tablejudge_render::{render_camouflage, CamouflageSceneSpec, Degradation};
use tablejudge_rules::camouflage::{random_board, CamouflageSet, DeckIdx, SideIdx};
use tablejudge_vision::camouflage::{read_camouflage, CamouflageReadOptions, SideColours};
use tablejudge_vision::mat::{decode_rgb, set_opencv_threads};

/// Boards of 12 and 24 cards as the renderer draws them for `eval camouflage`: a random
/// table, camera and light of a phone over a kitchen table, through JPEG.
fn board_photo(set: &CamouflageSet, cards: usize, seed: u64) -> image::RgbImage {
    let board = random_board(set, SideIdx(0), false, DeckIdx(1), cards, seed).expect("a board");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let spec =
        CamouflageSceneSpec::random(set, &board, &mut rng, (1280, 720), Degradation::Realistic)
            .expect("a scene");
    let scene = render_camouflage(set, &spec).expect("rendering");
    decode_rgb(&scene.jpeg().expect("JPEG encoding")).expect("decoding")
}

fn bench(c: &mut Criterion) {
    set_opencv_threads(1).expect("OpenCV threads");
    let json = include_str!("../../../models/camouflage/reference.json");
    let set = CamouflageSet::from_json(json, "reference.json").expect("the reference set");
    let options = CamouflageReadOptions {
        colours: Some(SideColours {
            set: &set,
            side: None,
        }),
        camera: None,
    };
    for cards in [12, 24] {
        let photo = board_photo(&set, cards, 7);
        // The bench must measure a successful read, not a fast failure.
        let got = read_camouflage(&photo, &options).expect("the board reads");
        assert!(
            got.centres.len() >= cards / 2,
            "{} centres of {cards}",
            got.centres.len()
        );
        c.bench_function(&format!("camouflage_read_1280x720_{cards}_cards"), |b| {
            b.iter(|| read_camouflage(black_box(&photo), &options).expect("read"))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
