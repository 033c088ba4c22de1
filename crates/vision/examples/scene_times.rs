//! Decode and read times of each scene the layers bench draws, on one core: where the bench's
//! total hides one slow photo, this shows it.
//!
//! `cargo run --release -p tablejudge-vision --example scene_times -- [SCENES] [READS] [ONLY]`
//! times the first SCENES scenes (default 8, the bench's), each decoded and read READS times
//! (default 20), optionally only the comma-separated scene numbers ONLY.

use rand::SeedableRng;
use std::time::Instant;
use tablejudge_render::{render_layers, LayersSceneSpec, SceneOptions, StackChoice};
use tablejudge_rules::layers::LayersSet;
use tablejudge_vision::mat::{decode_rgb, set_opencv_threads};
use tablejudge_vision::{LayersReadOptions, LayersReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize| std::env::args().nth(i);
    let scenes: u64 = arg(1).map_or(Ok(8), |s| s.parse())?;
    let reads: u32 = arg(2).map_or(Ok(20), |s| s.parse())?;
    let only: Vec<u64> = match arg(3) {
        Some(list) => list.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    set_opencv_threads(1)?;
    let set = LayersSet::from_json(
        include_str!("../../../models/layers/reference.json"),
        "reference",
    )?;
    // As the bench draws them: a stack that makes a mission, the usual clutter.
    let options = SceneOptions {
        stack: StackChoice::MissionSolution { mission: None },
        ..SceneOptions::default()
    };
    let read = LayersReadOptions::default();
    let mut reader = LayersReader::new(&set)?;
    let (mut decode_total, mut read_total) = (0.0, 0.0);
    for seed in (0..scenes).filter(|s| only.is_empty() || only.contains(s)) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let spec = LayersSceneSpec::random(&set, &mut rng, &options)?;
        let jpeg = render_layers(&set, &spec)?.jpeg()?;
        let img = decode_rgb(&jpeg)?;
        let verdict = match reader.read(&img, &read) {
            Ok(_) => "read".to_string(),
            Err(e) => format!("not read: {e}"),
        };
        let ms = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            for _ in 0..reads {
                f();
            }
            t.elapsed().as_secs_f64() * 1e3 / f64::from(reads)
        };
        let decode = ms(&mut || {
            std::hint::black_box(decode_rgb(&jpeg).ok());
        });
        let reading = ms(&mut || {
            std::hint::black_box(reader.read(&img, &read).ok());
        });
        decode_total += decode;
        read_total += reading;
        println!(
            "scene {seed}: decode {decode:.1} ms, read {reading:.1} ms ({:.2}×), {verdict}",
            reading / decode
        );
    }
    println!(
        "all: decode {decode_total:.1} ms, read {read_total:.1} ms ({:.2}×)",
        read_total / decode_total
    );
    Ok(())
}
