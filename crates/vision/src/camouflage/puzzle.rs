//! A solo puzzle judged from one photo of the laid cards.
//!
//! A photo shows only the top of each square, never what lies under it. So the judgement is
//! over every way of laying the puzzle's cards that shows what the photo shows: the puzzle
//! is solved when every such way solves it, not solved when none does and no way that solves
//! it is within a couple of misread squares, and undecided otherwise, naming the card whose
//! hidden squares decide it.
//!
//! The outline fixes where the centres lie. With wild centres a centre may be covered; a
//! covered centre is taken to lie where the outline puts it, since the photo cannot show it.

use std::collections::HashMap;

use serde::Serialize;
use tablejudge_rules::camouflage::{
    check_arrangement, cropped_outline, CamouflageSet, CardIdx, LatticePos, OutlineSquare,
    Placement, Puzzle, PuzzleFault, Square,
};
use tablejudge_rules::{Grid, Pos, Turn};

use super::read::{CamouflageReading, SquareKind};
use super::replay::{block, permutations};

/// How many squares may be misread before an arrangement that solves the puzzle is ruled
/// out: the replay skips photos with more disagreeing squares than this as unreadable.
const MISREADS: usize = 2;

/// The confidence (the classifier's posterior) below which a square's pattern is taken as
/// not known: one in ten such readings is another pattern.
const SURE: f32 = 0.9;

/// Leaves of the search (full choices of card and turn per centre) looked at before giving
/// up as undecided; a 7-card puzzle read cleanly needs a handful.
const MAX_LEAVES: usize = 200_000;

/// The verdict on a puzzle photo.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum PuzzleJudgement {
    /// Every way of laying the puzzle's cards that the photo can show solves it; `cards` is
    /// one, bottom card first, in the reading's lattice squares.
    Solved { cards: Vec<Placement> },
    /// The photo shows the puzzle is not solved: each fault in words, and the cards as they
    /// seem to lie when the photo shows them (bottom first; empty when no way of laying the
    /// puzzle's cards shows what the photo shows).
    NotSolved {
        faults: Vec<String>,
        cards: Vec<Placement>,
    },
    /// The photo cannot settle it: why, and what to do.
    Undecided { reason: String },
}

/// Judges whether `reading` shows `puzzle` solved. The reading must be of the puzzle's side.
pub fn judge_puzzle(
    set: &CamouflageSet,
    puzzle: &Puzzle,
    reading: &CamouflageReading,
) -> PuzzleJudgement {
    if let Some(reason) = doubts(set, puzzle, reading) {
        return PuzzleJudgement::Undecided { reason };
    }
    // A pattern read without confidence may be any pattern: it neither makes nor breaks a way
    // of laying the cards.
    let seen: HashMap<LatticePos, SquareKind> = reading
        .squares
        .iter()
        .chain(&reading.beyond)
        .map(|s| {
            let kind = match s.kind {
                SquareKind::Pattern(_) if s.confidence < SURE => SquareKind::Unknown,
                k => k,
            };
            (LatticePos::new(s.row, s.col), kind)
        })
        .collect();
    let Some((origin, found)) = footprint(&seen) else {
        return PuzzleJudgement::Undecided {
            reason: "no card found in the photo; retake with the cards in view".into(),
        };
    };
    let Some((_, expected)) = cropped_outline(&puzzle.outline) else {
        return PuzzleJudgement::Undecided {
            reason: format!("puzzle {} has an empty outline", puzzle.id),
        };
    };
    let mut registrations: Vec<Vec<LatticePos>> = Vec::new();
    for turn in Turn::ALL {
        let outline = expected.turned(turn);
        if !fits(&outline, &found, puzzle.wild_centres) {
            continue;
        }
        let mut centres: Vec<LatticePos> = outline
            .iter()
            .filter(|(_, &s)| s == OutlineSquare::Centre)
            .map(|(p, _)| origin.offset(p.row as i32, p.col as i32))
            .collect();
        centres.sort();
        if !registrations.contains(&centres) {
            registrations.push(centres);
        }
    }
    if registrations.is_empty() {
        // A centre the reader missed would change the footprint just as a misplaced card.
        if let Some(reason) = orphans_doubt(reading) {
            return PuzzleJudgement::Undecided { reason };
        }
        if let Some(reason) = reader_may_be_wrong(&expected, &found, puzzle.wild_centres) {
            return PuzzleJudgement::Undecided { reason };
        }
        let rows = |g: &Grid<OutlineSquare>| g.map(|s| s.char()).to_rows().join("/");
        let visible = found
            .iter()
            .filter(|(_, &s)| s == OutlineSquare::Centre)
            .count();
        // A card left out and a card whose centre the reader missed look the same.
        if visible < puzzle.cards.len() {
            return PuzzleJudgement::Undecided {
                reason: format!(
                    "{visible} card centres found; the puzzle has {} cards: a card is not laid, \
                     or its centre was not seen; lay all of them and retake with every centre \
                     in view",
                    puzzle.cards.len()
                ),
            };
        }
        let mut faults = Vec::new();
        if !puzzle.wild_centres && visible != puzzle.cards.len() {
            faults.push(format!(
                "{visible} cards are laid; the puzzle has {}",
                puzzle.cards.len()
            ));
        }
        faults.push(format!(
            "the cards form {}; the outline is {} (under any quarter-turn)",
            rows(&found),
            rows(&expected)
        ));
        return PuzzleJudgement::NotSolved {
            faults,
            cards: Vec::new(),
        };
    }

    let exact = search_all(set, puzzle, &registrations, &seen, 0, false);
    if exact.gave_up {
        return too_many(puzzle);
    }
    match (&exact.legal, &exact.illegal) {
        (Some(legal), None) => {
            return PuzzleJudgement::Solved {
                cards: legal.order.clone(),
            }
        }
        (Some(legal), Some(illegal)) => {
            return PuzzleJudgement::Undecided {
                reason: hidden_difference(set, legal, illegal),
            }
        }
        _ => {}
    }
    // Nothing seen solves the puzzle. Before saying so, make sure a misread square or two
    // would not let the cards solve it.
    let near = search_all(set, puzzle, &registrations, &seen, MISREADS, true);
    if near.gave_up {
        return too_many(puzzle);
    }
    if let Some(legal) = near.legal {
        let squares: Vec<String> = legal
            .misread
            .iter()
            .map(|p| format!("({}, {})", p.row, p.col))
            .collect();
        return PuzzleJudgement::Undecided {
            reason: format!(
                "the cards would solve the puzzle if square{} {} were misread; retake with \
                 even light and no glare on {}",
                if squares.len() == 1 { "" } else { "s" },
                squares.join(", "),
                if squares.len() == 1 { "it" } else { "them" }
            ),
        };
    }
    match exact.illegal {
        Some(illegal) => {
            let faults = match check_arrangement(set, puzzle, &illegal.order) {
                Ok(_) => vec!["the cards' overlapping squares do not match".to_string()],
                Err(e) => e
                    .faults
                    .iter()
                    .map(|f| fault_text(set, &illegal.order, f))
                    .collect(),
            };
            PuzzleJudgement::NotSolved {
                faults,
                cards: illegal.order,
            }
        }
        None => {
            let ids: Vec<&str> = puzzle
                .cards
                .iter()
                .map(|&c| set.card(c).id.as_str())
                .collect();
            PuzzleJudgement::NotSolved {
                faults: vec![format!(
                    "no way of laying the puzzle's cards ({}) shows the squares seen: another \
                     card is used, or a card lies off the outline's centres",
                    ids.join(", ")
                )],
                cards: Vec::new(),
            }
        }
    }
}

/// What in the reading stops a judgement before any search.
fn doubts(set: &CamouflageSet, puzzle: &Puzzle, reading: &CamouflageReading) -> Option<String> {
    if !reading.stray_symbols.is_empty() {
        return Some(format!(
            "{} symbol{} on no card read: a card off the others' lattice or missed; retake \
             square-on and in focus",
            reading.stray_symbols.len(),
            if reading.stray_symbols.len() == 1 {
                ""
            } else {
                "s"
            }
        ));
    }
    // A visible centre lies in no other card's block, so two centres side by side mean one
    // is something else taken for a centre.
    let centres = &reading.centres;
    for (i, a) in centres.iter().enumerate() {
        if let Some(b) = centres[i + 1..]
            .iter()
            .find(|b| (a.row - b.row).abs() <= 1 && (a.col - b.col).abs() <= 1)
        {
            return Some(format!(
                "centres read side by side at ({}, {}) and ({}, {}), which no way of laying \
                 cards shows: one is a pattern square or the table taken for a centre; retake \
                 in even light",
                a.row, a.col, b.row, b.col
            ));
        }
    }
    // The centres' symbols fall into one group per deck: more groups than the puzzle's
    // decks is a card from elsewhere or something on the table taken for a centre.
    let mut groups: Vec<usize> = centres.iter().map(|c| c.symbol_group).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut decks: Vec<_> = puzzle.cards.iter().map(|&c| set.card(c).deck).collect();
    decks.sort_unstable();
    decks.dedup();
    if groups.len() > decks.len() {
        return Some(format!(
            "{} different symbols seen, but the puzzle's cards are of {} deck{}: a card not of \
             the puzzle, or something on the table taken for a card centre; lay only the \
             puzzle's cards and retake",
            groups.len(),
            decks.len(),
            if decks.len() == 1 { "" } else { "s" }
        ));
    }
    // Every square beside a visible centre is its card's: table read there is a misread.
    let beside: Vec<String> = reading
        .squares
        .iter()
        .filter(|s| {
            s.kind == SquareKind::Table
                && reading
                    .centres
                    .iter()
                    .any(|c| (c.row - s.row).abs() <= 1 && (c.col - s.col).abs() <= 1)
        })
        .map(|s| format!("({}, {})", s.row, s.col))
        .collect();
    if !beside.is_empty() {
        return Some(format!(
            "square{} {} beside a card centre read as table; retake with the cards' edges in \
             view and without glare",
            if beside.len() == 1 { "" } else { "s" },
            beside.join(", ")
        ));
    }
    // Without wild centres every card shows its centre, so card squares with no centre near
    // them are a card the reader missed. With wild centres they may be a covered centre's
    // card: the outline is checked first (see `judge_puzzle`).
    if !puzzle.wild_centres {
        return orphans_doubt(reading);
    }
    None
}

/// Card squares with no centre found near them, as a reason to retake.
fn orphans_doubt(reading: &CamouflageReading) -> Option<String> {
    let orphans: Vec<String> = reading
        .orphans()
        .map(|s| format!("({}, {})", s.row, s.col))
        .collect();
    (!orphans.is_empty()).then(|| {
        format!(
            "square{} {} look{} like card where no card centre was found; retake with every \
             centre in view",
            if orphans.len() == 1 { "" } else { "s" },
            orphans.join(", "),
            if orphans.len() == 1 { "s" } else { "" }
        )
    })
}

fn too_many(puzzle: &Puzzle) -> PuzzleJudgement {
    PuzzleJudgement::Undecided {
        reason: format!(
            "too many ways of laying puzzle {}'s cards show what the photo shows; retake with \
             the squares in focus",
            puzzle.id
        ),
    }
}

/// The card squares seen (`C` a centre, `#` any other card square), cropped to them, and
/// the lattice square of the crop's top-left.
fn footprint(seen: &HashMap<LatticePos, SquareKind>) -> Option<(LatticePos, Grid<OutlineSquare>)> {
    let card = || {
        seen.iter()
            .filter(|(_, &k)| k != SquareKind::Table)
            .map(|(p, _)| *p)
    };
    let r0 = card().map(|p| p.row).min()?;
    let c0 = card().map(|p| p.col).min()?;
    let r1 = card().map(|p| p.row).max()?;
    let c1 = card().map(|p| p.col).max()?;
    let origin = LatticePos::new(r0, c0);
    let grid = Grid::from_fn(
        (r1 - r0 + 1) as usize,
        (c1 - c0 + 1) as usize,
        |p| match seen.get(&origin.offset(p.row as i32, p.col as i32)) {
            None | Some(SquareKind::Table) => OutlineSquare::Empty,
            Some(SquareKind::Centre) => OutlineSquare::Centre,
            Some(_) => OutlineSquare::Covered,
        },
    );
    Some((origin, grid))
}

/// Whether the cards seen cover exactly the outline's squares, with every visible centre on
/// one of its centres (and, without wild centres, every centre of it visible).
fn fits(outline: &Grid<OutlineSquare>, found: &Grid<OutlineSquare>, wild: bool) -> bool {
    outline.size() == found.size()
        && outline.iter().all(|(p, &o)| {
            let f = found[p];
            (o == OutlineSquare::Empty) == (f == OutlineSquare::Empty)
                && (f != OutlineSquare::Centre || o == OutlineSquare::Centre)
                && (wild || o != OutlineSquare::Centre || f == OutlineSquare::Centre)
        })
}

/// When the cards seen differ from the outline in a way a reading error explains as well as
/// a misplaced card, why.
fn reader_may_be_wrong(
    expected: &Grid<OutlineSquare>,
    found: &Grid<OutlineSquare>,
    wild: bool,
) -> Option<String> {
    let covered = |s: OutlineSquare| s != OutlineSquare::Empty;
    // The right squares covered, the centres elsewhere: a light pattern square taken for a
    // centre, or a centre's symbol missed, as likely as a card off its place.
    if Turn::ALL.iter().any(|&t| {
        let o = expected.turned(t);
        o.size() == found.size() && o.iter().all(|(p, &s)| covered(s) == covered(found[p]))
    }) {
        return Some(
            "the cards cover the outline's squares but the centres read lie elsewhere: a \
             light pattern square taken for a centre, or a symbol missed; retake in even light"
                .into(),
        );
    }
    // With wild centres a card whose centre is covered is found only by its squares' look:
    // cards seen that fit inside the outline may be the puzzle with such a card missed.
    if wild {
        let (fh, fw) = found.size();
        let inside = Turn::ALL.iter().any(|&t| {
            let o = expected.turned(t);
            let (oh, ow) = o.size();
            (0..=oh.saturating_sub(fh)).any(|dr| {
                (0..=ow.saturating_sub(fw)).any(|dc| {
                    fh <= oh
                        && fw <= ow
                        && found.iter().all(|(p, &f)| {
                            let e = o[Pos::new(p.row + dr, p.col + dc)];
                            (f == OutlineSquare::Empty || covered(e))
                                && (f != OutlineSquare::Centre || e == OutlineSquare::Centre)
                        })
                })
            })
        });
        if inside {
            return Some(
                "the cards seen cover only part of the outline; with wild centres a card whose \
                 centre is covered is told only by its squares, and some may be missed; retake \
                 with even light, or judge with every centre uncovered"
                    .into(),
            );
        }
    }
    None
}

/// One way of laying the cards that shows what the photo shows (up to `misread` squares).
#[derive(Clone, Debug)]
struct Explanation {
    /// Bottom card first.
    order: Vec<Placement>,
    misread: Vec<LatticePos>,
}

#[derive(Default)]
struct Found {
    legal: Option<Explanation>,
    illegal: Option<Explanation>,
    gave_up: bool,
}

fn search_all(
    set: &CamouflageSet,
    puzzle: &Puzzle,
    registrations: &[Vec<LatticePos>],
    seen: &HashMap<LatticePos, SquareKind>,
    budget: usize,
    legal_only: bool,
) -> Found {
    let mut found = Found::default();
    for centres in registrations {
        let mut search = Search::new(set, puzzle, centres, seen, budget, legal_only);
        search.run(&mut found);
        if found.gave_up || (found.legal.is_some() && (legal_only || found.illegal.is_some())) {
            break;
        }
    }
    found
}

/// Whether the square read as `seen` can be a card's `square`.
fn compatible(seen: SquareKind, square: Square) -> bool {
    match (seen, square) {
        (SquareKind::Unknown, _) => true,
        (SquareKind::Centre, Square::Centre) => true,
        (SquareKind::Pattern(a), Square::Pattern(b)) => a == b,
        _ => false,
    }
}

/// A card choice for one centre: the placement, its nine squares (lattice order of
/// [`Placement::squares`]), and how many squares only it covers disagree with the photo.
struct Candidate {
    placement: Placement,
    squares: [Square; 9],
    misread: usize,
}

/// Backtracking over a card and turn for each centre, bottom-up order searched at the end.
struct Search<'a> {
    wild: bool,
    centres: &'a [LatticePos],
    /// The centres (indices) whose cards cover each square.
    covers: HashMap<LatticePos, Vec<usize>>,
    seen: &'a HashMap<LatticePos, SquareKind>,
    budget: usize,
    legal_only: bool,
    candidates: Vec<Vec<Candidate>>,
    /// Centres in the order they are chosen: each next one overlapping those before.
    visit: Vec<usize>,
    chosen: Vec<Option<usize>>,
    used: Vec<CardIdx>,
    leaves: usize,
}

impl<'a> Search<'a> {
    fn new(
        set: &CamouflageSet,
        puzzle: &Puzzle,
        centres: &'a [LatticePos],
        seen: &'a HashMap<LatticePos, SquareKind>,
        budget: usize,
        legal_only: bool,
    ) -> Search<'a> {
        let mut covers: HashMap<LatticePos, Vec<usize>> = HashMap::new();
        for (i, &c) in centres.iter().enumerate() {
            for p in block(c) {
                covers.entry(p).or_default().push(i);
            }
        }
        let seen_at = |p: LatticePos| seen.get(&p).copied().unwrap_or(SquareKind::Table);
        let mut cards = puzzle.cards.clone();
        cards.dedup();
        let candidates = centres
            .iter()
            .map(|&centre| {
                let mut out = Vec::new();
                for &card in &cards {
                    let face = set.face(card, puzzle.side);
                    for turn in Turn::ALL {
                        let placement = Placement { card, centre, turn };
                        let squares: [Square; 9] =
                            std::array::from_fn(|k| face.square(turn, Pos::new(k / 3, k % 3)));
                        let misread = placement
                            .squares()
                            .iter()
                            .zip(&squares)
                            .filter(|(p, &sq)| {
                                covers[p].len() == 1 && !compatible(seen_at(**p), sq)
                            })
                            .count();
                        if misread <= budget {
                            out.push(Candidate {
                                placement,
                                squares,
                                misread,
                            });
                        }
                    }
                }
                out
            })
            .collect();
        // Breadth-first over overlaps, so each choice is checked against the ones before.
        let mut visit = Vec::with_capacity(centres.len());
        while visit.len() < centres.len() {
            let next = (0..centres.len())
                .filter(|i| !visit.contains(i))
                .max_by_key(|&i| {
                    let overlap = visit
                        .iter()
                        .filter(|&&j| {
                            let (a, b): (LatticePos, LatticePos) = (centres[i], centres[j]);
                            (a.row - b.row).abs() <= 2 && (a.col - b.col).abs() <= 2
                        })
                        .count();
                    (overlap, std::cmp::Reverse(i))
                })
                .expect("some centre is not visited yet");
            visit.push(next);
        }
        Search {
            wild: puzzle.wild_centres,
            centres,
            covers,
            seen,
            budget,
            legal_only,
            candidates,
            chosen: vec![None; centres.len()],
            visit,
            used: Vec::new(),
            leaves: 0,
        }
    }

    fn seen_at(&self, p: LatticePos) -> SquareKind {
        self.seen.get(&p).copied().unwrap_or(SquareKind::Table)
    }

    fn done(&self, found: &Found) -> bool {
        found.gave_up || (found.legal.is_some() && (self.legal_only || found.illegal.is_some()))
    }

    fn run(&mut self, found: &mut Found) {
        self.descend(0, 0, found);
    }

    fn descend(&mut self, depth: usize, misread: usize, found: &mut Found) {
        if self.done(found) {
            return;
        }
        if depth == self.visit.len() {
            self.leaves += 1;
            if self.leaves > MAX_LEAVES {
                found.gave_up = true;
                return;
            }
            self.judge_leaf(found);
            return;
        }
        let i = self.visit[depth];
        for k in 0..self.candidates[i].len() {
            let cand = &self.candidates[i][k];
            if self.used.contains(&cand.placement.card) {
                continue;
            }
            let Some(extra) = self.fit(i, cand) else {
                continue;
            };
            let total = misread + cand.misread + extra;
            if total > self.budget {
                continue;
            }
            let card = cand.placement.card;
            self.chosen[i] = Some(k);
            self.used.push(card);
            self.descend(depth + 1, total, found);
            self.used.pop();
            self.chosen[i] = None;
            if self.done(found) {
                return;
            }
        }
    }

    /// Checks `cand` on centre `i` against the cards chosen so far: `None` when it cannot
    /// be part of a way the search wants, else the squares it makes certainly misread
    /// (shared squares whose every card is chosen and none shows what was seen).
    fn fit(&self, i: usize, cand: &Candidate) -> Option<usize> {
        let mut misread = 0;
        for (k, p) in cand.placement.squares().iter().enumerate() {
            let covers = &self.covers[p];
            if covers.len() < 2 {
                continue;
            }
            let mut all_chosen = true;
            let mut any_shows = compatible(self.seen_at(*p), cand.squares[k]);
            for &j in covers.iter().filter(|&&j| j != i) {
                let Some(other) = self.square_of(j, *p) else {
                    all_chosen = false;
                    continue;
                };
                // Away from centres, overlapping squares of a solution show one pattern.
                let at_centre = self.centres.contains(p);
                if self.legal_only && !at_centre && other != cand.squares[k] {
                    return None;
                }
                any_shows |= compatible(self.seen_at(*p), other);
            }
            if all_chosen && !any_shows {
                misread += 1;
            }
        }
        Some(misread)
    }

    /// The square at `p` of the card chosen for centre `j`, if chosen.
    fn square_of(&self, j: usize, p: LatticePos) -> Option<Square> {
        let cand = &self.candidates[j][self.chosen[j]?];
        let k = cand.placement.squares().iter().position(|q| *q == p)?;
        Some(cand.squares[k])
    }

    /// Tries the orders of laying the chosen cards that change what shows or whether the
    /// overlaps are legal, recording the first legal and first illegal way within budget.
    fn judge_leaf(&self, found: &mut Found) {
        let n = self.centres.len();
        let chosen: Vec<&Candidate> = (0..n)
            .map(|j| &self.candidates[j][self.chosen[j].expect("every centre chosen at a leaf")])
            .collect();
        // Only cards sharing a square where they differ need ordering.
        let mut involved: Vec<usize> = Vec::new();
        for (p, covers) in &self.covers {
            if covers.len() < 2 {
                continue;
            }
            let first = self.square_of(covers[0], *p);
            if covers.iter().any(|&j| self.square_of(j, *p) != first) {
                for &j in covers {
                    if !involved.contains(&j) {
                        involved.push(j);
                    }
                }
            }
        }
        involved.sort_unstable();
        let rest: Vec<usize> = (0..n).filter(|j| !involved.contains(j)).collect();
        let mut try_order = |perm: &[usize]| {
            if self.done(found) {
                return;
            }
            let order: Vec<usize> = rest
                .iter()
                .copied()
                .chain(perm.iter().map(|&k| involved[k]))
                .collect();
            let (legal, misread) = self.lay(&chosen, &order);
            if misread.len() > self.budget || (self.legal_only && !legal) {
                return;
            }
            let slot = if legal {
                &mut found.legal
            } else {
                &mut found.illegal
            };
            if slot.is_none() {
                *slot = Some(Explanation {
                    order: order.iter().map(|&j| chosen[j].placement).collect(),
                    misread,
                });
            }
        };
        permutations(involved.len(), &mut try_order);
    }

    /// Lays the chosen cards in `order` (bottom first): whether every overlap is legal under
    /// puzzle rules, and the squares where the top differs from the photo.
    fn lay(&self, chosen: &[&Candidate], order: &[usize]) -> (bool, Vec<LatticePos>) {
        let mut top: HashMap<LatticePos, Square> = HashMap::new();
        let mut legal = true;
        for &j in order {
            let cand = chosen[j];
            for (k, p) in cand.placement.squares().iter().enumerate() {
                let sq = cand.squares[k];
                if let Some(&below) = top.get(p) {
                    let matches = if self.wild {
                        below == sq || below == Square::Centre || sq == Square::Centre
                    } else {
                        below == sq && sq != Square::Centre
                    };
                    legal &= matches;
                }
                top.insert(*p, sq);
            }
        }
        let mut misread: Vec<LatticePos> = top
            .iter()
            .filter(|(p, &sq)| !compatible(self.seen_at(**p), sq))
            .map(|(p, _)| *p)
            .collect();
        misread.sort();
        (legal, misread)
    }
}

/// Why the photo cannot tell a way that solves the puzzle from one that does not.
fn hidden_difference(set: &CamouflageSet, legal: &Explanation, illegal: &Explanation) -> String {
    let name = |p: &Placement| {
        format!(
            "{} turned {}°",
            set.card(p.card).id,
            u32::from(p.turn.quarter_turns()) * 90
        )
    };
    for l in &legal.order {
        if let Some(i) = illegal.order.iter().find(|i| i.centre == l.centre) {
            if i.card != l.card || i.turn != l.turn {
                return format!(
                    "the card on the centre at ({}, {}) shows too little to tell: as {} the \
                     cards solve the puzzle, as {} they do not; lift the cards over it and look",
                    l.centre.row,
                    l.centre.col,
                    name(l),
                    name(i)
                );
            }
        }
    }
    "which card lies on top where a centre overlaps decides it, and the photo cannot show \
     the order the cards were laid; lift the top cards and look"
        .into()
}

/// A puzzle fault in words, naming cards by id and square rather than by index.
fn fault_text(set: &CamouflageSet, order: &[Placement], fault: &PuzzleFault) -> String {
    match fault {
        PuzzleFault::Overlap { placement, breach } => match order.get(*placement) {
            Some(p) => format!(
                "{} on the centre at ({}, {}): {}",
                set.card(p.card).id,
                p.centre.row,
                p.centre.col,
                breach_text(set, order, breach)
            ),
            None => fault.to_string(),
        },
        other => other.to_string(),
    }
}

fn breach_text(
    set: &CamouflageSet,
    order: &[Placement],
    breach: &tablejudge_rules::camouflage::Breach,
) -> String {
    use tablejudge_rules::camouflage::Breach;
    let card = |i: usize| {
        order
            .get(i)
            .map_or_else(|| format!("#{i}"), |p| set.card(p.card).id.clone())
    };
    match breach {
        Breach::Mismatch {
            at,
            placed,
            below,
            below_card,
        } => format!(
            "its '{placed}' square at ({}, {}) lies on '{below}' of {}",
            at.row,
            at.col,
            card(*below_card)
        ),
        Breach::CoversCentre { at, below_card, .. } => format!(
            "it covers the centre of {} at ({}, {})",
            card(*below_card),
            at.row,
            at.col
        ),
        Breach::CentreCovers { at, below_card, .. } => format!(
            "its centre at ({}, {}) lies on {}",
            at.row,
            at.col,
            card(*below_card)
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "puzzle_tests.rs"]
mod tests;
