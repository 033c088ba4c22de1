//! How far each centre's symbol lies from the middle of its square, in photos read whole with
//! the reference set: the measure behind the reader's 0.3 limit (`MAX_INK_OFF_CENTRE`).
//!
//! `cargo run --release -p tablejudge-vision --example ink_offsets -- PHOTO...` prints one
//! line per centre found: the photo, the centre's pixel x and y, and its ink's distance from
//! the square's middle as a share of the ink map's side.
//! `tools/camouflage-read-check/truth_by_pixel.py ink` matches the lines to the photos'
//! truth files.

mod support;

use tablejudge_vision::mat::decode_rgb;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let set = support::reference_set()?;
    for photo in std::env::args().skip(1) {
        let image = decode_rgb(&std::fs::read(&photo)?)?;
        // A photo the reader finds no board in has no centre to measure.
        let Some(reading) = support::read(&set, &image) else {
            continue;
        };
        for c in &reading.centres {
            println!(
                "{photo}\t{:.1}\t{:.1}\t{:.4}",
                c.px[0],
                c.px[1],
                c.ink_off_centre()
            );
        }
    }
    Ok(())
}
