//! Exit statuses of checking commands (formats.md §5).

use std::fmt;
use std::process::ExitCode;

/// How a checking command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The layout passes (match, legal, read).
    Pass,
    /// The layout was read with confidence and fails (mismatch, illegal move).
    Fail,
    /// Bad input or usage.
    BadInput,
    /// Undecided: could not be read confidently enough to judge.
    #[allow(dead_code)] // Produced by the photo commands of issue 3.
    Undecided,
}

impl Outcome {
    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(match self {
            Outcome::Pass => 0,
            Outcome::Fail => 1,
            Outcome::BadInput => 2,
            Outcome::Undecided => 3,
        })
    }
}

/// An error about the user's input, already phrased for them (file, place, fix).
#[derive(Debug)]
pub struct BadInput(pub String);

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}
