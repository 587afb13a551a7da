//! The online-judge ("OJ") input format, read as a stream.
//!
//! ```text
//! T                 number of cases
//! n                 per case: number of piles
//! a_1 ... a_n       pile sizes
//! ```
//!
//! Tokens are separated by any ASCII whitespace (spaces, tabs, CR, LF), and a
//! case may spread over any number of lines. [`OjReader`] yields one case at a
//! time, so a file of many cases is never held whole in memory. Every error
//! says where it is: the case number, the pile (1-based), and the line and
//! column (1-based, in bytes) of the offending token.

use std::fmt;
use std::io::{self, BufRead};

use crate::core::{MAX_PILE, MAX_PILES, RowError, ValidRow};

/// A place in the input: 1-based line and column (in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What is wrong with the input.
#[derive(Debug, thiserror::Error)]
pub enum OjErrorKind {
    #[error("cannot read the input: {0}")]
    Io(#[from] io::Error),
    #[error("expected {what}, found end of input")]
    UnexpectedEnd { what: String },
    #[error("expected {what}, found `{token}`, which is not a number")]
    NotANumber { what: String, token: String },
    #[error("expected {what}, found `{token}`, which is negative")]
    Negative { what: String, token: String },
    #[error("expected {what}, found `{token}`, which is larger than {max}")]
    TooLarge {
        what: String,
        token: String,
        max: u64,
    },
    #[error("pile {pile} is 0: every pile needs at least 1 stone")]
    ZeroPile { pile: usize },
    #[error("the case has n = 0 piles: a case needs at least one pile")]
    NoPiles,
    #[error("the case has n = {n} piles, more than the limit of {max}")]
    TooManyPiles { n: u64, max: usize },
    #[error("the number of cases T is 0")]
    NoCases,
    #[error("unexpected `{token}` after the last of the {cases} cases")]
    TrailingInput { token: String, cases: u64 },
}

/// An input error with its place: case number (1-based, if inside a case),
/// pile (1-based, if about a pile), line and column.
#[derive(Debug, thiserror::Error)]
#[error("{}{position}: {kind}", .case.map(|c| format!("case {c}: ")).unwrap_or_default())]
pub struct OjError {
    pub case: Option<u64>,
    pub pile: Option<usize>,
    pub position: Position,
    #[source]
    pub kind: OjErrorKind,
}

/// One case read from the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OjCase {
    /// 1-based case number.
    pub number: u64,
    /// Where the case's `n` was.
    pub position: Position,
    /// The pile sizes, validated: 1 ≤ a_i ≤ 2^63−1, 1 ≤ n ≤ the limit.
    pub piles: ValidRow<'static>,
}

/// Longest token kept for messages; longer ones are cut with `…`.
const MAX_TOKEN_SHOWN: usize = 40;

/// Splits a byte stream into whitespace-separated tokens with positions.
struct Tokenizer<R> {
    input: R,
    line: u64,
    column: u64,
    token: Vec<u8>,
    token_len: usize,
    /// The whole token (not only its kept bytes) read as a number: whether
    /// it is an optional sign and then only digits, and their value
    /// (`None` past `u64::MAX`), so a long token is classified by all of
    /// its bytes (`0…01` of any length is 1, `1…1x` is not a number).
    number: TokenNumber,
}

/// A token read as a number, byte by byte.
#[derive(Debug, Clone, Copy)]
struct TokenNumber {
    sign: Option<u8>,
    digits: usize,
    only_digits: bool,
    value: Option<u64>,
}

impl TokenNumber {
    const START: TokenNumber = TokenNumber {
        sign: None,
        digits: 0,
        only_digits: true,
        value: Some(0),
    };

    fn push(&mut self, b: u8, first: bool) {
        if first && (b == b'+' || b == b'-') {
            self.sign = Some(b);
        } else if b.is_ascii_digit() {
            self.digits += 1;
            self.value = self
                .value
                .and_then(|v| v.checked_mul(10))
                .and_then(|v| v.checked_add(u64::from(b - b'0')));
        } else {
            self.only_digits = false;
        }
    }
}

impl<R: BufRead> Tokenizer<R> {
    fn new(input: R) -> Self {
        Tokenizer {
            input,
            line: 1,
            column: 1,
            token: Vec::with_capacity(32),
            token_len: 0,
            number: TokenNumber::START,
        }
    }

    /// The next token's start position, or `None` at the end of input. The
    /// token's bytes (at most [`MAX_TOKEN_SHOWN`] + 1 of them) are in
    /// `self.token`, its full length in `self.token_len`.
    fn next(&mut self) -> io::Result<Option<Position>> {
        self.token.clear();
        self.token_len = 0;
        self.number = TokenNumber::START;
        let mut start = None;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(start);
            }
            let mut used = 0;
            if start.is_none() {
                // Skip whitespace, counting lines.
                while used < buf.len() && buf[used].is_ascii_whitespace() {
                    if buf[used] == b'\n' {
                        self.line += 1;
                        self.column = 1;
                    } else {
                        self.column += 1;
                    }
                    used += 1;
                }
                if used == buf.len() {
                    self.input.consume(used);
                    continue;
                }
                start = Some(Position {
                    line: self.line,
                    column: self.column,
                });
            }
            // The token runs to the next whitespace (or past this buffer).
            let rest = &buf[used..];
            let len = rest
                .iter()
                .position(u8::is_ascii_whitespace)
                .unwrap_or(rest.len());
            let keep = len.min((MAX_TOKEN_SHOWN + 1).saturating_sub(self.token.len()));
            self.token.extend_from_slice(&rest[..keep]);
            for (k, &b) in rest[..len].iter().enumerate() {
                self.number.push(b, self.token_len == 0 && k == 0);
            }
            self.token_len += len;
            self.column += len as u64;
            let done = len < rest.len();
            self.input.consume(used + len);
            if done {
                return Ok(start);
            }
        }
    }

    /// Where the next byte is.
    fn here(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn token_text(&self) -> String {
        let shown = &self.token[..self.token.len().min(MAX_TOKEN_SHOWN)];
        let mut s = String::from_utf8_lossy(shown).into_owned();
        if self.token_len > MAX_TOKEN_SHOWN {
            s.push('…');
        }
        s
    }

    /// Parses the current token as an unsigned number ≤ `max` (an optional
    /// `+`, then digits; leading zeros are fine).
    fn number(&self, what: &dyn Fn() -> String, max: u64) -> Result<u64, OjErrorKind> {
        let n = self.number;
        let token = || self.token_text();
        match (n.only_digits && n.digits > 0, n.sign, n.value) {
            (false, ..) => Err(OjErrorKind::NotANumber {
                what: what(),
                token: token(),
            }),
            (true, Some(b'-'), _) => Err(OjErrorKind::Negative {
                what: what(),
                token: token(),
            }),
            (true, _, Some(v)) if v <= max => Ok(v),
            (true, ..) => Err(OjErrorKind::TooLarge {
                what: what(),
                token: token(),
                max,
            }),
        }
    }
}

/// Reads OJ-format cases one at a time.
pub struct OjReader<R> {
    tokens: Tokenizer<R>,
    cases: u64,
    read: u64,
    max_piles: usize,
    failed: bool,
}

impl<R: BufRead> OjReader<R> {
    /// Reads the header `T`. Rows longer than [`MAX_PILES`] are errors.
    pub fn new(input: R) -> Result<Self, OjError> {
        Self::with_max_piles(input, MAX_PILES)
    }

    /// Like [`OjReader::new`] with another limit on piles per case.
    pub fn with_max_piles(input: R, max_piles: usize) -> Result<Self, OjError> {
        let mut tokens = Tokenizer::new(input);
        let what = || "the number of cases T".to_string();
        let at = |position, kind| OjError {
            case: None,
            pile: None,
            position,
            kind,
        };
        let pos = match tokens.next() {
            Ok(Some(p)) => p,
            Ok(None) => {
                let end = OjErrorKind::UnexpectedEnd { what: what() };
                return Err(at(tokens.here(), end));
            }
            Err(e) => return Err(at(Position::default(), e.into())),
        };
        let cases = tokens.number(&what, u64::MAX).map_err(|k| at(pos, k))?;
        if cases == 0 {
            return Err(at(pos, OjErrorKind::NoCases));
        }
        Ok(OjReader {
            tokens,
            cases,
            read: 0,
            max_piles,
            failed: false,
        })
    }

    /// The number of cases `T` the input declares.
    pub fn case_count(&self) -> u64 {
        self.cases
    }

    /// The number of cases read so far.
    pub fn cases_read(&self) -> u64 {
        self.read
    }

    /// Reads the next token as a number, or reports `what` was missing.
    fn expect_number(
        &mut self,
        what: &dyn Fn() -> String,
        max: u64,
        case: u64,
        pile: Option<usize>,
    ) -> Result<(u64, Position), OjError> {
        let err = |position, kind| OjError {
            case: Some(case),
            pile,
            position,
            kind,
        };
        match self.tokens.next() {
            Ok(Some(pos)) => match self.tokens.number(what, max) {
                Ok(v) => Ok((v, pos)),
                Err(k) => Err(err(pos, k)),
            },
            Ok(None) => Err(err(
                self.tokens.here(),
                OjErrorKind::UnexpectedEnd { what: what() },
            )),
            Err(e) => Err(err(self.tokens.here(), e.into())),
        }
    }

    fn read_case(&mut self) -> Result<OjCase, OjError> {
        let number = self.read + 1;
        let cases = self.cases;
        let (n, position) = self.expect_number(
            &|| format!("the number of piles n of case {number} of {cases}"),
            u64::MAX,
            number,
            None,
        )?;
        let case_err = |kind| OjError {
            case: Some(number),
            pile: None,
            position,
            kind,
        };
        if n == 0 {
            return Err(case_err(OjErrorKind::NoPiles));
        }
        if n > self.max_piles as u64 {
            return Err(case_err(OjErrorKind::TooManyPiles {
                n,
                max: self.max_piles,
            }));
        }
        let n = n as usize;
        let mut piles = Vec::with_capacity(n);
        for pile in 1..=n {
            let (v, pos) = self.expect_number(
                &|| format!("pile {pile} of {n}"),
                MAX_PILE,
                number,
                Some(pile),
            )?;
            if v == 0 {
                return Err(OjError {
                    case: Some(number),
                    pile: Some(pile),
                    position: pos,
                    kind: OjErrorKind::ZeroPile { pile },
                });
            }
            piles.push(v);
        }
        // The checks above already hold (they place each error); this one
        // makes the row a `ValidRow`.
        let piles = ValidRow::new(piles, self.max_piles).map_err(|e| OjError {
            case: Some(number),
            pile: e.pile(),
            position,
            kind: match e {
                RowError::Empty => OjErrorKind::NoPiles,
                RowError::TooManyPiles { len, max } => {
                    OjErrorKind::TooManyPiles { n: len as u64, max }
                }
                RowError::ZeroPile { pile } => OjErrorKind::ZeroPile { pile },
                RowError::PileTooLarge { pile, value } => OjErrorKind::TooLarge {
                    what: format!("pile {pile} of {n}"),
                    token: value.to_string(),
                    max: MAX_PILE,
                },
            },
        })?;
        self.read = number;
        Ok(OjCase {
            number,
            position,
            piles,
        })
    }

    /// The next case; after the last one, a check that nothing but
    /// whitespace follows. `None` once all cases were read (or after an error).
    pub fn next_case(&mut self) -> Option<Result<OjCase, OjError>> {
        if self.failed {
            return None;
        }
        if self.read == self.cases {
            self.failed = true; // nothing more to yield either way
            return match self.tokens.next() {
                Ok(None) => None,
                Ok(Some(position)) => Some(Err(OjError {
                    case: None,
                    pile: None,
                    position,
                    kind: OjErrorKind::TrailingInput {
                        token: self.tokens.token_text(),
                        cases: self.cases,
                    },
                })),
                Err(e) => Some(Err(OjError {
                    case: None,
                    pile: None,
                    position: self.tokens.here(),
                    kind: e.into(),
                })),
            };
        }
        let result = self.read_case();
        if result.is_err() {
            self.failed = true;
        }
        Some(result)
    }
}

impl<R: BufRead> Iterator for OjReader<R> {
    type Item = Result<OjCase, OjError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_case()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first error reading `text`, as its message.
    fn first_error(text: &str) -> String {
        match OjReader::new(text.as_bytes()) {
            Err(e) => e.to_string(),
            Ok(mut r) => r
                .find_map(Result::err)
                .map(|e| e.to_string())
                .unwrap_or_default(),
        }
    }

    fn rows(text: &str) -> Vec<Vec<u64>> {
        OjReader::new(text.as_bytes())
            .unwrap()
            .map(|c| c.unwrap().piles.into_vec())
            .collect()
    }

    #[test]
    fn long_tokens_are_read_whole() {
        // Found by fuzz/fuzz_targets/ojformat.rs: a token longer than the
        // 40 bytes kept for messages was "larger than" the maximum whatever
        // it held.
        let zeros = "0".repeat(60);
        assert_eq!(rows(&format!("1\n2\n+{zeros}1 {zeros}7\n")), [vec![1, 7]]);
        assert_eq!(rows(&format!("{zeros}1\n1\n1\n")), [vec![1]]);
        let e = first_error(&format!("1\n1\n{}x\n", "1".repeat(50)));
        assert!(e.contains("line 3, column 1"), "{e}");
        assert!(e.contains("which is not a number"), "{e}");
        let e = first_error(&format!("1\n1\n-{}x\n", "1".repeat(50)));
        assert!(e.contains("which is not a number"), "{e}");
        let e = first_error(&format!("1\n1\n-{}\n", "1".repeat(50)));
        assert!(e.contains("which is negative"), "{e}");
        let e = first_error(&format!("1\n1\n{}\n", "9".repeat(50)));
        assert!(e.contains("larger than 9223372036854775807"), "{e}");
        let e = first_error(&format!("1\n1\n{zeros}9223372036854775808\n"));
        assert!(e.contains("larger than 9223372036854775807"), "{e}");
        assert_eq!(
            rows(&format!("1\n1\n{zeros}9223372036854775807\n")),
            [vec![9223372036854775807]]
        );
    }

    #[test]
    fn tokens_cut_by_the_buffer_are_read_whole() {
        // A 1-byte buffer cuts every token into pieces.
        let text = format!("2\n2\n+{}5 -0\n", "0".repeat(45));
        let mut r = OjReader::new(io::BufReader::with_capacity(1, text.as_bytes())).unwrap();
        let e = r.next().unwrap().unwrap_err();
        assert!(matches!(e.kind, OjErrorKind::Negative { .. }), "{e}");
        assert_eq!((e.pile, e.position.column), (Some(2), 49));
        let mut r = OjReader::new(io::BufReader::with_capacity(1, &b"1\n1\n+00012\n"[..])).unwrap();
        assert_eq!(r.next().unwrap().unwrap().piles.into_vec(), [12]);
    }
}
