//! The contest package writer behind `stonegame package`: a complete
//! ICPC/Kattis problem package (format version 2025-09, the one BAPCtools
//! 2026.10 reads) for the two-ends game or its leftmost variant, batch
//! (pass-fail) or interactive; its contents are listed in docs/judging.md,
//! "Running this problem at a contest". The test data is streamed from
//! [`crate::judge::generate`]; validators, interactor, submissions, the
//! solution write-up and the C++ generator (`assets/gen.cpp`, which writes
//! the bytes of `stonegame gen`, its random source included) are the
//! project's own sources in `src/package/assets/` (embedded, so a judge
//! host needs neither network nor a Rust toolchain, not even to regenerate
//! the data).
//!
//! What a setter ships: the short name (the directory's) held to the
//! format's rule ([`SHORT_NAME_RULE`]), credits only as given, a title for
//! each kind, the statement in the order task, input, output, examples.
//!
//! Two tasks ([`Task`]): the verdict of each row (the original problem, the
//! default), or its remoteness in plies (`--task remoteness`, two ends,
//! batch: docs/game.md §5), whose expected answers come from
//! [`crate::core::remoteness`] and whose own submissions are in
//! `assets/remoteness/`.
//!
//! With tempo ([`PackageSpec::tempo`], `--interactive --tempo`, two ends) a
//! game counts only if it is won within the remoteness of its row, as
//! `stonegame interact --tempo` judges it: the interactor
//! (`assets/interactor-tempo.cpp`) plays perfect play with tempo by the
//! remoteness DP of the remoteness task's accepted solution, its own
//! submissions are in `assets/interactive-tempo/`, and the first-winning-move
//! player `perfect.cpp` becomes a wrong answer (the `slow-wins` test file)
//! whenever the limits allow a row where it is too slow.
//!
//! The same [`PackageSpec`] always gives the same bytes (the `uuid` is
//! derived from the parameters). The package is written to a temporary
//! directory beside its destination and renamed into place, so an error
//! leaves nothing half-written.

mod transcript;
mod zip;

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::core::remoteness::remoteness;
use crate::core::{MAX_PILE, MAX_PILES, ValidRow, Variant, first_player_wins};
use crate::judge::generate::{Family, GenError, GenSpec, exhaustive_rows, generate_task};

pub use crate::judge::generate::Task;

/// The largest `max_n` of an interactive package: the interactor keeps two
/// n × n tables of 8-byte entries per game (n = 3000: 144 MB).
pub const INTERACTIVE_MAX_N: u64 = 3000;

/// The limits of `--tempo` when no flag gives them: T ≤ 10, n ≤ 20,
/// a_i ≤ 20 (a game lasts up to as many plies as its row has stones).
pub const TEMPO_DEFAULTS: (u64, u64, u64) = (10, 20, 20);

/// The largest `max_n` with `--tempo`: the interactor keeps the remoteness
/// functions of every segment of a game's row, O(n^2) of them.
pub const TEMPO_MAX_N: u64 = 100;

/// The largest `max_n × max_a` with `--tempo`: a game lasts up to as many
/// plies as its row has stones, one line each.
pub const TEMPO_MAX_STONES: u64 = 10_000;

/// Rows where the first winning move (left first, `perfect.cpp`'s) wins
/// slower than the remoteness against the longest resistance: on (1 5 5)
/// `L 1` wins in 11 plies, `R 4` in 5; the others found the same way among
/// every row of up to 5 piles of up to 5, 4 and 3 stones. One fits exactly
/// when n ≥ 3 and a_i ≥ 3 or n ≥ 4 and a_i ≥ 2 are allowed ((1 3 3),
/// (2 1 2 2)); below that no row has a slow winning move (n ≤ 2: the
/// winning move is unique; a_i = 1: every move is forced; n = 3, a_i ≤ 2:
/// checked by tests/it/package_tempo.rs).
pub const SLOW_WINS: [&[u64]; 12] = [
    &[1, 5, 5],
    &[2, 4, 4],
    &[1, 3, 1, 3],
    &[2, 1, 2, 2],
    &[1, 3, 3],
    &[4, 1, 4, 4],
    &[1, 3, 2, 2, 3],
    &[3, 3, 2, 2, 2],
    &[1, 2, 1, 3, 3],
    &[3, 5, 5],
    &[1, 4, 2, 4],
    &[3, 1, 3, 3],
];

/// Rows where the longest resistance takes two stones, not one (the loser
/// taking one stone from the larger end lasts 6 plies on (3 1 2 3), not 8,
/// and 10 on (4 2 1 1 3 4), not 12): the tempo judge must find it.
pub const RESIST_WITH_TWO: [&[u64]; 2] = [&[3, 1, 2, 3], &[4, 2, 1, 1, 3, 4]];

/// The largest `--cases`: every test file holds up to T cases.
pub const MAX_CASES: u64 = 1_000_000;

/// The problem format version written in `problem.yaml`.
pub const FORMAT_VERSION: &str = "2025-09";

/// What to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageSpec {
    /// What the program answers: the verdict of each row, or its
    /// remoteness (batch, two ends only).
    pub task: Task,
    /// Interactive (the program plays the games) instead of pass-fail.
    pub interactive: bool,
    /// With `interactive` (two ends, the verdict task): a game counts only
    /// if it is won within its row's remoteness (`--tempo`); the judge
    /// plays with tempo.
    pub tempo: bool,
    /// The game.
    pub variant: Variant,
    /// The largest number of cases T of a test file.
    pub cases: u64,
    /// The largest number of piles n.
    pub max_n: u64,
    /// The largest pile a_i.
    pub max_a: u64,
    /// The seed of the test data (and of the interactor's bot).
    pub seed: u64,
    /// The time limit in whole seconds (a multiple of the default time
    /// resolution of one second).
    pub time_limit: u64,
    /// The problem's display name (`name` in `problem.yaml`, the
    /// statement's title); `None`: a title for the kind of problem
    /// ([`PackageSpec::display_name`]).
    pub title: Option<String>,
    /// `credits.authors` of `problem.yaml` (omitted when empty).
    pub authors: Vec<String>,
    /// `source` of `problem.yaml` (omitted when `None`).
    pub source: Option<String>,
    /// `rights_owner` of `problem.yaml` (omitted when `None`).
    pub rights_owner: Option<String>,
    /// `license` of `problem.yaml` (omitted when `None`: the format's
    /// default, `unknown`).
    pub license: Option<License>,
}

/// The licenses of the package format (`license` in `problem.yaml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum License {
    /// `unknown`: the format's default (the problem may not be used).
    #[cfg_attr(feature = "cli", value(name = "unknown"))]
    Unknown,
    /// `public domain`: no known copyrights (no rights owner allowed).
    #[cfg_attr(feature = "cli", value(name = "public domain"))]
    PublicDomain,
    /// `cc0`.
    #[cfg_attr(feature = "cli", value(name = "cc0"))]
    Cc0,
    /// `cc by`.
    #[cfg_attr(feature = "cli", value(name = "cc by"))]
    CcBy,
    /// `cc by-sa`.
    #[cfg_attr(feature = "cli", value(name = "cc by-sa"))]
    CcBySa,
    /// `educational`.
    #[cfg_attr(feature = "cli", value(name = "educational"))]
    Educational,
    /// `permission`.
    #[cfg_attr(feature = "cli", value(name = "permission"))]
    Permission,
}

impl License {
    /// The value written in `problem.yaml`.
    pub fn name(self) -> &'static str {
        match self {
            License::Unknown => "unknown",
            License::PublicDomain => "public domain",
            License::Cc0 => "cc0",
            License::CcBy => "cc by",
            License::CcBySa => "cc by-sa",
            License::Educational => "educational",
            License::Permission => "permission",
        }
    }
}

/// The package format's rule for a problem's short name, the name of the
/// package directory: "The directory name must consist solely of lowercase
/// letters a–z and digits 0–9" (format 2025-09, "General requirements"),
/// at most 255 of them (the rule for every file name); BAPCtools checks it
/// as `[a-z0-9]{1,255}`.
pub const SHORT_NAME_RULE: &str = "1 to 255 lowercase letters a-z and digits 0-9 ([a-z0-9]{1,255}, the problem package format's rule for a problem's short name, its directory's name)";

/// Whether `name` is a valid short name ([`SHORT_NAME_RULE`]).
pub fn is_short_name(name: &str) -> bool {
    (1..=255).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

impl Default for PackageSpec {
    /// The original problem: T ≤ 10, n ≤ 1000, a_i ≤ 10^9, batch, two ends.
    fn default() -> Self {
        PackageSpec {
            task: Task::Verdict,
            interactive: false,
            tempo: false,
            variant: Variant::TwoEnds,
            cases: 10,
            max_n: 1000,
            max_a: 1_000_000_000,
            seed: 1,
            time_limit: 2,
            title: None,
            authors: Vec::new(),
            source: None,
            rights_owner: None,
            license: None,
        }
    }
}

/// Why a package was not written. Every message names the flag or the path
/// at fault.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// `--cases 0`.
    #[error("--cases must be at least 1")]
    NoCases,
    /// `--cases` above [`MAX_CASES`].
    #[error("--cases {0} is larger than {MAX_CASES}")]
    TooManyCases(u64),
    /// `--max-n 0`.
    #[error("--max-n must be at least 1 (a row has at least one pile)")]
    MaxNZero,
    /// `--max-n` above the project's limit (or the interactor's).
    #[error("--max-n {max_n} is larger than {limit}{why}")]
    MaxNTooLarge {
        /// What was asked.
        max_n: u64,
        /// The largest allowed.
        limit: u64,
        /// Why, for the interactive limit.
        why: &'static str,
    },
    /// `--max-a 0`.
    #[error("--max-a must be at least 1 (every pile has at least one stone)")]
    MaxAZero,
    /// `--max-a` above 2^63 − 1.
    #[error("--max-a {0} is larger than the largest pile {MAX_PILE} (2^63-1)")]
    MaxATooLarge(u64),
    /// `--tempo` with a flag it does not support.
    #[error("--tempo is for the interactive two-ends game: {0}")]
    TempoUnsupported(&'static str),
    /// `--tempo` with rows of too many stones.
    #[error(
        "--max-n {max_n} times --max-a {max_a} is larger than {TEMPO_MAX_STONES} (with --tempo a \
         game lasts up to as many plies as its row has stones)"
    )]
    TempoTooManyStones {
        /// `--max-n`.
        max_n: u64,
        /// `--max-a`.
        max_a: u64,
    },
    /// `--task remoteness` with a flag it does not support.
    #[error("--task remoteness is a batch problem for the two-ends game: {0} is not supported")]
    TaskUnsupported(&'static str),
    /// `--time-limit 0`.
    #[error("--time-limit must be at least 1 second")]
    TimeLimitZero,
    /// `--title` empty or with control characters.
    #[error("--title must be one line of printable text, not {0:?}")]
    BadTitle(String),
    /// `--author`, `--source` or `--rights-owner` empty or with control
    /// characters.
    #[error("{flag} must be one line of printable text, not {value:?}")]
    BadCredit {
        /// The flag.
        flag: &'static str,
        /// Its value.
        value: String,
    },
    /// A short name (`--name`, or DIR's last component) against the
    /// format's rule.
    #[error(
        "{what} {name:?} is not a problem short name: it must be {SHORT_NAME_RULE}{}",
        if *what == "--name" { " (the problem's title is --title)" } else { "" }
    )]
    BadShortName {
        /// Where the name comes from (`--name`, `DIR`).
        what: &'static str,
        /// The name.
        name: String,
    },
    /// `--name` and a DIR whose last component is another name.
    #[error(
        "DIR {dir} is not named {name:?}, the short name given by --name (a package is named by \
         its directory: give DIR as .../{name}, or leave DIR out to write ./{name})"
    )]
    NameNotDir {
        /// The short name.
        name: String,
        /// The directory.
        dir: PathBuf,
    },
    /// A license that needs a rights owner without one, or `public domain`
    /// with one.
    #[error("{0}")]
    License(&'static str),
    /// DIR has no usable last component (`/`, `..`).
    #[error("DIR {0} does not name a directory to create")]
    BadDir(PathBuf),
    /// DIR exists, is not empty, and `--force` was not given.
    #[error("DIR {0} exists and is not empty (use --force to replace it)")]
    NotEmpty(PathBuf),
    /// DIR exists and is not a directory.
    #[error("DIR {0} exists and is not a directory")]
    NotADirectory(PathBuf),
    /// A file or directory could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The generator refused a family's parameters (a bug: they are derived
    /// from a spec already checked).
    #[error("generating {file}: {source}")]
    Generate {
        /// The test file.
        file: String,
        /// The error.
        source: GenError,
    },
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> PackageError + '_ {
    move |source| PackageError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageSummary {
    /// The package directory.
    pub dir: PathBuf,
    /// The zip, with `--zip`.
    pub zip: Option<PathBuf>,
    /// Number of files in the package.
    pub files: usize,
    /// Number of secret test files.
    pub secret: usize,
    /// Number of invalid inputs.
    pub invalid: usize,
}

/// A secret test file: its name and what `stonegame gen` makes of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFile {
    /// The file name without extension (`01-random`).
    pub name: String,
    /// The generator's parameters.
    pub spec: GenSpec,
}

/// The limits of `--task remoteness` when no flag gives them: T ≤ 10,
/// n ≤ 100, a_i ≤ 2^63 − 1 (the remoteness of a row of piles near 2^63
/// exceeds 2^64 − 1).
pub const REMOTENESS_DEFAULTS: (u64, u64, u64) = (10, 100, MAX_PILE);

/// The largest `max_n` with `--task remoteness`: the expected answers are
/// computed one O(n²) row at a time.
pub const REMOTENESS_MAX_N: u64 = 2000;

impl PackageSpec {
    /// The spec of `task` with its default limits (those of the original
    /// problem for the verdict, [`REMOTENESS_DEFAULTS`] for the remoteness).
    pub fn for_task(task: Task) -> PackageSpec {
        let mut spec = PackageSpec {
            task,
            ..PackageSpec::default()
        };
        if task == Task::Remoteness {
            (spec.cases, spec.max_n, spec.max_a) = REMOTENESS_DEFAULTS;
        }
        spec
    }

    /// The spec of an interactive tempo package with its default limits
    /// ([`TEMPO_DEFAULTS`]).
    pub fn for_tempo() -> PackageSpec {
        let (cases, max_n, max_a) = TEMPO_DEFAULTS;
        PackageSpec {
            interactive: true,
            tempo: true,
            cases,
            max_n,
            max_a,
            ..PackageSpec::default()
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), PackageError> {
        if self.cases == 0 {
            return Err(PackageError::NoCases);
        }
        if self.cases > MAX_CASES {
            return Err(PackageError::TooManyCases(self.cases));
        }
        if self.max_n == 0 {
            return Err(PackageError::MaxNZero);
        }
        if self.max_n > MAX_PILES as u64 {
            return Err(PackageError::MaxNTooLarge {
                max_n: self.max_n,
                limit: MAX_PILES as u64,
                why: "",
            });
        }
        if self.interactive && self.max_n > INTERACTIVE_MAX_N {
            return Err(PackageError::MaxNTooLarge {
                max_n: self.max_n,
                limit: INTERACTIVE_MAX_N,
                why: " (with --interactive: the interactor's tables take 16 n^2 bytes)",
            });
        }
        if self.task == Task::Remoteness {
            if self.interactive {
                return Err(PackageError::TaskUnsupported("--interactive"));
            }
            if self.variant != Variant::TwoEnds {
                return Err(PackageError::TaskUnsupported("--variant leftmost"));
            }
            if self.max_n > REMOTENESS_MAX_N {
                return Err(PackageError::MaxNTooLarge {
                    max_n: self.max_n,
                    limit: REMOTENESS_MAX_N,
                    why: " (with --task remoteness: the answers take O(n^2) per row)",
                });
            }
        }
        if self.tempo {
            if self.task == Task::Remoteness {
                return Err(PackageError::TempoUnsupported(
                    "--task remoteness is not supported",
                ));
            }
            if !self.interactive {
                return Err(PackageError::TempoUnsupported(
                    "give --interactive too (a batch package has no games to win fast)",
                ));
            }
            if self.variant != Variant::TwoEnds {
                return Err(PackageError::TempoUnsupported(
                    "--variant leftmost is not supported (there the winning move is unique and \
                     the losing one forced: every win takes the remoteness)",
                ));
            }
            if self.max_n > TEMPO_MAX_N {
                return Err(PackageError::MaxNTooLarge {
                    max_n: self.max_n,
                    limit: TEMPO_MAX_N,
                    why: " (with --tempo: the interactor keeps the remoteness of every segment)",
                });
            }
            if self.max_n.saturating_mul(self.max_a) > TEMPO_MAX_STONES {
                return Err(PackageError::TempoTooManyStones {
                    max_n: self.max_n,
                    max_a: self.max_a,
                });
            }
        }
        if self.max_a == 0 {
            return Err(PackageError::MaxAZero);
        }
        if self.max_a > MAX_PILE {
            return Err(PackageError::MaxATooLarge(self.max_a));
        }
        if self.time_limit == 0 {
            return Err(PackageError::TimeLimitZero);
        }
        let printable = |s: &str| !s.trim().is_empty() && !s.chars().any(char::is_control);
        if let Some(title) = &self.title
            && !printable(title)
        {
            return Err(PackageError::BadTitle(title.clone()));
        }
        let credits = self
            .authors
            .iter()
            .map(|a| ("--author", a))
            .chain(self.source.iter().map(|s| ("--source", s)))
            .chain(self.rights_owner.iter().map(|r| ("--rights-owner", r)));
        for (flag, value) in credits {
            if !printable(value) {
                return Err(PackageError::BadCredit {
                    flag,
                    value: value.clone(),
                });
            }
        }
        let owned =
            self.rights_owner.is_some() || !self.authors.is_empty() || self.source.is_some();
        match self.license {
            Some(License::PublicDomain) if self.rights_owner.is_some() => {
                return Err(PackageError::License(
                    "--license 'public domain' cannot have --rights-owner (the package \
                     format: a public-domain problem has no rights owner)",
                ));
            }
            Some(License::Unknown | License::PublicDomain) | None => {}
            Some(_) if !owned => {
                return Err(PackageError::License(
                    "--license needs --rights-owner, --author or --source (the package format: \
                     a licensed problem has a rights owner, which defaults to the authors, \
                     then to the source)",
                ));
            }
            Some(_) => {}
        }
        Ok(())
    }

    /// The problem's display name: `--title`, or one for each kind of
    /// problem (task, interactive, variant), no two alike.
    pub fn display_name(&self) -> String {
        if let Some(title) = &self.title {
            return title.clone();
        }
        if self.tempo {
            return "Beat the Judge Fast at Both Ends".into();
        }
        match (self.task, self.interactive, self.variant) {
            (Task::Remoteness, _, _) => "How Long at Both Ends",
            (Task::Verdict, false, Variant::TwoEnds) => "Stones at Both Ends",
            (Task::Verdict, false, Variant::Leftmost) => "Stones from the Left",
            (Task::Verdict, true, Variant::TwoEnds) => "Beat the Judge at Both Ends",
            (Task::Verdict, true, Variant::Leftmost) => "Beat the Judge from the Left",
        }
        .into()
    }

    /// The `uuid` of `problem.yaml`: 128 bits hashed from the parameters (a
    /// version-8 UUID), so the same parameters give the same package.
    pub fn uuid(&self) -> String {
        let key = format!(
            "stonegame package|{}|{}|{}|{}|{}|{}|{}|{}",
            self.interactive,
            self.variant.name(),
            self.cases,
            self.max_n,
            self.max_a,
            self.seed,
            self.time_limit,
            self.display_name()
        );
        // (The verdict task keeps the key it always had.)
        let key = match self.task {
            Task::Verdict if self.tempo => format!("{key}|tempo"),
            Task::Verdict => key,
            Task::Remoteness => format!("{key}|remoteness"),
        };
        let hash = |offset: u64| {
            key.bytes().fold(offset, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
        };
        let (hi, lo) = (hash(0xcbf2_9ce4_8422_2325), hash(0x6c62_272e_07bb_0142));
        let hi = (hi & !0xf000) | 0x8000; // version 8
        let lo = (lo & !(0b11 << 62)) | (0b10 << 62); // RFC 4122 variant
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            hi >> 32,
            (hi >> 16) & 0xffff,
            hi & 0xffff,
            lo >> 48,
            lo & 0xffff_ffff_ffff
        )
    }

    /// The sample rows: the classic `3 1 9 4` and a few more, those that fit
    /// the limits, at most `cases` of them (`1` always fits).
    /// With `--task remoteness`: rows where the shortcuts fail first
    /// (`3 1 2 3`, `2 4 4`, `4 2 1 1 3 4`), then small ones. With tempo:
    /// `1 5 5` (where the first winning move is slow) after the classic row.
    pub fn sample_rows(&self) -> Vec<Vec<u64>> {
        let candidates: &[&[u64]] = match self.task {
            Task::Verdict if self.tempo => {
                &[&[3, 1, 9, 4], &[1, 5, 5], &[3, 1, 2, 3], &[2, 2, 1], &[1]]
            }
            Task::Verdict => &[&[3, 1, 9, 4], &[2, 2, 1], &[5, 5], &[1, 1], &[1]],
            Task::Remoteness => &[
                &[3, 1, 2, 3],
                &[2, 4, 4],
                &[4, 2, 1, 1, 3, 4],
                &[1, 2, 2, 1],
                &[5, 5],
                &[1],
            ],
        };
        candidates
            .iter()
            .filter(|row| row.len() as u64 <= self.max_n && row.iter().all(|&a| a <= self.max_a))
            .take(self.cases as usize)
            .map(|row| row.to_vec())
            .collect()
    }

    /// The secret test files, in order: each family of the generator with
    /// seeds derived from `seed`, and the exhaustive rows that fit T.
    pub fn secret_files(&self) -> Vec<SecretFile> {
        let (t, n, a) = (self.cases, self.max_n, self.max_a);
        let mut files = Vec::new();
        let mut add = |family: Family, cases: u64, max_n: u64, max_a: u64, tag: &str| {
            let index = files.len() as u64 + 1;
            let name = if tag.is_empty() {
                format!("{index:02}-{family}")
            } else {
                format!("{index:02}-{family}-{tag}")
            };
            files.push(SecretFile {
                name,
                spec: GenSpec {
                    family,
                    cases,
                    max_n,
                    max_a,
                    seed: self.seed.wrapping_add(index),
                    variant: self.variant,
                },
            });
        };
        add(Family::Random, t, n.min(8), a.min(8), "small");
        add(Family::Tiny, t, n, a, "");
        for k in 1..=n.min(4) {
            // The most stones per pile such that every row of k piles fits T.
            let fits = |a: u64| exhaustive_rows(k, a).is_some_and(|rows| rows <= t);
            let mut best = 1;
            while best < a && fits(best + 1) {
                best += 1;
            }
            if k == 1 || best >= 2 {
                add(Family::Exhaustive, t, k, best, &format!("n{k}"));
            }
        }
        if n >= 2 {
            add(Family::Planted, t, n, a, "");
            add(Family::Hack, t, n, a, "");
            if n >= 5 && a >= 2 {
                // Small rows, where the killer rows of the hack family bite
                // most often.
                add(Family::Hack, t, n.min(6), a.min(6), "small");
            }
        }
        add(Family::Near, t, n, a, "");
        add(Family::Palindrome, t, n, a, "");
        add(Family::Random, t, n, a, "");
        add(Family::Max, t, n, a, "");
        // T = 1 once (every bound of the statement is reached somewhere).
        add(Family::Random, 1, n, a, "single");
        files
    }

    /// The secret files written with their data inline in
    /// `generators.yaml` (`--task remoteness` and `--tempo` only, after
    /// [`Self::secret_files`]): name and rows. `heuristics`: small rows where
    /// the one-stone loser or the greedy winner plays a game of another
    /// length; `overflow`: rows of piles within 3 of `max_a`, when some of
    /// them last more than 2^64 − 1 plies; with tempo, `slow-wins`: rows
    /// where the first winning move (left first, `perfect.cpp`'s) wins
    /// slower than the remoteness, and rows where the loser's one-stone
    /// shortcut resists too briefly.
    pub fn inline_secret_files(&self) -> Vec<(String, Vec<Vec<u64>>)> {
        let fits =
            |row: &[u64]| row.len() as u64 <= self.max_n && row.iter().all(|&a| a <= self.max_a);
        let mut out = Vec::new();
        let mut index = self.secret_files().len() + 1;
        if self.tempo {
            // A row where the first winning move is too slow first (when one
            // fits), then the rows where the judge must resist with two
            // stones, then the other slow ones.
            let mut slow = SLOW_WINS.iter().filter(|r| fits(r));
            let rows: Vec<Vec<u64>> = slow
                .next()
                .into_iter()
                .chain(RESIST_WITH_TWO.iter().filter(|r| fits(r)))
                .chain(slow)
                .take(self.cases as usize)
                .map(|r| r.to_vec())
                .collect();
            if !rows.is_empty() {
                out.push((format!("{index:02}-slow-wins"), rows));
            }
            return out;
        }
        if self.task != Task::Remoteness {
            return Vec::new();
        }
        // (3 1 2 3): the one-stone loser plays 6 plies, the truth is 8;
        // (2 4 4): the greedy winner plays 9, the truth is 7; the others
        // found the same way (every row of up to 5 piles of up to 4 stones).
        let killers: [&[u64]; 12] = [
            &[3, 1, 2, 3],
            &[2, 4, 4],
            &[4, 2, 1, 1, 3, 4],
            &[2, 4, 4, 2],
            &[3, 2, 2, 4, 4],
            &[4, 4, 4, 4],
            &[2, 3, 1, 2, 3],
            &[1, 2, 4, 4, 2],
            &[4, 3, 1, 1, 2, 4],
            &[3, 1, 2, 4],
            &[4, 2, 3, 4],
            &[4, 2, 1, 3],
        ];
        let rows: Vec<Vec<u64>> = killers
            .iter()
            .filter(|r| fits(r))
            .take(self.cases as usize)
            .map(|r| r.to_vec())
            .collect();
        if !rows.is_empty() {
            out.push((format!("{index:02}-heuristics"), rows));
            index += 1;
        }
        if self.max_n >= 3 && self.max_a >= 4 {
            use rand::{Rng, SeedableRng};
            let mut rng =
                rand_chacha::ChaCha8Rng::seed_from_u64(self.seed.wrapping_add(index as u64));
            let mut rows = vec![vec![self.max_a; self.max_n as usize]];
            while (rows.len() as u64) < self.cases {
                let n = rng.random_range(3..=self.max_n) as usize;
                rows.push(
                    (0..n)
                        .map(|_| self.max_a - rng.random_range(0..=3))
                        .collect(),
                );
            }
            let long = rows.iter().any(|r| {
                let row = ValidRow::new(&r[..], MAX_PILES).expect("a valid row");
                remoteness(&row, self.variant) > u128::from(u64::MAX)
            });
            if long {
                out.push((format!("{index:02}-overflow"), rows));
            }
        }
        out
    }

    /// With tempo: whether the first-winning-move player `perfect.cpp` is
    /// too slow on the test data (a row of [`SLOW_WINS`] fits the limits,
    /// so the `slow-wins` file holds one) and goes to `wrong_answer/`;
    /// otherwise no row within the limits can show it slow, and it stays
    /// in `accepted/`.
    pub fn perfect_is_too_slow(&self) -> bool {
        self.tempo
            && SLOW_WINS
                .iter()
                .any(|row| row.len() as u64 <= self.max_n && row.iter().all(|&a| a <= self.max_a))
    }

    /// The inputs the input validator must reject: name and bytes.
    pub fn invalid_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        let (t, n, a) = (self.cases, self.max_n, self.max_a);
        let ones = |k: u64| vec!["1"; k as usize].join(" ");
        let out: Vec<(&'static str, String)> = vec![
            ("empty", String::new()),
            ("t-zero", "0\n".into()),
            (
                "t-over-limit",
                format!("{}\n{}", t + 1, "1\n1\n".repeat(t as usize + 1)),
            ),
            ("t-mismatch-fewer", format!("{}\n1\n1\n", t.max(2))),
            ("t-mismatch-more", "1\n1\n1\n1\n1\n".into()),
            ("n-zero", "1\n0\n\n".into()),
            ("n-over-limit", format!("1\n{}\n{}\n", n + 1, ones(n + 1))),
            ("n-mismatch-fewer", "1\n3\n1 1\n".into()),
            ("n-mismatch-more", "1\n1\n1 1\n".into()),
            ("zero-pile", "1\n2\n1 0\n".into()),
            ("pile-over-limit", format!("1\n1\n{}\n", u128::from(a) + 1)),
            ("pile-over-u64", "1\n1\n99999999999999999999999\n".into()),
            ("trailing-garbage", "1\n1\n1\nx\n".into()),
            ("trailing-token", "1\n1\n1 x\n".into()),
            ("missing-final-newline", "1\n1\n1".into()),
            ("extra-blank-line", "1\n1\n1\n\n".into()),
            ("non-digits", "1\n1\nabc\n".into()),
            ("decimal-point", "1\n1\n1.0\n".into()),
            ("leading-zero", "1\n1\n01\n".into()),
            ("leading-zero-t", "01\n1\n1\n".into()),
            ("plus-sign", "1\n1\n+1\n".into()),
            ("minus-sign", "1\n1\n-1\n".into()),
            ("crlf", "1\r\n1\r\n1\r\n".into()),
            ("double-space", "1\n2\n1  1\n".into()),
            ("leading-space", "1\n1\n 1\n".into()),
            ("trailing-space", "1\n1\n1 \n".into()),
            ("tab", "1\n2\n1\t1\n".into()),
            ("n-and-piles-on-one-line", "1\n1 1\n".into()),
            ("non-ascii", "1\n1\n\u{0661}\n".into()),
        ];
        out.into_iter().map(|(k, s)| (k, s.into_bytes())).collect()
    }

    /// The contents of `problem.yaml`.
    pub fn problem_yaml(&self) -> String {
        let (kind, interactive) = if self.interactive {
            ("interactive", ", interactive")
        } else {
            ("pass-fail", "")
        };
        // Credits, source, license and rights owner only as given: missing
        // ones are omitted (the format's defaults), never made up.
        let mut credits = String::new();
        if !self.authors.is_empty() {
            credits.push_str("credits:\n  authors:\n");
            for a in &self.authors {
                credits.push_str(&format!("    - {}\n", yaml_string(a)));
            }
        }
        if let Some(source) = &self.source {
            credits.push_str(&format!("source: {}\n", yaml_string(source)));
        }
        if let Some(license) = self.license {
            credits.push_str(&format!("license: {}\n", license.name()));
        }
        if let Some(owner) = &self.rights_owner {
            credits.push_str(&format!("rights_owner: {}\n", yaml_string(owner)));
        }
        format!(
            "# Written by `stonegame package` ({variant} game{interactive}{task}); regenerate\n\
             # with: {command}\n\
             # The game is that of ZJOI 2009 (LOJ 10248, AcWing 1322).\n\
             problem_format_version: {FORMAT_VERSION}\n\
             type: {kind}\n\
             name: {name}\n\
             uuid: {uuid}\n\
             {credits}\
             limits:\n  time_limit: {tl}\n  memory: 1024\n",
            variant = self.variant.name(),
            task = match self.task {
                Task::Verdict if self.tempo => ", tempo",
                Task::Verdict => "",
                Task::Remoteness => ", remoteness",
            },
            command = self.command_line(),
            name = yaml_string(&self.display_name()),
            uuid = self.uuid(),
            tl = self.time_limit,
        )
    }

    /// The `stonegame package` command line that writes this package.
    pub fn command_line(&self) -> String {
        let mut cmd = String::from("stonegame package");
        if self.task == Task::Remoteness {
            cmd.push_str(" --task remoteness");
        }
        if self.interactive {
            cmd.push_str(" --interactive");
        }
        if self.tempo {
            cmd.push_str(" --tempo");
        }
        cmd.push_str(&format!(
            " --variant {} --cases {} --max-n {} --max-a {} --seed {} --time-limit {}",
            self.variant.name(),
            self.cases,
            self.max_n,
            self.max_a,
            self.seed,
            self.time_limit
        ));
        let quoted = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
        if let Some(title) = &self.title {
            cmd.push_str(&format!(" --title {}", quoted(title)));
        }
        for author in &self.authors {
            cmd.push_str(&format!(" --author {}", quoted(author)));
        }
        if let Some(source) = &self.source {
            cmd.push_str(&format!(" --source {}", quoted(source)));
        }
        if let Some(owner) = &self.rights_owner {
            cmd.push_str(&format!(" --rights-owner {}", quoted(owner)));
        }
        if let Some(license) = self.license {
            cmd.push_str(&format!(" --license {}", quoted(license.name())));
        }
        cmd.push_str(" DIR");
        cmd
    }

    fn substitute(&self, text: &str) -> String {
        let leftmost = u8::from(self.variant == Variant::Leftmost);
        text.replace("@MAX_T@", &self.cases.to_string())
            .replace("@MAX_N@", &self.max_n.to_string())
            .replace("@MAX_A@", &self.max_a.to_string())
            .replace("@LEFTMOST@", &leftmost.to_string())
            .replace("@SEED@", &self.seed.to_string())
    }

    /// The statement, `statement/problem.en.tex`.
    pub fn statement(&self) -> String {
        let (rules, leftmost_note) = match self.variant {
            Variant::TwoEnds => (include_str!("assets/rules-two-ends.tex"), ""),
            Variant::Leftmost => (
                include_str!("assets/rules-leftmost.tex"),
                " In this game only \\texttt{L} moves are legal.",
            ),
        };
        // The task, then (after the input) the output or the interaction.
        let (task, output, games, game) = if self.task == Task::Remoteness {
            (
                include_str!("assets/task-remoteness.tex"),
                include_str!("assets/output-remoteness.tex"),
                "rows (games)",
                "row",
            )
        } else if self.tempo {
            (
                include_str!("assets/task-interactive-tempo.tex"),
                include_str!("assets/output-interactive-tempo.tex"),
                "games",
                "game",
            )
        } else if self.interactive {
            (
                include_str!("assets/task-interactive.tex"),
                include_str!("assets/output-interactive.tex"),
                "games",
                "game",
            )
        } else {
            (
                include_str!("assets/task-batch.tex"),
                include_str!("assets/output-batch.tex"),
                "rows (games)",
                "row",
            )
        };
        self.substitute(
            &include_str!("assets/statement.tex")
                .replace("@RULES@", rules.trim_end())
                .replace("@TASK@", task.trim_end())
                .replace("@OUTPUT@", output.trim_end())
                .replace("@GAMES@", games)
                .replace("@GAME@", game)
                .replace("@LEFTMOST_NOTE@", leftmost_note)
                .replace("@NAME@", &latex_text(&self.display_name()))
                .replace("@SAMPLE_NOTE@", &self.sample_note())
                .replace("@MAX_T@", &self.limit_text(self.cases))
                .replace("@MAX_N@", &self.limit_text(self.max_n))
                .replace("@MAX_A@", &self.limit_text(self.max_a)),
        )
    }

    /// A limit as the statement writes it (in math mode): digits up to
    /// 1000, `10^9`, `2 \cdot 10^5`, `2^{63}-1`, `2^{32}` style above.
    fn limit_text(&self, v: u64) -> String {
        let exponent = |k: u32| {
            if k < 10 {
                k.to_string()
            } else {
                format!("{{{k}}}")
            }
        };
        let power_of_ten = (4..20).find_map(|k| {
            let p = 10u64.checked_pow(k)?;
            (v.is_multiple_of(p) && (1..10).contains(&(v / p))).then_some((v / p, k))
        });
        if let Some((d, k)) = power_of_ten {
            return if d == 1 {
                format!("10^{}", exponent(k))
            } else {
                format!("{d} \\cdot 10^{}", exponent(k))
            };
        }
        if v >= 65535 && v.wrapping_add(1).is_power_of_two() || v == u64::MAX {
            return format!("2^{{{}}}-1", 64 - v.leading_zeros());
        }
        if v >= 65536 && v.is_power_of_two() {
            return format!("2^{{{}}}", v.trailing_zeros());
        }
        v.to_string()
    }

    /// The statement's sentence about the classic sample row `3 1 9 4`
    /// (empty when the limits leave it out of the sample); with tempo, then
    /// one about `1 5 5`.
    fn sample_note(&self) -> String {
        if self.task == Task::Remoteness {
            return self.remoteness_sample_note();
        }
        let classic = self.classic_sample_note();
        if !self.tempo || !self.sample_rows().iter().any(|r| r[..] == [1, 5, 5]) {
            return classic;
        }
        let slow = "The row \\texttt{1 5 5} is won by the first player in 5 moves, \
                    starting with \\texttt{R 4} (leaving \\texttt{1 5 1}). Taking the \
                    single stone first (\\texttt{L 1}, leaving \\texttt{5 5}) also wins, \
                    but only after 11 moves: too slowly.";
        if classic.is_empty() {
            slow.to_string()
        } else {
            format!("{classic}\n\n{slow}")
        }
    }

    /// [`Self::sample_note`] of the row `3 1 9 4`.
    fn classic_sample_note(&self) -> String {
        let classic = [3, 1, 9, 4];
        if !self.sample_rows().iter().any(|r| r[..] == classic) {
            return String::new();
        }
        let row = ValidRow::new(&classic[..], MAX_PILES).expect("a valid row");
        let wins = first_player_wins(&row, self.variant);
        let why = match (self.variant, wins) {
            (Variant::Leftmost, true) => {
                "taking the whole first pile leaves \\texttt{1 9 4}, where the \
                 opponent must take the single stone and leave \\texttt{9 4}, \
                 a win for the player to move"
            }
            (_, false) => {
                "whatever is taken, the opponent has an answer that keeps the \
                 position lost for the player to move, down to the empty row"
            }
            (_, true) => "the first player has a winning move",
        };
        let (verdict, seat) = if wins {
            ("won by the first player", "FIRST")
        } else {
            ("lost for the first player", "SECOND")
        };
        if self.interactive {
            format!(
                "In the sample, the row \\texttt{{3 1 9 4}} is {verdict} ({why}), so \
                 your program must answer \\texttt{{{seat}}} there."
            )
        } else {
            format!("In the sample, the row \\texttt{{3 1 9 4}} is {verdict}: {why}.")
        }
    }

    /// The statement's words about the remoteness sample: the rows where
    /// the shortcuts fail (those the limits keep).
    fn remoteness_sample_note(&self) -> String {
        let rows = self.sample_rows();
        let mut notes = Vec::new();
        if rows.iter().any(|r| r[..] == [3, 1, 2, 3]) {
            notes.push(
                "The row \\texttt{3 1 2 3} is lost for the first player and lasts 8 \
                 moves. If the loser always took a single stone from the larger end \
                 pile (leaving \\texttt{2 1 2 3}), the winner could end the game \
                 after 6 moves: the loser does better by taking two stones from the \
                 left pile, leaving \\texttt{1 1 2 3}."
                    .to_string(),
            );
        }
        if rows.iter().any(|r| r[..] == [2, 4, 4]) {
            notes.push(
                "The row \\texttt{2 4 4} is won by the first player in 7 moves, \
                 starting with taking two stones from the right pile (leaving \
                 \\texttt{2 4 2}). Taking the whole left pile (leaving \
                 \\texttt{4 4}) also wins, but only after 9 moves."
                    .to_string(),
            );
        }
        notes.join("\n\n")
    }

    /// The sources of the package, path and text (everything but the data,
    /// the statement and `problem.yaml`).
    pub fn sources(&self) -> Vec<(&'static str, String)> {
        // With tempo, the testing tool says what it does not check.
        static TEMPO_TESTING_TOOL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            include_str!("assets/testing_tool.py")
                .replacen(
                    "# protocol and a judge that also wins whenever it can.\n",
                    "# protocol and a judge that also wins whenever it can. It neither plays\n\
                     # with tempo nor checks it: the real judge also resists as long as\n\
                     # possible when it loses, and rejects a game won in more moves than the\n\
                     # remoteness of its row.\n",
                    1,
                )
                .replacen(
                    "\"OK: every game won\"",
                    "\"OK: every game won (not checked here: within its remoteness)\"",
                    1,
                )
        });
        let validator = include_str!("assets/input_validator.cpp");
        let mut files = vec![
            ("input_validators/validate.cpp", self.substitute(validator)),
            (
                "generators/gen.cpp",
                include_str!("assets/gen.cpp").to_string(),
            ),
            ("solution/solution.en.tex", self.solution()),
        ];
        // A submission of the kind's (batch, interactive) in
        // assets/KIND/VERDICT/NAME goes to submissions/VERDICT/NAME.
        macro_rules! submission {
            ($kind:literal, $path:literal) => {
                (
                    concat!("submissions/", $path),
                    include_str!(concat!("assets/", $kind, "/", $path)),
                )
            };
        }
        let own: &[(&str, &str)] = if self.task == Task::Remoteness {
            &[
                (
                    "output_validator/checker.cpp",
                    include_str!("assets/checker-remoteness.cpp"),
                ),
                submission!("remoteness", "accepted/solution.cpp"),
                submission!("remoteness", "wrong_answer/one_stone.cpp"),
                submission!("remoteness", "wrong_answer/greedy_winner.cpp"),
                submission!("remoteness", "wrong_answer/overflow_64.cpp"),
                submission!("remoteness", "time_limit_exceeded/exhaustive.cpp"),
            ]
        } else if self.tempo {
            &[
                (
                    "output_validator/interactor.cpp",
                    include_str!("assets/interactor-tempo.cpp"),
                ),
                ("attachments/testing_tool.py", TEMPO_TESTING_TOOL.as_str()),
                submission!("interactive-tempo", "accepted/tempo.cpp"),
                (
                    // Any winning move: too slow on the slow-wins file when
                    // the limits let one be.
                    if self.perfect_is_too_slow() {
                        "submissions/wrong_answer/perfect.cpp"
                    } else {
                        "submissions/accepted/perfect.cpp"
                    },
                    include_str!("assets/interactive/accepted/perfect.cpp"),
                ),
                submission!("interactive", "wrong_answer/losing_seat.cpp"),
                submission!("interactive", "wrong_answer/random_player.py"),
                submission!("interactive", "wrong_answer/protocol_violation.py"),
            ]
        } else if self.interactive {
            &[
                (
                    "output_validator/interactor.cpp",
                    include_str!("assets/interactor.cpp"),
                ),
                (
                    "attachments/testing_tool.py",
                    include_str!("assets/testing_tool.py"),
                ),
                submission!("interactive", "accepted/perfect.cpp"),
                submission!("interactive", "wrong_answer/losing_seat.cpp"),
                submission!("interactive", "wrong_answer/random_player.py"),
                submission!("interactive", "wrong_answer/protocol_violation.py"),
            ]
        } else {
            &[
                (
                    "output_validator/checker.cpp",
                    include_str!("assets/checker.cpp"),
                ),
                submission!("batch", "accepted/solution.cpp"),
                submission!("batch", "accepted/solution.py"),
                submission!("batch", "wrong_answer/nim_xor.cpp"),
                submission!("batch", "wrong_answer/greedy_ends.py"),
                submission!("batch", "wrong_answer/shortcut.cpp"),
                submission!("batch", "time_limit_exceeded/brute_force.cpp"),
            ]
        };
        files.extend(own.iter().map(|&(p, t)| (p, self.substitute(t))));
        files
    }

    /// The solution write-up, `solution/solution.en.tex`: BAPCtools'
    /// solution slides (beamer frames), with the recurrence and why it is
    /// right.
    pub fn solution(&self) -> String {
        let mut tex = match (self.task, self.variant) {
            (Task::Remoteness, _) => include_str!("assets/solution/remoteness.tex"),
            (Task::Verdict, Variant::TwoEnds) => include_str!("assets/solution/two-ends.tex"),
            (Task::Verdict, Variant::Leftmost) => include_str!("assets/solution/leftmost.tex"),
        }
        .to_string();
        if self.interactive {
            tex.push_str(include_str!("assets/solution/interactive.tex"));
        }
        if self.tempo {
            tex.push_str(include_str!("assets/solution/interactive-tempo.tex"));
        }
        tex
    }

    /// `generators/generators.yaml`: the BAPCtools generators framework
    /// listing every test file (sample and invalid inputs inline, secret
    /// files as `stonegame gen` command lines).
    pub fn generators_yaml(&self) -> String {
        use std::fmt::Write as _;
        // The accepted solution, which writes the answers (for the
        // interactive problem: the sample's transcript).
        let solution = if self.tempo {
            "tempo.cpp"
        } else if self.interactive {
            "perfect.cpp"
        } else {
            "solution.cpp"
        };
        let answers = if self.interactive {
            "NAME.ans is empty"
        } else {
            "the accepted solution writes NAME.ans"
        };
        let mut y = String::new();
        let _ = writeln!(
            y,
            "# The test data of this package, for the BAPCtools generators framework:\n\
             # `bt generate` reruns every line: generators/gen.cpp (C++17, compiled by\n\
             # BAPCtools; no Rust needed) writes NAME.in, {answers}.\n\
             # By hand: `g++ -std=c++17 -O2 -o gen gen.cpp && ./gen ARGS > NAME.in`;\n\
             # `stonegame gen ARGS` writes the same bytes.\n\
             version: 2025-12\n\
             solution: /submissions/accepted/{solution}\n\
             data:\n  sample:\n    data:\n      '001-sample':\n        in: {}",
            yaml_string(&oj_text(&self.sample_rows())),
        );
        if self.interactive {
            // bt generate writes the .interaction transcript itself.
            let _ = writeln!(
                y,
                "        in.download: {}\n        ans.download: \"\"",
                yaml_string(&oj_text(&self.sample_rows()))
            );
        } else {
            let _ = writeln!(y, "        ans: {}", yaml_string(&self.sample_answers()));
        }
        let _ = writeln!(y, "  secret:\n    data:");
        for f in self.secret_files() {
            let s = &f.spec;
            let _ = writeln!(
                y,
                "      '{}': gen.cpp --family {} --cases {} --max-n {} --max-a {} \
                 --seed {} --variant {}",
                f.name,
                s.family,
                s.cases,
                s.max_n,
                s.max_a,
                s.seed,
                self.variant.name(),
            );
        }
        for (name, rows) in self.inline_secret_files() {
            let _ = writeln!(
                y,
                "      '{name}':\n        in: {}",
                yaml_string(&oj_text(&rows))
            );
            // (Interactive: the .ans is empty, as for the gen.cpp lines.)
            if !self.interactive {
                let _ = writeln!(y, "        ans: {}", yaml_string(&self.answers_of(&rows)));
            }
        }
        let _ = writeln!(y, "  invalid_input:\n    data:");
        for (i, (name, bytes)) in self.invalid_inputs().iter().enumerate() {
            // An inline `in:` gets a final newline from BAPCtools: a file
            // without one is copied from generators/.
            if bytes.last().is_some_and(|&b| b != b'\n') {
                let _ = writeln!(y, "      '{:02}-{name}':\n        copy: {name}", i + 1);
            } else {
                let _ = writeln!(
                    y,
                    "      '{:02}-{name}':\n        in: {}",
                    i + 1,
                    yaml_string(&String::from_utf8_lossy(bytes))
                );
            }
        }
        y
    }

    fn sample_answers(&self) -> String {
        self.answers_of(&self.sample_rows())
    }

    /// The expected answers of `rows`, one line each.
    fn answers_of(&self, rows: &[Vec<u64>]) -> String {
        rows.iter()
            .map(|row| {
                let row = ValidRow::new(row.as_slice(), MAX_PILES).expect("package rows are valid");
                if self.task == Task::Remoteness {
                    format!("{}\n", remoteness(&row, self.variant))
                } else if first_player_wins(&row, self.variant) {
                    "1\n".to_string()
                } else {
                    "0\n".to_string()
                }
            })
            .collect()
    }
}

/// A YAML double-quoted scalar.
fn yaml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Text with LaTeX's special characters escaped.
fn latex_text(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Rows in the OJ format.
fn oj_text(rows: &[Vec<u64>]) -> String {
    let mut s = format!("{}\n", rows.len());
    for row in rows {
        let piles: Vec<String> = row.iter().map(u64::to_string).collect();
        s.push_str(&format!("{}\n{}\n", row.len(), piles.join(" ")));
    }
    s
}

/// Writes the package of `spec` to `dir` (and, with `zip`, `DIR.zip` beside
/// it). A non-empty `dir` is refused unless `force`. On any error nothing
/// is left behind: the package is written to a temporary directory beside
/// `dir` and renamed into place.
pub fn write_package(
    spec: &PackageSpec,
    dir: &Path,
    force: bool,
    zip: bool,
) -> Result<PackageSummary, PackageError> {
    spec.validate()?;
    let Some(base) = dir.file_name() else {
        return Err(PackageError::BadDir(dir.to_path_buf()));
    };
    // The directory's name is the problem's short name.
    let short = base.to_string_lossy();
    if !is_short_name(&short) {
        return Err(PackageError::BadShortName {
            what: "DIR",
            name: short.into_owned(),
        });
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => return Err(PackageError::NotADirectory(dir.to_path_buf())),
        Ok(_) => {
            let empty = fs::read_dir(dir).map_err(io_at(dir))?.next().is_none();
            if !empty && !force {
                return Err(PackageError::NotEmpty(dir.to_path_buf()));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_at(dir)(e)),
    }
    let base = base.to_string_lossy();
    let tmp = parent.join(format!(".{base}.stonegame-{}.tmp", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir(&tmp).map_err(io_at(&tmp))?;
    let result = (|| {
        let mut summary = write_tree(spec, &tmp)?;
        let zip_path = if zip {
            let zip_path = dir.with_file_name(format!("{base}.zip"));
            let zip_tmp = parent.join(format!(".{base}.stonegame-{}.zip.tmp", std::process::id()));
            let written = zip::write_dir_zip(&tmp, &zip_tmp);
            if let Err(e) = written {
                let _ = fs::remove_file(&zip_tmp);
                return Err(io_at(&zip_path)(e));
            }
            Some((zip_tmp, zip_path))
        } else {
            None
        };
        // Into place: an existing DIR (empty, or --force) is moved aside first.
        let old = parent.join(format!(".{base}.stonegame-{}.old", std::process::id()));
        let existed = dir.exists();
        if existed {
            fs::rename(dir, &old).map_err(io_at(dir))?;
        }
        if let Err(e) = fs::rename(&tmp, dir) {
            if existed {
                let _ = fs::rename(&old, dir);
            }
            if let Some((zip_tmp, _)) = &zip_path {
                let _ = fs::remove_file(zip_tmp);
            }
            return Err(io_at(dir)(e));
        }
        if existed {
            let _ = fs::remove_dir_all(&old);
        }
        if let Some((zip_tmp, zip_path)) = zip_path {
            fs::rename(&zip_tmp, &zip_path).map_err(io_at(&zip_path))?;
            summary.zip = Some(zip_path);
        }
        summary.dir = dir.to_path_buf();
        Ok(summary)
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

/// Writes every file of the package under `root` (an empty directory).
fn write_tree(spec: &PackageSpec, root: &Path) -> Result<PackageSummary, PackageError> {
    let mut files = 0usize;
    let mut put = |rel: &str, bytes: &[u8]| -> Result<(), PackageError> {
        let path = root.join(rel);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p).map_err(io_at(p))?;
        }
        fs::write(&path, bytes).map_err(io_at(&path))?;
        files += 1;
        Ok(())
    };
    put("problem.yaml", spec.problem_yaml().as_bytes())?;
    put("statement/problem.en.tex", spec.statement().as_bytes())?;
    for (path, text) in spec.sources() {
        put(path, text.as_bytes())?;
    }
    put(
        "generators/generators.yaml",
        spec.generators_yaml().as_bytes(),
    )?;
    let sample = oj_text(&spec.sample_rows());
    put("data/sample/001-sample.in", sample.as_bytes())?;
    if spec.interactive {
        put("data/sample/001-sample.ans", b"")?;
        // What BAPCtools shows in the statement, and what contestants
        // download (the games, and no answers).
        let rows = spec.sample_rows();
        let transcript = if spec.tempo {
            transcript::tempo_interaction(&rows)
        } else {
            transcript::interaction(&rows, spec.variant, spec.seed)
        };
        put("data/sample/001-sample.interaction", transcript.as_bytes())?;
        put("data/sample/001-sample.in.download", sample.as_bytes())?;
        put("data/sample/001-sample.ans.download", b"")?;
    } else {
        let answers = spec.sample_answers();
        put("data/sample/001-sample.ans", answers.as_bytes())?;
    }
    let invalid = spec.invalid_inputs();
    for (i, (name, bytes)) in invalid.iter().enumerate() {
        put(&format!("data/invalid_input/{:02}-{name}.in", i + 1), bytes)?;
        if bytes.last().is_some_and(|&b| b != b'\n') {
            put(&format!("generators/{name}.in"), bytes)?;
        }
    }
    let secret = spec.secret_files();
    let secret_dir = root.join("data/secret");
    fs::create_dir_all(&secret_dir).map_err(io_at(&secret_dir))?;
    for f in &secret {
        let in_path = secret_dir.join(format!("{}.in", f.name));
        let ans_path = secret_dir.join(format!("{}.ans", f.name));
        let mut input =
            BufWriter::with_capacity(1 << 16, File::create(&in_path).map_err(io_at(&in_path))?);
        let mut answers =
            BufWriter::with_capacity(1 << 16, File::create(&ans_path).map_err(io_at(&ans_path))?);
        let answers_to = (!spec.interactive).then_some(&mut answers as &mut dyn Write);
        generate_task(&f.spec, spec.task, &mut input, answers_to).map_err(
            |source| match source {
                GenError::Input(e) => io_at(&in_path)(e),
                GenError::Answers(e) => io_at(&ans_path)(e),
                source => PackageError::Generate {
                    file: f.name.clone(),
                    source,
                },
            },
        )?;
        answers.flush().map_err(io_at(&ans_path))?;
        files += 2;
    }
    let inline = spec.inline_secret_files();
    for (name, rows) in &inline {
        let in_path = secret_dir.join(format!("{name}.in"));
        let ans_path = secret_dir.join(format!("{name}.ans"));
        fs::write(&in_path, oj_text(rows)).map_err(io_at(&in_path))?;
        let answers = if spec.interactive {
            String::new()
        } else {
            spec.answers_of(rows)
        };
        fs::write(&ans_path, answers).map_err(io_at(&ans_path))?;
        files += 2;
    }
    Ok(PackageSummary {
        dir: root.to_path_buf(),
        zip: None,
        files,
        secret: secret.len() + inline.len(),
        invalid: invalid.len(),
    })
}
