//! The `tablejudge` command line: a thin shell over the rules and vision crates.
//!
//! Raw arguments become a validated command first; every command then returns an [`Outcome`]
//! whose exit status follows formats.md §5.

#![forbid(unsafe_code)]

/// `println!` that returns the I/O error instead of panicking (a closed pipe, a full disk).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?;
    }};
}

mod annotate;
mod cli;
mod commands;
mod frames;
mod input;
mod outcome;
mod photo;

use std::process::ExitCode;

use clap::Parser;

use crate::outcome::{BadInput, Outcome};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        Err(err) if is_broken_pipe(&err) => {
            // The reader went away (`tablejudge … | head`): nothing left to say, like ripgrep.
            ExitCode::SUCCESS
        }
        Err(err) => {
            // Every error that reaches here is about the input: name it and exit 2.
            match err.downcast_ref::<BadInput>() {
                Some(bad) => eprintln!("tablejudge: {bad}"),
                None => eprintln!("tablejudge: {err:#}"),
            }
            Outcome::BadInput.exit_code()
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
