//! Set files (formats.md §1–3): any text is parsed as a Layers+ set, a Camouflage set, a
//! palette and by `parse_any` (what `tablejudge set check` does). Errors are fine, panics are
//! not. Whatever parses is written back (`to_raw` → JSON), parsed again and must come back
//! equal; the checks `set check` runs (`check_layers_differ`, `check_missions`,
//! `check_puzzles`) run on a bounded part of the set, so that one input cannot search for
//! minutes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tablejudge_rules::camouflage::CamouflageSet;
use tablejudge_rules::layers::LayersSet;
use tablejudge_rules::palette::Palette;
use tablejudge_rules::set::{parse_any, AnySet};

const FILE: &str = "fuzz.json";

/// Missions given to `check_missions` (the solver) per input.
const MAX_MISSIONS: usize = 20;
/// Sets with more layers skip `check_missions`: the solver's search grows with the layers.
const MAX_LAYERS: usize = 6;
/// Puzzles given to `check_puzzles` per input, and the most cards such a puzzle may have.
const MAX_PUZZLES: usize = 4;
const MAX_PUZZLE_CARDS: usize = 6;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    layers(text);
    camouflage(text);
    palette(text);
    // The `set check` entry: whichever format the file names. Same parsers, so only the
    // dispatch and the messages are new here.
    match parse_any(text, FILE) {
        Ok(AnySet::Layers(s)) => assert_eq!(Some(s), LayersSet::from_json(text, FILE).ok()),
        Ok(AnySet::Camouflage(s)) => {
            assert_eq!(Some(s), CamouflageSet::from_json(text, FILE).ok())
        }
        Ok(AnySet::Palette(p)) => assert_eq!(Some(p), Palette::from_json(text, FILE).ok()),
        Err(e) => drop(e.to_string()),
    }
});

fn layers(text: &str) {
    let set = match LayersSet::from_json(text, FILE) {
        Ok(set) => set,
        Err(e) => return drop(e.to_string()),
    };
    let raw = set.to_raw();
    let written = serde_json::to_string(&raw).expect("a layers set serialises");
    let again = LayersSet::from_json(&written, FILE)
        .unwrap_or_else(|e| panic!("a written layers set does not read back: {e}\n{written}"));
    assert_eq!(again, set, "layers set changed in a round trip:\n{written}");
    assert_eq!(again.to_raw(), raw);

    for e in set.check_layers_differ(FILE) {
        drop(e.to_string());
    }
    if set.layers().len() <= MAX_LAYERS {
        let mut small = raw;
        small.missions.truncate(MAX_MISSIONS);
        let small = LayersSet::from_raw(&small, FILE).expect("fewer missions of a valid set");
        for e in small.check_missions(FILE) {
            drop(e.to_string());
        }
    }
}

fn camouflage(text: &str) {
    let set = match CamouflageSet::from_json(text, FILE) {
        Ok(set) => set,
        Err(e) => return drop(e.to_string()),
    };
    let raw = set.to_raw();
    let written = serde_json::to_string(&raw).expect("a camouflage set serialises");
    let again = CamouflageSet::from_json(&written, FILE)
        .unwrap_or_else(|e| panic!("a written camouflage set does not read back: {e}\n{written}"));
    assert_eq!(
        again, set,
        "camouflage set changed in a round trip:\n{written}"
    );
    assert_eq!(again.to_raw(), raw);

    let mut small = raw;
    small.puzzles.retain(|p| p.cards.len() <= MAX_PUZZLE_CARDS);
    small.puzzles.truncate(MAX_PUZZLES);
    let small = CamouflageSet::from_raw(&small, FILE).expect("fewer puzzles of a valid set");
    for e in small.check_puzzles(FILE) {
        drop(e.to_string());
    }
}

fn palette(text: &str) {
    let palette = match Palette::from_json(text, FILE) {
        Ok(p) => p,
        Err(e) => return drop(e.to_string()),
    };
    let raw = palette.to_raw();
    let written = serde_json::to_string(&raw).expect("a palette serialises");
    let again = Palette::from_json(&written, FILE)
        .unwrap_or_else(|e| panic!("a written palette does not read back: {e}\n{written}"));
    assert_eq!(
        again, palette,
        "palette changed in a round trip:\n{written}"
    );
    assert_eq!(again.to_raw(), raw);
}
