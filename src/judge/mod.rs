//! Judge tooling for preparing a problem package for an online judge.
//!
//! * [`check`] — the output checker: a test input and a contestant's output
//!   in, a testlib-style verdict (accepted, wrong answer, presentation error,
//!   judge failure) out, both files streamed;
//! * [`generate`] — the test-data generator: deterministic families of
//!   OJ-format inputs (random, planted losses, exhaustive, hack cases …) and
//!   their expected outputs, written case by case;
//! * [`interact`] — the interactor: plays the games of an OJ-format input
//!   against a contestant's program over its standard input and output (the
//!   protocol, the judge's bot, time-outs, a transcript) and gives the same
//!   kind of verdict.
//!
//! The checker and the generator only read and write through `BufRead` /
//! `Write`, and solve their cases in bounded batches through a
//! [`SolveBatch`], so the CLI and a service can drive them alike: the CLI
//! solves on a rayon pool ([`OnPool`]), a service plugs in its admission
//! control and cancellation. The interactor plays one game at a time on the
//! calling thread (with a reader and a writer thread for the pipes).

use std::convert::Infallible;

use crate::core::verdict::solve_valid_batch;
use crate::core::{ValidRow, Variant};

pub mod check;
pub mod generate;
pub mod interact;

/// Solves the batches of rows the checker and the generator collect.
pub trait SolveBatch {
    /// Why solving stopped short (cancelled, refused): not a verdict.
    type Error: std::error::Error + Send + Sync + 'static;

    /// The verdicts of `rows` in order (`true`: the first player wins).
    fn solve(
        &mut self,
        rows: &[ValidRow<'static>],
        variant: Variant,
    ) -> Result<Vec<bool>, Self::Error>;
}

/// Solving on a rayon pool (`None`: the current or the global one); never
/// stops short.
#[derive(Debug, Clone, Copy, Default)]
pub struct OnPool<'a>(pub Option<&'a rayon::ThreadPool>);

impl SolveBatch for OnPool<'_> {
    type Error = Infallible;

    fn solve(
        &mut self,
        rows: &[ValidRow<'static>],
        variant: Variant,
    ) -> Result<Vec<bool>, Infallible> {
        Ok(match self.0 {
            Some(pool) => pool.install(|| solve_valid_batch(rows, variant)),
            None => solve_valid_batch(rows, variant),
        })
    }
}
