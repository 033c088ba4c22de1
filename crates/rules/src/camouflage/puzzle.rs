//! Solo/co-op puzzle mode: lay a puzzle's cards so that they form its outline.
//!
//! An arrangement is an ordered list of placements, bottom card first. It solves a puzzle when
//! it uses exactly the puzzle's cards, every overlapping square matches (there is no minimum
//! of matching squares in puzzle mode; centres never cover nor are covered unless the puzzle
//! has wild centres), and its footprint — `#` for a covered square, `C` for a card's centre —
//! equals the outline up to translation and a quarter-turn of the whole arrangement.

use serde::Serialize;
use thiserror::Error;

use super::board::{Board, Breach, LatticePos, Placement, PlacementRules};
use super::set::{CamouflageProblem, CamouflageSet, CardIdx, OutlineSquare, Puzzle, CENTRE_CHAR};
use crate::error::{Place, SetError};
use crate::grid::{Grid, Pos, Turn};

/// One reason an arrangement does not solve a puzzle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum PuzzleFault {
    #[error("card #{} of the puzzle is not laid", card.0)]
    MissingCard { card: CardIdx },
    #[error("card #{} is not one of the puzzle's cards", card.0)]
    ExtraCard { card: CardIdx },
    #[error("card #{} is laid more than once", card.0)]
    RepeatedCard { card: CardIdx },
    #[error("placement {placement}: {breach}")]
    Overlap { placement: usize, breach: Breach },
    #[error("the cards form {found:?}, the outline is {expected:?} (under any quarter-turn)")]
    Outline {
        expected: Vec<String>,
        found: Vec<String>,
    },
}

/// Why an arrangement does not solve a puzzle: every fault found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Error)]
#[error("not solved: {}", faults.iter().map(|f| f.to_string()).collect::<Vec<_>>().join("; "))]
pub struct NotSolved {
    pub faults: Vec<PuzzleFault>,
}

/// How a solving arrangement lies relative to the outline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Solved {
    /// Turning the arrangement clockwise by this makes its footprint the outline.
    pub turn: Turn,
}

/// The footprint of an arrangement, cropped to its bounding box: `C` at every card centre,
/// `#` at other covered squares, `.` elsewhere.
pub fn footprint(placements: &[Placement]) -> Option<Grid<OutlineSquare>> {
    let squares = placements.iter().flat_map(|p| p.squares());
    let (mut r0, mut c0, mut r1, mut c1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    for s in squares {
        r0 = r0.min(s.row);
        c0 = c0.min(s.col);
        r1 = r1.max(s.row);
        c1 = c1.max(s.col);
    }
    if placements.is_empty() {
        return None;
    }
    let mut g = Grid::filled(
        (r1 - r0 + 1) as usize,
        (c1 - c0 + 1) as usize,
        OutlineSquare::Empty,
    );
    let at = |p: LatticePos| Pos::new((p.row - r0) as usize, (p.col - c0) as usize);
    for p in placements {
        for s in p.squares() {
            if g[at(s)] == OutlineSquare::Empty {
                g[at(s)] = OutlineSquare::Covered;
            }
        }
    }
    for p in placements {
        g[at(p.centre)] = OutlineSquare::Centre;
    }
    Some(g)
}

/// The outline cropped to its non-empty squares (an outline may have empty margins).
pub fn cropped_outline(outline: &Grid<OutlineSquare>) -> Option<(Pos, Grid<OutlineSquare>)> {
    let used: Vec<Pos> = outline
        .iter()
        .filter(|(_, &s)| s != OutlineSquare::Empty)
        .map(|(p, _)| p)
        .collect();
    let r0 = used.iter().map(|p| p.row).min()?;
    let c0 = used.iter().map(|p| p.col).min()?;
    let r1 = used.iter().map(|p| p.row).max()?;
    let c1 = used.iter().map(|p| p.col).max()?;
    Some((
        Pos::new(r0, c0),
        Grid::from_fn(r1 - r0 + 1, c1 - c0 + 1, |p| {
            outline[Pos::new(p.row + r0, p.col + c0)]
        }),
    ))
}

fn rows(g: &Grid<OutlineSquare>) -> Vec<String> {
    g.map(|s| s.char()).to_rows()
}

/// Checks a claimed arrangement (bottom card first) against a puzzle.
pub fn check_arrangement(
    set: &CamouflageSet,
    puzzle: &Puzzle,
    placements: &[Placement],
) -> Result<Solved, NotSolved> {
    let mut faults = Vec::new();
    let mut seen: Vec<CardIdx> = Vec::new();
    for p in placements {
        if seen.contains(&p.card) {
            faults.push(PuzzleFault::RepeatedCard { card: p.card });
        } else if !puzzle.cards.contains(&p.card) {
            faults.push(PuzzleFault::ExtraCard { card: p.card });
        }
        seen.push(p.card);
    }
    for &c in &puzzle.cards {
        if !seen.contains(&c) {
            faults.push(PuzzleFault::MissingCard { card: c });
        }
    }
    let mut board = Board::new(puzzle.side, PlacementRules::puzzle(puzzle.wild_centres));
    for (i, p) in placements.iter().enumerate() {
        if (p.card.0 as usize) >= set.cards().len() {
            continue; // already reported as not one of the puzzle's cards
        }
        if let Err(e) = &board.place(set, *p).verdict {
            faults.extend(e.breaches.iter().map(|b| PuzzleFault::Overlap {
                placement: i,
                breach: b.clone(),
            }));
        }
    }
    let expected = cropped_outline(&puzzle.outline).map(|(_, g)| g);
    let found = footprint(placements);
    let turn = match (&expected, &found) {
        (Some(e), Some(f)) => f.turn_to(e),
        _ => None,
    };
    if turn.is_none() {
        faults.push(PuzzleFault::Outline {
            expected: expected.as_ref().map(rows).unwrap_or_default(),
            found: found.as_ref().map(rows).unwrap_or_default(),
        });
    }
    match (turn, faults.is_empty()) {
        (Some(turn), true) => Ok(Solved { turn }),
        _ => Err(NotSolved { faults }),
    }
}

/// Finds an arrangement solving `puzzle`, bottom card first, with centres on the outline's `C`
/// squares (outline row and column as lattice coordinates). `None` when there is none.
///
/// Backtracking: the outline fixes where the centres go, so only which card (and turn) sits on
/// each `C` is searched, visiting centres so each next one overlaps those before, and checking
/// every overlapping square at once. Without wild centres every overlap shows one pattern, so
/// any stacking order works; with wild centres a stacking order is searched at the end.
pub fn solve(set: &CamouflageSet, puzzle: &Puzzle) -> Option<Vec<Placement>> {
    let outline = &puzzle.outline;
    let (h, w) = outline.size();
    let centres: Vec<Pos> = outline
        .iter()
        .filter(|(_, &s)| s == OutlineSquare::Centre)
        .map(|(p, _)| p)
        .collect();
    if centres.len() != puzzle.cards.len() {
        return None;
    }
    // Geometry: every block inside the outline, covering it exactly; without wild centres no
    // block may reach another card's centre.
    let mut covered = Grid::filled(h, w, 0u8);
    for c in &centres {
        if c.row == 0 || c.col == 0 || c.row + 1 >= h || c.col + 1 >= w {
            return None;
        }
        for r in c.row - 1..=c.row + 1 {
            for col in c.col - 1..=c.col + 1 {
                let p = Pos::new(r, col);
                if outline[p] == OutlineSquare::Empty {
                    return None;
                }
                if !puzzle.wild_centres && outline[p] == OutlineSquare::Centre && p != *c {
                    return None;
                }
                covered[p] += 1;
            }
        }
    }
    if outline
        .iter()
        .any(|(p, &s)| (s != OutlineSquare::Empty) != (covered[p] > 0))
    {
        return None;
    }
    // Visit centres so that each next one overlaps an earlier one where possible.
    let overlaps = |a: Pos, b: Pos| a.row.abs_diff(b.row) <= 2 && a.col.abs_diff(b.col) <= 2;
    let mut order = vec![centres[0]];
    while order.len() < centres.len() {
        let next = centres
            .iter()
            .copied()
            .filter(|c| !order.contains(c))
            .max_by_key(|c| {
                (
                    order.iter().filter(|&&o| overlaps(o, *c)).count(),
                    std::cmp::Reverse(*c),
                )
            })?;
        order.push(next);
    }
    let mut search = Search {
        set,
        puzzle,
        order,
        codes: Grid::filled(h, w, Vec::new()),
        used: vec![false; puzzle.cards.len()],
        chosen: Vec::new(),
    };
    search.run()
}

struct Search<'a> {
    set: &'a CamouflageSet,
    puzzle: &'a Puzzle,
    order: Vec<Pos>,
    /// Per outline square, the codes of the assigned cards' squares there.
    codes: Grid<Vec<u8>>,
    used: Vec<bool>,
    chosen: Vec<Placement>,
}

impl Search<'_> {
    fn run(&mut self) -> Option<Vec<Placement>> {
        let k = self.chosen.len();
        if k == self.order.len() {
            return self.stacking_order();
        }
        let centre = self.order[k];
        for i in 0..self.puzzle.cards.len() {
            if self.used[i] {
                continue;
            }
            let card = self.puzzle.cards[i];
            let face = self.set.face(card, self.puzzle.side);
            for turn in Turn::ALL {
                let codes = face.codes(turn);
                if !self.fits(centre, codes) {
                    continue;
                }
                self.push(centre, codes);
                self.used[i] = true;
                self.chosen.push(Placement {
                    card,
                    centre: LatticePos::new(centre.row as i32, centre.col as i32),
                    turn,
                });
                if let Some(found) = self.run() {
                    return Some(found);
                }
                self.chosen.pop();
                self.used[i] = false;
                self.pop(centre);
            }
        }
        None
    }

    fn block(centre: Pos) -> impl Iterator<Item = (usize, Pos)> {
        (0..9).map(move |i| (i, Pos::new(centre.row + i / 3 - 1, centre.col + i % 3 - 1)))
    }

    /// Whether a card with these square codes can sit on `centre` given the cards so far.
    fn fits(&self, centre: Pos, codes: &[u8; 9]) -> bool {
        let centre_code = CENTRE_CHAR as u8;
        Self::block(centre).all(|(i, p)| {
            let here = &self.codes[p];
            let code = codes[i];
            if self.puzzle.outline[p] != OutlineSquare::Centre {
                // No centre ever lies here: every card's square must show the same pattern.
                here.first().is_none_or(|&c| c == code)
            } else {
                // Wild centres (geometry excluded anything else): at most two patterns, one
                // below and one above the centre.
                let mut patterns: Vec<u8> = here
                    .iter()
                    .copied()
                    .chain(std::iter::once(code))
                    .filter(|&c| c != centre_code)
                    .collect();
                patterns.sort_unstable();
                patterns.dedup();
                patterns.len() <= 2
            }
        })
    }

    fn push(&mut self, centre: Pos, codes: &[u8; 9]) {
        for (i, p) in Self::block(centre) {
            self.codes[p].push(codes[i]);
        }
    }

    fn pop(&mut self, centre: Pos) {
        for (_, p) in Self::block(centre) {
            self.codes[p].pop();
        }
    }

    /// A bottom-first order of the chosen placements that passes the puzzle checker.
    fn stacking_order(&self) -> Option<Vec<Placement>> {
        let mut board = Board::new(
            self.puzzle.side,
            PlacementRules::puzzle(self.puzzle.wild_centres),
        );
        let mut left = self.chosen.clone();
        let mut order = Vec::new();
        if self.stack(&mut board, &mut left, &mut order) {
            check_arrangement(self.set, self.puzzle, &order)
                .ok()
                .map(|_| order)
        } else {
            None
        }
    }

    fn stack(
        &self,
        board: &mut Board,
        left: &mut Vec<Placement>,
        order: &mut Vec<Placement>,
    ) -> bool {
        if left.is_empty() {
            return true;
        }
        for i in 0..left.len() {
            let p = left[i];
            if board.check(self.set, &p).is_err() {
                continue;
            }
            board.place(self.set, p);
            left.remove(i);
            order.push(p);
            if self.stack(board, left, order) {
                return true;
            }
            order.pop();
            left.insert(i, p);
            board.pop();
        }
        false
    }
}

impl CamouflageSet {
    /// Puzzles of this set that the solver cannot solve, as errors naming the puzzle. A shipped
    /// puzzle must be solvable; `set check` reports these.
    pub fn check_puzzles(&self, file: &str) -> Vec<SetError> {
        self.puzzles()
            .iter()
            .filter(|p| solve(self, p).is_none())
            .map(|p| {
                SetError::new(
                    file,
                    Place::item(format!("puzzle {}", p.id)),
                    CamouflageProblem::PuzzleUnsolvable,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camouflage::testing::{set_of, uniform_set};
    use crate::camouflage::SideIdx;

    fn puzzle(set: &CamouflageSet, cards: &[&str], outline: &[&str], wild: bool) -> Puzzle {
        let g = Grid::parse_rows(outline).unwrap();
        Puzzle {
            id: "t".into(),
            difficulty: 1,
            side: SideIdx(0),
            wild_centres: wild,
            cards: cards.iter().map(|c| set.card_by_id(c).unwrap()).collect(),
            outline: g.map(|&c| OutlineSquare::from_char(c).unwrap()),
        }
    }

    fn pl(set: &CamouflageSet, id: &str, row: i32, col: i32, turn: Turn) -> Placement {
        Placement {
            card: set.card_by_id(id).unwrap(),
            centre: LatticePos::new(row, col),
            turn,
        }
    }

    /// z-1's right column is z-2's left column turned: z-2 must be turned half-way.
    fn pair_set() -> CamouflageSet {
        set_of(
            "abcdxyz",
            &[(
                "z",
                vec![
                    ("z-1".into(), ["xxa".into(), "x*b".into(), "xxc".into()]),
                    ("z-2".into(), ["yyc".into(), "y*b".into(), "yya".into()]),
                    ("z-3".into(), ["ddd".into(), "d*d".into(), "ddd".into()]),
                ],
            )],
        )
    }

    const PAIR: [&str; 3] = ["#####", "#C#C#", "#####"];

    #[test]
    fn a_correct_arrangement_passes_in_any_position_and_quarter_turn() {
        let set = pair_set();
        let p = puzzle(&set, &["z-1", "z-2"], &PAIR, false);
        let good = [
            pl(&set, "z-1", 0, 0, Turn::R0),
            pl(&set, "z-2", 0, 2, Turn::R180),
        ];
        assert_eq!(
            check_arrangement(&set, &p, &good),
            Ok(Solved { turn: Turn::R0 })
        );
        // The whole arrangement turned a quarter and moved elsewhere.
        let turned = [
            pl(&set, "z-1", 10, 5, Turn::R90),
            pl(&set, "z-2", 12, 5, Turn::R270),
        ];
        // The outline is symmetric under a half-turn, so the first quarter-turn that fits is
        // reported.
        assert_eq!(
            check_arrangement(&set, &p, &turned),
            Ok(Solved { turn: Turn::R90 })
        );
        // Without wild centres the order of the cards does not matter.
        let swapped = [good[1], good[0]];
        assert!(check_arrangement(&set, &p, &swapped).is_ok());
    }

    #[test]
    fn faults_are_reported() {
        let set = pair_set();
        let p = puzzle(&set, &["z-1", "z-2"], &PAIR, false);
        // Wrong turn: patterns mismatch.
        let e = check_arrangement(
            &set,
            &p,
            &[
                pl(&set, "z-1", 0, 0, Turn::R0),
                pl(&set, "z-2", 0, 2, Turn::R0),
            ],
        )
        .unwrap_err();
        assert!(e.faults.iter().all(|f| matches!(
            f,
            PuzzleFault::Overlap {
                placement: 1,
                breach: Breach::Mismatch { .. }
            }
        )));
        assert_eq!(e.faults.len(), 3);
        // Wrong cards.
        let e = check_arrangement(
            &set,
            &p,
            &[
                pl(&set, "z-1", 0, 0, Turn::R0),
                pl(&set, "z-3", 0, 2, Turn::R0),
            ],
        )
        .unwrap_err();
        assert!(e.faults.contains(&PuzzleFault::ExtraCard {
            card: set.card_by_id("z-3").unwrap()
        }));
        assert!(e.faults.contains(&PuzzleFault::MissingCard {
            card: set.card_by_id("z-2").unwrap()
        }));
        let e = check_arrangement(
            &set,
            &p,
            &[
                pl(&set, "z-1", 0, 0, Turn::R0),
                pl(&set, "z-1", 0, 2, Turn::R0),
            ],
        )
        .unwrap_err();
        assert!(e.faults.contains(&PuzzleFault::RepeatedCard {
            card: set.card_by_id("z-1").unwrap()
        }));
        // Right cards and matches, wrong shape: not overlapping at all.
        let e = check_arrangement(
            &set,
            &p,
            &[
                pl(&set, "z-1", 0, 0, Turn::R0),
                pl(&set, "z-2", 0, 3, Turn::R180),
            ],
        )
        .unwrap_err();
        assert_eq!(
            e.faults,
            vec![PuzzleFault::Outline {
                expected: PAIR.iter().map(|s| s.to_string()).collect(),
                found: vec!["######".into(), "#C##C#".into(), "######".into()],
            }]
        );
    }

    #[test]
    fn outline_matches_up_to_turn_and_margin_but_not_its_mirror_image() {
        let set = uniform_set();
        let arrangement = [
            pl(&set, "a-1", 0, 0, Turn::R0),
            pl(&set, "a-2", 0, 2, Turn::R0),
            pl(&set, "a-3", 2, 3, Turn::R0),
        ];
        let shape = ["#####.", "#C#C#.", "######", "...#C#", "...###"];
        let found = footprint(&arrangement).unwrap();
        assert_eq!(rows(&found), shape.map(String::from).to_vec());
        // An outline with empty margins is the same outline.
        let with_margin = [
            ".......", ".#####.", ".#C#C#.", ".######", "....#C#", "....###",
        ];
        let p = puzzle(&set, &["a-1", "a-2", "a-3"], &with_margin, false);
        assert_eq!(
            check_arrangement(&set, &p, &arrangement),
            Ok(Solved { turn: Turn::R0 })
        );
        let mirrored = [
            pl(&set, "a-1", 0, 0, Turn::R0),
            pl(&set, "a-2", 0, -2, Turn::R0),
            pl(&set, "a-3", 2, -3, Turn::R0),
        ];
        let e = check_arrangement(&set, &p, &mirrored).unwrap_err();
        assert!(
            matches!(e.faults.as_slice(), [PuzzleFault::Outline { .. }]),
            "{e}"
        );
        let s = solve(&set, &p).unwrap();
        assert!(check_arrangement(&set, &p, &s).is_ok());
    }

    #[test]
    fn centres_are_not_covered_unless_wild() {
        let set = uniform_set();
        // Two cards one column apart: each covers the other's centre.
        let outline = ["####", "#CC#", "####"];
        let cards = [
            pl(&set, "a-1", 0, 0, Turn::R0),
            pl(&set, "a-2", 0, 1, Turn::R0),
        ];
        let p = puzzle(&set, &["a-1", "a-2"], &outline, false);
        let e = check_arrangement(&set, &p, &cards).unwrap_err();
        assert!(e.faults.iter().any(|f| matches!(
            f,
            PuzzleFault::Overlap {
                breach: Breach::CoversCentre { .. },
                ..
            }
        )));
        assert_eq!(solve(&set, &p), None);
        let p = puzzle(&set, &["a-1", "a-2"], &outline, true);
        assert!(check_arrangement(&set, &p, &cards).is_ok());
        let solved = solve(&set, &p).unwrap();
        assert!(check_arrangement(&set, &p, &solved).is_ok());
    }

    #[test]
    fn solver_finds_the_turn_and_order() {
        let set = pair_set();
        let p = puzzle(&set, &["z-1", "z-2"], &PAIR, false);
        let s = solve(&set, &p).unwrap();
        assert!(check_arrangement(&set, &p, &s).is_ok(), "{s:?}");
        // z-3 shares no pattern with z-1: no solution.
        let p = puzzle(&set, &["z-1", "z-3"], &PAIR, false);
        assert_eq!(solve(&set, &p), None);
        // The outline's shape cannot be made of 3×3 blocks around its centres.
        let p = puzzle(
            &set,
            &["z-1", "z-2"],
            &["#######", "#C###C#", "#######"],
            false,
        );
        assert_eq!(solve(&set, &p), None);
    }

    #[test]
    fn wild_solver_needs_a_centre_between_different_patterns() {
        // In a row of three, the middle card's centre lies under the left card's 'a' and the
        // right card's 'b': legal only with the middle card between them in the stack.
        let set = set_of(
            "abc",
            &[(
                "w",
                vec![
                    ("w-l".into(), ["ccc".into(), "c*a".into(), "ccc".into()]),
                    ("w-m".into(), ["ccc".into(), "c*c".into(), "ccc".into()]),
                    ("w-r".into(), ["ccc".into(), "b*c".into(), "ccc".into()]),
                ],
            )],
        );
        let outline = ["#####", "#CCC#", "#####"];
        let p = puzzle(&set, &["w-l", "w-m", "w-r"], &outline, true);
        let s = solve(&set, &p).unwrap();
        assert!(check_arrangement(&set, &p, &s).is_ok(), "{s:?}");
        assert_eq!(s[1].card, set.card_by_id("w-m").unwrap());
        let (l, m, r) = (
            pl(&set, "w-l", 0, 0, Turn::R0),
            pl(&set, "w-m", 0, 1, Turn::R0),
            pl(&set, "w-r", 0, 2, Turn::R0),
        );
        assert!(check_arrangement(&set, &p, &[l, m, r]).is_ok());
        let e = check_arrangement(&set, &p, &[l, r, m]).unwrap_err();
        assert!(
            matches!(
                e.faults.as_slice(),
                [PuzzleFault::Overlap {
                    placement: 1,
                    breach: Breach::Mismatch { .. }
                }]
            ),
            "{e}"
        );
        // Without wild centres the same cards cannot make it.
        let p = puzzle(&set, &["w-l", "w-m", "w-r"], &outline, false);
        assert_eq!(solve(&set, &p), None);
    }

    #[test]
    fn check_puzzles_names_an_unsolvable_puzzle() {
        // z-3 is all 'd' and z-1 has no 'd': their shared column can never match.
        let json = r########"{"format": "tablejudge/camouflage-set@1", "name": "t",
            "sides": {"animal": {"a": {"name": "a"}, "d": {"name": "d"}, "x": {"name": "x"}}},
            "decks": [{"id": "z", "cards": [
                {"id": "z-1", "animal": ["xxa", "x*a", "xxa"]},
                {"id": "z-3", "animal": ["ddd", "d*d", "ddd"]}]}],
            "puzzles": [
                {"id": "fine", "difficulty": 1, "side": "animal", "cards": ["z-1", "z-3"],
                 "outline": ["######", "#C##C#", "######"]},
                {"id": "broken", "difficulty": 1, "side": "animal", "cards": ["z-1", "z-3"],
                 "outline": ["#####", "#C#C#", "#####"]}]}"########;
        let set = CamouflageSet::from_json(json, "mine.json").unwrap();
        let errors = set.check_puzzles("mine.json");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            errors[0].to_string(),
            "mine.json: puzzle broken: no arrangement of its cards forms its outline: correct the outline or the card list"
        );
    }
}
