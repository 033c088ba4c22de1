//! The Camouflage set file, `tablejudge/camouflage-set@1` (formats.md §3).
//!
//! [`RawCamouflageSet`] mirrors the file exactly (unknown extra fields are accepted and
//! ignored); [`CamouflageSet`] is the validated form, reachable only through
//! [`CamouflageSet::from_raw`] / [`CamouflageSet::from_json`], so every card is known to be
//! 3×3 with its centre in the middle and every square to carry a pattern of its side.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::colour::Srgb;
use crate::error::{check_format, parse_json, Place, SetError};
use crate::grid::{Grid, Pos, Turn};
use crate::key::Key;

/// The `format` string of a Camouflage set file.
pub const CAMOUFLAGE_FORMAT: &str = "tablejudge/camouflage-set@1";

/// The character that marks a card's centre in a set file.
pub const CENTRE_CHAR: char = '*';

/// Puzzle difficulties a set file may use (the printed puzzle cards rate 1 to 5).
pub const DIFFICULTIES: std::ops::RangeInclusive<u8> = 1..=5;

/// What can be wrong in a Camouflage set file beyond the common problems.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CamouflageProblem {
    #[error("a card is 3×3 squares, found {rows}×{cols}: write three rows of three squares")]
    CardSize { rows: usize, cols: usize },
    #[error("no sides declared: add at least one side, e.g. \"animal\", to \"sides\"")]
    NoSides,
    #[error("side {side:?} declares no patterns: add at least one pattern key to it")]
    EmptySide { side: String },
    #[error("the centre square must be '*', found {found:?}: put '*' in the middle of the card")]
    CentreMissing { found: char },
    #[error("'*' marks the centre and may only be in the middle (row 2, column 2): replace it with a pattern key")]
    CentreOffCentre,
    #[error("{key:?} is not a pattern of side {side:?}: declare it under \"sides\".{side:?} or correct the square")]
    UnknownPattern { key: char, side: String },
    #[error("the card has no {side:?} face: every card needs one face per declared side")]
    MissingSide { side: String },
    #[error("the {side:?} face must be a list of three strings, e.g. [\"zlz\", \"l*g\", \"zzl\"]")]
    FaceNotRows { side: String },
    #[error("deck id {id:?} is used twice: give every deck its own id")]
    DuplicateDeck { id: String },
    #[error("deck {id:?} has no cards: add its cards or remove the deck")]
    EmptyDeck { id: String },
    #[error(
        "card id {id:?} is used twice (first in deck {first_deck:?}): give every card its own id"
    )]
    DuplicateCard { id: Box<str>, first_deck: Box<str> },
    #[error("puzzle id {id:?} is used twice: give every puzzle its own id")]
    DuplicatePuzzle { id: String },
    #[error("side {side:?} is not declared (sides: {known}): use one of them")]
    UnknownSide { side: Box<str>, known: Box<str> },
    #[error("card {card:?} is in no deck: correct the id or add the card to a deck")]
    UnknownCard { card: String },
    #[error("card {card:?} is listed twice: a puzzle uses each physical card once")]
    RepeatedPuzzleCard { card: String },
    #[error(
        "{found:?} is not an outline square: use '#' (covered), 'C' (card centre) or '.' (empty)"
    )]
    OutlineChar { found: char },
    #[error("the outline marks {centres} card centres ('C') but the puzzle lists {cards} cards: they must be equal")]
    CentreCount { centres: usize, cards: usize },
    #[error("difficulty {found} is out of range: use 1 to 5")]
    Difficulty { found: i64 },
    #[error("no arrangement of its cards forms its outline: correct the outline or the card list")]
    PuzzleUnsolvable,
    #[error("more than {limit} {what}: split the set into several files")]
    TooMany { what: &'static str, limit: usize },
}

// ---------------------------------------------------------------------------------------------
// Raw file form

/// A pattern kind as written in a file: its name, and the printed colour when it has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawPattern {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srgb: Option<String>,
}

/// A card as written: its id, and one face per side keyed by the side's name.
///
/// Faces are kept as JSON values because their keys are the side names the file declares;
/// fields that are not a declared side are accepted and ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RawCard {
    pub id: String,
    #[serde(flatten)]
    pub faces: BTreeMap<String, serde_json::Value>,
}

/// A deck as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RawDeck {
    pub id: String,
    pub cards: Vec<RawCard>,
}

/// A puzzle card as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawPuzzle {
    pub id: String,
    pub difficulty: i64,
    pub side: String,
    #[serde(default)]
    pub wild_centers: bool,
    pub cards: Vec<String>,
    pub outline: Vec<String>,
}

/// A Camouflage set file as written, before validation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RawCamouflageSet {
    pub format: String,
    pub name: String,
    pub sides: BTreeMap<String, BTreeMap<String, RawPattern>>,
    pub decks: Vec<RawDeck>,
    #[serde(default)]
    pub puzzles: Vec<RawPuzzle>,
}

// ---------------------------------------------------------------------------------------------
// Validated form

/// Index of a side in [`CamouflageSet::sides`] (sides are ordered by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SideIdx(pub u8);

/// Index of a deck in [`CamouflageSet::decks`] (file order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DeckIdx(pub u16);

/// Index of a card in [`CamouflageSet::cards`] (file order, deck by deck).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardIdx(pub u16);

/// One square of a card face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Square {
    /// The middle square with the deck's animal symbol.
    Centre,
    /// A pattern of the face's side.
    Pattern(Key),
}

impl Square {
    /// The compact code used by the board's dense arrays: the key's byte, or `*` for a centre.
    /// Never 0, which the board uses for an empty square.
    pub(crate) fn code(self) -> u8 {
        match self {
            Square::Centre => CENTRE_CHAR as u8,
            Square::Pattern(k) => k.char() as u8,
        }
    }

    /// The inverse of [`Square::code`]; `None` for the empty code 0.
    pub(crate) fn from_code(code: u8) -> Option<Square> {
        if code == CENTRE_CHAR as u8 {
            Some(Square::Centre)
        } else {
            Key::new(code as char).ok().map(Square::Pattern)
        }
    }

    /// The character a set file writes.
    pub fn char(self) -> char {
        match self {
            Square::Centre => CENTRE_CHAR,
            Square::Pattern(k) => k.char(),
        }
    }
}

/// One side of a card: 3×3 squares, centre in the middle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Face {
    grid: Grid<Square>,
    /// Square codes in row-major order of the face turned by each quarter-turn, for the hot
    /// loops of move generation.
    codes: [[u8; 9]; 4],
}

impl Face {
    /// Builds a face from a 3×3 grid whose centre (and only the centre) is [`Square::Centre`].
    fn new(grid: Grid<Square>) -> Face {
        let mut codes = [[0u8; 9]; 4];
        for t in Turn::ALL {
            let turned = grid.turned(t);
            for (i, sq) in turned.cells().iter().enumerate() {
                codes[t.quarter_turns() as usize][i] = sq.code();
            }
        }
        Face { grid, codes }
    }

    /// The squares as printed (not turned).
    pub fn grid(&self) -> &Grid<Square> {
        &self.grid
    }

    /// The square at `pos` (row, col in 0..3) of the face turned clockwise by `turn`.
    pub fn square(&self, turn: Turn, pos: Pos) -> Square {
        self.grid[turn.inverse().apply(pos, 3, 3)]
    }

    /// Square codes of the face turned by `turn`, row-major (see [`Square::code`]).
    pub(crate) fn codes(&self, turn: Turn) -> &[u8; 9] {
        &self.codes[turn.quarter_turns() as usize]
    }
}

/// A pattern kind of a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub name: String,
    pub srgb: Option<Srgb>,
}

/// A side of the cards (e.g. "animal" patterns or "gems") and its pattern kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub name: String,
    pub patterns: BTreeMap<Key, Pattern>,
}

/// A card: one face per side of the set, indexed by [`SideIdx`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    pub id: String,
    pub deck: DeckIdx,
    faces: Vec<Face>,
}

impl Card {
    /// The card's face on `side`.
    pub fn face(&self, side: SideIdx) -> &Face {
        &self.faces[side.0 as usize]
    }
}

/// A deck: cards sharing one animal symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deck {
    pub id: String,
    pub cards: Vec<CardIdx>,
}

/// One square of a puzzle outline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum OutlineSquare {
    /// `.`: no card here.
    Empty,
    /// `#`: covered by a card.
    Covered,
    /// `C`: a card's centre.
    Centre,
}

impl OutlineSquare {
    /// Parses one outline character.
    pub fn from_char(c: char) -> Option<OutlineSquare> {
        match c {
            '.' => Some(OutlineSquare::Empty),
            '#' => Some(OutlineSquare::Covered),
            'C' => Some(OutlineSquare::Centre),
            _ => None,
        }
    }

    /// The character a set file writes.
    pub fn char(self) -> char {
        match self {
            OutlineSquare::Empty => '.',
            OutlineSquare::Covered => '#',
            OutlineSquare::Centre => 'C',
        }
    }
}

/// A puzzle card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    pub id: String,
    pub difficulty: u8,
    pub side: SideIdx,
    pub wild_centres: bool,
    /// The cards to use, each once.
    pub cards: Vec<CardIdx>,
    pub outline: Grid<OutlineSquare>,
}

/// A validated Camouflage set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CamouflageSet {
    name: String,
    sides: Vec<Side>,
    decks: Vec<Deck>,
    cards: Vec<Card>,
    puzzles: Vec<Puzzle>,
}

fn grid_of_rows(value: &serde_json::Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

impl CamouflageSet {
    /// Validates a raw set. Every error names the file, the item (side, deck, card, puzzle) and
    /// where it applies the row and column, and says how to fix it.
    pub fn from_raw(raw: &RawCamouflageSet, file: &str) -> Result<CamouflageSet, SetError> {
        check_format(&raw.format, CAMOUFLAGE_FORMAT, file)?;
        let err = |place: Place, problem: CamouflageProblem| SetError::new(file, place, problem);

        if raw.sides.is_empty() {
            return Err(err(Place::item("sides"), CamouflageProblem::NoSides));
        }
        let mut sides = Vec::with_capacity(raw.sides.len());
        for (name, patterns) in &raw.sides {
            let place = || Place::item(format!("side {name}"));
            if patterns.is_empty() {
                return Err(err(
                    place(),
                    CamouflageProblem::EmptySide { side: name.clone() },
                ));
            }
            let mut parsed = BTreeMap::new();
            for (k, p) in patterns {
                let place = || place().part(format!("pattern {k:?}"));
                let key = Key::from_str_key(k).map_err(|e| SetError::new(file, place(), e))?;
                let srgb = match &p.srgb {
                    None => None,
                    Some(s) => Some(s.parse().map_err(|e| SetError::new(file, place(), e))?),
                };
                parsed.insert(
                    key,
                    Pattern {
                        name: p.name.clone(),
                        srgb,
                    },
                );
            }
            sides.push(Side {
                name: name.clone(),
                patterns: parsed,
            });
        }
        if sides.len() > u8::MAX as usize {
            // Far beyond any real set; keeps SideIdx a byte.
            return Err(err(
                Place::item("sides"),
                CamouflageProblem::TooMany {
                    what: "sides",
                    limit: u8::MAX as usize,
                },
            ));
        }

        let mut decks = Vec::with_capacity(raw.decks.len());
        let mut cards = Vec::new();
        let mut deck_ids: HashMap<&str, ()> = HashMap::new();
        let mut card_ids: HashMap<&str, &str> = HashMap::new();
        for (d, raw_deck) in raw.decks.iter().enumerate() {
            let deck_place = || Place::item(format!("deck {}", raw_deck.id));
            if deck_ids.insert(&raw_deck.id, ()).is_some() {
                return Err(err(
                    deck_place(),
                    CamouflageProblem::DuplicateDeck {
                        id: raw_deck.id.clone(),
                    },
                ));
            }
            if raw_deck.cards.is_empty() {
                return Err(err(
                    deck_place(),
                    CamouflageProblem::EmptyDeck {
                        id: raw_deck.id.clone(),
                    },
                ));
            }
            let mut members = Vec::with_capacity(raw_deck.cards.len());
            for raw_card in &raw_deck.cards {
                let card_place = || Place::item(format!("card {}", raw_card.id));
                if let Some(first) = card_ids.insert(&raw_card.id, &raw_deck.id) {
                    return Err(err(
                        card_place(),
                        CamouflageProblem::DuplicateCard {
                            id: raw_card.id.as_str().into(),
                            first_deck: first.into(),
                        },
                    ));
                }
                let mut faces = Vec::with_capacity(sides.len());
                for side in &sides {
                    let face_place = || card_place().part(side.name.clone());
                    let value = raw_card.faces.get(&side.name).ok_or_else(|| {
                        err(
                            card_place(),
                            CamouflageProblem::MissingSide {
                                side: side.name.clone(),
                            },
                        )
                    })?;
                    let rows = grid_of_rows(value).ok_or_else(|| {
                        err(
                            face_place(),
                            CamouflageProblem::FaceNotRows {
                                side: side.name.clone(),
                            },
                        )
                    })?;
                    faces.push(parse_face(&rows, side, file, face_place)?);
                }
                if cards.len() >= u16::MAX as usize {
                    // u16::MAX is the board's "no card" marker; no real set comes close.
                    return Err(err(
                        card_place(),
                        CamouflageProblem::TooMany {
                            what: "cards",
                            limit: u16::MAX as usize - 1,
                        },
                    ));
                }
                members.push(CardIdx(cards.len() as u16));
                cards.push(Card {
                    id: raw_card.id.clone(),
                    deck: DeckIdx(d as u16),
                    faces,
                });
            }
            decks.push(Deck {
                id: raw_deck.id.clone(),
                cards: members,
            });
        }

        let by_id: HashMap<&str, CardIdx> = cards
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.as_str(), CardIdx(i as u16)))
            .collect();
        let mut puzzle_ids = HashMap::new();
        let mut puzzles = Vec::with_capacity(raw.puzzles.len());
        for rp in &raw.puzzles {
            let place = || Place::item(format!("puzzle {}", rp.id));
            if puzzle_ids.insert(rp.id.as_str(), ()).is_some() {
                return Err(err(
                    place(),
                    CamouflageProblem::DuplicatePuzzle { id: rp.id.clone() },
                ));
            }
            let difficulty = u8::try_from(rp.difficulty)
                .ok()
                .filter(|d| DIFFICULTIES.contains(d))
                .ok_or_else(|| {
                    err(
                        place().part("difficulty"),
                        CamouflageProblem::Difficulty {
                            found: rp.difficulty,
                        },
                    )
                })?;
            let side = sides
                .iter()
                .position(|s| s.name == rp.side)
                .ok_or_else(|| {
                    err(
                        place().part("side"),
                        CamouflageProblem::UnknownSide {
                            side: rp.side.as_str().into(),
                            known: sides
                                .iter()
                                .map(|s| s.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                                .into(),
                        },
                    )
                })?;
            let mut used = Vec::with_capacity(rp.cards.len());
            for c in &rp.cards {
                let idx = *by_id.get(c.as_str()).ok_or_else(|| {
                    err(
                        place().part("cards"),
                        CamouflageProblem::UnknownCard { card: c.clone() },
                    )
                })?;
                if used.contains(&idx) {
                    return Err(err(
                        place().part("cards"),
                        CamouflageProblem::RepeatedPuzzleCard { card: c.clone() },
                    ));
                }
                used.push(idx);
            }
            let chars = Grid::parse_rows(&rp.outline)
                .map_err(|e| SetError::new(file, place().part("outline"), e))?;
            let mut centres = 0;
            for (pos, &c) in chars.iter() {
                match OutlineSquare::from_char(c) {
                    Some(OutlineSquare::Centre) => centres += 1,
                    Some(_) => {}
                    None => {
                        return Err(err(
                            place().part("outline").at(pos),
                            CamouflageProblem::OutlineChar { found: c },
                        ))
                    }
                }
            }
            if centres != used.len() {
                return Err(err(
                    place().part("outline"),
                    CamouflageProblem::CentreCount {
                        centres,
                        cards: used.len(),
                    },
                ));
            }
            let outline = chars.map(|&c| {
                // Every character was checked just above.
                OutlineSquare::from_char(c).unwrap_or(OutlineSquare::Empty)
            });
            puzzles.push(Puzzle {
                id: rp.id.clone(),
                difficulty,
                side: SideIdx(side as u8),
                wild_centres: rp.wild_centers,
                cards: used,
                outline,
            });
        }

        Ok(CamouflageSet {
            name: raw.name.clone(),
            sides,
            decks,
            cards,
            puzzles,
        })
    }

    /// Parses and validates a set file's text.
    pub fn from_json(json: &str, file: &str) -> Result<CamouflageSet, SetError> {
        CamouflageSet::from_raw(&parse_json(json, file)?, file)
    }

    /// The file form; `from_raw(&set.to_raw(), _)` gives back an equal set.
    pub fn to_raw(&self) -> RawCamouflageSet {
        let sides = self
            .sides
            .iter()
            .map(|s| {
                let patterns = s
                    .patterns
                    .iter()
                    .map(|(k, p)| {
                        (
                            k.to_string(),
                            RawPattern {
                                name: p.name.clone(),
                                srgb: p.srgb.map(|c| c.to_string()),
                            },
                        )
                    })
                    .collect();
                (s.name.clone(), patterns)
            })
            .collect();
        let decks = self
            .decks
            .iter()
            .map(|d| RawDeck {
                id: d.id.clone(),
                cards: d
                    .cards
                    .iter()
                    .map(|&c| {
                        let card = self.card(c);
                        let faces = self
                            .sides
                            .iter()
                            .zip(&card.faces)
                            .map(|(s, f)| {
                                let rows = f.grid.map(|sq| sq.char()).to_rows();
                                (s.name.clone(), serde_json::Value::from(rows))
                            })
                            .collect();
                        RawCard {
                            id: card.id.clone(),
                            faces,
                        }
                    })
                    .collect(),
            })
            .collect();
        let puzzles = self
            .puzzles
            .iter()
            .map(|p| RawPuzzle {
                id: p.id.clone(),
                difficulty: p.difficulty as i64,
                side: self.side(p.side).name.clone(),
                wild_centers: p.wild_centres,
                cards: p.cards.iter().map(|&c| self.card(c).id.clone()).collect(),
                outline: p.outline.map(|s| s.char()).to_rows(),
            })
            .collect();
        RawCamouflageSet {
            format: CAMOUFLAGE_FORMAT.to_owned(),
            name: self.name.clone(),
            sides,
            decks,
            puzzles,
        }
    }

    /// The set's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The sides, ordered by name.
    pub fn sides(&self) -> &[Side] {
        &self.sides
    }

    /// The decks in file order.
    pub fn decks(&self) -> &[Deck] {
        &self.decks
    }

    /// All cards, deck by deck in file order.
    pub fn cards(&self) -> &[Card] {
        &self.cards
    }

    /// The puzzles in file order.
    pub fn puzzles(&self) -> &[Puzzle] {
        &self.puzzles
    }

    /// The side at `idx`. Indices come from this set, so they are in range.
    pub fn side(&self, idx: SideIdx) -> &Side {
        &self.sides[idx.0 as usize]
    }

    /// The deck at `idx`.
    pub fn deck(&self, idx: DeckIdx) -> &Deck {
        &self.decks[idx.0 as usize]
    }

    /// The card at `idx`.
    pub fn card(&self, idx: CardIdx) -> &Card {
        &self.cards[idx.0 as usize]
    }

    /// The face of card `card` on side `side`.
    pub fn face(&self, card: CardIdx, side: SideIdx) -> &Face {
        self.card(card).face(side)
    }

    /// Looks a side up by name.
    pub fn side_by_name(&self, name: &str) -> Option<SideIdx> {
        self.sides
            .iter()
            .position(|s| s.name == name)
            .map(|i| SideIdx(i as u8))
    }

    /// Looks a deck up by id.
    pub fn deck_by_id(&self, id: &str) -> Option<DeckIdx> {
        self.decks
            .iter()
            .position(|d| d.id == id)
            .map(|i| DeckIdx(i as u16))
    }

    /// Looks a card up by id.
    pub fn card_by_id(&self, id: &str) -> Option<CardIdx> {
        self.cards
            .iter()
            .position(|c| c.id == id)
            .map(|i| CardIdx(i as u16))
    }

    /// Looks a puzzle up by id.
    pub fn puzzle_by_id(&self, id: &str) -> Option<&Puzzle> {
        self.puzzles.iter().find(|p| p.id == id)
    }
}

fn parse_face(
    rows: &[String],
    side: &Side,
    file: &str,
    place: impl Fn() -> Place,
) -> Result<Face, SetError> {
    let chars = Grid::parse_rows(rows).map_err(|e| SetError::new(file, place(), e))?;
    if chars.size() != (3, 3) {
        return Err(SetError::new(
            file,
            place(),
            CamouflageProblem::CardSize {
                rows: chars.rows(),
                cols: chars.cols(),
            },
        ));
    }
    let middle = Pos::new(1, 1);
    let mut squares = Vec::with_capacity(9);
    for (pos, &c) in chars.iter() {
        let sq = if pos == middle {
            if c != CENTRE_CHAR {
                return Err(SetError::new(
                    file,
                    place().at(pos),
                    CamouflageProblem::CentreMissing { found: c },
                ));
            }
            Square::Centre
        } else if c == CENTRE_CHAR {
            return Err(SetError::new(
                file,
                place().at(pos),
                CamouflageProblem::CentreOffCentre,
            ));
        } else {
            match Key::new(c) {
                Ok(k) if side.patterns.contains_key(&k) => Square::Pattern(k),
                _ => {
                    return Err(SetError::new(
                        file,
                        place().at(pos),
                        CamouflageProblem::UnknownPattern {
                            key: c,
                            side: side.name.clone(),
                        },
                    ))
                }
            }
        };
        squares.push(sq);
    }
    Ok(Face::new(Grid::from_fn(3, 3, |p| {
        squares[p.row * 3 + p.col]
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SetProblem;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const GOOD: &str = r####"{
      "format": "tablejudge/camouflage-set@1",
      "name": "t",
      "extra": {"anything": true},
      "sides": {
        "animal": { "z": { "name": "zebra" }, "l": { "name": "leopard" }, "g": { "name": "giraffe", "srgb": "#c8a050" } },
        "gems":   { "r": { "name": "ruby", "srgb": "#b3123a" }, "e": { "name": "emerald", "srgb": "#1a8f4a" }, "s": { "name": "sapphire", "srgb": "#1f4fb3" } }
      },
      "decks": [
        { "id": "fox", "cards": [
            { "id": "fox-1", "animal": ["zlz", "l*g", "zzl"], "gems": ["rre", "e*s", "rss"], "note": "x" },
            { "id": "fox-2", "animal": ["zzz", "l*l", "ggg"], "gems": ["rrr", "e*e", "sss"] }
        ] },
        { "id": "owl", "cards": [
            { "id": "owl-1", "animal": ["lll", "z*z", "lgl"], "gems": ["ses", "r*r", "ses"] }
        ] }
      ],
      "puzzles": [
        { "id": "p-01", "difficulty": 2, "side": "animal", "wild_centers": false,
          "cards": ["fox-1", "owl-1"], "outline": ["###..", "#C###", "###C#", "..###"] }
      ]
    }"####;

    fn edit(f: impl FnOnce(&mut serde_json::Value)) -> Result<CamouflageSet, SetError> {
        let mut v: serde_json::Value = serde_json::from_str(GOOD).unwrap();
        f(&mut v);
        CamouflageSet::from_json(&v.to_string(), "s.json")
    }

    fn camo(e: &SetError) -> &CamouflageProblem {
        match &e.problem {
            SetProblem::Camouflage(p) => p,
            other => panic!("expected a Camouflage problem, got {other:?}"),
        }
    }

    #[test]
    fn reads_the_example_and_types_the_squares() {
        let set = CamouflageSet::from_json(GOOD, "s.json").unwrap();
        assert_eq!(set.cards().len(), 3);
        assert_eq!(set.decks().len(), 2);
        let animal = set.side_by_name("animal").unwrap();
        let fox1 = set.card_by_id("fox-1").unwrap();
        let face = set.face(fox1, animal);
        assert_eq!(face.grid()[Pos::new(1, 1)], Square::Centre);
        assert_eq!(
            face.grid()[Pos::new(1, 2)],
            Square::Pattern(Key::new('g').unwrap())
        );
        // Top-left after a quarter-turn clockwise is what was bottom-left.
        assert_eq!(
            face.square(Turn::R90, Pos::new(0, 0)),
            Square::Pattern(Key::new('z').unwrap())
        );
        assert_eq!(
            face.square(Turn::R90, Pos::new(0, 2)),
            face.grid()[Pos::new(0, 0)]
        );
        let p = &set.puzzles()[0];
        assert_eq!(p.cards.len(), 2);
        assert_eq!(p.outline[Pos::new(1, 1)], OutlineSquare::Centre);
        assert_eq!(set.side(animal).patterns.len(), 3);
        assert_eq!(
            set.side(animal).patterns[&Key::new('g').unwrap()].srgb,
            Some(Srgb::new(0xc8, 0xa0, 0x50))
        );
    }

    #[test]
    fn round_trips_through_the_file_form() {
        let set = CamouflageSet::from_json(GOOD, "s.json").unwrap();
        let json = serde_json::to_string_pretty(&set.to_raw()).unwrap();
        assert_eq!(CamouflageSet::from_json(&json, "s.json").unwrap(), set);
    }

    #[test]
    fn wrong_format_is_rejected() {
        let e = edit(|v| v["format"] = "tablejudge/camouflage-set@2".into()).unwrap_err();
        assert!(matches!(e.problem, SetProblem::Format { .. }), "{e}");
    }

    #[test]
    fn card_must_be_three_by_three() {
        let e = edit(|v| {
            v["decks"][0]["cards"][1]["gems"] = serde_json::json!(["rrrr", "e*ee", "ssss"])
        })
        .unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::CardSize { rows: 3, cols: 4 });
        assert_eq!(e.place, Place::item("card fox-2").part("gems"));
        assert!(
            e.to_string()
                .starts_with("s.json: card fox-2, gems: a card is 3×3"),
            "{e}"
        );
        let e = edit(|v| v["decks"][0]["cards"][1]["gems"] = serde_json::json!(["rrr", "e*e"]))
            .unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::CardSize { rows: 2, cols: 3 });
    }

    #[test]
    fn centre_must_be_in_the_middle_and_only_there() {
        let e = edit(|v| {
            v["decks"][0]["cards"][0]["animal"] = serde_json::json!(["zlz", "lzg", "zzl"])
        })
        .unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::CentreMissing { found: 'z' });
        assert_eq!(
            e.place,
            Place::item("card fox-1").part("animal").at(Pos::new(1, 1))
        );
        let e = edit(|v| {
            v["decks"][0]["cards"][0]["animal"] = serde_json::json!(["zl*", "l*g", "zzl"])
        })
        .unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::CentreOffCentre);
        assert_eq!(
            e.place,
            Place::item("card fox-1").part("animal").at(Pos::new(0, 2))
        );
        assert!(e.to_string().contains("row 1, column 3"), "{e}");
    }

    #[test]
    fn squares_must_use_keys_of_their_own_side() {
        // 'r' is a gem, not an animal pattern.
        let e = edit(|v| {
            v["decks"][1]["cards"][0]["animal"] = serde_json::json!(["lll", "z*z", "lgr"])
        })
        .unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::UnknownPattern {
                key: 'r',
                side: "animal".into()
            }
        );
        assert_eq!(
            e.place,
            Place::item("card owl-1").part("animal").at(Pos::new(2, 2))
        );
        let e = edit(|v| {
            v["decks"][1]["cards"][0]["animal"] = serde_json::json!(["lll", "z*.", "lgl"])
        })
        .unwrap_err();
        assert!(matches!(
            camo(&e),
            CamouflageProblem::UnknownPattern { key: '.', .. }
        ));
    }

    #[test]
    fn every_card_needs_every_side() {
        let e = edit(|v| {
            v["decks"][1]["cards"][0]
                .as_object_mut()
                .unwrap()
                .remove("gems");
        })
        .unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::MissingSide {
                side: "gems".into()
            }
        );
        assert_eq!(e.place, Place::item("card owl-1"));
        let e = edit(|v| v["decks"][1]["cards"][0]["gems"] = 3.into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::FaceNotRows {
                side: "gems".into()
            }
        );
    }

    #[test]
    fn ids_must_be_unique() {
        let e = edit(|v| v["decks"][1]["id"] = "fox".into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::DuplicateDeck { id: "fox".into() }
        );
        assert_eq!(e.place, Place::item("deck fox"));
        let e = edit(|v| v["decks"][1]["cards"][0]["id"] = "fox-2".into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::DuplicateCard {
                id: "fox-2".into(),
                first_deck: "fox".into()
            }
        );
        let e = edit(|v| {
            let p = v["puzzles"][0].clone();
            v["puzzles"].as_array_mut().unwrap().push(p);
        })
        .unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::DuplicatePuzzle { id: "p-01".into() }
        );
        let e = edit(|v| v["decks"][1]["cards"] = serde_json::json!([])).unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::EmptyDeck { id: "owl".into() });
    }

    #[test]
    fn side_table_problems() {
        let e = edit(|v| v["sides"] = serde_json::json!({})).unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::NoSides);
        let e =
            edit(|v| v["sides"]["animal"]["Z"] = serde_json::json!({"name": "big"})).unwrap_err();
        assert!(matches!(e.problem, SetProblem::Key(_)), "{e}");
        assert_eq!(e.place, Place::item("side animal").part("pattern \"Z\""));
        let e = edit(|v| v["sides"]["gems"]["r"]["srgb"] = "red".into()).unwrap_err();
        assert!(matches!(e.problem, SetProblem::Colour(_)), "{e}");
    }

    #[test]
    fn puzzle_checks() {
        let e = edit(|v| v["puzzles"][0]["side"] = "plants".into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::UnknownSide {
                side: "plants".into(),
                known: "animal, gems".into()
            }
        );
        assert_eq!(e.place, Place::item("puzzle p-01").part("side"));
        let e = edit(|v| v["puzzles"][0]["cards"][1] = "cat-9".into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::UnknownCard {
                card: "cat-9".into()
            }
        );
        let e = edit(|v| v["puzzles"][0]["cards"][1] = "fox-1".into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::RepeatedPuzzleCard {
                card: "fox-1".into()
            }
        );
        let e = edit(|v| v["puzzles"][0]["outline"][2] = "##xC#".into()).unwrap_err();
        assert_eq!(camo(&e), &CamouflageProblem::OutlineChar { found: 'x' });
        assert_eq!(
            e.place,
            Place::item("puzzle p-01")
                .part("outline")
                .at(Pos::new(2, 2))
        );
        let e = edit(|v| v["puzzles"][0]["outline"][2] = "#####".into()).unwrap_err();
        assert_eq!(
            camo(&e),
            &CamouflageProblem::CentreCount {
                centres: 1,
                cards: 2
            }
        );
        let e = edit(|v| v["puzzles"][0]["outline"][2] = "####".into()).unwrap_err();
        assert!(matches!(e.problem, SetProblem::Grid(_)), "{e}");
        for bad in [0, 6, -1] {
            let e = edit(|v| v["puzzles"][0]["difficulty"] = bad.into()).unwrap_err();
            assert_eq!(camo(&e), &CamouflageProblem::Difficulty { found: bad });
        }
    }

    #[test]
    fn optional_fields_may_be_left_out() {
        let set = edit(|v| {
            let o = v.as_object_mut().unwrap();
            o.remove("puzzles");
        })
        .unwrap();
        assert!(set.puzzles().is_empty());
        let set = edit(|v| {
            v["puzzles"][0]
                .as_object_mut()
                .unwrap()
                .remove("wild_centers");
        })
        .unwrap();
        assert!(!set.puzzles()[0].wild_centres);
    }

    #[test]
    fn bad_json_reports_line_and_column() {
        let e = CamouflageSet::from_json("{\n\"format\": }", "s.json").unwrap_err();
        assert!(matches!(e.problem, SetProblem::Json { line: 2, .. }), "{e}");
    }

    /// Random valid raw sets: random sides and patterns, decks of random cards, puzzles whose
    /// outline has as many `C` as cards.
    fn arb_raw() -> impl Strategy<Value = RawCamouflageSet> {
        let keys = "abcdefghijklmnopqrstuvwxyz0123456789";
        (1usize..4, 1usize..4, 0usize..3, any::<u64>()).prop_map(
            move |(nsides, ndecks, npuz, seed)| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let key_chars: Vec<char> = keys.chars().collect();
                let mut sides = BTreeMap::new();
                for s in 0..nsides {
                    let mut pats = BTreeMap::new();
                    for _ in 0..rng.gen_range(1..=5) {
                        let k = *key_chars.choose(&mut rng).unwrap();
                        let srgb = rng
                            .gen_bool(0.5)
                            .then(|| Srgb::new(rng.gen(), rng.gen(), rng.gen()).to_string());
                        pats.insert(
                            k.to_string(),
                            RawPattern {
                                name: format!("p{k}"),
                                srgb,
                            },
                        );
                    }
                    sides.insert(format!("side{s}"), pats);
                }
                let mut decks = Vec::new();
                let mut all_cards = Vec::new();
                for d in 0..ndecks {
                    let mut cards = Vec::new();
                    for c in 0..rng.gen_range(1..=3) {
                        let id = format!("d{d}-{c}");
                        let mut faces = BTreeMap::new();
                        for (name, pats) in &sides {
                            let ks: Vec<&String> = pats.keys().collect();
                            let rows: Vec<String> = (0..3)
                                .map(|r| {
                                    (0..3)
                                        .map(|col| {
                                            if (r, col) == (1, 1) {
                                                '*'
                                            } else {
                                                ks.choose(&mut rng).unwrap().chars().next().unwrap()
                                            }
                                        })
                                        .collect()
                                })
                                .collect();
                            faces.insert(name.clone(), serde_json::Value::from(rows));
                        }
                        all_cards.push(id.clone());
                        cards.push(RawCard { id, faces });
                    }
                    decks.push(RawDeck {
                        id: format!("d{d}"),
                        cards,
                    });
                }
                let side_names: Vec<String> = sides.keys().cloned().collect();
                let puzzles = (0..npuz)
                    .map(|p| {
                        let n = rng.gen_range(1..=all_cards.len());
                        let cards: Vec<String> = all_cards[..n].to_vec();
                        let (h, w) = (rng.gen_range(1..=4), n + rng.gen_range(0..4));
                        let mut cells = vec!['.'; h * w];
                        for (i, cell) in cells.iter_mut().enumerate() {
                            // n distinct centre squares first, then covered or empty ones.
                            *cell = if i < n {
                                'C'
                            } else {
                                *['.', '#'].choose(&mut rng).unwrap()
                            };
                        }
                        let outline = (0..h)
                            .map(|r| cells[r * w..(r + 1) * w].iter().collect())
                            .collect();
                        RawPuzzle {
                            id: format!("p{p}"),
                            difficulty: rng.gen_range(1..=5),
                            side: side_names.choose(&mut rng).unwrap().clone(),
                            wild_centers: rng.gen_bool(0.5),
                            cards,
                            outline,
                        }
                    })
                    .collect();
                RawCamouflageSet {
                    format: CAMOUFLAGE_FORMAT.into(),
                    name: format!("set{seed}"),
                    sides,
                    decks,
                    puzzles,
                }
            },
        )
    }

    proptest! {
        #[test]
        fn parse_write_parse_is_the_identity(raw in arb_raw()) {
            let set = CamouflageSet::from_raw(&raw, "r.json").unwrap();
            let written = serde_json::to_string(&set.to_raw()).unwrap();
            let again = CamouflageSet::from_json(&written, "r.json").unwrap();
            prop_assert_eq!(&again, &set);
            prop_assert_eq!(again.to_raw(), set.to_raw());
        }
    }
}
