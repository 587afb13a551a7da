//! `stonegame interact`: the command line of the interactor
//! ([`crate::judge::interact`], where the protocol and the verdicts are;
//! docs/play.md).
//!
//! Two ways to run it: with `-- PROGRAM [ARGS…]` it starts the program with
//! piped standard input and output; without a program it talks on its own
//! standard input (the program's output) and standard output (the program's
//! input), for judge systems that wire the pipes themselves (testlib's
//! `interactor INPUT OUTPUT`, DOMjudge/Kattis's `validator INPUT
//! JUDGE_ANSWER FEEDBACK_DIR < team_output > team_input`).
//!
//! The verdict line goes to stderr; the exit code and the message files
//! follow the [`Format`].

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use crate::core::{ValidRow, Variant};
use crate::judge::check::Verdict;
use crate::judge::interact::{self as judge, Outcome, Program, Settings, Transcript};

/// Conventions for exit codes and messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Exit 0 accepted, 1 wrong answer, 2 presentation error, 3 judge
    /// failure; the verdict line (`ok …`, `wrong answer …`, …) on stderr.
    #[default]
    Testlib,
    /// Exit 42 accepted, 43 rejected (wrong answer or presentation error), 3
    /// judge failure; the message also in FEEDBACK_DIR/judgemessage.txt.
    Kattis,
}

/// Arguments of `stonegame interact`.
#[derive(Debug, clap::Args)]
pub struct InteractArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The judge's strength in [0, 1]: with this probability it plays its
    /// optimal move, otherwise a random legal one (1: perfect when it can
    /// win).
    #[arg(long, default_value_t = 1.0, value_parser = parse_strength)]
    pub strength: f64,
    /// Seed of the judge's random choices (same seed, same games).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Longest wait for each line of the program, in milliseconds (≥ 1).
    #[arg(long, default_value_t = 10_000, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub move_timeout_ms: u64,
    /// Accept only wins with tempo: each game must be won within the
    /// remoteness of its row (the plies of perfect play, the winner winning
    /// fastest), the judge then resisting longest when it loses. A slower
    /// win is a wrong answer (exit 1, kattis 43): "won, but too slowly:
    /// took K plies, perfect play takes R". Costs the O(n²) remoteness of
    /// each row (docs/benchmarks.md has the figures); games last up to that
    /// many plies.
    #[arg(long)]
    pub tempo: bool,
    /// Write every line exchanged (`>` judge to program, `<` program to
    /// judge, `#` notes) to FILE.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// Exit codes and message files: testlib or kattis (DOMjudge).
    #[arg(long, value_enum, default_value_t = Format::Testlib)]
    pub format: Format,
    /// The games: OJ format (T, then n and the piles per game).
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    /// testlib: a file the verdict line is also written to (testlib's
    /// interactor output file); kattis: the judge answer (not read).
    #[arg(value_name = "OUTPUT_OR_ANSWER")]
    pub second: Option<PathBuf>,
    /// kattis: the feedback directory (default: $FEEDBACK_DIR) where
    /// judgemessage.txt is written.
    #[arg(value_name = "FEEDBACK_DIR")]
    pub feedback_dir: Option<PathBuf>,
    /// The contestant's program and its arguments, after `--`. Without it,
    /// the judge talks on its own standard input and output.
    #[arg(last = true, value_name = "PROGRAM")]
    pub program: Vec<OsString>,
}

/// Parses a strength in [0, 1].
pub(crate) fn parse_strength(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a number in [0, 1]")),
    }
}

/// Runs the command.
pub fn run(args: InteractArgs) -> ExitCode {
    let outcome = interact(&args);
    report(&args, &outcome)
}

/// Prints the verdict line on stderr, writes the message files, and returns
/// the exit code of the format.
fn report(args: &InteractArgs, outcome: &Outcome) -> ExitCode {
    let line = format!("{} {}", outcome.verdict.testlib_name(), outcome.message);
    eprintln!("{line}");
    match args.format {
        Format::Testlib => {
            if let Some(path) = &args.second
                && let Err(e) = std::fs::write(path, format!("{line}\n"))
            {
                eprintln!("stonegame: cannot write {}: {e}", path.display());
            }
            ExitCode::from(outcome.verdict.exit_code())
        }
        Format::Kattis => {
            let dir = args
                .feedback_dir
                .clone()
                .or_else(|| std::env::var_os("FEEDBACK_DIR").map(PathBuf::from));
            if let Some(dir) = dir {
                let name = match outcome.verdict {
                    Verdict::JudgeFailure => "judgeerror.txt",
                    _ => "judgemessage.txt",
                };
                let path = dir.join(name);
                if let Err(e) = std::fs::write(&path, format!("{line}\n")) {
                    eprintln!("stonegame: cannot write {}: {e}", path.display());
                }
            }
            ExitCode::from(match outcome.verdict {
                Verdict::Accepted => 42,
                Verdict::WrongAnswer | Verdict::PresentationError => 43,
                Verdict::JudgeFailure => 3,
            })
        }
    }
}

/// Reads INPUT, starts the program and runs the judge; a judge failure as
/// its `FAIL` outcome.
pub fn interact(args: &InteractArgs) -> Outcome {
    judged(args).unwrap_or_else(|message| Outcome {
        verdict: Verdict::JudgeFailure,
        message,
    })
}

/// [`interact`], a judge failure as its message.
fn judged(args: &InteractArgs) -> Result<Outcome, String> {
    let wired = args.program.is_empty();
    if wired && args.input.as_os_str() == "-" {
        return Err(
            "INPUT cannot be standard input without a PROGRAM (it is the program's output)".into(),
        );
    }
    let games = read_games(&args.input)?;
    let transcript = Transcript::create(args.transcript.as_deref()).map_err(|e| e.to_string())?;
    let program = if wired {
        Program {
            input: Box::new(io::stdout()),
            output: Box::new(io::stdin()),
            child: None,
        }
    } else {
        let mut cmd = Command::new(&args.program[0]);
        cmd.args(&args.program[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut c = cmd.spawn().map_err(|e| {
            let program = Path::new(&args.program[0]);
            format!("cannot run {}: {e}", program.display())
        })?;
        Program {
            input: Box::new(c.stdin.take().expect("piped")),
            output: Box::new(c.stdout.take().expect("piped")),
            child: Some(c),
        }
    };
    let settings = Settings {
        variant: args.variant,
        strength: args.strength,
        seed: args.seed,
        move_timeout: Duration::from_millis(args.move_timeout_ms),
        tempo: args.tempo,
    };
    judge::interact(&games, &settings, program, transcript).map_err(|e| e.to_string())
}

/// The games of INPUT, or the `FAIL` message.
fn read_games(path: &Path) -> Result<Vec<ValidRow<'static>>, String> {
    let input = super::open_input(Some(path))
        .map_err(|e| format!("cannot open the input {}: {e}", path.display()))?;
    judge::read_games(input).map_err(|e| e.to_string())
}
