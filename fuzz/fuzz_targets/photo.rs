//! The photo entry point: any bytes → `decode_rgb`, and when they decode, what the photo
//! commands run on a photo with default options (src/photo.rs, src/commands/grid.rs,
//! judge.rs, camouflage.rs): the judge mat search and its top-down view, `read_grid` with and
//! without a palette, the Layers+ reader (stack, mission card, both) and `judge`, and
//! `read_camouflage` with and without a set. Errors are fine; panics are not.
//!
//! Decoding is capped at 4 megapixels (OpenCV's OPENCV_IO_MAX_IMAGE_PIXELS, set before the
//! first decode), and the readers run only on images up to 1 megapixel, so that one input
//! cannot take seconds.

#![no_main]

use std::sync::{LazyLock, Mutex};

use libfuzzer_sys::fuzz_target;
use tablejudge_rules::camouflage::CamouflageSet;
use tablejudge_rules::layers::LayersSet;
use tablejudge_rules::palette::Palette;
use tablejudge_vision::camouflage::{read_camouflage, CamouflageReadOptions, SideColours};
use tablejudge_vision::judge_mat::{find_mat, rectified};
use tablejudge_vision::mat::{decode_rgb, set_opencv_threads};
use tablejudge_vision::{
    judge, read_grid, JudgeOptions, LayersReadOptions, LayersReader, ReadOptions,
};

const LAYERS: &str = include_str!("../../models/layers/reference.json");
const CAMOUFLAGE: &str = include_str!("../../models/camouflage/reference.json");

/// OpenCV refuses to decode images with more pixels than this.
const MAX_DECODE_PIXELS: &str = "4194304";
/// Images with more pixels are decoded but not read.
const MAX_READ_PIXELS: u64 = 1 << 20;
/// The resolution of the mat's top-down view the CLI reads (src/photo.rs MAT_PX_PER_MM).
const MAT_PX_PER_MM: f64 = 5.0;

struct Fixture {
    layers: LayersSet,
    reader: Mutex<LayersReader>,
    palette: Palette,
    camouflage: CamouflageSet,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let layers = LayersSet::from_json(LAYERS, "reference.json").expect("layers set loads");
    let reader = LayersReader::new(&layers).expect("a reader for the reference set");
    Fixture {
        palette: Palette {
            name: "reference".into(),
            colors: layers.colors().clone(),
        },
        reader: Mutex::new(reader),
        layers,
        camouflage: CamouflageSet::from_json(CAMOUFLAGE, "reference.json")
            .expect("camouflage set loads"),
    }
});

fuzz_target!(
    init: {
        // Before OpenCV reads it (on the first decode); the fuzzer runs one thread here.
        std::env::set_var("OPENCV_IO_MAX_IMAGE_PIXELS", MAX_DECODE_PIXELS);
        set_opencv_threads(1).expect("OpenCV threads");
        LazyLock::force(&FIXTURE);
    },
    |data: &[u8]| {
        let image = match decode_rgb(data) {
            Ok(image) => image,
            Err(e) => return drop(e.to_string()),
        };
        if u64::from(image.width()) * u64::from(image.height()) > MAX_READ_PIXELS {
            return;
        }
        let fx = &*FIXTURE;

        match find_mat(&image) {
            Ok(Some(mat)) => drop(rectified(&image, &mat, MAT_PX_PER_MM)),
            Ok(None) => {}
            Err(e) => drop(e.to_string()),
        }

        let options = ReadOptions::default();
        for (rows, cols, palette) in [(4, 4, Some(&fx.palette)), (4, 6, None)] {
            match read_grid(&image, rows, cols, palette, &options) {
                Ok(reading) => assert_eq!(reading.cells.size(), (rows, cols)),
                Err(e) => drop(e.to_string()),
            }
        }

        let options = LayersReadOptions::default();
        let mut reader = fx.reader.lock().unwrap_or_else(|e| e.into_inner());
        let size = (fx.layers.rows(), fx.layers.cols());
        match reader.read(&image, &options) {
            Ok(reading) => {
                assert_eq!(reading.cells.size(), size);
                for mission in fx.layers.missions().iter().take(3) {
                    drop(judge(&reading.cells, mission.pattern(), &JudgeOptions::default()));
                }
            }
            Err(e) => drop(e.to_string()),
        }
        match reader.read_mission(&image, &options) {
            Ok(_) => {}
            Err(e) => drop(e.to_string()),
        }
        match reader.read_both(&image, &options) {
            Ok((stack, _)) => assert_eq!(stack.cells.size(), size),
            Err(e) => drop(e.to_string()),
        }
        drop(reader);

        let without = CamouflageReadOptions {
            colours: None,
            camera: None,
        };
        let with = CamouflageReadOptions {
            colours: Some(SideColours {
                set: &fx.camouflage,
                side: None,
            }),
            camera: None,
        };
        for options in [without, with] {
            if let Err(e) = read_camouflage(&image, &options) {
                drop(e.to_string());
            }
        }
    }
);
