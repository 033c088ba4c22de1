//! Any set file, recognised by its `format` field.

use serde::Deserialize;

use crate::camouflage::{CamouflageSet, CAMOUFLAGE_FORMAT};
use crate::error::{parse_json, Place, SetError, SetProblem};
use crate::layers::{LayersSet, LAYERS_SET_FORMAT};
use crate::palette::{Palette, PALETTE_FORMAT};

/// Every format this version reads.
pub const FORMATS: [&str; 3] = [PALETTE_FORMAT, LAYERS_SET_FORMAT, CAMOUFLAGE_FORMAT];

/// A validated set file of any kind.
#[derive(Clone, Debug)]
pub enum AnySet {
    Palette(Palette),
    Layers(LayersSet),
    Camouflage(CamouflageSet),
}

#[derive(Deserialize)]
struct Head {
    format: Option<String>,
}

/// Parses and validates a set file of any kind, chosen by its `format` field.
pub fn parse_any(json: &str, file: &str) -> Result<AnySet, SetError> {
    let head: Head = parse_json(json, file)?;
    match head.format.as_deref() {
        Some(PALETTE_FORMAT) => Palette::from_json(json, file).map(AnySet::Palette),
        Some(LAYERS_SET_FORMAT) => LayersSet::from_json(json, file).map(AnySet::Layers),
        Some(CAMOUFLAGE_FORMAT) => CamouflageSet::from_json(json, file).map(AnySet::Camouflage),
        found => Err(SetError::new(
            file,
            Place::item("format"),
            SetProblem::Format {
                found: found.map(str::to_owned),
                expected: FORMATS.to_vec(),
            },
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_and_missing_formats_list_the_known_ones() {
        let e = parse_any(r#"{"format":"tablejudge/chess-set@1"}"#, "c.json").unwrap_err();
        assert!(e.to_string().contains("tablejudge/layers-set@1"), "{e}");
        let e = parse_any(r#"{"name":"x"}"#, "c.json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("c.json: format: no \"format\" field"),
            "{e}"
        );
    }

    #[test]
    fn a_newer_layers_version_is_named_as_such() {
        let e = parse_any(r#"{"format":"tablejudge/layers-set@2"}"#, "l.json").unwrap_err();
        assert!(
            e.to_string()
                .contains("a version this tablejudge cannot read"),
            "{e}"
        );
    }

    #[test]
    fn palettes_are_recognised() {
        let json = r##"{"format":"tablejudge/palette@1","name":"p","colors":{"a":{"name":"x","srgb":"#010203"}}}"##;
        assert!(matches!(parse_any(json, "p.json"), Ok(AnySet::Palette(_))));
    }
}
