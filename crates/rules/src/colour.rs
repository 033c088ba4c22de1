//! Colours as set files write them: 8-bit sRGB, `#rrggbb`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// An 8-bit sRGB colour as printed under neutral daylight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Srgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Srgb {
    pub const fn new(r: u8, g: u8, b: u8) -> Srgb {
        Srgb { r, g, b }
    }

    pub const fn to_array(self) -> [u8; 3] {
        [self.r, self.g, self.b]
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{value:?} is not a colour: write it as \"#rrggbb\" in hexadecimal, e.g. \"#d62839\"")]
pub struct ColourParseError {
    pub value: String,
}

impl FromStr for Srgb {
    type Err = ColourParseError;
    fn from_str(s: &str) -> Result<Srgb, ColourParseError> {
        let err = || ColourParseError {
            value: s.to_owned(),
        };
        let hex = s.strip_prefix('#').ok_or_else(err)?;
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(err());
        }
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| err());
        Ok(Srgb::new(byte(0)?, byte(2)?, byte(4)?))
    }
}

impl fmt::Display for Srgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

impl Serialize for Srgb {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Srgb {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_hex() {
        let c: Srgb = "#D62839".parse().unwrap();
        assert_eq!(c, Srgb::new(0xd6, 0x28, 0x39));
        assert_eq!(c.to_string(), "#d62839");
    }

    #[test]
    fn rejects_malformed_colours() {
        for bad in ["d62839", "#d6283", "#d628390", "#gg0000", "", "#"] {
            assert!(bad.parse::<Srgb>().is_err(), "{bad}");
        }
    }
}
