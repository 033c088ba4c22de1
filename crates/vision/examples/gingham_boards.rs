//! Centres missed and centres read that are not there, on boards of ten cards rendered on
//! ginghams of cream and black checks (1, 1.5 and 2 squares wide; seeds 1 to 12), each photo
//! read whole with the reference set. Centres are matched to the truth by pixel (within 8).
//!
//! `cargo run --release -p tablejudge-vision --example gingham_boards` prints one line per
//! board and the totals. It uses only the reader's public entry point, so it runs unchanged
//! on earlier commits too (copy it and `support/` into their `crates/vision/examples/`).

mod support;

use rand::SeedableRng;
use tablejudge_render::{render_camouflage, CamouflageSceneSpec, Degradation, TableSpec};
use tablejudge_rules::camouflage::{random_board, DeckIdx, SideIdx};
use tablejudge_rules::Srgb;
use tablejudge_vision::mat::decode_rgb;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let set = support::reference_set()?;
    let (mut missed, mut extra) = (0, 0);
    for (period, duty) in [(1.0, 0.45), (1.5, 0.4), (2.0, 0.5)] {
        for seed in 1..=12u64 {
            let board = random_board(&set, SideIdx(0), false, DeckIdx(1), 10, seed)?;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut spec = CamouflageSceneSpec::random(
                &set,
                &board,
                &mut rng,
                (1280, 720),
                Degradation::Realistic,
            )?;
            spec.table = TableSpec::Checks {
                ground: Srgb::new(232, 224, 200),
                stripe: Srgb::new(25, 25, 25),
                period,
                duty,
                angle_deg: 35.0,
            };
            let scene = render_camouflage(&set, &spec)?;
            let image = decode_rgb(&scene.jpeg()?)?;
            let found: Vec<[f32; 2]> = support::read(&set, &image)
                .map_or_else(Vec::new, |r| r.centres.iter().map(|c| c.px).collect());
            let real: Vec<[f32; 2]> = scene
                .truth
                .squares
                .iter()
                .filter(|q| q.square == '*')
                .map(|q| [q.center[0] as f32, q.center[1] as f32])
                .collect();
            let near = |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).hypot(a[1] - b[1]) < 8.0;
            let m = real
                .iter()
                .filter(|&&r| !found.iter().any(|&f| near(f, r)))
                .count();
            let e = found
                .iter()
                .filter(|&&f| !real.iter().any(|&r| near(f, r)))
                .count();
            println!("checks {period} wide, seed {seed}: {m} missed, {e} not there");
            (missed, extra) = (missed + m, extra + e);
        }
    }
    println!("36 boards: {missed} centres missed, {extra} read that are not there");
    Ok(())
}
