//! Judging a read stack against a mission pattern, with "undecided" as a first-class answer.
//!
//! # Decision rule
//!
//! A cell's confidence is the classifier's posterior that its label is right (times the
//! glare factor, and capped at 0.5 when the rules say the read grid is impossible), so
//! `1 − confidence` is its error probability.
//!
//! - **Match** needs every cell equal to the pattern under one whole-stack quarter-turn,
//!   every cell's error probability at most [`JudgeOptions::max_cell_error`], and their sum
//!   (a union bound on "some cell is wrong") at most [`JudgeOptions::max_total_error`]. For a
//!   false accept, a near miss's differing cells would all have to be misread *into* the
//!   pattern's colours with that certainty.
//! - **Mismatch** needs, under *every* turn, at least one differing cell read with confidence
//!   at least [`JudgeOptions::mismatch_confidence`]; the best turn (fewest differences) and its
//!   differing cells are reported.
//! - Anything else is **Undecided**, naming the doubtful cells, why (glare, shadow, colour
//!   between two possibilities) and what to retake.
//!
//! The thresholds are chosen from what an error costs, not fitted to any renderer: a wrong
//! "match" is the worst outcome, so its bar is 1 in 500 per cell and 1 in 50 for the grid (a near miss differs in
//! several cells, each of which would have to be misread into the pattern's colour).

use serde::Serialize;
use tablejudge_rules::{Grid, Key, Pos, Turn};

use crate::classify::Reading;
use crate::colour::LinRgb;

/// The judge's thresholds (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct JudgeOptions {
    /// Largest error probability of any one cell for a match.
    pub max_cell_error: f32,
    /// Largest sum of the cells' error probabilities for a match.
    pub max_total_error: f32,
    /// Least confidence of a differing cell for it to prove a mismatch.
    pub mismatch_confidence: f32,
}

impl Default for JudgeOptions {
    /// Match: every cell ≤ 0.2% error, all together ≤ 2%; mismatch: a differing cell ≥ 99%.
    fn default() -> Self {
        JudgeOptions {
            max_cell_error: 0.002,
            max_total_error: 0.02,
            mismatch_confidence: 0.99,
        }
    }
}

/// Why a cell is doubtful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Doubt {
    /// Washed out by a reflection.
    Glare,
    /// Too dark to tell colours apart.
    Shadow,
    /// A colour between two palette entries (or the rules say something is misread).
    LowContrast,
}

/// A cell the verdict depends on that was not read confidently enough.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DoubtfulCell {
    /// Position in the observed (stack) grid, 0-based.
    pub pos: Pos,
    /// What was read there.
    pub read: Option<Key>,
    /// What the pattern wants there under the turn considered (`None`: unread mission cell).
    pub expected: Option<Key>,
    /// The combined confidence (stack cell × mission cell when the mission was read too).
    pub confidence: f32,
    pub cause: Doubt,
}

/// The verdict. Turns are clockwise quarter-turns that, applied to the observed grid, give the
/// pattern's orientation; positions are in the observed grid.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Judgement {
    /// Every cell confidently equal to the pattern under this turn.
    Match {
        quarter_turns: Turn,
        /// Upper bound on the probability that some cell is misread.
        error_bound: f32,
    },
    /// Under every turn some confidently read cell differs.
    Mismatch {
        best_quarter_turns: Turn,
        /// The cells that differ under the best turn.
        mismatched: Vec<Pos>,
    },
    /// Not enough certainty either way.
    Undecided {
        reason: String,
        retake: String,
        doubtful: Vec<DoubtfulCell>,
    },
}

impl Judgement {
    /// Exit status of formats.md §5: 0 match, 1 mismatch, 3 undecided.
    pub fn exit_status(&self) -> u8 {
        match self {
            Judgement::Match { .. } => 0,
            Judgement::Mismatch { .. } => 1,
            Judgement::Undecided { .. } => 3,
        }
    }
}

/// Judges a read stack against a known pattern (a set mission).
pub fn judge(stack: &Grid<Reading>, pattern: &Grid<Key>, options: &JudgeOptions) -> Judgement {
    let pattern = pattern.map(|&k| (Some(k), 1.0f32));
    judge_cells(stack, &pattern, options)
}

/// Judges a read stack against a mission card read from a photo: a doubtful mission cell makes
/// the verdict as doubtful as a doubtful stack cell.
pub fn judge_against_photo(
    stack: &Grid<Reading>,
    mission: &Grid<Reading>,
    options: &JudgeOptions,
) -> Judgement {
    let pattern = mission.map(|r| (r.label, r.confidence));
    judge_cells(stack, &pattern, options)
}

fn judge_cells(
    stack: &Grid<Reading>,
    pattern: &Grid<(Option<Key>, f32)>,
    o: &JudgeOptions,
) -> Judgement {
    let (rows, cols) = stack.size();
    // Per turn: (differing cells, doubtful differing cells, doubtful equal cells).
    let mut best: Option<(Turn, Vec<Pos>)> = None;
    let mut undecided_turns: Vec<(Turn, Vec<DoubtfulCell>)> = Vec::new();
    for turn in Turn::ALL {
        if turn.turned_size(rows, cols) != pattern.size() {
            continue;
        }
        let mut differ = Vec::new();
        let mut confident_differ = false;
        let mut total = 0.0f32;
        let mut doubtful = Vec::new();
        for (pos, r) in stack.iter() {
            let (want, want_conf) = pattern[turn.apply(pos, rows, cols)];
            let conf = r.confidence * want_conf;
            let expected = want;
            let doubt = DoubtfulCell {
                pos,
                read: r.label,
                expected,
                confidence: conf,
                cause: cause(r),
            };
            if r.label.is_some() && r.label == want {
                total += 1.0 - conf;
                if 1.0 - conf > o.max_cell_error {
                    doubtful.push(doubt);
                }
            } else {
                differ.push(pos);
                if conf >= o.mismatch_confidence {
                    confident_differ = true;
                } else {
                    doubtful.push(doubt);
                }
            }
        }
        if differ.is_empty() {
            if doubtful.is_empty() && total <= o.max_total_error {
                return Judgement::Match {
                    quarter_turns: turn,
                    error_bound: total,
                };
            }
            if doubtful.is_empty() {
                // Many slightly doubtful cells: name the least confident ones.
                let mut all: Vec<DoubtfulCell> = stack
                    .iter()
                    .map(|(pos, r)| DoubtfulCell {
                        pos,
                        read: r.label,
                        expected: pattern[turn.apply(pos, rows, cols)].0,
                        confidence: r.confidence * pattern[turn.apply(pos, rows, cols)].1,
                        cause: cause(r),
                    })
                    .collect();
                all.sort_by(|a, b| a.confidence.total_cmp(&b.confidence));
                all.truncate(3);
                doubtful = all;
            }
            undecided_turns.push((turn, doubtful));
            continue;
        }
        if !confident_differ {
            undecided_turns.push((turn, doubtful));
        }
        if best.as_ref().is_none_or(|(_, b)| differ.len() < b.len()) {
            best = Some((turn, differ));
        }
    }
    if let Some((_, doubtful)) = undecided_turns.into_iter().min_by_key(|(_, d)| d.len()) {
        return undecided(doubtful, (rows, cols));
    }
    match best {
        Some((best_quarter_turns, mismatched)) => Judgement::Mismatch {
            best_quarter_turns,
            mismatched,
        },
        None => Judgement::Undecided {
            reason: format!(
                "the read grid is {rows}x{cols} but the pattern is {}x{}",
                pattern.rows(),
                pattern.cols()
            ),
            retake: "check that the set file matches the game being played".into(),
            doubtful: Vec::new(),
        },
    }
}

/// Why a cell is doubtful, from its measured colour: washed out, too dark, or in between.
fn cause(r: &Reading) -> Doubt {
    let lin = LinRgb::from_srgb(r.srgb).to_array();
    let min = r.srgb.r.min(r.srgb.g).min(r.srgb.b);
    let luminance = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
    if min >= 235 {
        Doubt::Glare
    } else if luminance < 0.02 {
        Doubt::Shadow
    } else {
        Doubt::LowContrast
    }
}

fn undecided(doubtful: Vec<DoubtfulCell>, (rows, cols): (usize, usize)) -> Judgement {
    let places: Vec<Pos> = doubtful.iter().map(|d| d.pos).collect();
    let place = crate::read::describe(&places, rows, cols);
    let has = |c: Doubt| doubtful.iter().any(|d| d.cause == c);
    let retake = if has(Doubt::Glare) {
        format!("glare over {place}: tilt the camera or move the light, and retake")
    } else if has(Doubt::Shadow) {
        format!("{place} is in shadow: light the stack evenly and retake")
    } else {
        format!(
            "the colour of {place} is unclear: retake in even daylight-like light, closer, \
             with the cards flat"
        )
    };
    Judgement::Undecided {
        reason: format!(
            "{} cell(s) the verdict depends on could not be read confidently: {place}",
            doubtful.len()
        ),
        retake,
        doubtful,
    }
}
