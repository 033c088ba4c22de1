//! The Camouflage reader's speed (issue 4): one photo of a board in mid-game, 1280×720, read
//! after decoding on one core (OpenCV held to one thread), whole (as a replay reads the first
//! photo of a run, and any photo the board cannot be followed into) and from the reading of
//! the photo before it, one card earlier (as a replay reads the rest); and whole from a copy
//! half the size.
//!
//! `cargo bench -p tablejudge-vision --bench camouflage`

use criterion::{criterion_group, criterion_main, Criterion};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use tablejudge_render::{random_series, render_camouflage, CamouflageSceneSpec, Degradation};
use tablejudge_rules::camouflage::{random_board, CamouflageSet, DeckIdx, SideIdx};
use tablejudge_vision::camouflage::{
    read_camouflage, reread_camouflage, CamouflageReadOptions, SideColours,
};
use tablejudge_vision::mat::{decode_rgb, set_opencv_threads};

/// Boards of 12 and 24 cards as the renderer draws them for `eval camouflage`: a random
/// table, camera and light of a phone over a kitchen table, through JPEG.
fn board_photo(set: &CamouflageSet, cards: usize, seed: u64) -> image::RgbImage {
    let board = random_board(set, SideIdx(0), false, DeckIdx(1), cards, seed).expect("a board");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let spec =
        CamouflageSceneSpec::random(set, &board, &mut rng, (1280, 720), Degradation::Realistic)
            .expect("a scene");
    decoded(set, &spec)
}

/// The photo of `spec`, through JPEG and decoded.
fn decoded(set: &CamouflageSet, spec: &CamouflageSceneSpec) -> image::RgbImage {
    let scene = render_camouflage(set, spec).expect("rendering");
    decode_rgb(&scene.jpeg().expect("JPEG encoding")).expect("decoding")
}

/// The last two photos of a series of the board of `cards` cards, drawn as `eval camouflage`
/// draws them: the camera moved a little and the sensor noise new between them.
fn last_two_photos(set: &CamouflageSet, cards: usize, seed: u64) -> [image::RgbImage; 2] {
    let board = random_board(set, SideIdx(0), false, DeckIdx(1), cards, seed).expect("a board");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let frames = random_series(
        set,
        &board,
        &mut rng,
        (1280, 720),
        Degradation::Realistic,
        0.0,
    )
    .expect("a series");
    let n = frames.len();
    [
        decoded(set, &frames[n - 2].spec),
        decoded(set, &frames[n - 1].spec),
    ]
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
        // The same photo at half the size: a whole read's cost is the board's more than the
        // pixels' (issue 5's bar; docs/PERFORMANCE.md). Timed whatever it reads.
        let half = image::imageops::resize(&photo, 640, 360, image::imageops::FilterType::Triangle);
        c.bench_function(&format!("camouflage_read_640x360_{cards}_cards"), |b| {
            b.iter(|| read_camouflage(black_box(&half), &options))
        });
        // The first series from seed 7 on whose last photo the board is followed (the bench
        // must measure that, not a give-up), with the card laid found.
        let (before, photo) = (7..17)
            .find_map(|seed| {
                let [before, photo] = last_two_photos(&set, cards, seed);
                let before = read_camouflage(&before, &options).ok()?;
                let again = reread_camouflage(&photo, &options, &[&before]).ok()??;
                (again.centres.len() == before.centres.len() + 1).then_some((before, photo))
            })
            .expect("a series whose board is followed");
        c.bench_function(&format!("camouflage_reread_1280x720_{cards}_cards"), |b| {
            b.iter(|| {
                reread_camouflage(black_box(&photo), &options, &[&before])
                    .expect("read")
                    .expect("followed")
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
