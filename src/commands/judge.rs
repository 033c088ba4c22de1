//! `tablejudge layers read` and `tablejudge layers verify`: photos of stacks, judged.

use std::path::Path;

use anyhow::Result;
use image::{Rgb, RgbImage};
use serde_json::{json, Value};
use tablejudge_rules::layers::LayersSet;
use tablejudge_rules::{Grid, Key, Pos};
use tablejudge_vision::layers::{
    judge, judge_against_photo, FoundGrid, GridKind, JudgeOptions, Judgement, LayersError,
    LayersReadOptions, LayersReader, LayersReading, MissionReading,
};
use tablejudge_vision::rectify::Quad;
use tablejudge_vision::Reading;

use super::print_json;
use crate::annotate::{annotate, grid_to_image, CellMark, CellNote, GridNote};
use crate::cli::{MissionSource, Output, PhotoOptions};
use crate::input::load_layers_set;
use crate::outcome::{BadInput, Outcome};
use crate::photo::{load_camera, load_corrected, load_photo, photo_colour, prepare, save_image};
use tablejudge_vision::colour_chart::ColourMatrix;

const STACK_COLOUR: Rgb<u8> = Rgb([0, 160, 255]);
const MISSION_COLOUR: Rgb<u8> = Rgb([200, 80, 255]);
const OTHER_COLOUR: Rgb<u8> = Rgb([150, 150, 150]);

fn read_options(photo_options: &PhotoOptions) -> Result<LayersReadOptions> {
    let camera = photo_options
        .camera_calibration
        .as_deref()
        .map(load_camera)
        .transpose()?;
    Ok(LayersReadOptions {
        camera,
        ..LayersReadOptions::default()
    })
}

/// A reading error of the photo itself (no stack, two stacks, cut off) is undecided; a
/// malformed request is bad input.
fn undecided_or_bad(e: LayersError, source: &str) -> Result<(String, Vec<FoundGrid>)> {
    match e {
        LayersError::Request(_) => Err(BadInput(format!("{source}: {e}")).into()),
        other => Ok((other.to_string(), other.grids().to_vec())),
    }
}

/// Cells the judge would not trust (confidence below its per-cell bar).
fn doubtful_cells(cells: &Grid<Reading>, options: &JudgeOptions) -> Vec<Pos> {
    cells
        .iter()
        .filter(|(_, r)| 1.0 - r.confidence > options.max_cell_error)
        .map(|(p, _)| p)
        .collect()
}

fn grid_rows(cells: &Grid<Reading>) -> Vec<String> {
    cells.map(|r| r.label.map_or('?', Key::char)).to_rows()
}

fn other_grids_json(grids: &[FoundGrid]) -> Value {
    json!(grids)
}

pub fn read(
    photo: &Path,
    set_path: &Path,
    photo_options: &PhotoOptions,
    output: Output,
) -> Result<Outcome> {
    let set = load_layers_set(set_path)?;
    let options = read_options(photo_options)?;
    let image = load_corrected(photo, photo_options)?;
    let source = photo.display().to_string();
    let mut reader =
        LayersReader::new(&set).map_err(|e| BadInput(format!("{}: {e}", set_path.display())))?;
    let judge_options = JudgeOptions::default();
    match reader.read(&image, &options) {
        Ok(reading) => {
            let doubtful = doubtful_cells(&reading.cells, &judge_options);
            let outcome = if doubtful.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Undecided
            };
            let reason = (!doubtful.is_empty()).then(|| doubt_reason(&doubtful));
            if output.json {
                let mut v = serde_json::to_value(reading.to_observation(&source))?;
                v["status"] = json!(if doubtful.is_empty() {
                    "read"
                } else {
                    "undecided"
                });
                v["min_layers"] = json!(reading.min_layers);
                v["inferred_cells"] = inferred_json(&reading.inferred);
                v["grids"] = other_grids_json(&reading.grids);
                if let Some(r) = &reason {
                    v["reason"] = json!(r);
                }
                print_json(&v)?;
            } else {
                outln!("{source}: stack read ({}x{})", set.rows(), set.cols());
                for row in grid_rows(&reading.cells) {
                    outln!("  {row}");
                }
                match reading.min_layers {
                    Some(n) => outln!("fewest layers of the set that show this: {n}"),
                    None => outln!("no stack of this set shows this grid: some cell is misread"),
                }
                if let Some(line) = inferred_line(&reading.inferred) {
                    outln!("{line}");
                }
                if let Some(r) = &reason {
                    outln!("undecided: {r}");
                }
            }
            if let Some(out) = &photo_options.annotate {
                let marks = reading.cells.map(|_| CellMark::Fine);
                let marks = mark_cells(marks, &doubtful, CellMark::Doubtful);
                let banner = match &reason {
                    None => "READ: every cell confident".to_owned(),
                    Some(r) => format!("UNDECIDED: {r}"),
                };
                let mark = if reason.is_none() {
                    CellMark::Fine
                } else {
                    CellMark::Doubtful
                };
                save_image(
                    &draw(&image, &set, Some(&reading), None, &marks, &banner, mark),
                    out,
                )?;
            }
            Ok(outcome)
        }
        Err(e) => undecided_photo(e, &source, &image, &set, photo_options, output),
    }
}

/// The stack could not be settled on: say why (and draw every grid found), exit 3.
fn undecided_photo(
    e: LayersError,
    source: &str,
    image: &RgbImage,
    set: &LayersSet,
    photo_options: &PhotoOptions,
    output: Output,
) -> Result<Outcome> {
    let (reason, grids) = undecided_or_bad(e, source)?;
    report_undecided(source, &reason, &grids, output)?;
    if let Some(out) = &photo_options.annotate {
        let banner = format!("UNDECIDED: {reason}");
        save_image(&draw_grids_only(image, set, &grids, &banner), out)?;
    }
    Ok(Outcome::Undecided)
}

/// The cells the rules filled in, as a line for people; `None` when there are none.
fn inferred_line(inferred: &[Pos]) -> Option<String> {
    (!inferred.is_empty()).then(|| {
        let cells: Vec<String> = inferred.iter().map(ToString::to_string).collect();
        format!(
            "filled in by the rules (the photo could not show them; only this colouring makes a stack of the set): {}",
            cells.join("; ")
        )
    })
}

/// The cells the rules filled in, as `[row, column]` pairs (0-based, like the observation).
fn inferred_json(inferred: &[Pos]) -> Value {
    json!(inferred.iter().map(|p| [p.row, p.col]).collect::<Vec<_>>())
}

fn doubt_reason(doubtful: &[Pos]) -> String {
    let cells: Vec<String> = doubtful.iter().map(ToString::to_string).collect();
    format!(
        "{} cell{} not read confidently ({}): retake with even light, no glare or shadow on the stack",
        doubtful.len(),
        if doubtful.len() == 1 { "" } else { "s" },
        cells.join("; ")
    )
}

fn report_undecided(source: &str, reason: &str, grids: &[FoundGrid], output: Output) -> Result<()> {
    if output.json {
        print_json(
            &json!({ "source": source, "verdict": "undecided", "reason": reason, "grids": grids }),
        )
    } else {
        outln!("{source}: undecided: {reason}");
        Ok(())
    }
}

fn mark_cells(mut marks: Grid<CellMark>, cells: &[Pos], mark: CellMark) -> Grid<CellMark> {
    for &p in cells {
        if let Some(m) = marks.get_mut(p) {
            *m = mark;
        }
    }
    marks
}

/// The mission to verify against: a set mission's pattern, or a mission card read from a photo.
enum Expected {
    SetMission(String, Grid<Key>),
    Photo(MissionReading),
}

/// Where a session's mission comes from, once set up.
enum Mission {
    Set(String, Grid<Key>),
    /// A photo of the mission card alone, read once: its reading, or (source, why, grids) when
    /// it could not be read, which leaves every stack undecided.
    CardPhoto(Result<MissionReading, (String, String, Vec<FoundGrid>)>),
    InPhoto,
}

/// Judges stack photos against one mission: `layers verify` judges one photo with it, `batch`
/// and `watch` many. Set up once (the set, its solver, the mission card's photo read).
pub struct StackJudge {
    set: LayersSet,
    reader: LayersReader,
    /// The colour calibration every photo is corrected with first.
    colour: Option<ColourMatrix>,
    options: LayersReadOptions,
    judge_options: JudgeOptions,
    mission: Mission,
}

/// One photo's verdict, in every form a command reports it.
pub struct StackVerdict {
    pub outcome: Outcome,
    /// What `layers verify --json` prints.
    pub json: Value,
    /// What `layers verify` prints for people.
    pub text: Vec<String>,
    /// The verdict in one line: MATCH …, MISMATCH …, UNDECIDED: ….
    pub headline: String,
    drawing: Drawing,
    /// The judge mat's top-down view the photo was read from, when a mat was in it.
    view: Option<RgbImage>,
}

/// What an annotated image of a verdict shows.
enum Drawing {
    Judged {
        stack: Box<LayersReading>,
        /// The mission card when it lies in the same photo.
        mission: Option<Box<MissionReading>>,
        marks: Grid<CellMark>,
        mark: CellMark,
    },
    /// No stack settled on: every grid found.
    GridsOnly(Vec<FoundGrid>),
    /// The mission card's own photo could not be read: nothing to draw on the stack photo.
    Nothing,
}

impl StackJudge {
    pub fn new(
        set_path: &Path,
        source_of_mission: &MissionSource,
        photo_options: &PhotoOptions,
    ) -> Result<StackJudge> {
        let set = load_layers_set(set_path)?;
        let options = read_options(photo_options)?;
        let mut reader = LayersReader::new(&set)
            .map_err(|e| BadInput(format!("{}: {e}", set_path.display())))?;
        let mission = if source_of_mission.mission_in_photo {
            Mission::InPhoto
        } else if let Some(card_path) = &source_of_mission.mission_photo {
            let card = load_corrected(card_path, photo_options)?;
            let card_source = card_path.display().to_string();
            Mission::CardPhoto(match reader.read_mission(&card, &options) {
                Ok(m) => Ok(m),
                Err(e) => {
                    let (reason, grids) = undecided_or_bad(e, &card_source)?;
                    Err((card_source, reason, grids))
                }
            })
        } else {
            let id = source_of_mission.mission.clone().unwrap_or_default();
            match set.mission(&id) {
                Some(m) => Mission::Set(id, m.pattern().clone()),
                None => {
                    let ids: Vec<&str> = set.missions().iter().map(|m| m.id()).collect();
                    return Err(BadInput(format!(
                        "{}: no mission {id:?} (the set's missions: {})",
                        set_path.display(),
                        if ids.is_empty() {
                            "none; use --mission-photo or --mission-in-photo".to_owned()
                        } else {
                            ids.join(", ")
                        }
                    ))
                    .into());
                }
            }
        };
        Ok(StackJudge {
            set,
            reader,
            colour: photo_colour(photo_options)?,
            options,
            judge_options: JudgeOptions::default(),
            mission,
        })
    }

    /// Judges the stack in `image` (named `source` in the reports). An `Err` is bad input.
    pub fn judge(&mut self, image: &RgbImage, source: &str) -> Result<StackVerdict> {
        let prepared = prepare(
            image,
            self.colour.as_ref(),
            self.options.camera.is_some(),
            source,
        )?;
        let Some((prepared, top_down)) = prepared else {
            return self.judge_prepared(image, source);
        };
        let mut verdict = self.judge_prepared(&prepared, source)?;
        if top_down {
            // The verdict's grids lie in the mat's top-down view: it is what is drawn on.
            verdict.view = Some(prepared);
        }
        Ok(verdict)
    }

    fn judge_prepared(&mut self, image: &RgbImage, source: &str) -> Result<StackVerdict> {
        let read = match &self.mission {
            Mission::InPhoto => self
                .reader
                .read_both(image, &self.options)
                .map(|(s, m)| (s, Expected::Photo(m))),
            Mission::CardPhoto(Ok(m)) => self
                .reader
                .read(image, &self.options)
                .map(|s| (s, Expected::Photo(m.clone()))),
            Mission::CardPhoto(Err((card_source, reason, grids))) => {
                let reason = format!("mission card photo {card_source}: {reason}");
                return Ok(undecided_verdict(
                    source,
                    reason,
                    grids.clone(),
                    Drawing::Nothing,
                ));
            }
            Mission::Set(id, pattern) => self
                .reader
                .read(image, &self.options)
                .map(|s| (s, Expected::SetMission(id.clone(), pattern.clone()))),
        };
        let (stack, expected) = match read {
            Ok(x) => x,
            Err(e) => {
                let (reason, grids) = undecided_or_bad(e, source)?;
                let drawing = Drawing::GridsOnly(grids.clone());
                return Ok(undecided_verdict(source, reason, grids, drawing));
            }
        };
        let judgement = match &expected {
            Expected::SetMission(_, pattern) => judge(&stack.cells, pattern, &self.judge_options),
            Expected::Photo(m) => judge_against_photo(&stack.cells, &m.cells, &self.judge_options),
        };
        let outcome = match &judgement {
            Judgement::Match { .. } => Outcome::Pass,
            Judgement::Mismatch { .. } => Outcome::Fail,
            Judgement::Undecided { .. } => Outcome::Undecided,
        };
        let (mission_id, mission_rows) = match &expected {
            Expected::SetMission(id, p) => (Some(id.clone()), p.map(|k| k.char()).to_rows()),
            Expected::Photo(m) => (
                m.mission.as_ref().map(|i| i.id.clone()),
                grid_rows(&m.cells),
            ),
        };
        let in_photo = matches!(self.mission, Mission::InPhoto);

        let mut json = serde_json::to_value(&judgement)?;
        json["source"] = json!(source);
        json["mission"] = json!({
            "id": mission_id,
            "from": match (&expected, in_photo) {
                (Expected::SetMission(..), _) => "set",
                (Expected::Photo(_), true) => "same photo",
                (Expected::Photo(_), false) => "mission photo",
            },
            "pattern": mission_rows,
        });
        json["stack"] = serde_json::to_value(stack.to_observation(source))?;
        json["inferred_cells"] = inferred_json(&stack.inferred);
        json["grids"] = other_grids_json(&stack.grids);

        let headline = verdict_line(&judgement);
        let mut text = vec![
            format!("{source}: {headline}"),
            format!(
                "  stack            mission{} (turned like the stack)",
                mission_id
                    .as_deref()
                    .map(|i| format!(" {i}"))
                    .unwrap_or_default()
            ),
        ];
        // Shown turned into the stack's orientation, so the cells in the verdict line up.
        let back = match &judgement {
            Judgement::Match { quarter_turns, .. } => quarter_turns.inverse(),
            Judgement::Mismatch {
                best_quarter_turns, ..
            } => best_quarter_turns.inverse(),
            Judgement::Undecided { .. } => tablejudge_rules::Turn::R0,
        };
        let shown = match &expected {
            Expected::SetMission(_, p) => p.turned(back).map(|k| k.char()).to_rows(),
            Expected::Photo(m) => grid_rows(&m.cells.turned(back)),
        };
        for (s, m) in grid_rows(&stack.cells).iter().zip(&shown) {
            text.push(format!("  {s:<16} {m}"));
        }
        if let Some(line) = inferred_line(&stack.inferred) {
            text.push(format!("  {line}"));
        }
        if let Judgement::Undecided { retake, .. } = &judgement {
            text.push(format!("  retake: {retake}"));
        }

        let marks = stack.cells.map(|_| CellMark::Fine);
        let marks = match &judgement {
            Judgement::Mismatch { mismatched, .. } => {
                mark_cells(marks, mismatched, CellMark::Mismatch)
            }
            Judgement::Undecided { doubtful, .. } => mark_cells(
                marks,
                &doubtful.iter().map(|d| d.pos).collect::<Vec<_>>(),
                CellMark::Doubtful,
            ),
            Judgement::Match { .. } => marks,
        };
        let mark = match outcome {
            Outcome::Pass => CellMark::Fine,
            Outcome::Fail => CellMark::Mismatch,
            _ => CellMark::Doubtful,
        };
        let mission = match expected {
            Expected::Photo(m) if in_photo => Some(Box::new(m)),
            _ => None,
        };
        Ok(StackVerdict {
            outcome,
            json,
            text,
            headline,
            drawing: Drawing::Judged {
                stack: Box::new(stack),
                mission,
                marks,
                mark,
            },
            view: None,
        })
    }

    /// `image` annotated with `verdict`: the grids found, each cell's reading, the cells that
    /// differ or are doubtful, and the verdict. `None` when there is nothing to draw.
    pub fn draw(&self, image: &RgbImage, verdict: &StackVerdict) -> Option<RgbImage> {
        let image = verdict.view.as_ref().unwrap_or(image);
        match &verdict.drawing {
            Drawing::Judged {
                stack,
                mission,
                marks,
                mark,
            } => Some(draw(
                image,
                &self.set,
                Some(stack),
                mission.as_deref(),
                marks,
                &verdict.headline,
                *mark,
            )),
            Drawing::GridsOnly(grids) => {
                Some(draw_grids_only(image, &self.set, grids, &verdict.headline))
            }
            Drawing::Nothing => None,
        }
    }
}

/// The verdict when no stack could be judged: why, and every grid found.
fn undecided_verdict(
    source: &str,
    reason: String,
    grids: Vec<FoundGrid>,
    drawing: Drawing,
) -> StackVerdict {
    StackVerdict {
        outcome: Outcome::Undecided,
        json: json!({ "source": source, "verdict": "undecided", "reason": reason, "grids": grids }),
        text: vec![format!("{source}: undecided: {reason}")],
        headline: format!("UNDECIDED: {reason}"),
        drawing,
        view: None,
    }
}

pub fn verify(
    photo: &Path,
    set_path: &Path,
    source_of_mission: &MissionSource,
    photo_options: &PhotoOptions,
    output: Output,
) -> Result<Outcome> {
    let mut judge = StackJudge::new(set_path, source_of_mission, photo_options)?;
    let image = load_photo(photo)?;
    let verdict = judge.judge(&image, &photo.display().to_string())?;
    if output.json {
        print_json(&verdict.json)?;
    } else {
        for line in &verdict.text {
            outln!("{line}");
        }
    }
    if let Some(out) = &photo_options.annotate {
        if let Some(annotated) = judge.draw(&image, &verdict) {
            save_image(&annotated, out)?;
        }
    }
    Ok(verdict.outcome)
}

fn verdict_line(j: &Judgement) -> String {
    match j {
        Judgement::Match { quarter_turns, .. } => {
            format!("MATCH (stack turned {} degrees)", quarter_turns.degrees())
        }
        Judgement::Mismatch { mismatched, .. } => {
            let cells: Vec<String> = mismatched.iter().map(ToString::to_string).collect();
            let (noun, verb) = if mismatched.len() == 1 {
                ("cell", "differs")
            } else {
                ("cells", "differ")
            };
            format!(
                "MISMATCH: {} {noun} {verb}: {}",
                mismatched.len(),
                cells.join("; ")
            )
        }
        Judgement::Undecided { reason, .. } => format!("UNDECIDED: {reason}"),
    }
}

fn cell_notes(cells: &Grid<Reading>, marks: &Grid<CellMark>) -> Vec<CellNote> {
    cells
        .iter()
        .map(|(p, r)| CellNote {
            text: r.label.map_or_else(|| "?".to_owned(), |k| k.to_string()),
            mark: marks[p],
        })
        .collect()
}

fn draw(
    image: &RgbImage,
    set: &LayersSet,
    stack: Option<&LayersReading>,
    mission: Option<&MissionReading>,
    marks: &Grid<CellMark>,
    banner: &str,
    mark: CellMark,
) -> RgbImage {
    let (rows, cols) = (set.rows(), set.cols());
    let stack_map = stack.and_then(|s| grid_to_image(&s.corners, rows, cols));
    let mission_map = mission.and_then(|m| grid_to_image(&m.corners, rows, cols));
    let stack_notes = stack
        .map(|s| cell_notes(&s.cells, marks))
        .unwrap_or_default();
    let mission_notes = mission
        .map(|m| cell_notes(&m.cells, &m.cells.map(|_| CellMark::Fine)))
        .unwrap_or_default();
    let mut grids = Vec::new();
    if let Some(f) = &stack_map {
        grids.push(GridNote {
            rows,
            cols,
            to_image: f,
            cells: &stack_notes,
            outline: STACK_COLOUR,
            caption: Some("stack"),
        });
    }
    if let Some(f) = &mission_map {
        grids.push(GridNote {
            rows,
            cols,
            to_image: f,
            cells: &mission_notes,
            outline: MISSION_COLOUR,
            caption: Some("mission card"),
        });
    }
    annotate(image, &grids, banner, mark)
}

/// When no stack was settled on: every grid found, outlined and captioned by what it seemed.
fn draw_grids_only(
    image: &RgbImage,
    set: &LayersSet,
    grids: &[FoundGrid],
    banner: &str,
) -> RgbImage {
    let (rows, cols) = (set.rows(), set.cols());
    let maps: Vec<(Quad, &'static str)> = grids
        .iter()
        .map(|g| {
            let caption = match g.kind {
                GridKind::Stack => "stack?",
                GridKind::MissionCard => "mission card",
                GridKind::NotOnCard => "not on a player card",
                GridKind::CutOff => "cut off",
                GridKind::Unexamined => "not examined",
            };
            (g.corners, caption)
        })
        .collect();
    let fns: Vec<_> = maps
        .iter()
        .filter_map(|(q, c)| grid_to_image(q, rows, cols).map(|f| (f, *c)))
        .collect();
    let notes: Vec<CellNote> = Vec::new();
    let grid_notes: Vec<GridNote> = fns
        .iter()
        .map(|(f, c)| GridNote {
            rows,
            cols,
            to_image: f,
            cells: &notes,
            outline: OTHER_COLOUR,
            caption: Some(c),
        })
        .collect();
    annotate(image, &grid_notes, banner, CellMark::Doubtful)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tablejudge_rules::Turn;

    #[test]
    fn a_mismatch_line_counts_its_cells_in_good_english() {
        let line = |cells: &[Pos]| {
            verdict_line(&Judgement::Mismatch {
                best_quarter_turns: Turn::ALL[0],
                mismatched: cells.to_vec(),
            })
        };
        let a = Pos { row: 3, col: 1 };
        let b = Pos { row: 0, col: 2 };
        assert_eq!(line(&[a]), format!("MISMATCH: 1 cell differs: {a}"));
        assert_eq!(line(&[a, b]), format!("MISMATCH: 2 cells differ: {a}; {b}"));
    }
}
