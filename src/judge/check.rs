//! The output checker: compares a contestant's output with the verdicts of a
//! test input and gives a testlib-style verdict.
//!
//! Both files are streamed: the input is read case by case with
//! [`OjReader`], solved in bounded batches on all cores, and the answer is
//! read line by line alongside it, so neither file is ever held whole in
//! memory (a single over-long answer line is not either: only its first bytes
//! are kept for the message).
//!
//! The rules are those of docs/judging.md, "The checker": line `k` is the
//! answer to case `k`, exactly `0` or `1` and trailing whitespace (spaces,
//! tabs, form feeds, the `\r` of CRLF); only whitespace may follow the last
//! answer, and anything else is a presentation error. Verdicts, in order of
//! precedence: [`Verdict::JudgeFailure`] (a malformed input, reported with
//! its case, line and column, or an unreadable file; the whole input is read
//! even after the answer failed), [`Verdict::PresentationError`] (the first
//! such line), [`Verdict::WrongAnswer`] (the first wrong case and how many),
//! [`Verdict::Accepted`]. The verdict line ([`CheckReport::message`])
//! follows testlib: `ok …`, `wrong answer …`, `wrong output format …`,
//! `FAIL …`.

use std::fmt;
use std::io::{self, BufRead};

use crate::core::Variant;
use crate::ojformat::OjReader;

use super::{OnPool, SolveBatch};
use crate::core::batch::Batch;

/// The checker's verdict; its discriminant is the testlib exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Every answer is right.
    Accepted = 0,
    /// Well-formed output with at least one wrong answer.
    WrongAnswer = 1,
    /// The output is not one `0`/`1` line per case.
    PresentationError = 2,
    /// The test input is malformed or a file cannot be read: the judge's fault.
    JudgeFailure = 3,
}

impl Verdict {
    /// The testlib exit code: 0 accepted, 1 wrong answer, 2 presentation
    /// error, 3 judge failure.
    pub fn exit_code(self) -> u8 {
        self as u8
    }

    /// The testlib word(s) that start the verdict line.
    pub fn testlib_name(self) -> &'static str {
        match self {
            Verdict::Accepted => "ok",
            Verdict::WrongAnswer => "wrong answer",
            Verdict::PresentationError => "wrong output format",
            Verdict::JudgeFailure => "FAIL",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.testlib_name())
    }
}

/// The first case answered wrongly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based case number (and answer line).
    pub case: u64,
    /// The truth: does the first player win?
    pub expected: bool,
    /// The contestant's answer.
    pub got: bool,
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// The verdict.
    pub verdict: Verdict,
    /// The whole testlib-style verdict line, e.g. `ok 10 cases` or
    /// `wrong answer case 3: expected 0, got 1 (2 of 10 cases wrong)`.
    pub message: String,
    /// Number of cases in the input (for a judge failure: cases read before
    /// the error).
    pub cases: u64,
    /// Number of cases answered wrongly (among those compared: comparing
    /// stops at a presentation error).
    pub wrong_cases: u64,
    /// The first wrong answer, if any was compared.
    pub first_mismatch: Option<Mismatch>,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One line of the answer file, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AnswerLine {
    /// `0` or `1` with optional trailing whitespace.
    Answer(bool),
    /// Empty or whitespace only.
    Blank,
    /// Anything else; the text is cut to [`MAX_SHOWN`] bytes, trailing
    /// whitespace removed.
    Malformed(String),
}

/// Bytes of a malformed line kept for the message.
const MAX_SHOWN: usize = 40;

/// Whitespace accepted at the end of an answer line (`\n` ends the line).
fn is_trailing_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// Reads the answer line by line, keeping at most [`MAX_SHOWN`] + 1 bytes of
/// a line.
struct AnswerLines<R> {
    input: R,
    /// Number of lines read so far.
    line: u64,
    head: Vec<u8>,
}

impl<R: BufRead> AnswerLines<R> {
    fn new(input: R) -> Self {
        AnswerLines {
            input,
            line: 0,
            head: Vec::with_capacity(MAX_SHOWN + 1),
        }
    }

    /// The next line (1-based number) or `None` at the end of the file.
    fn next_line(&mut self) -> io::Result<Option<(u64, AnswerLine)>> {
        self.head.clear();
        // Length up to and including the last non-whitespace byte.
        let mut content_len = 0usize;
        let mut len = 0usize;
        let mut any = false;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (part, ended) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            for &b in part {
                if self.head.len() <= MAX_SHOWN {
                    self.head.push(b);
                }
                len += 1;
                if !is_trailing_space(b) {
                    content_len = len;
                }
            }
            let used = part.len() + usize::from(ended);
            self.input.consume(used);
            if ended {
                break;
            }
        }
        self.line += 1;
        let kind = match (content_len, self.head.first()) {
            (0, _) => AnswerLine::Blank,
            (1, Some(b'0')) => AnswerLine::Answer(false),
            (1, Some(b'1')) => AnswerLine::Answer(true),
            _ => {
                let shown = &self.head[..content_len.min(MAX_SHOWN)];
                let mut text: String = String::from_utf8_lossy(shown).escape_debug().collect();
                if content_len > MAX_SHOWN {
                    text.push('…');
                }
                AnswerLine::Malformed(text)
            }
        };
        Ok(Some((self.line, kind)))
    }
}

fn digit(b: bool) -> char {
    if b { '1' } else { '0' }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// State of a check while the input is being read.
struct Checker<R> {
    answers: AnswerLines<R>,
    cases: u64,
    compared: u64,
    wrong_cases: u64,
    first_mismatch: Option<Mismatch>,
    /// The first presentation error, once found; comparing stops there.
    format_error: Option<String>,
}

/// A judge failure found while comparing: its detail.
struct Failure(String);

/// Why a check stopped before its verdict.
enum Stop<E> {
    /// A judge failure: the verdict.
    Failure(Failure),
    /// The solver stopped short: no verdict.
    Solver(E),
}

impl<E> From<Failure> for Stop<E> {
    fn from(f: Failure) -> Self {
        Stop::Failure(f)
    }
}

impl<R: BufRead> Checker<R> {
    /// Compares the next answer line with `expected`.
    fn compare(&mut self, expected: bool) -> Result<(), Failure> {
        let case = self.compared + 1;
        let total = self.cases;
        match self.next_answer()? {
            None => {
                let lines = self.answers.line;
                self.format_error = Some(format!(
                    "the answer ends after {}, expected {} (one per case): no answer to case {case}",
                    plural(lines, "line", "lines"),
                    plural(total, "line", "lines"),
                ));
            }
            Some((line, AnswerLine::Blank)) => {
                self.format_error = Some(format!(
                    "line {line} is blank, expected the answer to case {case} of {total} (`0` or `1`)"
                ));
            }
            Some((line, AnswerLine::Malformed(text))) => {
                self.format_error = Some(format!(
                    "line {line}: expected `0` or `1` (the answer to case {case}), found `{text}`"
                ));
            }
            Some((_, AnswerLine::Answer(got))) => {
                self.compared = case;
                if got != expected {
                    self.wrong_cases += 1;
                    self.first_mismatch.get_or_insert(Mismatch {
                        case,
                        expected,
                        got,
                    });
                }
            }
        }
        Ok(())
    }

    /// After the answers to all cases: only whitespace may follow.
    fn finish_answer(&mut self) -> Result<(), Failure> {
        let (line, text) = loop {
            match self.next_answer()? {
                None => return Ok(()),
                Some((_, AnswerLine::Blank)) => {}
                Some((line, AnswerLine::Answer(b))) => break (line, digit(b).to_string()),
                Some((line, AnswerLine::Malformed(text))) => break (line, text),
            }
        };
        self.format_error = Some(format!(
            "line {line}: unexpected `{text}` after the answers to all {} (more lines than cases)",
            plural(self.cases, "case", "cases"),
        ));
        Ok(())
    }

    /// The next answer line (see [`AnswerLines::next_line`]).
    fn next_answer(&mut self) -> Result<Option<(u64, AnswerLine)>, Failure> {
        self.answers
            .next_line()
            .map_err(|e| Failure(format!("cannot read the answer: {e}")))
    }

    /// Solves the batch with `solver` and compares its verdicts, unless
    /// comparing stopped.
    fn flush<S: SolveBatch>(
        &mut self,
        batch: &mut Batch,
        variant: Variant,
        solver: &mut S,
    ) -> Result<(), Stop<S::Error>> {
        if self.format_error.is_some() || batch.is_empty() {
            return Ok(());
        }
        let verdicts = batch
            .solve_with(|rows| solver.solve(rows, variant))
            .map_err(Stop::Solver)?;
        for expected in verdicts {
            self.compare(expected)?;
            if self.format_error.is_some() {
                break;
            }
        }
        Ok(())
    }
}

/// Checks `answer` (a contestant's output) against the test `input` (OJ
/// format) for `variant`. See the [module docs](self) for the rules.
///
/// Both readers are consumed as streams; a service receiving the files in
/// chunks can pass any `BufRead` over them (the two are read alternately, a
/// batch of input cases at a time).
pub fn check(input: impl BufRead, answer: impl BufRead, variant: Variant) -> CheckReport {
    let Ok(report) = check_with(input, answer, variant, &mut OnPool(None));
    report
}

/// [`check`], solving the batches of cases with `solver`; an error only
/// when the solver stopped short (then there is no verdict). A service
/// calls it from a thread that may block on the network, with a solver that
/// admits each batch and stops when the client goes away.
pub fn check_with<S: SolveBatch>(
    input: impl BufRead,
    answer: impl BufRead,
    variant: Variant,
    solver: &mut S,
) -> Result<CheckReport, S::Error> {
    let failure = |cases, detail: String| CheckReport {
        verdict: Verdict::JudgeFailure,
        message: format!("FAIL {detail}"),
        cases,
        wrong_cases: 0,
        first_mismatch: None,
    };
    let mut reader = match OjReader::new(input) {
        Ok(r) => r,
        Err(e) => return Ok(failure(0, format!("the test input is malformed: {e}"))),
    };
    let mut checker = Checker {
        answers: AnswerLines::new(answer),
        cases: reader.case_count(),
        compared: 0,
        wrong_cases: 0,
        first_mismatch: None,
        format_error: None,
    };
    let mut batch = Batch::default();
    let stopped = loop {
        match reader.next_case() {
            Some(Ok(case)) => {
                if checker.format_error.is_none() {
                    batch.push(case.piles);
                    if batch.is_full()
                        && let Err(stop) = checker.flush(&mut batch, variant, solver)
                    {
                        break Some(stop);
                    }
                }
            }
            Some(Err(e)) => {
                break Some(Failure(format!("the test input is malformed: {e}")).into());
            }
            None => {
                break checker
                    .flush(&mut batch, variant, solver)
                    .and_then(|()| match checker.format_error {
                        Some(_) => Ok(()),
                        None => Ok(checker.finish_answer()?),
                    })
                    .err();
            }
        }
    };
    match stopped {
        Some(Stop::Failure(Failure(detail))) => return Ok(failure(reader.cases_read(), detail)),
        Some(Stop::Solver(e)) => return Err(e),
        None => {}
    }
    let cases = checker.cases;
    let (verdict, message) = if let Some(detail) = checker.format_error.take() {
        (Verdict::PresentationError, detail)
    } else if let Some(m) = checker.first_mismatch {
        (
            Verdict::WrongAnswer,
            format!(
                "case {}: expected {}, got {} ({} of {} wrong)",
                m.case,
                digit(m.expected),
                digit(m.got),
                checker.wrong_cases,
                plural(cases, "case", "cases"),
            ),
        )
    } else {
        (Verdict::Accepted, plural(cases, "case", "cases"))
    };
    Ok(CheckReport {
        verdict,
        message: format!("{} {message}", verdict.testlib_name()),
        cases,
        wrong_cases: checker.wrong_cases,
        first_mismatch: checker.first_mismatch,
    })
}
