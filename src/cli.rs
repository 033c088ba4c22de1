//! Command-line arguments (clap). Parsing only; the commands live in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Verify physical tabletop layouts: Layers+ stacks, Camouflage boards, and their set files.
///
/// Exit status: 0 passes, 1 read with confidence and fails, 2 bad input or usage,
/// 3 undecided (the input could not be judged confidently; the message says what to retake).
#[derive(Debug, Parser)]
#[command(name = "tablejudge", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set files: palettes, Layers+ sets, Camouflage sets.
    #[command(subcommand)]
    Set(SetCommand),
    /// Layers+: stacks of double-sided layers with holes vs a mission card.
    #[command(subcommand)]
    Layers(LayersCommand),
}

#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Validate a set file of any kind (exit 0 valid, 2 invalid).
    ///
    /// A Layers+ set is also checked with the solver: every mission must be solvable with
    /// exactly its number of layers.
    Check {
        /// The set file (tablejudge/palette@1, layers-set@1 or camouflage-set@1).
        file: PathBuf,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum LayersCommand {
    /// Every way to build a mission with exactly its number of layers, and the fewest
    /// layers that can build its pattern at all.
    Solve {
        /// The Layers+ set file.
        #[arg(long)]
        set: PathBuf,
        /// The mission id, e.g. 3-07.
        #[arg(long)]
        mission: String,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Clone, Copy, Args)]
pub struct Output {
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}
