//! Readings made by hand from rule-crate boards, as the reader gives them, for the tests of
//! what is built on readings.

use tablejudge_rules::camouflage::{Board, CamouflageSet};
use tablejudge_rules::{Key, Srgb};

use super::{CamouflageReading, CentreReading, SquareKind, SquareReading};

pub fn set() -> CamouflageSet {
    let json = include_str!("../../../../models/camouflage/reference.json");
    CamouflageSet::from_json(json, "reference.json").unwrap()
}

/// The reading of a photo of `board`, the picture turned by `q` quarter-turns clockwise
/// with a margin of table around it, after `edit` changed squares (row, col, char).
pub fn reading_of(
    board: &Board,
    q: u8,
    edit: impl Fn(usize, usize, char) -> char,
) -> CamouflageReading {
    let (_, rows) = board.picture().unwrap();
    let mut grid: Vec<Vec<char>> = rows.iter().map(|r| r.chars().collect()).collect();
    for _ in 0..q {
        let (h, w) = (grid.len(), grid[0].len());
        grid = (0..w)
            .map(|c| (0..h).map(|r| grid[h - 1 - r][c]).collect())
            .collect();
    }
    // A margin, as the reader's block may be larger than the cards.
    let w = grid[0].len() + 2;
    let mut framed = vec![vec!['.'; w]];
    framed.extend(grid.into_iter().map(|r| {
        let mut row = vec!['.'];
        row.extend(r);
        row.push('.');
        row
    }));
    framed.push(vec!['.'; w]);
    let grid: Vec<Vec<char>> = framed
        .iter()
        .enumerate()
        .map(|(r, row)| {
            row.iter()
                .enumerate()
                .map(|(c, &ch)| edit(r, c, ch))
                .collect()
        })
        .collect();
    let kind = |ch: char| match ch {
        '.' => SquareKind::Table,
        '*' => SquareKind::Centre,
        '?' => SquareKind::Unknown,
        k => SquareKind::Pattern(Key::new(k).unwrap()),
    };
    let squares = grid
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter().enumerate().map(move |(c, &ch)| SquareReading {
                row: r as i32,
                col: c as i32,
                kind: kind(ch),
                srgb: Srgb::new(0, 0, 0),
                confidence: 1.0,
            })
        })
        .collect();
    let centres = grid
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .filter(|&(_, &ch)| ch == '*')
                .map(move |(c, _)| CentreReading {
                    row: r as i32,
                    col: c as i32,
                    px: [0.0, 0.0],
                    symbol_group: 0,
                    symbol: Vec::new(),
                })
        })
        .collect();
    CamouflageReading {
        side: Some("animal".into()),
        rows: grid.len(),
        cols: grid[0].len(),
        corners: [[0.0; 2]; 4],
        picture: grid.iter().map(|r| r.iter().collect()).collect(),
        squares,
        beyond: Vec::new(),
        misfits: Vec::new(),
        table_ring: Vec::new(),
        centres,
        stray_symbols: Vec::new(),
        lattice: None,
        looks: Default::default(),
        symbol_size: None,
    }
}
