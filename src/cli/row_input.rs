//! The row of `suggest` and `client suggest` ([`RowArgs`]): pile sizes on
//! the command line, `-` for standard input, or `--file PATH`; the same
//! limits and messages (a bad pile named by its 1-based index) wherever it
//! comes from.
//!
//! A row read from a file or standard input is whitespace-separated
//! numbers (any whitespace, over any number of lines). It is streamed:
//! piles past the limit are checked and counted, not kept, so a huge input
//! is refused for its size without being held in memory.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use crate::core::{MAX_PILE, MAX_PILES, RowError, ValidRow};

/// Where a row comes from: its piles as arguments, `-` alone for standard
/// input, or `--file PATH`.
#[derive(Debug, clap::Args)]
pub struct RowArgs {
    /// Read the row (whitespace-separated pile sizes) from this file
    /// instead of the arguments.
    #[arg(long, value_name = "PATH", conflicts_with = "piles")]
    pub file: Option<PathBuf>,
    /// The pile sizes, left to right; `-` alone reads them from standard
    /// input (whitespace-separated).
    #[arg(
        required_unless_present = "file",
        allow_hyphen_values = true,
        value_name = "PILE"
    )]
    pub piles: Vec<String>,
}

/// Why a row could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RowInputError {
    /// A file (or standard input, named `-`) that cannot be opened or read.
    #[error("cannot read `{path}`: {reason}")]
    Read { path: String, reason: String },
    /// A pile that is not a valid pile size, or a row that is not valid.
    #[error("{0}")]
    Row(String),
}

impl RowArgs {
    /// The piles, parsed and validated (at most [`MAX_PILES`]).
    pub fn row(&self) -> Result<ValidRow<'static>, RowInputError> {
        let piles = match (&self.file, self.piles.as_slice()) {
            (Some(path), _) => read_file(path)?,
            (None, [dash]) if dash == "-" => {
                read_piles(io::stdin().lock()).map_err(|e| e.named("-"))?
            }
            (None, texts) => parse_piles(texts).map_err(RowInputError::Row)?,
        };
        ValidRow::new(piles, MAX_PILES).map_err(|e| RowInputError::Row(e.to_string()))
    }
}

/// Reads the row of the file at `path`.
fn read_file(path: &Path) -> Result<Vec<u64>, RowInputError> {
    let name = path.display().to_string();
    let input = super::open_input(Some(path)).map_err(|e| RowInputError::Read {
        path: name.clone(),
        reason: e.to_string(),
    })?;
    read_piles(input).map_err(|e| e.named(&name))
}

/// What went wrong while reading a row from a stream.
#[derive(Debug)]
enum StreamError {
    Io(io::Error),
    Row(String),
}

impl StreamError {
    /// The error, the stream named `name` (`-` for standard input).
    fn named(self, name: &str) -> RowInputError {
        match self {
            StreamError::Io(e) => RowInputError::Read {
                path: name.to_string(),
                reason: e.to_string(),
            },
            StreamError::Row(message) => RowInputError::Row(message),
        }
    }
}

/// The longest token kept whole in a message; a longer one is cut.
const TOKEN_SHOWN: usize = 64;

/// Reads whitespace-separated piles from `input`, checking each by its
/// 1-based index; past [`MAX_PILES`] piles are counted, not kept.
fn read_piles(mut input: impl BufRead) -> Result<Vec<u64>, StreamError> {
    let mut piles = Vec::new();
    let mut count = 0usize;
    let mut token: Vec<u8> = Vec::new();
    let mut long = false;
    let mut take = |token: &mut Vec<u8>, long: &mut bool| -> Result<(), StreamError> {
        if token.is_empty() {
            return Ok(());
        }
        count += 1;
        let text = String::from_utf8_lossy(token);
        if *long {
            // Cut in the message; digits alone are still a number too large.
            let what = if token.iter().all(u8::is_ascii_digit) {
                format!("{text}…, larger than the maximum of {MAX_PILE} (2^63-1)")
            } else {
                format!("`{text}…`, which is not a number")
            };
            return Err(StreamError::Row(format!("pile {count} is {what}")));
        }
        let pile = parse_pile(count, &text).map_err(StreamError::Row)?;
        if count <= MAX_PILES {
            piles.push(pile);
        }
        token.clear();
        *long = false;
        Ok(())
    };
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(StreamError::Io(e)),
        };
        if buf.is_empty() {
            break;
        }
        let used = buf.len();
        for &b in buf {
            if b.is_ascii_whitespace() {
                take(&mut token, &mut long)?;
            } else if token.len() < TOKEN_SHOWN {
                token.push(b);
            } else {
                long = true;
            }
        }
        input.consume(used);
    }
    take(&mut token, &mut long)?;
    if count > MAX_PILES {
        return Err(StreamError::Row(
            RowError::TooManyPiles {
                len: count,
                max: MAX_PILES,
            }
            .to_string(),
        ));
    }
    Ok(piles)
}

/// Parses the piles of a row given on the command line (1-based indices
/// in messages), without checking the row as a whole.
pub(crate) fn parse_piles(texts: &[String]) -> Result<Vec<u64>, String> {
    if texts.len() > 1 && texts.iter().any(|t| t == "-") {
        return Err(
            "`-` reads the row from standard input and must be the only PILE argument".into(),
        );
    }
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| parse_pile(i + 1, t))
        .collect()
}

/// Parses and validates a row given on the command line.
pub(crate) fn parse_row(texts: &[String]) -> Result<ValidRow<'static>, String> {
    ValidRow::new(parse_piles(texts)?, MAX_PILES).map_err(|e| e.to_string())
}

/// Parses pile `index` (1-based).
pub(crate) fn parse_pile(index: usize, text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err(RowError::ZeroPile { pile: index }.to_string()),
        Ok(v) if v > MAX_PILE => Err(RowError::PileTooLarge {
            pile: index,
            value: v,
        }
        .to_string()),
        Ok(v) => Ok(v),
        Err(_) if text.starts_with('-') && text.len() > 1 => {
            Err(format!("pile {index} is `{text}`, which is negative"))
        }
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => Err(format!(
            "pile {index} is {text}, larger than the maximum of {MAX_PILE} (2^63-1)"
        )),
        Err(_) => Err(format!("pile {index} is `{text}`, which is not a number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Vec<u64>, String> {
        read_piles(text.as_bytes()).map_err(|e| e.named("-").to_string())
    }

    #[test]
    fn any_whitespace_separates_piles() {
        assert_eq!(read("3 1\r\n9\t4\n\n"), Ok(vec![3, 1, 9, 4]));
        assert_eq!(read(""), Ok(vec![]));
    }

    #[test]
    fn bad_piles_are_named_by_index() {
        assert_eq!(
            read("3 0"),
            Err("pile 2 is 0: every pile needs at least 1 stone".into())
        );
        assert_eq!(
            read("1\n-3"),
            Err("pile 2 is `-3`, which is negative".into())
        );
        assert_eq!(
            read("x"),
            Err("pile 1 is `x`, which is not a number".into())
        );
        let long = "9".repeat(100);
        let e = read(&long).unwrap_err();
        assert!(e.starts_with("pile 1 is 999"), "{e}");
        assert!(e.contains("…, larger than the maximum"), "{e}");
        let e = read(&format!("1 {}x", "y".repeat(100))).unwrap_err();
        assert!(e.starts_with("pile 2 is `yyy"), "{e}");
        assert!(e.ends_with("…`, which is not a number"), "{e}");
    }

    #[test]
    fn too_many_piles_are_counted_not_kept() {
        let text = "1 ".repeat(MAX_PILES + 5);
        assert_eq!(
            read(&text),
            Err(format!(
                "the row has {} piles, more than the limit of {MAX_PILES}",
                MAX_PILES + 5
            ))
        );
    }

    #[test]
    fn a_dash_among_piles_is_refused() {
        let args: Vec<String> = ["1", "-"].iter().map(|s| s.to_string()).collect();
        assert!(parse_piles(&args).unwrap_err().contains("only PILE"));
        let dash = vec!["-".to_string()];
        assert_eq!(
            parse_piles(&dash),
            Err("pile 1 is `-`, which is not a number".into())
        );
    }
}
