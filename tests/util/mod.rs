//! Helpers for running the binary and looking at what it did.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (where `models/` lives).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn model(rel: &str) -> PathBuf {
    root().join("models").join(rel)
}

/// The result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// Runs `tablejudge` with `args` in the repository root.
pub fn tablejudge<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_tablejudge"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the tablejudge binary runs");
    Run {
        code: status
            .code()
            .expect("tablejudge exits normally, not by a signal"),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// Asserts the exit status, showing both streams when it is wrong.
#[macro_export]
macro_rules! assert_exit {
    ($run:expr, $code:expr) => {{
        let run = &$run;
        assert_eq!(
            run.code, $code,
            "exit status {} (expected {})\n--- stdout\n{}\n--- stderr\n{}",
            run.code, $code, run.stdout, run.stderr
        );
    }};
}

/// Writes `text` to a file named `name` in a fresh temporary folder.
pub fn temp_file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write the temporary file");
    (dir, path)
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}
