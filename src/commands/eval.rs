//! `tablejudge eval layers`: render scenes with known truth, run the real pipeline on their
//! JPEGs, and count what it got right.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use tablejudge_render::{render_layers, Distractors, LayersSceneSpec, SceneOptions, StackChoice};
use tablejudge_rules::layers::LayersSet;
use tablejudge_rules::{Grid, Key, Turn};
use tablejudge_vision::layers::{
    judge, JudgeOptions, Judgement, LayersError, LayersReadOptions, LayersReader,
};

use super::print_json;
use crate::cli::{DegradationArg, Output};
use crate::commands::render::degradation;
use crate::input::load_layers_set;
use crate::outcome::{BadInput, Outcome};

pub struct EvalLayers<'a> {
    pub set: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
    pub failures: Option<PathBuf>,
    /// Only these scene indices (all when empty), and no scenes without a stack.
    pub only: Vec<usize>,
    pub output: Output,
}

/// What happened to one scene.
#[derive(Clone, Debug, Serialize)]
struct SceneResult {
    index: usize,
    mission: String,
    truth_matches: bool,
    /// "match", "mismatch", "undecided".
    verdict: &'static str,
    /// Why undecided (reader or judge).
    reason: Option<String>,
    /// Cells read, cells wrong, cells wrong among those the judge would trust.
    cells: usize,
    wrong: usize,
    confident_wrong: usize,
    decode_ms: f64,
    after_decode_ms: f64,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub set: String,
    pub scenes: usize,
    pub seed: u64,
    pub degradation: String,
    pub size: String,
    pub stacks_read: usize,
    pub cells_read: usize,
    pub cell_errors: usize,
    pub confident_cell_errors: usize,
    pub per_cell_error: f64,
    pub confident_per_cell_error: f64,
    pub matches_true: usize,
    pub mismatches_true: usize,
    pub correct: usize,
    pub false_accepts: usize,
    pub false_rejects: usize,
    pub undecided: usize,
    pub verdict_accuracy: f64,
    pub decided_accuracy: f64,
    pub undecided_rate: f64,
    pub decode_ms_median: f64,
    pub after_decode_ms_median: f64,
    pub after_decode_ms_p95: f64,
    /// Reasons for undecided verdicts, most frequent first.
    pub undecided_reasons: Vec<(String, usize)>,
    /// Extra scenes with the stack moved out of view (the mission card, loose layers and the
    /// rest still there), and how many of them a stack was read from anyway: each such
    /// reading would be a verdict on a photo without a stack, usually the mission card
    /// judged against itself. Must be 0.
    pub without_stack: usize,
    pub without_stack_read: usize,
}

/// One extra scene per this many: the same table with the stack moved out of view.
const WITHOUT_STACK_EVERY: usize = 5;

/// Fewest differing cells between `read` (labels) and `truth` over the four turns: the
/// reader's row 0 is the upright one, the renderer's the stack's own.
fn align(read: &Grid<Option<Key>>, truth: &Grid<Key>) -> (Turn, usize) {
    Turn::ALL
        .iter()
        .map(|&t| {
            let turned = read.turned(t);
            let wrong = if turned.size() == truth.size() {
                turned
                    .cells()
                    .iter()
                    .zip(truth.cells())
                    .filter(|(a, b)| **a != Some(**b))
                    .count()
            } else {
                usize::MAX
            };
            (t, wrong)
        })
        .min_by_key(|(_, w)| *w)
        .unwrap_or((Turn::R0, usize::MAX))
}

/// The summary's bucket for a scene judged undecided with `doubtful` cells: their count (nine
/// and more together), or the judge's reason when no cell is to blame.
fn undecided_bucket(doubtful: usize, reason: &str) -> String {
    match doubtful {
        0 => reason.to_string(),
        1 => "1 doubtful cell".to_string(),
        2..=8 => format!("{doubtful} doubtful cells"),
        _ => "9 or more doubtful cells".to_string(),
    }
}

fn short_reason(e: &LayersError) -> String {
    match e {
        LayersError::NotFound { what, .. } => format!("no {what} found"),
        LayersError::Ambiguous { what, .. } => format!("ambiguous {what}"),
        LayersError::CutOff { what, .. } => format!("{what} cut off"),
        LayersError::Request(_) => "request".into(),
        LayersError::Vision(_) => "vision error".into(),
    }
}

pub fn layers(args: EvalLayers<'_>) -> Result<Outcome> {
    let set = load_layers_set(args.set)?;
    if set.missions().is_empty() {
        return Err(BadInput(format!(
            "{}: the set has no missions to evaluate against",
            args.set.display()
        ))
        .into());
    }
    if let Some(&past) = args.only.iter().find(|&&i| i >= args.n) {
        return Err(BadInput(format!(
            "--only {past}: scenes are numbered 0 to {} for --n {}; raise --n to reach it",
            args.n.saturating_sub(1),
            args.n
        ))
        .into());
    }
    if let Some(dir) = &args.failures {
        std::fs::create_dir_all(dir)
            .map_err(|e| BadInput(format!("{}: cannot create ({e})", dir.display())))?;
    }
    // One seed per scene, drawn up front, so results do not depend on thread scheduling.
    let mut master = ChaCha8Rng::seed_from_u64(args.seed);
    let plans: Vec<(usize, u64, String, bool)> = (0..args.n)
        .map(|i| {
            let mission = set.missions()[master.gen_range(0..set.missions().len())]
                .id()
                .to_owned();
            (i, master.gen(), mission, i % 2 == 0)
        })
        .filter(|(i, ..)| args.only.is_empty() || args.only.contains(i))
        .collect();
    let bar = ProgressBar::new(plans.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} scenes  {per_sec}  eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if args.output.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // Scenes run in parallel; OpenCV's own threads would only fight them for the cores (and
    // make the per-photo timing a multi-core figure).
    tablejudge_vision::mat::set_opencv_threads(1)?;
    let judge_options = JudgeOptions::default();
    let read_options = LayersReadOptions::default();
    let results: Vec<Result<SceneResult>> = plans
        .par_iter()
        .map_init(
            || LayersReader::new(&set),
            |reader, (index, seed, mission, matching)| {
                let result = eval_scene(
                    &set,
                    reader,
                    &args,
                    &read_options,
                    &judge_options,
                    *index,
                    *seed,
                    mission,
                    *matching,
                );
                bar.inc(1);
                result
            },
        )
        .collect();
    let hidden: Vec<u64> = (0..args.n.div_ceil(WITHOUT_STACK_EVERY))
        .map(|_| master.gen())
        .filter(|_| args.only.is_empty())
        .collect();
    bar.inc_length(hidden.len() as u64);
    let hidden_read: Vec<Result<bool>> = hidden
        .par_iter()
        .enumerate()
        .map_init(
            || LayersReader::new(&set),
            |reader, (index, &seed)| {
                let result = eval_without_stack(&set, reader, &args, &read_options, index, seed);
                bar.inc(1);
                result
            },
        )
        .collect();
    bar.finish_and_clear();
    let results: Vec<SceneResult> = results.into_iter().collect::<Result<_>>()?;
    let hidden_read: Vec<bool> = hidden_read.into_iter().collect::<Result<_>>()?;
    let mut summary = summarise(&set, &args, &results);
    summary.without_stack = hidden_read.len();
    summary.without_stack_read = hidden_read.iter().filter(|&&r| r).count();
    if args.output.json {
        print_json(&serde_json::json!({ "summary": summary, "scenes": results }))?;
    } else {
        print_summary(&summary)?;
    }
    Ok(Outcome::Pass)
}

#[allow(clippy::too_many_arguments)]
fn eval_scene(
    set: &LayersSet,
    reader: &mut Result<LayersReader, LayersError>,
    args: &EvalLayers<'_>,
    read_options: &LayersReadOptions,
    judge_options: &JudgeOptions,
    index: usize,
    seed: u64,
    mission_id: &str,
    matching: bool,
) -> Result<SceneResult> {
    let reader = reader.as_mut().map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let stack = if matching {
        StackChoice::MissionSolution {
            mission: Some(mission_id.to_owned()),
        }
    } else {
        StackChoice::NearMiss {
            mission: Some(mission_id.to_owned()),
        }
    };
    let options = SceneOptions {
        width: args.size.0,
        height: args.size.1,
        stack,
        distractors: Distractors::default(),
        degradation: degradation(args.degradation),
    };
    let spec = LayersSceneSpec::random(set, &mut rng, &options)
        .with_context(|| format!("scene {index}"))?;
    let scene = render_layers(set, &spec).with_context(|| format!("rendering scene {index}"))?;
    let jpeg = scene.jpeg()?;
    let truth = Grid::parse_rows(&scene.truth.visible)?
        .map(|&c| Key::new(c).unwrap_or_else(|_| set.card()));
    let mission = set
        .mission(mission_id)
        .context("the mission was drawn from the set")?;
    let truth_matches = mission.verify(&truth).is_match();

    let t0 = Instant::now();
    let image = tablejudge_vision::mat::decode_rgb(&jpeg)?;
    let decode_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let read = reader.read(&image, read_options);
    let judgement = read
        .as_ref()
        .ok()
        .map(|r| judge(&r.cells, mission.pattern(), judge_options));
    let after_decode_ms = t1.elapsed().as_secs_f64() * 1e3;

    let (cells, wrong, confident_wrong) = match &read {
        Ok(r) => {
            let (turn, _) = align(&r.keys(), &truth);
            let turned = r.cells.turned(turn);
            let mut wrong = 0;
            let mut confident_wrong = 0;
            for (p, reading) in turned.iter() {
                if reading.label != Some(truth[p]) {
                    wrong += 1;
                    if 1.0 - reading.confidence <= judge_options.max_cell_error {
                        confident_wrong += 1;
                    }
                }
            }
            (turned.len(), wrong, confident_wrong)
        }
        Err(_) => (0, 0, 0),
    };
    let (verdict, reason) = match (&read, &judgement) {
        (Err(e), _) => ("undecided", Some(short_reason(e))),
        (_, Some(Judgement::Match { .. })) => ("match", None),
        (_, Some(Judgement::Mismatch { .. })) => ("mismatch", None),
        (
            _,
            Some(Judgement::Undecided {
                doubtful, reason, ..
            }),
        ) => ("undecided", Some(undecided_bucket(doubtful.len(), reason))),
        (Ok(_), None) => ("undecided", Some("not judged".into())),
    };
    let failed = verdict == "undecided" || (verdict == "match") != truth_matches || wrong > 0;
    let result = SceneResult {
        index,
        mission: mission_id.to_owned(),
        truth_matches,
        verdict,
        reason,
        cells,
        wrong,
        confident_wrong,
        decode_ms,
        after_decode_ms,
    };
    if let (true, Some(dir)) = (failed, &args.failures) {
        let name = |ext: &str| dir.join(format!("scene_{index:05}.{ext}"));
        std::fs::write(name("jpg"), &jpeg)?;
        std::fs::write(
            name("truth.json"),
            serde_json::to_string_pretty(&scene.truth)?,
        )?;
        // The mission judged and the verdict, so that a failure can be told from the others.
        std::fs::write(name("result.json"), serde_json::to_string_pretty(&result)?)?;
    }
    Ok(result)
}

/// Renders a scene whose stack lies out of view (with the mission card always on the table)
/// and reads it; `true` when a stack was read from it anyway.
fn eval_without_stack(
    set: &LayersSet,
    reader: &mut Result<LayersReader, LayersError>,
    args: &EvalLayers<'_>,
    read_options: &LayersReadOptions,
    index: usize,
    seed: u64,
) -> Result<bool> {
    let reader = reader.as_mut().map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let options = SceneOptions {
        width: args.size.0,
        height: args.size.1,
        stack: StackChoice::MissionSolution { mission: None },
        distractors: Distractors {
            mission_card: 1.0,
            ..Distractors::default()
        },
        degradation: degradation(args.degradation),
    };
    let mut spec = LayersSceneSpec::random(set, &mut rng, &options)
        .with_context(|| format!("scene without stack {index}"))?;
    // Far off the table: the camera, the light and everything else stay as drawn.
    spec.stack.origin[0] += 1.0e4;
    let scene = render_layers(set, &spec)
        .with_context(|| format!("rendering scene without stack {index}"))?;
    let jpeg = scene.jpeg()?;
    let image = tablejudge_vision::mat::decode_rgb(&jpeg)?;
    let read = reader.read(&image, read_options).is_ok();
    if let (true, Some(dir)) = (read, &args.failures) {
        std::fs::write(dir.join(format!("without_stack_{index:05}.jpg")), &jpeg)?;
    }
    Ok(read)
}

fn percentile(mut v: Vec<f64>, q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn summarise(set: &LayersSet, args: &EvalLayers<'_>, results: &[SceneResult]) -> Summary {
    let n = results.len();
    let count = |f: &dyn Fn(&SceneResult) -> bool| results.iter().filter(|r| f(r)).count();
    let cells_read: usize = results.iter().map(|r| r.cells).sum();
    let cell_errors: usize = results.iter().map(|r| r.wrong).sum();
    let confident: usize = results.iter().map(|r| r.confident_wrong).sum();
    let correct = count(&|r| {
        (r.verdict == "match" && r.truth_matches) || (r.verdict == "mismatch" && !r.truth_matches)
    });
    let undecided = count(&|r| r.verdict == "undecided");
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for r in results.iter().filter_map(|r| r.reason.clone()) {
        *reasons.entry(r).or_default() += 1;
    }
    let mut undecided_reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    undecided_reasons.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    Summary {
        set: set.name().to_owned(),
        scenes: n,
        seed: args.seed,
        degradation: format!("{:?}", args.degradation).to_lowercase(),
        size: format!("{}x{}", args.size.0, args.size.1),
        stacks_read: count(&|r| r.cells > 0),
        cells_read,
        cell_errors,
        confident_cell_errors: confident,
        per_cell_error: ratio(cell_errors, cells_read),
        confident_per_cell_error: ratio(confident, cells_read),
        matches_true: count(&|r| r.truth_matches),
        mismatches_true: count(&|r| !r.truth_matches),
        correct,
        false_accepts: count(&|r| r.verdict == "match" && !r.truth_matches),
        false_rejects: count(&|r| r.verdict == "mismatch" && r.truth_matches),
        undecided,
        verdict_accuracy: ratio(correct, n),
        decided_accuracy: ratio(correct, n - undecided),
        undecided_rate: ratio(undecided, n),
        decode_ms_median: percentile(results.iter().map(|r| r.decode_ms).collect(), 0.5),
        after_decode_ms_median: percentile(
            results.iter().map(|r| r.after_decode_ms).collect(),
            0.5,
        ),
        after_decode_ms_p95: percentile(results.iter().map(|r| r.after_decode_ms).collect(), 0.95),
        undecided_reasons,
        without_stack: 0,
        without_stack_read: 0,
    }
}

fn print_summary(s: &Summary) -> Result<()> {
    let pct = |x: f64| format!("{:.3}%", 100.0 * x);
    outln!("| set | scenes | per-cell error (all read cells) | per-cell error (confident cells) | verdict accuracy | accuracy when decided | false accepts | false rejects | undecided |");
    outln!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    outln!(
        "| {} | {} ({} match, {} near-miss) | {} ({} of {}) | {} ({}) | {} | {} | {} | {} | {} ({}) |",
        s.set, s.scenes, s.matches_true, s.mismatches_true, pct(s.per_cell_error), s.cell_errors, s.cells_read,
        pct(s.confident_per_cell_error), s.confident_cell_errors, pct(s.verdict_accuracy), pct(s.decided_accuracy),
        s.false_accepts, s.false_rejects, pct(s.undecided_rate), s.undecided
    );
    outln!();
    outln!(
        "timing per photo ({}, {}): decode {:.1} ms median; everything after decoding {:.1} ms median, {:.1} ms p95 (threads share 2 cores)",
        s.size, s.degradation, s.decode_ms_median, s.after_decode_ms_median, s.after_decode_ms_p95
    );
    outln!(
        "without the stack (moved out of view, the mission card on the table): {} scenes, a stack read from {} (must be 0)",
        s.without_stack, s.without_stack_read
    );
    if !s.undecided_reasons.is_empty() {
        let r: Vec<String> = s
            .undecided_reasons
            .iter()
            .map(|(r, n)| format!("{r}: {n}"))
            .collect();
        outln!("why undecided: {}", r.join(", "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undecided_scenes_are_bucketed_by_their_doubtful_cells() {
        let reason = "the read grid is 4x4 but the pattern is 5x5";
        assert_eq!(undecided_bucket(0, reason), reason);
        assert_eq!(undecided_bucket(1, reason), "1 doubtful cell");
        assert_eq!(undecided_bucket(8, reason), "8 doubtful cells");
        assert_eq!(undecided_bucket(16, reason), "9 or more doubtful cells");
    }
}
