//! Keys: the single characters `[a-z0-9]` that name colours and patterns in set files.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A validated key, one of `[a-z0-9]`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(u8);

#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{found:?} is not a key: keys are one character, a-z or 0-9 ('.' and '*' are reserved)")]
pub struct KeyError {
    pub found: String,
}

impl Key {
    pub fn new(c: char) -> Result<Key, KeyError> {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            Ok(Key(c as u8))
        } else {
            Err(KeyError {
                found: c.to_string(),
            })
        }
    }

    pub fn char(self) -> char {
        self.0 as char
    }

    /// Parses a map key of a set file, which must be exactly one valid character.
    pub fn from_str_key(s: &str) -> Result<Key, KeyError> {
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Key::new(c),
            _ => Err(KeyError {
                found: s.to_owned(),
            }),
        }
    }
}

impl TryFrom<char> for Key {
    type Error = KeyError;
    fn try_from(c: char) -> Result<Key, KeyError> {
        Key::new(c)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({:?})", self.char())
    }
}

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Key::from_str_key(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_lowercase_letters_and_digits_only() {
        assert_eq!(Key::new('r').unwrap().char(), 'r');
        assert_eq!(Key::new('7').unwrap().char(), '7');
        for bad in ['.', '*', 'R', ' ', 'é'] {
            assert!(Key::new(bad).is_err(), "{bad}");
        }
        assert!(Key::from_str_key("rr").is_err());
        assert!(Key::from_str_key("").is_err());
    }
}
