//! One module per command group; each command returns an [`Outcome`].

mod layers;
mod set;

use anyhow::Result;

use crate::cli::{Cli, Command, LayersCommand, SetCommand};
use crate::outcome::Outcome;

pub fn run(cli: Cli) -> Result<Outcome> {
    match cli.command {
        Command::Set(SetCommand::Check { file, output }) => set::check(&file, output),
        Command::Layers(LayersCommand::Solve {
            set,
            mission,
            output,
        }) => layers::solve(&set, &mission, output),
    }
}

/// Prints a value as pretty JSON on stdout.
fn print_json(value: &impl serde::Serialize) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
