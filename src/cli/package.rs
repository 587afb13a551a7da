//! `stonegame package`: the flags of the contest package writer; the
//! package itself is [`crate::package`] (docs/judging.md, "Running this
//! problem at a contest").

use std::path::PathBuf;
use std::process::ExitCode;

use crate::package::{PackageSpec, Task, write_package};

use super::fail;
use crate::core::Variant;

/// Arguments of `stonegame package`.
#[derive(Debug, clap::Args)]
pub struct PackageArgs {
    /// What the program answers: `verdict` (0/1 per row, the original
    /// problem) or `remoteness` (how many moves each game lasts; batch, two
    /// ends; defaults T <= 10, n <= 100, a_i <= 2^63-1).
    #[arg(long, value_enum, default_value_t = Task::Verdict)]
    pub task: Task,
    /// An interactive problem: the program plays the games against the
    /// judge's bot (default: pass-fail, one 0/1 line per game).
    #[arg(long)]
    pub interactive: bool,
    /// The game the package is for.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The largest number of cases T of a test file [default: 10].
    #[arg(long)]
    pub cases: Option<u64>,
    /// The largest number of piles n [default: 1000; 100 with --task
    /// remoteness].
    #[arg(long)]
    pub max_n: Option<u64>,
    /// The largest pile a_i (at most 2^63-1) [default: 1000000000;
    /// 9223372036854775807 with --task remoteness].
    #[arg(long)]
    pub max_a: Option<u64>,
    /// Seed of the test data: the same seed, the same package, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time limit in whole seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 2)]
    pub time_limit: u64,
    /// The problem's name (default: "Stones at Both Ends", or "Stones from
    /// the Left" for the leftmost variant).
    #[arg(long)]
    pub name: Option<String>,
    /// Also write DIR.zip beside DIR (files at the zip's root).
    #[arg(long)]
    pub zip: bool,
    /// Replace DIR if it exists and is not empty.
    #[arg(long)]
    pub force: bool,
    /// The package directory to create (its name is the problem's short
    /// name: lowercase letters and digits for BAPCtools).
    pub dir: PathBuf,
}

/// Runs the command.
pub fn run(args: PackageArgs) -> ExitCode {
    let defaults = PackageSpec::for_task(args.task);
    let spec = PackageSpec {
        task: args.task,
        interactive: args.interactive,
        variant: args.variant,
        cases: args.cases.unwrap_or(defaults.cases),
        max_n: args.max_n.unwrap_or(defaults.max_n),
        max_a: args.max_a.unwrap_or(defaults.max_a),
        seed: args.seed,
        time_limit: args.time_limit,
        name: args.name,
    };
    match write_package(&spec, &args.dir, args.force, args.zip) {
        Ok(summary) => {
            println!(
                "wrote {} ({} files: {} secret test files, {} invalid inputs){}",
                summary.dir.display(),
                summary.files,
                summary.secret,
                summary.invalid,
                summary
                    .zip
                    .map(|z| format!(" and {}", z.display()))
                    .unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
