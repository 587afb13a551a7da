//! `stonegame check`: a testlib-style checker for a contestant's output.
//!
//! Prints one verdict line on stdout (`ok …`, `wrong answer …`,
//! `wrong output format …`, `FAIL …`) and exits with the testlib code:
//! 0 accepted, 1 wrong answer, 2 presentation error, 3 judge failure (the
//! input file is malformed or a file cannot be opened or read). The rules are
//! in [`crate::judge::check`].

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::judge::check::{Verdict, check};

use crate::core::Variant;

/// Arguments of `stonegame check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The test input (OJ format); `-` for standard input.
    pub input: PathBuf,
    /// The contestant's output: one `0`/`1` line per case; `-` for standard
    /// input (not both).
    pub answer: PathBuf,
}

/// Runs the command.
pub fn run(args: CheckArgs) -> ExitCode {
    let (line, code) = verdict_line(&args);
    let mut out = io::stdout().lock();
    // A verdict that cannot be printed still has its exit code.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    ExitCode::from(code)
}

fn verdict_line(args: &CheckArgs) -> (String, u8) {
    let (input, answer) = match open_files(args) {
        Ok(files) => files,
        Err(msg) => return (msg, Verdict::JudgeFailure.exit_code()),
    };
    let buffered = |r| io::BufReader::with_capacity(1 << 16, r);
    let report = check(buffered(input), buffered(answer), args.variant);
    (report.message, report.verdict.exit_code())
}

/// A readable file (or standard input) that may move to another thread.
pub type SendRead = Box<dyn io::Read + Send>;

/// Opens the input and the answer of `args`; the `FAIL …` verdict line if
/// that is impossible (shared with `client check`).
pub fn open_files(args: &CheckArgs) -> Result<(SendRead, SendRead), String> {
    let fail = |msg: String| format!("FAIL {msg}");
    if args.input.as_os_str() == "-" && args.answer.as_os_str() == "-" {
        return Err(fail(
            "the input and the answer cannot both be standard input".into(),
        ));
    }
    let open = |path: &PathBuf, what: &str| -> Result<SendRead, String> {
        if path.as_os_str() == "-" {
            return Ok(Box::new(io::stdin()));
        }
        File::open(path)
            .map(|f| Box::new(f) as SendRead)
            .map_err(|e| fail(format!("cannot open the {what} {}: {e}", path.display())))
    };
    Ok((open(&args.input, "input")?, open(&args.answer, "answer")?))
}
