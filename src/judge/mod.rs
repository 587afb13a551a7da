//! Judge tooling for preparing a problem package for an online judge.
//!
//! * [`check`] — the output checker: a test input and a contestant's output
//!   in, a testlib-style verdict (accepted, wrong answer, presentation error,
//!   judge failure) out, both files streamed;
//! * [`generate`] — the test-data generator: deterministic families of
//!   OJ-format inputs (random, planted losses, exhaustive, hack cases …) and
//!   their expected outputs, written case by case.
//!
//! Both only read and write through `BufRead` / `Write`, so the CLI and a
//! service can drive them alike.

pub mod check;
pub mod generate;
