//! The test-data generator: deterministic families of OJ-format inputs and
//! their expected outputs, written case by case.
//!
//! A [`GenSpec`] names a [`Family`], the number of cases, the limits and a
//! seed; the families, their guarantees and what each `hack` killer row
//! breaks are described in docs/judging.md, "Generating tests". The same
//! spec always gives the same bytes, on every platform: the random source
//! is `ChaCha8Rng::seed_from_u64(seed)` and only `u64` ranges are sampled.
//! [`Rows`] yields the rows one at a time; [`generate`] writes them (and,
//! if asked, the expected answers, solved in parallel batches), so a large
//! file is never held whole in memory.
//!
//! A `hack` block holds the kinds of `HackKind::BLOCK` that the limits
//! allow. The killer rows are small (n ≤ 5), so a wrong solution's tables
//! can be followed by hand: they differ from the truth only where its bug
//! bites, which flips its answer; `tests/it/judge_wrong_solutions.rs`
//! re-implements each wrong solution and shows that hack files fail them.
//!
//! [`generate_task`] writes the same inputs with other expected answers:
//! the remoteness of each row instead of its verdict ([`Task`]).

use std::io::{self, Write};
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::core::named_enum;
use crate::core::planted::plant_loss;
use crate::core::remoteness::remoteness;
use crate::core::{MAX_PILE, MAX_PILES, RowError, ValidRow, Variant, leftmost};

use super::{OnPool, SolveBatch};
use crate::core::batch::Batch;

named_enum! {
    /// A family of test rows (also the values of `stonegame gen --family`,
    /// its names).
    #[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
    pub enum Family: fn name {
        /// n uniform in 1..=max-n, piles uniform in 1..=max-a.
        Random => "random",
        /// Piles of 1..=3 stones.
        Tiny => "tiny",
        /// Piles of a row within ±1 of one another.
        Near => "near",
        /// Rows that read the same from both ends.
        Palindrome => "palindrome",
        /// n = max-n, piles among the three largest values.
        Max => "max",
        /// Half first-player losses, half near-misses (a_1 one off).
        Planted => "planted",
        /// Every row up to max-n piles of 1..=max-a stones (--cases is a cap).
        Exhaustive => "exhaustive",
        /// Rows known wrong solutions get wrong, mixed with planted losses.
        Hack => "hack",
    }
}

named_enum! {
    /// What the expected answers of a test file are (the values of
    /// `stonegame gen --task` and `stonegame package --task`).
    #[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
    pub enum Task: fn name {
        /// One `0`/`1` line per case: does the first player win?
        Verdict => "verdict",
        /// One line per case: the remoteness in plies (docs/game.md §5),
        /// a decimal integer that may exceed 2^64 − 1.
        Remoteness => "remoteness",
    }
}

impl FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Family::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown family `{s}` (expected one of {})",
                    names.join(", ")
                )
            })
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenSpec {
    /// The family of rows.
    pub family: Family,
    /// Number of cases T (for `exhaustive`: the largest T accepted).
    pub cases: u64,
    /// Largest number of piles in a row (≥ 1, ≤ [`MAX_PILES`]).
    pub max_n: u64,
    /// Largest pile (≥ 1, ≤ [`MAX_PILE`] = 2^63 − 1).
    pub max_a: u64,
    /// The seed of the random source.
    pub seed: u64,
    /// The game the expected answers (and planted losses) are for.
    pub variant: Variant,
}

/// What was generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenSummary {
    /// Number of cases written.
    pub cases: u64,
    /// Total number of piles written.
    pub piles: u64,
    /// Number of first-player losses, when the expected answers were written.
    pub losses: Option<u64>,
}

/// Why nothing (or not everything) was generated.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("the number of cases must be at least 1")]
    NoCases,
    #[error("max-n must be at least 1 (a row has at least one pile)")]
    MaxNZero,
    #[error("max-n {max_n} is larger than the limit of {limit} piles per row")]
    MaxNTooLarge { max_n: u64, limit: usize },
    #[error("max-a must be at least 1 (every pile has at least one stone)")]
    MaxAZero,
    #[error("max-a {max_a} is larger than the largest pile {MAX_PILE} (2^63-1)")]
    MaxATooLarge { max_a: u64 },
    #[error(
        "family `{family}` needs max-n of at least 2: a single pile is always a first-player win"
    )]
    NeedsTwoPiles { family: Family },
    #[error(
        "family `exhaustive` with max-n {max_n} and max-a {max_a} has {} rows, more than \
         the {cases} cases allowed: raise --cases or lower --max-n / --max-a",
        rows.map_or_else(|| "more than 2^64".to_string(), |r| r.to_string())
    )]
    ExhaustiveTooManyRows {
        max_n: u64,
        max_a: u64,
        /// `None` when the count does not fit a `u64`.
        rows: Option<u64>,
        cases: u64,
    },
    #[error("cannot write the test input: {0}")]
    Input(#[source] io::Error),
    #[error("cannot write the expected answers: {0}")]
    Answers(#[source] io::Error),
    #[error("internal error: a generated row is invalid: {0}")]
    InvalidRow(#[from] RowError),
    /// The [`SolveBatch`] stopped short (cancelled, refused); its error.
    #[error("solving stopped: {0}")]
    Solver(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl GenError {
    /// The parameter a refusal of [`GenSpec::validate`] is about, by its
    /// proto field name (`cases`, `max_n`, `max_a`); `None` for
    /// errors of writing or solving.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            GenError::NoCases | GenError::ExhaustiveTooManyRows { .. } => Some("cases"),
            GenError::MaxNZero | GenError::MaxNTooLarge { .. } | GenError::NeedsTwoPiles { .. } => {
                Some("max_n")
            }
            GenError::MaxAZero | GenError::MaxATooLarge { .. } => Some("max_a"),
            GenError::Input(_)
            | GenError::Answers(_)
            | GenError::InvalidRow(_)
            | GenError::Solver(_) => None,
        }
    }
}

/// Number of rows of 1 ..= max_n piles of 1 ..= max_a stones, if it fits.
pub fn exhaustive_rows(max_n: u64, max_a: u64) -> Option<u64> {
    let (mut total, mut layer) = (0u64, 1u64);
    for _ in 0..max_n {
        layer = layer.checked_mul(max_a)?;
        total = total.checked_add(layer)?;
    }
    Some(total)
}

impl GenSpec {
    /// Checks the parameters and returns the number of cases T the file will
    /// hold.
    pub fn validate(&self) -> Result<u64, GenError> {
        if self.cases == 0 {
            return Err(GenError::NoCases);
        }
        if self.max_n == 0 {
            return Err(GenError::MaxNZero);
        }
        if self.max_n > MAX_PILES as u64 {
            return Err(GenError::MaxNTooLarge {
                max_n: self.max_n,
                limit: MAX_PILES,
            });
        }
        if self.max_a == 0 {
            return Err(GenError::MaxAZero);
        }
        if self.max_a > MAX_PILE {
            return Err(GenError::MaxATooLarge { max_a: self.max_a });
        }
        match self.family {
            Family::Planted | Family::Hack if self.max_n < 2 => Err(GenError::NeedsTwoPiles {
                family: self.family,
            }),
            Family::Exhaustive => match exhaustive_rows(self.max_n, self.max_a) {
                Some(rows) if rows <= self.cases => Ok(rows),
                rows => Err(GenError::ExhaustiveTooManyRows {
                    max_n: self.max_n,
                    max_a: self.max_a,
                    rows,
                    cases: self.cases,
                }),
            },
            _ => Ok(self.cases),
        }
    }
}

/// `2^31`, where `int32` wraps.
const WRAP_31: u64 = 1 << 31;
/// `2^32`, where `uint32` wraps.
const WRAP_32: u64 = 1 << 32;

/// One kind of row in a `hack` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HackKind {
    FallThrough,
    StaleSingle,
    StrictGe,
    MixUp,
    Wrap31,
    Wrap32,
    EqualPair,
    UnequalPair,
    PlantedLoss,
    NearMiss,
}

impl HackKind {
    const BLOCK: [HackKind; 12] = [
        HackKind::FallThrough,
        HackKind::StaleSingle,
        HackKind::StrictGe,
        HackKind::MixUp,
        HackKind::Wrap31,
        HackKind::Wrap32,
        HackKind::EqualPair,
        HackKind::StaleSingle,
        HackKind::UnequalPair,
        HackKind::PlantedLoss,
        HackKind::NearMiss,
        HackKind::PlantedLoss,
    ];

    fn available(self, max_n: u64, max_a: u64) -> bool {
        match self {
            HackKind::FallThrough | HackKind::StrictGe => max_n >= 4 && max_a >= 2,
            HackKind::MixUp => max_n >= 5 && max_a >= 2,
            HackKind::Wrap31 => max_n >= 4 && max_a >= WRAP_31,
            HackKind::Wrap32 => max_n >= 4 && max_a >= WRAP_32,
            HackKind::UnequalPair => max_a >= 2,
            HackKind::StaleSingle
            | HackKind::EqualPair
            | HackKind::PlantedLoss
            | HackKind::NearMiss => true,
        }
    }
}

/// Where a `hack` file is.
#[derive(Debug, Clone, Default)]
struct HackState {
    /// The kinds of a block that the limits allow.
    block: Vec<HackKind>,
    /// The next kind's index in `block`.
    at: usize,
    /// `a_1` of the previous row if it is a two-ends loss with
    /// `a_1 = left[2][n]` (what a stale `left[2][n]` would hold).
    previous_loss: Option<u64>,
    /// The last planted loss, for the near-miss after it.
    last_planted: Option<Vec<u64>>,
}

/// The rows of a spec, one at a time (an iterator of exactly
/// [`GenSpec::validate`] rows).
#[derive(Debug, Clone)]
pub struct Rows {
    spec: GenSpec,
    rng: ChaCha8Rng,
    total: u64,
    made: u64,
    /// `planted`: whether the second case of the current pair is a loss.
    pending_loss: Option<bool>,
    /// `exhaustive`: the next row.
    odometer: Vec<u64>,
    hack: HackState,
}

impl Rows {
    /// Validates `spec` and starts its rows.
    pub fn new(spec: &GenSpec) -> Result<Rows, GenError> {
        let total = spec.validate()?;
        Ok(Rows {
            spec: *spec,
            rng: ChaCha8Rng::seed_from_u64(spec.seed),
            total,
            made: 0,
            pending_loss: None,
            odometer: vec![1],
            hack: HackState {
                block: HackKind::BLOCK
                    .into_iter()
                    .filter(|k| k.available(spec.max_n, spec.max_a))
                    .collect(),
                ..HackState::default()
            },
        })
    }

    /// The number of rows (cases) in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.rng.random_range(lo..=hi)
    }

    fn len(&mut self, lo: u64) -> usize {
        self.range(lo, self.spec.max_n.max(lo)) as usize
    }

    fn uniform_row(&mut self, n: usize, hi: u64) -> Vec<u64> {
        (0..n).map(|_| self.range(1, hi)).collect()
    }

    fn make(&mut self) -> Result<Vec<u64>, GenError> {
        let (max_a, first) = (self.spec.max_a, self.made == 0);
        Ok(match self.spec.family {
            Family::Random => {
                let n = self.len(1);
                self.uniform_row(n, max_a)
            }
            Family::Tiny => {
                let n = self.len(1);
                self.uniform_row(n, max_a.min(3))
            }
            Family::Near => {
                let n = self.len(1);
                let lo = self.range(1, (max_a - 1).max(1));
                let hi = (lo + 1).min(max_a);
                (0..n).map(|_| self.range(lo, hi)).collect()
            }
            Family::Palindrome => {
                let n = self.len(1);
                let mut row = self.uniform_row(n.div_ceil(2), max_a);
                for i in (0..n / 2).rev() {
                    row.push(row[i]);
                }
                row
            }
            Family::Max => {
                let n = self.spec.max_n as usize;
                if first {
                    vec![max_a; n]
                } else {
                    let spread = (max_a - 1).min(2);
                    (0..n).map(|_| max_a - self.range(0, spread)).collect()
                }
            }
            Family::Planted => {
                let loss = match self.pending_loss.take() {
                    Some(loss) => loss,
                    None => {
                        let loss = self.rng.random_bool(0.5);
                        self.pending_loss = Some(!loss);
                        loss
                    }
                };
                let row = self.planted_loss()?;
                if loss { row } else { self.near_miss(row) }
            }
            Family::Exhaustive => {
                let next = &mut self.odometer;
                let row = next.clone();
                // Odometer: the next row of the same length, or all ones one longer.
                match next.iter().rposition(|&v| v < max_a) {
                    Some(i) => {
                        next[i] += 1;
                        next[i + 1..].fill(1);
                    }
                    None => *next = vec![1; next.len() + 1],
                }
                row
            }
            Family::Hack => self.hack()?,
        })
    }

    /// `(t, tail…)`, lost for the first player, if such a `t` exists
    /// within `max_a`.
    fn plant(&self, tail: &[u64]) -> Result<Option<Vec<u64>>, GenError> {
        let tail = ValidRow::new(tail, usize::MAX)?;
        let row = match self.spec.variant {
            Variant::TwoEnds => plant_loss(&tail).map(ValidRow::into_vec),
            Variant::Leftmost => leftmost::first_player_wins(&tail).then(|| {
                let mut row = vec![1];
                row.extend_from_slice(&tail);
                row
            }),
        };
        Ok(row.filter(|row| row[0] <= self.spec.max_a))
    }

    /// A first-player loss `(t, tail…)` of 2 ..= max_n piles (`max_n ≥ 2`).
    fn planted_loss(&mut self) -> Result<Vec<u64>, GenError> {
        const ATTEMPTS: usize = 32;
        for _ in 0..ATTEMPTS {
            let n = self.len(2);
            // Half the tails use small piles, where the tables' ±1 cases are dense.
            let hi = if self.rng.random_bool(0.5) {
                self.spec.max_a
            } else {
                self.spec.max_a.min(10)
            };
            let tail = self.uniform_row(n - 1, hi);
            if let Some(row) = self.plant(&tail)? {
                return Ok(row);
            }
        }
        // (1, 1) is lost in both variants.
        Ok(vec![1, 1])
    }

    /// A planted loss with `a_1` one off, or the bare tail when `max_a = 1`.
    fn near_miss(&mut self, mut row: Vec<u64>) -> Vec<u64> {
        let t = row[0];
        // (up possible, down possible): a coin decides only when both are.
        match (t < self.spec.max_a, t > 1) {
            (true, true) if self.rng.random_bool(0.5) => row[0] += 1,
            (true, false) => row[0] += 1,
            (_, true) => row[0] -= 1,
            (false, false) => {
                row.remove(0);
            }
        }
        row
    }

    fn hack(&mut self) -> Result<Vec<u64>, GenError> {
        let HackState { block, at, .. } = &mut self.hack;
        let kind = block[*at];
        *at = (*at + 1) % block.len();
        let max_a = self.spec.max_a;
        let two_ends = self.spec.variant == Variant::TwoEnds;
        // The row, and whether it is a two-ends loss with a_1 = left[2][n].
        let (row, two_ends_loss) = match kind {
            HackKind::FallThrough => {
                let q = self.range(2, max_a);
                let p = self.range(1, q - 1);
                (vec![q - 1, p, q, q], true)
            }
            HackKind::StrictGe => {
                let p = self.range(2, max_a);
                let q = self.range(1, p - 1);
                (vec![q + 1, p, q, q], true)
            }
            HackKind::MixUp => {
                let u = self.range(2, max_a);
                let w = self.range(1, u - 1);
                let v = self.range(1, max_a - 1);
                let v = if v >= u { v + 1 } else { v };
                (vec![w, u, v, u, w], true)
            }
            HackKind::Wrap31 | HackKind::Wrap32 => {
                let (bound, top) = if kind == HackKind::Wrap31 {
                    (WRAP_31, max_a.min(WRAP_32 - 1))
                } else {
                    (WRAP_32, max_a)
                };
                // q just below the wrap (q + 1 reaches it at most), p just above.
                let q = bound - 1 - self.range(0, 3);
                let p = self.range(bound, top.min(bound + 3));
                (vec![q + 1, p, q, q], true)
            }
            HackKind::StaleSingle => match self.hack.previous_loss {
                Some(v) => (vec![v], false),
                None => (self.planted_loss()?, two_ends),
            },
            HackKind::EqualPair => {
                let x = self.range(1, max_a);
                (vec![x, x], true)
            }
            HackKind::UnequalPair => {
                let x = self.range(1, max_a);
                let y = self.range(1, max_a - 1);
                (vec![x, if y >= x { y + 1 } else { y }], false)
            }
            HackKind::PlantedLoss => {
                let row = self.planted_loss()?;
                self.hack.last_planted = Some(row.clone());
                (row, two_ends)
            }
            HackKind::NearMiss => {
                let loss = match self.hack.last_planted.take() {
                    Some(row) => row,
                    None => self.planted_loss()?,
                };
                (self.near_miss(loss), false)
            }
        };
        self.hack.previous_loss = two_ends_loss.then_some(row[0]);
        Ok(row)
    }
}

impl Iterator for Rows {
    type Item = Result<Vec<u64>, GenError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.made == self.total {
            return None;
        }
        let row = self.make();
        self.made += 1;
        Some(row)
    }
}

/// Writes the OJ-format input of `spec` to `input` and, if given, one
/// expected `0`/`1` line per case to `answers`, case by case. Buffer the
/// writers: many small writes are made.
pub fn generate(
    spec: &GenSpec,
    input: &mut dyn Write,
    answers: Option<&mut dyn Write>,
) -> Result<GenSummary, GenError> {
    generate_with(spec, input, answers, &mut OnPool(None))
}

/// [`generate`], solving the expected answers with `solver`; if it stops
/// short, [`GenError::Solver`] holds its error. A service calls it from a
/// thread that may block on a slow client, with a solver that admits each
/// batch and stops when the client goes away.
pub fn generate_with<S: SolveBatch>(
    spec: &GenSpec,
    input: &mut dyn Write,
    mut answers: Option<&mut dyn Write>,
    solver: &mut S,
) -> Result<GenSummary, GenError> {
    let rows = Rows::new(spec)?;
    let mut summary = GenSummary {
        cases: rows.total(),
        piles: 0,
        losses: answers.as_ref().map(|_| 0),
    };
    writeln!(input, "{}", rows.total()).map_err(GenError::Input)?;
    let mut batch = Batch::default();
    let mut line = String::new();
    let total = rows.total();
    for (i, row) in rows.enumerate() {
        let row = row?;
        line.clear();
        write_row(&mut line, &row);
        input.write_all(line.as_bytes()).map_err(GenError::Input)?;
        summary.piles += row.len() as u64;
        if let Some(out) = answers.as_deref_mut() {
            batch.push(ValidRow::new(row, MAX_PILES)?);
            if batch.is_full() || i as u64 + 1 == total {
                let verdicts = batch
                    .solve_with(|rows| solver.solve(rows, spec.variant))
                    .map_err(|e| GenError::Solver(Box::new(e)))?;
                for wins in verdicts {
                    if !wins {
                        summary.losses = summary.losses.map(|l| l + 1);
                    }
                    out.write_all(if wins { b"1\n" } else { b"0\n" })
                        .map_err(GenError::Answers)?;
                }
            }
        }
    }
    input.flush().map_err(GenError::Input)?;
    if let Some(out) = answers {
        out.flush().map_err(GenError::Answers)?;
    }
    Ok(summary)
}

/// [`generate`] for `task`: with [`Task::Remoteness`] the expected answers
/// are the remoteness of each row (`crate::core::remoteness`, exact, one
/// row at a time: keep the rows modest, the DP is O(n²) per row).
pub fn generate_task(
    spec: &GenSpec,
    task: Task,
    input: &mut dyn Write,
    answers: Option<&mut dyn Write>,
) -> Result<GenSummary, GenError> {
    if task == Task::Verdict {
        return generate(spec, input, answers);
    }
    let rows = Rows::new(spec)?;
    let mut summary = GenSummary {
        cases: rows.total(),
        piles: 0,
        losses: answers.as_ref().map(|_| 0),
    };
    let mut answers = answers;
    writeln!(input, "{}", rows.total()).map_err(GenError::Input)?;
    let mut line = String::new();
    for row in rows {
        let row = row?;
        line.clear();
        write_row(&mut line, &row);
        input.write_all(line.as_bytes()).map_err(GenError::Input)?;
        summary.piles += row.len() as u64;
        if let Some(out) = answers.as_deref_mut() {
            let r = remoteness(&ValidRow::new(row, MAX_PILES)?, spec.variant);
            if r.is_multiple_of(2) {
                summary.losses = summary.losses.map(|l| l + 1);
            }
            writeln!(out, "{r}").map_err(GenError::Answers)?;
        }
    }
    input.flush().map_err(GenError::Input)?;
    if let Some(out) = answers {
        out.flush().map_err(GenError::Answers)?;
    }
    Ok(summary)
}

/// Appends `n` and the piles, two lines, to `out`.
fn write_row(out: &mut String, row: &[u64]) {
    use std::fmt::Write as _;
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{}", row.len());
    for (i, v) in row.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{v}");
    }
    out.push('\n');
}
