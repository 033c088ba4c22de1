//! Helpers for running the binary and looking at what it did.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (where `models/` lives).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn model(rel: &str) -> PathBuf {
    root().join("models").join(rel)
}

/// The result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// Runs `tablejudge` with `args` in the repository root.
pub fn tablejudge<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_tablejudge"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the tablejudge binary runs");
    Run {
        code: status
            .code()
            .expect("tablejudge exits normally, not by a signal"),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// Asserts the exit status, showing both streams when it is wrong.
#[macro_export]
macro_rules! assert_exit {
    ($run:expr, $code:expr) => {{
        let run = &$run;
        assert_eq!(
            run.code, $code,
            "exit status {} (expected {})\n--- stdout\n{}\n--- stderr\n{}",
            run.code, $code, run.stdout, run.stderr
        );
    }};
}

/// Writes `text` to a file named `name` in a fresh temporary folder.
pub fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write the temporary file");
    (dir, path)
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

/// Renders one Layers+ photo at 1280×720 into `dir`: the stack of `mission` of `set` (a
/// path under `models/`), or a near-miss of it; returns the photo's path.
pub fn render_layers(
    dir: &Path,
    set: &str,
    mission: &str,
    seed: u64,
    near_miss: bool,
    degradation: &str,
) -> PathBuf {
    let set = model(set);
    let seed = seed.to_string();
    let mut args = vec![
        "render",
        "layers",
        "--set",
        path_str(&set),
        "--out",
        path_str(dir),
        "--n",
        "1",
        "--size",
        "1280x720",
        "--mission",
        mission,
        "--degradation",
        degradation,
        "--seed",
        &seed,
    ];
    if near_miss {
        args.push("--near-miss");
    }
    let run = tablejudge(args);
    assert_eq!(run.code, 0, "render layers: {}", run.stderr);
    dir.join("scene_0000.jpg")
}

/// The classic 24-patch chart's palette (as `calibrate colour` ships it).
pub fn chart_palette() -> (PathBuf, tablejudge_rules::Palette) {
    let path = root().join("crates/vision/testdata/colorchecker-classic.json");
    let text = std::fs::read_to_string(&path).expect("the chart palette is in the repository");
    let palette = tablejudge_rules::Palette::from_json(&text, "chart").expect("a valid palette");
    (path, palette)
}

/// A 960×600 photo of the 24-patch chart (patches on a black body) tilted on a brown table,
/// every colour passed through `tint` (the light and the camera), the chart laid the other
/// way round when `upside_down`; returns the photo and the chart's corners in it.
pub fn chart_photo(
    dir: &Path,
    tint: &dyn Fn(tablejudge_rules::Srgb) -> tablejudge_rules::Srgb,
    upside_down: bool,
) -> (PathBuf, [[f32; 2]; 4]) {
    use tablejudge_rules::Srgb;
    let (_, palette) = chart_palette();
    let colours: Vec<Srgb> = palette.colors.values().map(|s| tint(s.srgb)).collect();
    let grid = tablejudge_rules::Grid::from_fn(4, 6, |p| {
        let (r, c) = if upside_down {
            (3 - p.row, 5 - p.col)
        } else {
            (p.row, p.col)
        };
        colours[r * 6 + c]
    });
    let style = tablejudge_render::GridStyle {
        cell_px: 40,
        frame: tint(Srgb::new(0x1c, 0x1c, 0x1c)),
        frame_width: 0.25,
        margin: 0.6,
        background: tint(Srgb::new(0x9a, 0x7b, 0x5c)),
    };
    let flat = tablejudge_render::render_patches(&grid, &style, 0.25).expect("a chart renders");
    let corners = [
        [210.0, 150.0],
        [700.0, 120.0],
        [760.0, 450.0],
        [170.0, 430.0],
    ];
    let photo = flat
        .perspective(corners, 960, 600, style.background)
        .expect("a perspective view");
    let path = dir.join("chart.png");
    photo.image.save(&path).expect("write the photo");
    (path, photo.corners)
}

/// `grid read` of a photo of the 24-patch chart with the chart's palette and `extra`.
pub fn read_chart(photo: &Path, extra: &[&str]) -> Run {
    let (chart, _) = chart_palette();
    let mut args = vec![
        "grid",
        "read",
        path_str(photo),
        "--rows",
        "4",
        "--cols",
        "6",
        "--palette",
        path_str(&chart),
    ];
    args.extend_from_slice(extra);
    tablejudge(args)
}

/// The labels of `grid read --json`'s cells, row by row.
pub fn cell_labels(observation: &serde_json::Value) -> String {
    observation["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .flat_map(|row| row.as_array().expect("a row").iter())
        .map(|c| c["label"].as_str().expect("a label").to_owned())
        .collect()
}

/// `jpeg` with an EXIF block of `fields` (a camera's time, its orientation, ...).
pub fn with_exif(jpeg: &[u8], fields: &[exif::Field]) -> Vec<u8> {
    let mut writer = exif::experimental::Writer::new();
    for field in fields {
        writer.push_field(field);
    }
    let mut tiff = std::io::Cursor::new(Vec::new());
    writer.write(&mut tiff, false).expect("an EXIF block");
    let tiff = tiff.into_inner();
    // An APP1 segment right after the JPEG's start-of-image marker.
    let len = u16::try_from(2 + 6 + tiff.len()).expect("a short EXIF block");
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(b"Exif\0\0");
    out.extend_from_slice(&tiff);
    out.extend_from_slice(&jpeg[2..]);
    out
}
