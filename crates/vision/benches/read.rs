//! The speed bar of issue 3: for a 1920×1080 JPEG, everything after decoding must take at most
//! half the time decoding takes, on one core.
//!
//! `cargo bench -p tablejudge-vision --bench read` prints both: `decode_1080p_jpeg` (OpenCV
//! `imdecode` and the conversion to RGB) and `read_grid_after_decode` (locate, refine,
//! rectify, sample, white balance, classify on the decoded image). OpenCV is held to one
//! thread.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tablejudge_rules::{Grid, Palette};
use tablejudge_vision::mat::{decode_rgb, encode_jpeg, set_opencv_threads};
use tablejudge_vision::{read_grid, ReadOptions};

#[path = "../src/test_scene.rs"]
mod test_scene;

fn palette() -> Palette {
    let json = r##"{"format":"tablejudge/palette@1","name":"layers","colors":{
        "r":{"name":"red","srgb":"#d62839"},"g":{"name":"green","srgb":"#2e9e4f"},
        "b":{"name":"blue","srgb":"#2f5fb3"},"y":{"name":"yellow","srgb":"#f2c12e"},
        "o":{"name":"orange","srgb":"#e8772e"},"p":{"name":"purple","srgb":"#7b3fa0"},
        "w":{"name":"card","srgb":"#f2efe6"}}}"##;
    Palette::from_json(json, "layers.json").expect("a valid palette")
}

/// A 1080p photo of a 4×4 stack, turned and tilted, on a busy tablecloth in warm light.
fn photo_jpeg(p: &Palette) -> Vec<u8> {
    let truth = Grid::parse_rows(&["rrgw", "rbbw", "yyop", "gpoo"]).expect("a grid");
    let colours = truth.map(|&c| p.colors[&tablejudge_rules::Key::new(c).expect("a key")].srgb);
    let mut img = test_scene::tablecloth(1920, 1080, 5);
    let corners = test_scene::view(900.0, 560.0, 260.0, 1.0, 25.0, 30.0);
    test_scene::place(&mut img, &colours, &test_scene::layer_style(80), corners);
    test_scene::cast(&mut img, test_scene::WARM, 2.0, 6);
    encode_jpeg(&img, 90).expect("JPEG encoding")
}

fn bench(c: &mut Criterion) {
    set_opencv_threads(1).expect("OpenCV threads");
    let p = palette();
    let jpeg = photo_jpeg(&p);
    let decoded = decode_rgb(&jpeg).expect("decoding");
    let options = ReadOptions::default();
    // The bench must measure a successful read, not a fast failure.
    let got = read_grid(&decoded, 4, 4, Some(&p), &options).expect("the grid reads");
    assert!(got.confidence > 0.3, "{got:?}");
    c.bench_function("decode_1080p_jpeg", |b| {
        b.iter(|| decode_rgb(black_box(&jpeg)).expect("decoding"))
    });
    // Stages on their own: locating, and the palette white balance of 16 measured cells.
    let mut locator = tablejudge_vision::Locator::new();
    c.bench_function("stage_locate", |b| {
        b.iter(|| {
            locator
                .locate(black_box(&decoded), 4, 4, &options.locate)
                .expect("locate")
        })
    });
    let measured: Vec<_> = got.samples.cells().iter().map(|s| s.srgb).collect();
    let colours: Vec<_> = p.colors.values().map(|s| s.srgb).collect();
    c.bench_function("stage_white_balance_from_palette", |b| {
        b.iter(|| {
            tablejudge_vision::WhiteBalance::from_palette(black_box(&measured), &colours)
                .expect("fit")
        })
    });
    c.bench_function("read_grid_after_decode", |b| {
        b.iter(|| read_grid(black_box(&decoded), 4, 4, Some(&p), &options).expect("read"))
    });
}

/// `read_layers` after decoding, over the same rendered 1920×1080 JPEGs of the reference set
/// as `decode_layers_1080p_jpegs`: scenes as `eval layers` draws them (mixed clutter around
/// the stack, realistic camera and light), each read whatever its verdict, since an undecided
/// photo costs time too. The bar: at most half the decode time.
fn bench_layers(c: &mut Criterion) {
    use rand::SeedableRng;
    use tablejudge_render::{render_layers, LayersSceneSpec, SceneOptions, StackChoice};
    use tablejudge_rules::layers::LayersSet;
    use tablejudge_vision::{LayersReadOptions, LayersReader};
    set_opencv_threads(1).expect("OpenCV threads");
    let set = LayersSet::from_json(
        include_str!("../../../models/layers/reference.json"),
        "reference",
    )
    .expect("set");
    let options = SceneOptions {
        stack: StackChoice::MissionSolution { mission: None },
        ..SceneOptions::default()
    };
    let read = LayersReadOptions::default();
    let mut reader = LayersReader::new(&set).expect("reader");
    let scenes: Vec<(Vec<u8>, image::RgbImage)> = (0..LAYERS_SCENES)
        .map(|seed| {
            let spec = LayersSceneSpec::random(
                &set,
                &mut rand_chacha::ChaCha8Rng::seed_from_u64(seed),
                &options,
            )
            .expect("spec");
            let jpeg = render_layers(&set, &spec)
                .expect("render")
                .jpeg()
                .expect("jpeg");
            let decoded = decode_rgb(&jpeg).expect("decoding");
            (jpeg, decoded)
        })
        .collect();
    // The bench must mostly measure successful reads, not fast failures.
    let read_ok = scenes
        .iter()
        .filter(|(_, img)| reader.read(img, &read).is_ok())
        .count();
    assert!(2 * read_ok > scenes.len(), "only {read_ok} scenes read");
    c.bench_function("decode_layers_1080p_jpegs", |b| {
        b.iter(|| {
            for (jpeg, _) in &scenes {
                black_box(decode_rgb(black_box(jpeg)).expect("decoding"));
            }
        })
    });
    c.bench_function("read_layers_after_decode", |b| {
        b.iter(|| {
            for (_, img) in &scenes {
                let _ = black_box(reader.read(black_box(img), &read));
            }
        })
    });
}

/// How many scenes the layers bench decodes and reads per iteration.
const LAYERS_SCENES: u64 = 8;

criterion_group!(benches, bench, bench_resize, bench_layers);
criterion_main!(benches);

/// Downscaling choices for the detection copy (kept to justify the one chosen).
fn bench_resize(c: &mut Criterion) {
    use opencv::core::{Mat, Size};
    use opencv::imgproc;
    set_opencv_threads(1).expect("OpenCV threads");
    let img = test_scene::tablecloth(1920, 1080, 5);
    let src = tablejudge_vision::mat::rgb_to_mat(&img).expect("mat");
    let mut dst = Mat::default();
    for (name, interp) in [
        ("area", imgproc::INTER_AREA),
        ("linear", imgproc::INTER_LINEAR),
    ] {
        c.bench_function(&format!("resize_half_{name}"), |b| {
            b.iter(|| {
                imgproc::resize(&src, &mut dst, Size::new(960, 540), 0.0, 0.0, interp)
                    .expect("resize")
            })
        });
    }
}
