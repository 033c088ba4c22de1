//! Errors of set files: every rejection names the file, the item and the cell at fault.

use std::fmt;

use serde::de::DeserializeOwned;
use thiserror::Error;

use crate::camouflage::CamouflageProblem;
use crate::colour::ColourParseError;
use crate::grid::{GridError, Pos};
use crate::key::KeyError;
use crate::layers::LayersProblem;

/// Where in a set file a problem sits: an item path ("layer A", "back") and maybe a cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub parts: Vec<String>,
    pub cell: Option<Pos>,
}

impl Place {
    /// The file as a whole.
    pub fn whole_file() -> Place {
        Place::default()
    }

    /// A named item, e.g. `Place::item("layer A")`.
    pub fn item(name: impl Into<String>) -> Place {
        Place {
            parts: vec![name.into()],
            cell: None,
        }
    }

    /// A part inside this place, e.g. `.part("back")`.
    pub fn part(mut self, name: impl Into<String>) -> Place {
        self.parts.push(name.into());
        self
    }

    /// A cell inside this place.
    pub fn at(mut self, cell: Pos) -> Place {
        self.cell = Some(cell);
        self
    }

    pub fn is_whole_file(&self) -> bool {
        self.parts.is_empty() && self.cell.is_none()
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for p in &self.parts {
            if !first {
                f.write_str(", ")?;
            }
            f.write_str(p)?;
            first = false;
        }
        if let Some(cell) = self.cell {
            if !first {
                f.write_str(", ")?;
            }
            write!(f, "{cell}")?;
        }
        Ok(())
    }
}

/// What is wrong. Each message says how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetProblem {
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{}", format_message(found.as_deref(), expected))]
    Format {
        found: Option<String>,
        expected: Vec<&'static str>,
    },
    #[error("{0}")]
    Key(#[from] KeyError),
    #[error("{0}")]
    Colour(#[from] ColourParseError),
    #[error("{0}")]
    Grid(#[from] GridError),
    #[error("'{key}' is not a key of {table}: add it there or correct the cell")]
    UnknownKey { key: char, table: &'static str },
    #[error("{0}")]
    Layers(#[from] LayersProblem),
    #[error("{0}")]
    Camouflage(#[from] CamouflageProblem),
}

fn format_message(found: Option<&str>, expected: &[&str]) -> String {
    let known = expected.join("\", \"");
    match found {
        None => format!("no \"format\" field: a set file starts with \"format\": one of \"{known}\""),
        Some(f) if expected.iter().any(|e| e.split('@').next() == f.split('@').next()) => format!(
            "format {f:?} is a version this tablejudge cannot read (it reads \"{known}\"): upgrade tablejudge or re-export the file"
        ),
        Some(f) => format!("format {f:?} is not a tablejudge set file (expected \"{known}\")"),
    }
}

/// A set file that was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct SetError {
    /// The file name (or another name for where the text came from).
    pub file: String,
    pub place: Place,
    pub problem: SetProblem,
}

impl SetError {
    pub fn new(file: &str, place: Place, problem: impl Into<SetProblem>) -> SetError {
        SetError {
            file: file.to_owned(),
            place,
            problem: problem.into(),
        }
    }
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.place.is_whole_file() {
            write!(f, "{}: {}", self.file, self.problem)
        } else {
            write!(f, "{}: {}: {}", self.file, self.place, self.problem)
        }
    }
}

/// Parses JSON text, turning serde's error into a [`SetError`] with line and column.
pub fn parse_json<T: DeserializeOwned>(json: &str, file: &str) -> Result<T, SetError> {
    serde_json::from_str(json).map_err(|e| {
        SetError::new(
            file,
            Place::whole_file(),
            SetProblem::Json {
                line: e.line(),
                column: e.column(),
                message: strip_position(&e.to_string()),
            },
        )
    })
}

/// serde_json appends " at line L column C"; we report those separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// Checks the `format` field against the one this reader supports.
pub fn check_format(found: &str, expected: &'static str, file: &str) -> Result<(), SetError> {
    if found == expected {
        Ok(())
    } else {
        Err(SetError::new(
            file,
            Place::item("format"),
            SetProblem::Format {
                found: Some(found.to_owned()),
                expected: vec![expected],
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_file_item_and_cell() {
        let e = SetError::new(
            "sets/mine.json",
            Place::item("layer A").part("back").at(Pos::new(1, 2)),
            SetProblem::UnknownKey {
                key: 'q',
                table: "colors",
            },
        );
        assert_eq!(
            e.to_string(),
            "sets/mine.json: layer A, back, row 2, column 3: 'q' is not a key of colors: add it there or correct the cell"
        );
    }

    #[test]
    fn json_errors_report_line_and_column() {
        let e = parse_json::<serde_json::Value>("{\n  \"a\": ,\n}", "x.json").unwrap_err();
        match e.problem {
            SetProblem::Json { line, column, .. } => assert_eq!((line, column), (2, 8)),
            other => panic!("expected a JSON error, got {other:?}"),
        }
        assert!(e
            .to_string()
            .starts_with("x.json: invalid JSON at line 2, column 8"));
    }

    #[test]
    fn newer_versions_are_told_apart_from_foreign_formats() {
        let v2 =
            check_format("tablejudge/palette@2", "tablejudge/palette@1", "p.json").unwrap_err();
        assert!(
            v2.to_string()
                .contains("a version this tablejudge cannot read"),
            "{v2}"
        );
        let other = check_format("something/else", "tablejudge/palette@1", "p.json").unwrap_err();
        assert!(
            other.to_string().contains("is not a tablejudge set file"),
            "{other}"
        );
    }
}
