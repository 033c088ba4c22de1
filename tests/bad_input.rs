//! What phones, folders and typos feed tablejudge (issue 6): each bad input gets a message
//! naming the file and the fix and the exit status of formats.md §5, never a panic or a hang.

use std::path::Path;

use crate::assert_exit;
use crate::util::{model, path_str, render_layers, tablejudge, with_exif, Run};

const SET: &str = "layers/reference.json";
const MISSION: &str = "2-05";

fn verify(photo: &Path, extra: &[&str]) -> Run {
    let set = model(SET);
    let mut args = vec![
        "layers",
        "verify",
        path_str(photo),
        "--set",
        path_str(&set),
        "--mission",
        MISSION,
    ];
    args.extend(extra);
    tablejudge(args)
}

fn jpeg_of(img: &image::RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 90)
        .encode_image(img)
        .expect("JPEG encoding");
    out
}

/// A small JPEG whose frame header claims `width` × `height` pixels.
fn jpeg_declaring(width: u16, height: u16) -> Vec<u8> {
    let mut jpeg = jpeg_of(&image::RgbImage::new(16, 16));
    // The baseline frame header: FF C0, length, precision, height, width.
    let sof = jpeg
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("a baseline JPEG");
    jpeg[sof + 5..sof + 7].copy_from_slice(&height.to_be_bytes());
    jpeg[sof + 7..sof + 9].copy_from_slice(&width.to_be_bytes());
    jpeg
}

#[test]
fn a_broken_photo_is_bad_input_naming_it_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let whole = jpeg_of(&image::RgbImage::from_fn(320, 240, |x, y| {
        image::Rgb([x as u8, y as u8, 128])
    }));
    let mut png = vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];
    png.extend_from_slice(b"\0\0\0\x0dIHDR and then nothing a decoder can use");
    let mut garbled = whole.clone();
    garbled[2..40].fill(0);
    let cases: [(&str, Vec<u8>, &[&str]); 6] = [
        (
            "garbled.jpg",
            garbled,
            &["not an image OpenCV can decode", "a whole JPEG or PNG"],
        ),
        (
            "empty.jpg",
            Vec::new(),
            &["not an image OpenCV can decode", "a whole JPEG or PNG"],
        ),
        (
            "cut-short.jpg",
            whole[..whole.len() / 2].to_vec(),
            &["stops before its end", "copy the photo from the camera"],
        ),
        (
            "corrupt.png",
            png,
            &["not an image OpenCV can decode", "a whole JPEG or PNG"],
        ),
        (
            "notes.jpg",
            b"shopping: milk, eggs".to_vec(),
            &["not an image OpenCV can decode"],
        ),
        (
            "bomb.jpg",
            jpeg_declaring(65_000, 65_000),
            &[
                "65000x65000 pixels",
                "limit of 100 megapixels",
                "scale it down",
            ],
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let run = verify(&path, &[]);
        assert_exit!(run, 2);
        assert!(
            run.stderr
                .contains(&format!("{name}: cannot read the photo")),
            "{name}: {}",
            run.stderr
        );
        for s in says {
            assert!(run.stderr.contains(s), "{name}: {s:?} in {}", run.stderr);
        }
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

#[test]
fn a_pipe_named_like_a_photo_is_refused_without_waiting_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("photo.jpg");
    let made = std::process::Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // Opening a pipe to read it would wait for a writer that never comes.
    let run = verify(&pipe, &[]);
    assert_exit!(run, 2);
    assert!(
        run.stderr
            .contains("photo.jpg: cannot read the photo: not a regular file"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_photo_with_nothing_to_judge_is_undecided_with_what_to_retake() {
    let dir = tempfile::tempdir().unwrap();
    let photos = [
        ("one-pixel.png", image::RgbImage::new(1, 1)),
        ("all-black.png", image::RgbImage::new(640, 480)),
        (
            "all-glare.png",
            image::RgbImage::from_pixel(640, 480, image::Rgb([255, 255, 255])),
        ),
    ];
    let camouflage = model("camouflage/reference.json");
    for (name, img) in photos {
        let path = dir.path().join(name);
        img.save(&path).unwrap();
        let run = verify(&path, &[]);
        assert_exit!(run, 3);
        assert!(
            run.stdout
                .contains(&format!("{name}: undecided: no stack found")),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("retake"), "{}", run.stdout);
        assert!(run.stdout.contains("well lit"), "{}", run.stdout);
        let run = tablejudge([
            "camouflage",
            "read",
            path_str(&path),
            "--set",
            path_str(&camouflage),
        ]);
        assert_exit!(run, 3);
        assert!(
            run.stdout
                .contains(&format!("{name}: undecided: no card centre found")),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains("without glare"), "{}", run.stdout);
    }
}

/// The corners of the stack in `photo`, as `layers verify --json` found them.
fn stack_corners(photo: &Path) -> Vec<[f64; 2]> {
    let run = verify(photo, &["--json"]);
    assert_exit!(run, 0);
    let json = run.json();
    let stack = json["grids"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["kind"] == "stack")
        .expect("the stack is among the grids found")
        .clone();
    stack["corners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| [c[0].as_f64().unwrap(), c[1].as_f64().unwrap()])
        .collect()
}

#[test]
fn a_phone_photo_stored_turned_is_judged_upright_by_its_exif_orientation() {
    let dir = tempfile::tempdir().unwrap();
    let upright_path = render_layers(dir.path(), SET, MISSION, 21, false, "realistic");
    let upright = image::open(&upright_path).unwrap().to_rgb8();
    // A phone held upright stores its pixels turned a quarter anticlockwise and tags the
    // photo with orientation 6: "turn a quarter clockwise to view".
    let stored = image::imageops::rotate270(&upright);
    let orientation = exif::Field {
        tag: exif::Tag::Orientation,
        ifd_num: exif::In::PRIMARY,
        value: exif::Value::Short(vec![6]),
    };
    let turned_path = dir.path().join("phone.jpg");
    std::fs::write(&turned_path, with_exif(&jpeg_of(&stored), &[orientation])).unwrap();
    let (a, b) = (stack_corners(&upright_path), stack_corners(&turned_path));
    for (p, q) in a.iter().zip(&b) {
        let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt();
        assert!(
            d < 2.0,
            "corners {a:?} upright, {b:?} from the turned photo"
        );
    }
}

#[test]
fn an_output_that_cannot_be_written_fails_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("photo.png");
    image::RgbImage::new(64, 48).save(&photo).unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let no_folder = dir.path().join("no/such/folder/out.png");
    let cases: [(Vec<&str>, &str); 4] = [
        (
            vec!["--annotate", path_str(&no_folder)],
            "does not exist: create it first",
        ),
        (
            vec!["--annotate", path_str(dir.path())],
            "is a folder: give a file name",
        ),
        (
            vec!["--annotate", "annotated.txt"],
            "give a name ending in .png or .jpg",
        ),
        (
            vec!["--annotate", "no/such/folder/x.jpg"],
            "does not exist: create it first",
        ),
    ];
    for (extra, says) in cases {
        let run = verify(&photo, &extra);
        assert_exit!(run, 2);
        assert!(run.stderr.contains(says), "{says:?} in {}", run.stderr);
        // Nothing was judged: the photo (which has no stack) would have been undecided.
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    let mat_into_a_file = file.join("mat.pdf");
    let run = tablejudge(["mat", "--out", path_str(&mat_into_a_file)]);
    assert_exit!(run, 2);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
    let render_into_a_file = file.join("scenes");
    let run = tablejudge([
        "render",
        "layers",
        "--set",
        path_str(&model(SET)),
        "--out",
        path_str(&render_into_a_file),
        "--n",
        "1",
    ]);
    assert_exit!(run, 2);
    assert!(
        run.stderr.contains("is a file, not a folder"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_set_of_ten_thousand_missions_is_checked_and_judged_against() {
    let text = std::fs::read_to_string(model(SET)).unwrap();
    let mut set: serde_json::Value = serde_json::from_str(&text).unwrap();
    let missions = set["missions"].as_array().unwrap().clone();
    let many: Vec<serde_json::Value> = (0..10_000)
        .map(|i| {
            let mut m = missions[i % missions.len()].clone();
            m["id"] = format!("big-{i:05}").into();
            m
        })
        .collect();
    set["missions"] = many.into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::write(&path, set.to_string()).unwrap();
    let started = std::time::Instant::now();
    let run = tablejudge(["set", "check", path_str(&path)]);
    assert_exit!(run, 0);
    assert!(run.stdout.contains("10000 missions"), "{}", run.stdout);
    let run = tablejudge([
        "layers",
        "solve",
        "--set",
        path_str(&path),
        "--mission",
        "big-09999",
    ]);
    assert_exit!(run, 0);
    // Seconds, not minutes, even in a debug build.
    let took = started.elapsed();
    assert!(took.as_secs() < 60, "took {took:?}");
}

#[test]
fn a_folder_with_odd_entries_is_batched_whole() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    std::fs::create_dir(&photos).unwrap();
    // A name that is not UTF-8 (Latin-1 "stäck.jpg", as an old camera or a zip may write).
    let latin1 = photos.join(std::ffi::OsStr::from_bytes(b"st\xe4ck.jpg"));
    let rendered = render_layers(&dir.path().join("r"), SET, MISSION, 13, false, "realistic");
    std::fs::copy(rendered, &latin1).unwrap();
    std::os::unix::fs::symlink("nowhere.jpg", photos.join("gone.jpg")).unwrap();
    std::os::unix::fs::symlink(".", photos.join("again")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(photos.join("pipe.jpg"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let out = dir.path().join("out");
    let run = tablejudge([
        "batch",
        path_str(&photos),
        "--game",
        "layers",
        "--set",
        path_str(&model(SET)),
        "--mission",
        MISSION,
        "--out",
        path_str(&out),
    ]);
    assert_exit!(run, 0);
    assert!(
        run.stderr
            .contains("gone.jpg: a link to nothing; restore what it pointed to, or remove it"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("again: a link back to a folder above it (a loop)"),
        "{}",
        run.stderr
    );
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = results
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{results}");
    assert_eq!(lines[0]["photo"], "st\u{FFFD}ck.jpg");
    assert_eq!(lines[0]["verdict"], "match", "{results}");
}
