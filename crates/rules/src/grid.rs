//! The one grid model shared by the vision side and every game.
//!
//! A [`Grid`] is rows × cols cells stored row-major. Positions are typed ([`Pos`]) so a row is
//! never confused with a column, and whole-grid symmetries are quarter-turns ([`Turn`]) and the
//! left-right mirror (turning a Layers+ layer over about its vertical axis).

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A cell position: row 0 is the top row, column 0 the leftmost column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pos {
    pub row: usize,
    pub col: usize,
}

impl Pos {
    pub const fn new(row: usize, col: usize) -> Self {
        Pos { row, col }
    }
}

impl fmt::Display for Pos {
    /// One-based, as a person counts: "row 2, column 3".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "row {}, column {}", self.row + 1, self.col + 1)
    }
}

/// A rotation of the whole grid by a multiple of a quarter-turn, clockwise.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(into = "u8", try_from = "u8")]
pub enum Turn {
    #[default]
    R0,
    R90,
    R180,
    R270,
}

impl Turn {
    pub const ALL: [Turn; 4] = [Turn::R0, Turn::R90, Turn::R180, Turn::R270];

    /// Number of clockwise quarter-turns, 0..=3.
    pub const fn quarter_turns(self) -> u8 {
        self as u8
    }

    /// The turn of `n` clockwise quarter-turns (any integer; taken modulo 4).
    pub const fn from_quarter_turns(n: i64) -> Turn {
        match n.rem_euclid(4) {
            0 => Turn::R0,
            1 => Turn::R90,
            2 => Turn::R180,
            _ => Turn::R270,
        }
    }

    /// This turn followed by `then`.
    pub const fn then(self, then: Turn) -> Turn {
        Turn::from_quarter_turns(self as i64 + then as i64)
    }

    /// The turn that undoes this one.
    pub const fn inverse(self) -> Turn {
        Turn::from_quarter_turns(-(self as i64))
    }

    pub const fn degrees(self) -> u16 {
        self as u16 * 90
    }

    /// Size of a rows × cols grid after this turn.
    pub const fn turned_size(self, rows: usize, cols: usize) -> (usize, usize) {
        match self {
            Turn::R0 | Turn::R180 => (rows, cols),
            Turn::R90 | Turn::R270 => (cols, rows),
        }
    }

    /// Where the cell at `pos` of a rows × cols grid lands after this turn.
    pub const fn apply(self, pos: Pos, rows: usize, cols: usize) -> Pos {
        let Pos { row: r, col: c } = pos;
        match self {
            Turn::R0 => Pos::new(r, c),
            Turn::R90 => Pos::new(c, rows - 1 - r),
            Turn::R180 => Pos::new(rows - 1 - r, cols - 1 - c),
            Turn::R270 => Pos::new(cols - 1 - c, r),
        }
    }
}

impl From<Turn> for u8 {
    fn from(t: Turn) -> u8 {
        t.quarter_turns()
    }
}

impl TryFrom<u8> for Turn {
    type Error = String;
    fn try_from(n: u8) -> Result<Turn, String> {
        if n < 4 {
            Ok(Turn::from_quarter_turns(n as i64))
        } else {
            Err(format!("quarter-turns must be 0..=3, got {n}"))
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}°", self.degrees())
    }
}

/// Why a grid could not be built or parsed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GridError {
    #[error("a grid needs at least one row and one column")]
    Empty,
    #[error("row {} has {found} cells, expected {expected} like row 1", row + 1)]
    RaggedRow {
        row: usize,
        found: usize,
        expected: usize,
    },
    #[error("{found} rows, expected {expected}")]
    WrongRowCount { found: usize, expected: usize },
}

/// A rectangular grid of cells, row-major.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid<T> {
    rows: usize,
    cols: usize,
    cells: Vec<T>,
}

impl<T> Grid<T> {
    /// Builds a grid by calling `f` for every position, row by row.
    pub fn from_fn(rows: usize, cols: usize, mut f: impl FnMut(Pos) -> T) -> Grid<T> {
        let mut cells = Vec::with_capacity(rows * cols);
        for row in 0..rows {
            for col in 0..cols {
                cells.push(f(Pos::new(row, col)));
            }
        }
        Grid { rows, cols, cells }
    }

    /// Builds a grid from rows of equal length.
    pub fn from_rows(rows: Vec<Vec<T>>) -> Result<Grid<T>, GridError> {
        let cols = rows.first().map_or(0, Vec::len);
        if rows.is_empty() || cols == 0 {
            return Err(GridError::Empty);
        }
        let n = rows.len();
        let mut cells = Vec::with_capacity(n * cols);
        for (row, r) in rows.into_iter().enumerate() {
            if r.len() != cols {
                return Err(GridError::RaggedRow {
                    row,
                    found: r.len(),
                    expected: cols,
                });
            }
            cells.extend(r);
        }
        Ok(Grid {
            rows: n,
            cols,
            cells,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// (rows, cols).
    pub fn size(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn contains(&self, pos: Pos) -> bool {
        pos.row < self.rows && pos.col < self.cols
    }

    pub fn get(&self, pos: Pos) -> Option<&T> {
        self.contains(pos)
            .then(|| &self.cells[pos.row * self.cols + pos.col])
    }

    pub fn get_mut(&mut self, pos: Pos) -> Option<&mut T> {
        if self.contains(pos) {
            Some(&mut self.cells[pos.row * self.cols + pos.col])
        } else {
            None
        }
    }

    /// Every position, row by row.
    pub fn positions(&self) -> impl Iterator<Item = Pos> + '_ {
        let cols = self.cols;
        (0..self.cells.len()).map(move |i| Pos::new(i / cols, i % cols))
    }

    /// Every (position, cell), row by row.
    pub fn iter(&self) -> impl Iterator<Item = (Pos, &T)> + '_ {
        self.positions().zip(self.cells.iter())
    }

    /// The cells, row-major.
    pub fn cells(&self) -> &[T] {
        &self.cells
    }

    /// One row as a slice.
    pub fn row(&self, row: usize) -> &[T] {
        &self.cells[row * self.cols..(row + 1) * self.cols]
    }

    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> Grid<U> {
        Grid {
            rows: self.rows,
            cols: self.cols,
            cells: self.cells.iter().map(&mut f).collect(),
        }
    }

    /// Positions where `self` and `other` differ; `None` when the sizes differ.
    pub fn differences(&self, other: &Grid<T>) -> Option<Vec<Pos>>
    where
        T: PartialEq,
    {
        (self.size() == other.size()).then(|| {
            self.iter()
                .zip(other.cells.iter())
                .filter(|((_, a), b)| a != b)
                .map(|((p, _), _)| p)
                .collect()
        })
    }
}

impl<T: Clone> Grid<T> {
    /// A rows × cols grid with every cell `fill`.
    pub fn filled(rows: usize, cols: usize, fill: T) -> Grid<T> {
        Grid {
            rows,
            cols,
            cells: vec![fill; rows * cols],
        }
    }

    /// The grid turned clockwise by `turn`.
    pub fn turned(&self, turn: Turn) -> Grid<T> {
        if turn == Turn::R0 {
            return self.clone();
        }
        let (rows, cols) = turn.turned_size(self.rows, self.cols);
        let inverse = turn.inverse();
        Grid::from_fn(rows, cols, |p| self[inverse.apply(p, rows, cols)].clone())
    }

    /// The grid mirrored left-right (column c becomes column cols-1-c).
    pub fn mirrored(&self) -> Grid<T> {
        Grid::from_fn(self.rows, self.cols, |p| {
            self[Pos::new(p.row, self.cols - 1 - p.col)].clone()
        })
    }
}

impl<T: Clone + PartialEq> Grid<T> {
    /// The first quarter-turn (R0, R90, …) that turns `self` into `other`, if any.
    pub fn turn_to(&self, other: &Grid<T>) -> Option<Turn> {
        Turn::ALL.into_iter().find(|&t| {
            t.turned_size(self.rows, self.cols) == other.size() && self.turned(t) == *other
        })
    }

    /// Equal up to a quarter-turn of the whole grid.
    pub fn eq_up_to_turn(&self, other: &Grid<T>) -> bool {
        self.turn_to(other).is_some()
    }
}

impl<T> std::ops::Index<Pos> for Grid<T> {
    type Output = T;
    fn index(&self, pos: Pos) -> &T {
        assert!(
            self.contains(pos),
            "{pos:?} outside a {}x{} grid",
            self.rows,
            self.cols
        );
        &self.cells[pos.row * self.cols + pos.col]
    }
}

impl<T> std::ops::IndexMut<Pos> for Grid<T> {
    fn index_mut(&mut self, pos: Pos) -> &mut T {
        assert!(
            self.contains(pos),
            "{pos:?} outside a {}x{} grid",
            self.rows,
            self.cols
        );
        &mut self.cells[pos.row * self.cols + pos.col]
    }
}

/// The compact text form of formats.md: one string per row, top row first, one char per cell.
impl Grid<char> {
    pub fn parse_rows<S: AsRef<str>>(rows: &[S]) -> Result<Grid<char>, GridError> {
        Grid::from_rows(rows.iter().map(|r| r.as_ref().chars().collect()).collect())
    }

    pub fn to_rows(&self) -> Vec<String> {
        (0..self.rows)
            .map(|r| self.row(r).iter().collect())
            .collect()
    }
}

impl<T: fmt::Debug> fmt::Debug for Grid<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<&[T]> = (0..self.rows).map(|r| self.row(r)).collect();
        f.debug_struct("Grid")
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("cells", &rows)
            .finish()
    }
}

impl fmt::Display for Grid<char> {
    /// Rows separated by newlines, as a person would draw it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, row) in self.to_rows().iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            f.write_str(row)?;
        }
        Ok(())
    }
}

impl Serialize for Grid<char> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_rows().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Grid<char> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let rows = Vec::<String>::deserialize(d)?;
        Grid::parse_rows(&rows).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn g(rows: &[&str]) -> Grid<char> {
        Grid::parse_rows(rows).unwrap()
    }

    #[test]
    fn quarter_turn_clockwise_moves_top_row_to_right_column() {
        let a = g(&["abc", "def"]);
        assert_eq!(a.turned(Turn::R90), g(&["da", "eb", "fc"]));
        assert_eq!(a.turned(Turn::R180), g(&["fed", "cba"]));
        assert_eq!(a.turned(Turn::R270), g(&["cf", "be", "ad"]));
    }

    #[test]
    fn mirror_swaps_left_and_right() {
        assert_eq!(g(&["abc", "def"]).mirrored(), g(&["cba", "fed"]));
    }

    #[test]
    fn turn_to_finds_the_turn_and_rejects_mirror_images() {
        let a = g(&["ab", "cd"]);
        assert_eq!(a.turn_to(&g(&["ca", "db"])), Some(Turn::R90));
        assert_eq!(a.turn_to(&a.mirrored()), None);
    }

    #[test]
    fn ragged_and_empty_rows_are_rejected() {
        assert_eq!(
            Grid::parse_rows(&["ab", "c"]),
            Err(GridError::RaggedRow {
                row: 1,
                found: 1,
                expected: 2
            })
        );
        assert_eq!(Grid::parse_rows::<&str>(&[]), Err(GridError::Empty));
    }

    #[test]
    fn differences_lists_mismatched_cells() {
        let d = g(&["ab", "cd"]).differences(&g(&["ab", "xd"])).unwrap();
        assert_eq!(d, vec![Pos::new(1, 0)]);
    }

    #[test]
    fn serde_round_trips_the_rows_of_strings_form() {
        let a = g(&["r.g", "bbw"]);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"["r.g","bbw"]"#);
        assert_eq!(serde_json::from_str::<Grid<char>>(&json).unwrap(), a);
    }

    fn arb_grid() -> impl Strategy<Value = Grid<char>> {
        (1usize..6, 1usize..6).prop_flat_map(|(r, c)| {
            proptest::collection::vec(proptest::char::range('a', 'e'), r * c)
                .prop_map(move |cells| Grid::from_fn(r, c, |p| cells[p.row * c + p.col]))
        })
    }

    proptest! {
        #[test]
        fn four_quarter_turns_are_the_identity(a in arb_grid()) {
            let t = a.turned(Turn::R90).turned(Turn::R90).turned(Turn::R90).turned(Turn::R90);
            prop_assert_eq!(t, a);
        }

        #[test]
        fn turns_compose(a in arb_grid(), x in 0u8..4, y in 0u8..4) {
            let (x, y) = (Turn::try_from(x).unwrap(), Turn::try_from(y).unwrap());
            prop_assert_eq!(a.turned(x).turned(y), a.turned(x.then(y)));
        }

        #[test]
        fn apply_agrees_with_turned(a in arb_grid(), t in 0u8..4) {
            let t = Turn::try_from(t).unwrap();
            let b = a.turned(t);
            for (p, v) in a.iter() {
                prop_assert_eq!(b[t.apply(p, a.rows(), a.cols())], *v);
            }
        }

        #[test]
        fn mirror_is_an_involution_and_reverses_turns(a in arb_grid(), t in 0u8..4) {
            let t = Turn::try_from(t).unwrap();
            prop_assert_eq!(a.mirrored().mirrored(), a.clone());
            prop_assert_eq!(a.turned(t).mirrored(), a.mirrored().turned(t.inverse()));
        }

        #[test]
        fn text_form_round_trips(a in arb_grid()) {
            prop_assert_eq!(Grid::parse_rows(&a.to_rows()).unwrap(), a);
        }
    }
}
