//! The observed grid, `tablejudge/observation@1` (formats.md §4): what `grid read --json`
//! prints.

use serde::{Deserialize, Serialize};
use tablejudge_rules::{Grid, GridError};
use thiserror::Error;

use crate::classify::Reading;
use crate::rectify::Quad;

/// The `format` string of this version.
pub const OBSERVATION_FORMAT: &str = "tablejudge/observation@1";

/// An observed grid as written to JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Always [`OBSERVATION_FORMAT`] for this version.
    pub format: String,
    /// Where the picture came from (a file path, or a camera name).
    pub source: String,
    /// Number of cell rows.
    pub rows: usize,
    /// Number of cell columns.
    pub cols: usize,
    /// The grid's outer corners in source-image pixels, clockwise from the cell that became
    /// row 0, column 0: `[x, y]` each.
    pub corners: Quad,
    /// `rows` lists of `cols` cells, top row first.
    pub cells: Vec<Vec<Reading>>,
}

/// Why an observation file does not describe a grid.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ObservationError {
    #[error("format is {found:?}, expected {OBSERVATION_FORMAT:?}")]
    Format { found: String },
    #[error("cells: {0}")]
    Grid(#[from] GridError),
    #[error("cells are {found_rows}x{found_cols} but rows and cols say {rows}x{cols}")]
    Size {
        rows: usize,
        cols: usize,
        found_rows: usize,
        found_cols: usize,
    },
    #[error("row {}, column {}: confidence {value} is not in 0..=1", row + 1, col + 1)]
    Confidence { row: usize, col: usize, value: f32 },
}

impl Observation {
    /// The observation of `readings`, seen in `source` at `corners`.
    pub fn new(source: impl Into<String>, corners: Quad, readings: &Grid<Reading>) -> Observation {
        Observation {
            format: OBSERVATION_FORMAT.to_owned(),
            source: source.into(),
            rows: readings.rows(),
            cols: readings.cols(),
            corners,
            cells: (0..readings.rows())
                .map(|r| readings.row(r).to_vec())
                .collect(),
        }
    }

    /// The cells as a grid, after checking the format, the size and every confidence.
    pub fn readings(&self) -> Result<Grid<Reading>, ObservationError> {
        if self.format != OBSERVATION_FORMAT {
            return Err(ObservationError::Format {
                found: self.format.clone(),
            });
        }
        let grid = Grid::from_rows(self.cells.clone())?;
        if grid.size() != (self.rows, self.cols) {
            return Err(ObservationError::Size {
                rows: self.rows,
                cols: self.cols,
                found_rows: grid.rows(),
                found_cols: grid.cols(),
            });
        }
        for (p, r) in grid.iter() {
            if !(0.0..=1.0).contains(&r.confidence) {
                return Err(ObservationError::Confidence {
                    row: p.row,
                    col: p.col,
                    value: r.confidence,
                });
            }
        }
        Ok(grid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tablejudge_rules::{Key, Pos, Srgb};

    fn readings() -> Grid<Reading> {
        Grid::from_fn(2, 3, |p| Reading {
            label: (p.col != 2).then(|| Key::new(['a', 'b'][p.row]).unwrap()),
            srgb: Srgb::new(0x6b, 0x4d, (p.row * 3 + p.col) as u8),
            confidence: 0.98,
        })
    }

    #[test]
    fn serialises_exactly_as_the_spec_writes_it() {
        let corners = [
            [412.5, 233.0],
            [801.25, 240.0],
            [798.0, 501.75],
            [409.5, 497.25],
        ];
        let o = Observation::new("photo.jpg", corners, &readings());
        let v = serde_json::to_value(&o).unwrap();
        let cell = |label: Option<&str>, b: u8| match label {
            Some(l) => json!({"label": l, "srgb": format!("#6b4d{b:02x}"), "confidence": 0.98f32}),
            None => json!({"srgb": format!("#6b4d{b:02x}"), "confidence": 0.98f32}),
        };
        let want = json!({
            "format": "tablejudge/observation@1",
            "source": "photo.jpg",
            "rows": 2, "cols": 3,
            "corners": [[412.5, 233.0], [801.25, 240.0], [798.0, 501.75], [409.5, 497.25]],
            "cells": [
                [cell(Some("a"), 0), cell(Some("a"), 1), cell(None, 2)],
                [cell(Some("b"), 3), cell(Some("b"), 4), cell(None, 5)],
            ]
        });
        assert_eq!(v, want);
        // The confidence prints as written, not as a long f32 expansion.
        assert!(serde_json::to_string(&o)
            .unwrap()
            .contains(r#""confidence":0.98}"#));
    }

    #[test]
    fn round_trips_and_converts_back_to_the_grid() {
        let g = readings();
        let o = Observation::new("cam:0", [[0.0, 0.0]; 4], &g);
        let text = serde_json::to_string(&o).unwrap();
        let back: Observation = serde_json::from_str(&text).unwrap();
        assert_eq!(back, o);
        assert_eq!(back.readings().unwrap(), g);
        let labels = back.readings().unwrap().map(|r| r.label);
        assert_eq!(labels[Pos::new(1, 0)], Some(Key::new('b').unwrap()));
        assert_eq!(labels[Pos::new(1, 2)], None);
    }

    #[test]
    fn inconsistent_files_are_rejected() {
        let g = readings();
        let mut o = Observation::new("x", [[0.0, 0.0]; 4], &g);
        o.rows = 3;
        assert!(matches!(o.readings(), Err(ObservationError::Size { .. })));
        let mut o = Observation::new("x", [[0.0, 0.0]; 4], &g);
        o.format = "tablejudge/observation@2".into();
        assert!(matches!(o.readings(), Err(ObservationError::Format { .. })));
        let mut o = Observation::new("x", [[0.0, 0.0]; 4], &g);
        o.cells[1][2].confidence = 1.5;
        assert_eq!(
            o.readings(),
            Err(ObservationError::Confidence {
                row: 1,
                col: 2,
                value: 1.5
            })
        );
        let mut o = Observation::new("x", [[0.0, 0.0]; 4], &g);
        o.cells[1].pop();
        assert!(matches!(o.readings(), Err(ObservationError::Grid(_))));
        // A label that is not a key fails at parse time.
        let bad = r##"{"format":"tablejudge/observation@1","source":"x","rows":1,"cols":1,
            "corners":[[0,0],[1,0],[1,1],[0,1]],
            "cells":[[{"label":"A","srgb":"#000000","confidence":1}]]}"##;
        assert!(serde_json::from_str::<Observation>(bad).is_err());
    }
}
