//! Writes sample Layers+ scenes (JPEG + truth JSON) into a folder, for people to look at.
//!
//! `cargo run --release -p tablejudge-render --example layers_scenes -- OUT_DIR [N] [SEED]
//! [clean|realistic|harsh] [SET_JSON] [WxH]`
//!
//! `OUT_DIR` `-` renders without writing anything (for timing). `WxH` fixes the image size.
//!
//! Scenes cycle through stack choices (mission solutions, near misses, random stacks) and
//! image sizes (1920×1080, 1280×720, 1080×1920 portrait). Writes `scene_NNNN.jpg` (at the
//! scene's JPEG quality), `scene_NNNN.json` (the truth) and a half-size `.preview.png`, and
//! prints the time each render took.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{render_layers, Degradation, LayersSceneSpec, SceneOptions, StackChoice};
use tablejudge_rules::layers::LayersSet;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first().map(PathBuf::from) else {
        bail!("usage: layers_scenes OUT_DIR [N] [SEED] [clean|realistic|harsh] [SET_JSON]");
    };
    let n: usize = args.get(1).map_or(Ok(8), |s| s.parse()).context("N")?;
    let seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse()).context("SEED")?;
    let degradation = match args.get(3).map(String::as_str) {
        None | Some("realistic") => Degradation::Realistic,
        Some("clean") => Degradation::Clean,
        Some("harsh") => Degradation::Harsh,
        Some(other) => bail!("unknown degradation {other:?}"),
    };
    let set_path = args.get(4).filter(|s| s.as_str() != "-").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../models/layers/reference.json"),
        PathBuf::from,
    );
    let json = std::fs::read_to_string(&set_path)
        .with_context(|| format!("reading {}", set_path.display()))?;
    let set = LayersSet::from_json(&json, &set_path.display().to_string())?;
    if out.as_os_str() != "-" {
        std::fs::create_dir_all(&out)?;
    }
    let fixed = match args.get(5) {
        Some(s) => {
            let (w, h) = s.split_once('x').context("size must be WxH")?;
            Some((w.parse()?, h.parse()?))
        }
        None => None,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let sizes = [(1920, 1080), (1280, 720), (1080, 1920)];
    let mut total = 0.0;
    for i in 0..n {
        let stack = match i % 3 {
            0 => StackChoice::MissionSolution { mission: None },
            1 => StackChoice::NearMiss { mission: None },
            _ => StackChoice::Random {
                min_layers: 2,
                max_layers: 5,
            },
        };
        let (width, height) = fixed.unwrap_or(sizes[i % sizes.len()]);
        let options = SceneOptions {
            width,
            height,
            stack,
            degradation,
            ..SceneOptions::default()
        };
        let spec = LayersSceneSpec::random(&set, &mut rng, &options)?;
        let start = Instant::now();
        let scene = render_layers(&set, &spec)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        total += ms;
        let name = format!("scene_{i:04}");
        if out.as_os_str() == "-" {
            continue; // Timing only.
        }
        let jpeg = scene.jpeg()?;
        std::fs::write(out.join(format!("{name}.jpg")), &jpeg)?;
        // A half-size PNG of the JPEG as saved, for viewers that do not read JPEG.
        let saved = image::load_from_memory(&jpeg)?.to_rgb8();
        let preview = image::imageops::resize(
            &saved,
            width / 2,
            height / 2,
            image::imageops::FilterType::Triangle,
        );
        preview.save(out.join(format!("{name}.preview.png")))?;
        std::fs::write(
            out.join(format!("{name}.json")),
            serde_json::to_string_pretty(&scene.truth)?,
        )?;
        println!(
            "{name}: {width}x{height} {:?} visible {:?} rendered in {ms:.1} ms",
            options.degradation, scene.truth.visible
        );
    }
    println!("mean render time {:.1} ms", total / n.max(1) as f64);
    Ok(())
}
