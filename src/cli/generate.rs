//! `stonegame gen`: writes deterministic OJ-format test data to stdout and,
//! with `--answers FILE`, the expected output to FILE. The families and their
//! guarantees are in [`crate::judge::generate`].

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::judge::generate::{Family, GenError, GenSpec, Task, generate_task};

use super::{CliResult, exit};
use crate::core::Variant;

/// Arguments of `stonegame gen`.
#[derive(Debug, clap::Args)]
pub struct GenArgs {
    /// The family of rows.
    #[arg(long, value_enum)]
    pub family: Family,
    /// Number of cases T (for `exhaustive`: the largest T accepted).
    #[arg(long, default_value_t = 10)]
    pub cases: u64,
    /// Largest number of piles in a row.
    #[arg(long, default_value_t = 1000)]
    pub max_n: u64,
    /// Largest pile (at most 2^63-1).
    #[arg(long, default_value_t = 1_000_000_000)]
    pub max_a: u64,
    /// Seed of the random source: the same seed gives the same file.
    #[arg(long)]
    pub seed: u64,
    /// The game the expected answers (and planted losses) are for.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// Also write the expected output (one 0/1 line per case; with `gen
    /// --task remoteness`, one remoteness per case) to FILE.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
}

/// Arguments of `stonegame gen` (offline): those shared with `client gen`
/// and what the answers are.
#[derive(Debug, clap::Args)]
pub struct LocalGenArgs {
    #[command(flatten)]
    pub gen_args: GenArgs,
    /// What `--answers` holds: `verdict` (one 0/1 line per case) or
    /// `remoteness` (the remoteness of each row in plies, docs/game.md §5;
    /// O(n^2) per row, keep --max-n modest).
    #[arg(long, value_enum, default_value_t = Task::Verdict)]
    pub task: Task,
}

/// The spec the arguments ask for (shared with `client gen`).
pub fn spec(args: &GenArgs) -> GenSpec {
    GenSpec {
        family: args.family,
        cases: args.cases,
        max_n: args.max_n,
        max_a: args.max_a,
        seed: args.seed,
        variant: args.variant,
    }
}

/// The `--answers` file, created and buffered (shared with `client gen`).
pub fn create_answers(args: &GenArgs) -> Result<Option<BufWriter<File>>, String> {
    let create = |path: &PathBuf| match File::create(path) {
        Ok(f) => Ok(BufWriter::with_capacity(1 << 16, f)),
        Err(e) => Err(format!("cannot create {}: {e}", path.display())),
    };
    args.answers.as_ref().map(create).transpose()
}

/// Runs the command.
pub fn run(args: LocalGenArgs) -> ExitCode {
    exit(run_gen(&args.gen_args, args.task))
}

fn run_gen(args: &GenArgs, task: Task) -> CliResult {
    let spec = spec(args);
    // Bad parameters are reported before any file is created.
    spec.validate()?;
    let mut answers = create_answers(args)?;
    let mut input = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let answers = answers.as_mut().map(|w| w as &mut dyn Write);
    match generate_task(&spec, task, &mut input, answers) {
        Err(GenError::Input(e)) if e.kind() == io::ErrorKind::BrokenPipe => {}
        result => {
            result?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
