//! Colour palettes, `tablejudge/palette@1` (formats.md §1), and the colour tables inside set files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::colour::Srgb;
use crate::error::{check_format, parse_json, Place, SetError};
use crate::key::Key;

pub const PALETTE_FORMAT: &str = "tablejudge/palette@1";

/// A colour entry as written in a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSwatch {
    pub name: String,
    pub srgb: String,
}

/// A palette file as written, before validation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawPalette {
    pub format: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub colors: BTreeMap<String, RawSwatch>,
}

/// A named printed colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swatch {
    pub name: String,
    pub srgb: Srgb,
}

/// A validated palette: the labels a grid reader may assign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    pub name: String,
    pub colors: BTreeMap<Key, Swatch>,
}

/// Validates a `colors` table (shared by palettes and Layers+ sets).
pub fn parse_swatches(
    raw: &BTreeMap<String, RawSwatch>,
    file: &str,
) -> Result<BTreeMap<Key, Swatch>, SetError> {
    raw.iter()
        .map(|(k, s)| {
            let place = || Place::item(format!("colour {k:?}"));
            let key = Key::from_str_key(k).map_err(|e| SetError::new(file, place(), e))?;
            let srgb = s
                .srgb
                .parse()
                .map_err(|e| SetError::new(file, place(), e))?;
            Ok((
                key,
                Swatch {
                    name: s.name.clone(),
                    srgb,
                },
            ))
        })
        .collect()
}

/// The file form of a validated `colors` table.
pub fn raw_swatches(colors: &BTreeMap<Key, Swatch>) -> BTreeMap<String, RawSwatch> {
    colors
        .iter()
        .map(|(k, s)| {
            (
                k.to_string(),
                RawSwatch {
                    name: s.name.clone(),
                    srgb: s.srgb.to_string(),
                },
            )
        })
        .collect()
}

impl Palette {
    pub fn from_raw(raw: &RawPalette, file: &str) -> Result<Palette, SetError> {
        check_format(&raw.format, PALETTE_FORMAT, file)?;
        Ok(Palette {
            name: raw.name.clone(),
            colors: parse_swatches(&raw.colors, file)?,
        })
    }

    pub fn from_json(json: &str, file: &str) -> Result<Palette, SetError> {
        Palette::from_raw(&parse_json(json, file)?, file)
    }

    pub fn to_raw(&self) -> RawPalette {
        RawPalette {
            format: PALETTE_FORMAT.to_owned(),
            name: self.name.clone(),
            note: None,
            colors: raw_swatches(&self.colors),
        }
    }

    pub fn get(&self, key: Key) -> Option<&Swatch> {
        self.colors.get(&key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_palette_and_round_trips_it() {
        let json = r##"{"format":"tablejudge/palette@1","name":"t","extra":1,
            "colors":{"a":{"name":"dark skin","srgb":"#735244"}}}"##;
        let p = Palette::from_json(json, "t.json").unwrap();
        let a = p.get(Key::new('a').unwrap()).unwrap();
        assert_eq!(a.srgb, Srgb::new(0x73, 0x52, 0x44));
        let again = serde_json::to_string(&p.to_raw()).unwrap();
        assert_eq!(Palette::from_json(&again, "t.json").unwrap(), p);
    }

    #[test]
    fn bad_colour_names_the_entry() {
        let json = r##"{"format":"tablejudge/palette@1","name":"t",
            "colors":{"a":{"name":"x","srgb":"red"}}}"##;
        let e = Palette::from_json(json, "t.json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.json: colour \"a\": \"red\" is not a colour"),
            "{e}"
        );
    }

    #[test]
    fn bad_key_names_the_entry() {
        let json = r##"{"format":"tablejudge/palette@1","name":"t",
            "colors":{"A":{"name":"x","srgb":"#000000"}}}"##;
        let e = Palette::from_json(json, "t.json").unwrap_err();
        assert!(e.to_string().contains("colour \"A\""), "{e}");
    }
}
