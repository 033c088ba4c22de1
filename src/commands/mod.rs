//! One module per command group; each command returns an [`Outcome`].

mod batch;
mod calibrate;
mod camouflage;
mod enroll;
mod eval;
mod eval_camouflage;
mod eval_puzzle;
mod grid;
mod judge;
mod layers;
mod mat;
mod puzzle;
mod render;
mod replay;
mod replay_locations;
mod report;
mod set;
mod watch;

use anyhow::Result;

use crate::cli::{
    CalibrateCommand, CamouflageCommand, Cli, Command, EvalCommand, GridCommand, LayersCommand,
    RenderCommand, SetCommand,
};
use crate::outcome::Outcome;

pub fn run(cli: Cli) -> Result<Outcome> {
    match cli.command {
        Command::Set(SetCommand::Check { file, output }) => set::check(&file, output),
        Command::Layers(LayersCommand::Solve {
            set,
            mission,
            output,
        }) => layers::solve(&set, &mission, output),
        Command::Layers(LayersCommand::Read {
            photo,
            set,
            photo_options,
            output,
        }) => judge::read(&photo, &set, &photo_options, output),
        Command::Layers(LayersCommand::Verify {
            photo,
            set,
            mission,
            photo_options,
            output,
        }) => judge::verify(&photo, &set, &mission, &photo_options, output),
        Command::Layers(LayersCommand::Enroll {
            photos,
            rows,
            cols,
            out,
            name,
            card_srgb,
            output,
        }) => enroll::enroll(enroll::EnrollArgs {
            photos: &photos,
            rows,
            cols,
            out: &out,
            name,
            card_srgb,
            output,
        }),
        Command::Camouflage(CamouflageCommand::Read {
            photo,
            set,
            side,
            photo_options,
            output,
        }) => camouflage::read(camouflage::CamouflageRead {
            photo: &photo,
            set: set.as_deref(),
            side: side.as_deref(),
            photo_options: &photo_options,
            output,
        }),
        Command::Camouflage(CamouflageCommand::Replay {
            source,
            set,
            side,
            mode,
            wild_centers,
            timer,
            annotate,
            settle,
            order,
            camera_calibration,
            output,
        }) => replay::replay(replay::CamouflageReplay {
            source: &source,
            set: &set,
            side: side.as_deref(),
            rules: tablejudge_rules::camouflage::GameRules {
                mode: mode.into(),
                wild_centres: wild_centers,
                timer: timer.into(),
            },
            camera_calibration: camera_calibration.as_deref(),
            annotate: annotate.as_deref(),
            settle_s: settle,
            order: match order {
                crate::cli::OrderArg::Auto => crate::frames::PhotoOrder::Auto,
                crate::cli::OrderArg::Name => crate::frames::PhotoOrder::Name,
                crate::cli::OrderArg::Time => crate::frames::PhotoOrder::Time,
            },
            output,
        }),
        Command::Camouflage(CamouflageCommand::Puzzle {
            photo,
            set,
            puzzle,
            photo_options,
            output,
        }) => puzzle::puzzle(puzzle::CamouflagePuzzle {
            photo: &photo,
            set: &set,
            puzzle: &puzzle,
            photo_options: &photo_options,
            output,
        }),
        Command::Grid(GridCommand::Read {
            photo,
            rows,
            cols,
            palette,
            min_confidence,
            photo_options,
            output,
        }) => grid::read(grid::GridRead {
            photo: &photo,
            rows,
            cols,
            palette: palette.as_deref(),
            min_confidence,
            photo_options: &photo_options,
            output,
        }),
        Command::Watch(args) => watch::watch(args),
        Command::Cameras { output } => watch::cameras(output),
        Command::Mat { out, dpi } => mat::mat(&out, dpi),
        Command::Batch(args) => batch::batch(args),
        Command::Calibrate(CalibrateCommand::Camera {
            board,
            photos,
            out,
            output,
        }) => calibrate::camera(calibrate::CalibrateCamera {
            board,
            photos: &photos,
            out: &out,
            output,
        }),
        Command::Calibrate(CalibrateCommand::Colour {
            photo,
            chart,
            rows,
            cols,
            out,
            output,
        }) => calibrate::colour(calibrate::CalibrateColour {
            photo: &photo,
            chart: chart.as_deref(),
            rows,
            cols,
            out: &out,
            output,
        }),
        Command::Render(RenderCommand::Chessboard {
            out,
            n,
            seed,
            board,
            size,
            focal,
            k1,
        }) => render::chessboard(render::RenderChessboard {
            out: &out,
            n,
            seed,
            board,
            size,
            focal,
            k1,
        }),
        Command::Eval(EvalCommand::Layers {
            set,
            n,
            seed,
            size,
            degradation,
            failures,
            only,
            output,
        }) => eval::layers(eval::EvalLayers {
            set: &set,
            n,
            seed,
            size,
            degradation,
            failures,
            only,
            output,
        }),
        Command::Eval(EvalCommand::Camouflage {
            set,
            n,
            seed,
            players,
            mistakes,
            mode,
            wild_centers,
            side,
            size,
            degradation,
            keep,
            video,
            live,
            output,
        }) => eval_camouflage::camouflage(eval_camouflage::EvalCamouflage {
            set: &set,
            n,
            seed,
            players: usize::from(players),
            mistakes,
            rules: tablejudge_rules::camouflage::GameRules {
                mode: mode.into(),
                wild_centres: wild_centers,
                timer: Default::default(),
            },
            side: side.as_deref(),
            size,
            degradation,
            keep,
            video,
            live,
            output,
        }),
        Command::Eval(EvalCommand::CamouflagePuzzle {
            set,
            n,
            seed,
            mistakes,
            size,
            degradation,
            output,
        }) => eval_puzzle::camouflage_puzzle(eval_puzzle::EvalPuzzle {
            set: &set,
            n,
            seed,
            mistakes,
            size,
            degradation,
            output,
        }),
        Command::Render(RenderCommand::Layers {
            set,
            out,
            n,
            seed,
            size,
            degradation,
            mission,
            near_miss,
            distractors,
        }) => render::layers(render::RenderLayers {
            set: &set,
            out: &out,
            n,
            seed,
            size,
            degradation,
            mission,
            near_miss,
            distractors,
        }),
        Command::Render(RenderCommand::Camouflage {
            set,
            out,
            n,
            seed,
            cards,
            series,
            players,
            mistakes,
            video,
            not_my_stack,
            puzzles,
            puzzle,
            side,
            size,
            degradation,
        }) => render::camouflage(render::RenderCamouflage {
            set: &set,
            out: &out,
            n,
            seed,
            cards: usize::from(cards),
            series: series.then_some(usize::from(players)),
            mistakes,
            puzzles: puzzles.then_some(puzzle.as_deref()),
            video,
            not_my_stack,
            side: side.as_deref(),
            size,
            degradation,
        }),
    }
}

/// Marks a reading's JSON as `read`, or `undecided` with the reason.
fn stamp_status(v: &mut serde_json::Value, reason: Option<&str>) {
    v["status"] = serde_json::json!(if reason.is_some() {
        "undecided"
    } else {
        "read"
    });
    if let Some(reason) = reason {
        v["reason"] = serde_json::json!(reason);
    }
}

/// Prints a value as pretty JSON on stdout.
fn print_json(value: &impl serde::Serialize) -> Result<()> {
    outln!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
