//! `stonegame package`: the flags of the contest package writer; the
//! package itself is [`crate::package`] (docs/judging.md, "Running this
//! problem at a contest").

use std::path::PathBuf;
use std::process::ExitCode;

use crate::package::{License, PackageError, PackageSpec, Task, is_short_name, write_package};

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
    /// With --interactive (two ends): a game counts only if it is won
    /// within the remoteness of its row (the plies of perfect play, the
    /// winner fastest and the loser slowest), as `stonegame interact
    /// --tempo` judges; the judge plays with tempo. Defaults T <= 10,
    /// n <= 20, a_i <= 20 (n <= 100 and n * a_i <= 10000 at most: a game
    /// lasts up to as many plies as its row has stones).
    #[arg(long)]
    pub tempo: bool,
    /// The game the package is for.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    #[arg(long, help = limit_help("The largest number of cases T of a test file", |s| s.cases))]
    pub cases: Option<u64>,
    #[arg(long, help = limit_help("The largest number of piles n", |s| s.max_n))]
    pub max_n: Option<u64>,
    #[arg(long, help = limit_help("The largest pile a_i (at most 2^63-1)", |s| s.max_a))]
    pub max_a: Option<u64>,
    /// Seed of the test data: the same seed, the same package, byte for byte.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time limit in whole seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 2)]
    pub time_limit: u64,
    /// The problem's short name, the package directory's name: 1 to 255
    /// lowercase letters a-z and digits 0-9 (the package format's rule).
    /// Without DIR the package is written to ./NAME; with DIR, DIR's last
    /// component must be NAME.
    #[arg(long)]
    pub name: Option<String>,
    /// The problem's title (`name` in problem.yaml, the statement's
    /// heading) [default: one for each kind: "Stones at Both Ends",
    /// "Stones from the Left", "Beat the Judge at Both Ends", "Beat the
    /// Judge from the Left", "How Long at Both Ends", "Beat the Judge Fast
    /// at Both Ends"].
    #[arg(long)]
    pub title: Option<String>,
    /// An author of the problem, "Full Name" or "Full Name <email>"
    /// (`credits.authors` in problem.yaml; repeat for several; none: no
    /// credits written).
    #[arg(long, value_name = "PERSON")]
    pub author: Vec<String>,
    /// Where the problem was first used, e.g. a contest ("NWERC 2026")
    /// (`source` in problem.yaml; none: not written).
    #[arg(long)]
    pub source: Option<String>,
    /// Who owns the rights to the problem (`rights_owner` in problem.yaml;
    /// none: not written, the format then names the authors, else the
    /// source).
    #[arg(long, value_name = "OWNER")]
    pub rights_owner: Option<String>,
    /// The license (`license` in problem.yaml; none: not written, the
    /// format's default `unknown`). Any but `unknown` and `public domain`
    /// needs --rights-owner, --author or --source.
    #[arg(long, value_enum)]
    pub license: Option<License>,
    /// Also write DIR.zip beside DIR (files at the zip's root).
    #[arg(long)]
    pub zip: bool,
    /// Replace DIR if it exists and is not empty.
    #[arg(long)]
    pub force: bool,
    /// The package directory to create; its last component is the
    /// problem's short name (1 to 255 lowercase letters a-z and digits
    /// 0-9). Default with --name: ./NAME.
    #[arg(required_unless_present = "name")]
    pub dir: Option<PathBuf>,
}

/// The package directory of `--name` and DIR, checked against the
/// format's rule for short names (DIR alone is checked by
/// [`write_package`]).
fn package_dir(name: Option<&str>, dir: Option<PathBuf>) -> Result<PathBuf, PackageError> {
    let Some(name) = name else {
        // clap asks for DIR when --name is absent.
        return dir.ok_or(PackageError::BadDir(PathBuf::new()));
    };
    if !is_short_name(name) {
        return Err(PackageError::BadShortName {
            what: "--name",
            name: name.to_string(),
        });
    }
    match dir {
        None => Ok(PathBuf::from(name)),
        Some(dir) if dir.file_name().is_some_and(|base| base == name) => Ok(dir),
        Some(dir) => Err(PackageError::NameNotDir {
            name: name.to_string(),
            dir,
        }),
    }
}

/// The help of a limit flag: `what`, then its defaults, read from the
/// package kinds' own specs (so the help cannot drift from them).
fn limit_help(what: &str, limit: fn(&PackageSpec) -> u64) -> String {
    let verdict = limit(&PackageSpec::for_task(Task::Verdict));
    let remoteness = limit(&PackageSpec::for_task(Task::Remoteness));
    let tempo = limit(&PackageSpec::for_tempo());
    if verdict == remoteness && verdict == tempo {
        format!("{what} [default: {verdict}]")
    } else {
        format!(
            "{what} [default: {verdict}; {remoteness} with --task remoteness; {tempo} with --tempo]"
        )
    }
}

/// Runs the command.
pub fn run(args: PackageArgs) -> ExitCode {
    let dir = match package_dir(args.name.as_deref(), args.dir) {
        Ok(dir) => dir,
        Err(e) => return fail(e),
    };
    let defaults = if args.tempo && args.task == Task::Verdict {
        PackageSpec::for_tempo()
    } else {
        PackageSpec::for_task(args.task)
    };
    let spec = PackageSpec {
        task: args.task,
        interactive: args.interactive,
        tempo: args.tempo,
        variant: args.variant,
        cases: args.cases.unwrap_or(defaults.cases),
        max_n: args.max_n.unwrap_or(defaults.max_n),
        max_a: args.max_a.unwrap_or(defaults.max_a),
        seed: args.seed,
        time_limit: args.time_limit,
        title: args.title,
        authors: args.author,
        source: args.source,
        rights_owner: args.rights_owner,
        license: args.license,
    };
    match write_package(&spec, &dir, args.force, args.zip) {
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
