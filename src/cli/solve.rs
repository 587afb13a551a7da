//! `stonegame solve`: the original judge, streaming.
//!
//! Reads OJ-format input case by case, solves cases in batches on all cores
//! and prints one `0`/`1` line per case in input order. On malformed input the
//! verdicts of all cases before the error are printed, then the error (case,
//! line, column) goes to stderr and the exit code is 1. With `--remoteness`
//! each line is `verdict remoteness` (in plies, docs/game.md §5).

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use rayon::prelude::*;

use crate::core::Variant;
use crate::core::batch::Batch;
use crate::core::remoteness;
use crate::ojformat::{OjError, OjReader};

use super::{cannot_read, fail, open_input};

/// Arguments of `stonegame solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// Print `verdict remoteness` per case: the remoteness in plies, how
    /// long the game lasts under perfect play (docs/game.md §5). The
    /// two-ends remoteness is O(n²) like the verdict, with a larger
    /// constant (docs/benchmarks.md has the figures).
    #[arg(long)]
    pub remoteness: bool,
    /// OJ-format input; standard input when absent or `-`.
    pub file: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: SolveArgs) -> ExitCode {
    let input = match open_input(args.file.as_deref()) {
        Ok(i) => i,
        Err(e) => return fail(cannot_read(args.file.as_deref(), &e)),
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = solve_stream_with(input, args.variant, args.remoteness, &mut out);
    let flushed = out.flush();
    match (result, flushed) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(SolveError::Input(e)), _) => fail(e),
        (Err(SolveError::Output(e)), _) | (_, Err(e)) => {
            if e.kind() == io::ErrorKind::BrokenPipe {
                ExitCode::SUCCESS
            } else {
                fail(format!("cannot write the verdicts: {e}"))
            }
        }
    }
}

/// Why a solve stream stopped.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Input(#[from] OjError),
    #[error("cannot write the verdicts: {0}")]
    Output(#[from] io::Error),
}

/// Solves OJ-format `input`, writing one verdict line per case to `out`.
/// On an input error, every case before it has been written.
pub fn solve_stream(
    input: impl io::BufRead,
    variant: Variant,
    out: &mut impl Write,
) -> Result<(), SolveError> {
    solve_stream_with(input, variant, false, out)
}

/// [`solve_stream`]; with `with_remoteness`, each line is the verdict, a space
/// and the case's remoteness.
pub fn solve_stream_with(
    input: impl io::BufRead,
    variant: Variant,
    with_remoteness: bool,
    out: &mut impl Write,
) -> Result<(), SolveError> {
    let mut reader = OjReader::new(input)?;
    let progress = Progress::new(reader.case_count());
    let mut batch = Batch::default();
    let mut failure = None;
    loop {
        let last = match reader.next_case() {
            Some(Ok(case)) => {
                batch.push(case.piles);
                false
            }
            Some(Err(e)) => {
                failure = Some(e);
                true
            }
            None => true,
        };
        if last || batch.is_full() {
            let count = batch.len() as u64;
            let plies: Vec<u128> = if with_remoteness {
                batch
                    .rows()
                    .par_iter()
                    .with_max_len(1)
                    .map(|row| remoteness::remoteness(row, variant))
                    .collect()
            } else {
                Vec::new()
            };
            let verdicts = batch.solve(variant);
            // The bar is cleared while the lines are written: on one
            // terminal for both, no bar is left between verdicts.
            progress.suspend(|| {
                if with_remoteness {
                    for (wins, plies) in verdicts.into_iter().zip(plies) {
                        debug_assert_eq!(wins, plies % 2 == 1, "parity is the verdict");
                        writeln!(out, "{} {plies}", u8::from(wins))?;
                    }
                } else {
                    for wins in verdicts {
                        out.write_all(if wins { b"1\n" } else { b"0\n" })?;
                    }
                }
                out.flush()
            })?;
            progress.advance(count);
        }
        if last {
            break;
        }
    }
    progress.finish();
    failure.map_or(Ok(()), |e| Err(e.into()))
}

/// A progress bar on stderr that appears only on a terminal and only after a
/// second of work; until then nothing is built (a short run pays nothing).
struct Progress {
    total: u64,
    done: std::cell::Cell<u64>,
    started: Instant,
    /// `Some` once the second has passed: the bar on a terminal, else `None`.
    bar: std::cell::OnceCell<Option<ProgressBar>>,
}

impl Progress {
    fn new(total: u64) -> Self {
        Progress {
            total,
            done: std::cell::Cell::new(0),
            started: Instant::now(),
            bar: std::cell::OnceCell::new(),
        }
    }

    fn advance(&self, cases: u64) {
        self.done.set(self.done.get() + cases);
        if self.bar.get().is_none() && self.started.elapsed() > Duration::from_secs(1) {
            let _ = self.bar.set(self.terminal_bar());
        }
        if let Some(Some(bar)) = self.bar.get() {
            bar.set_position(self.done.get());
        }
    }

    /// The bar, if stderr is a terminal.
    fn terminal_bar(&self) -> Option<ProgressBar> {
        use std::io::IsTerminal;
        if !io::stderr().is_terminal() {
            return None;
        }
        let bar = ProgressBar::with_draw_target(Some(self.total), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} cases ({eta})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Some(bar)
    }

    /// Runs `f` with the bar (if drawn) cleared, then draws it again.
    fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self.bar.get() {
            Some(Some(bar)) => bar.suspend(f),
            _ => f(),
        }
    }

    fn finish(&self) {
        if let Some(Some(bar)) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}
