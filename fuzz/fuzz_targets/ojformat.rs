//! The OJ reader (`stonegame::ojformat::OjReader`) on arbitrary bytes, read
//! whole and in fuzzer-chosen pieces.
//!
//! Input: byte 0 picks the pile limit, byte 1 (mod 8) the number of piece
//! sizes that follow, the rest is the file.
//!
//! Holds: no panic; the pieces change nothing (same cases, same errors);
//! the cases and the first error are exactly what a plain
//! `split_ascii_whitespace` + `u64::from_str` reading of the format gives
//! (tokens of any length: `+0…01` is 1);
//! every error names `line L, column C` inside the file, pointing at the
//! start of the offending token (or just past the end of the input for a
//! missing one), with the case (and pile) it is in, and the token's kind
//! (negative, not a number, too large) right, read from all its bytes; every row read has
//! verdicts equal to the exhaustive solver's or the O(n²) tables' (both
//! variants, first 64 cases).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stonegame::core::{MAX_PILE, MAX_PILES, Variant};
use stonegame::ojformat::{OjErrorKind, OjReader};
use stonegame_fuzz::{Pieces, assert_solved_right, extent};

const LIMITS: [usize; 8] = [MAX_PILES, 1, 2, 3, 5, 8, 100, MAX_PILES];

/// The outcome of reading a file: the rows, then the error (its message).
type Outcome = (Vec<Vec<u64>>, Option<String>);

fn read(input: impl std::io::BufRead, max: usize, text: &[u8]) -> Outcome {
    let mut reader = match OjReader::with_max_piles(input, max) {
        Ok(r) => r,
        Err(e) => {
            assert_eq!(e.case, None);
            assert_placed(text, &e.to_string(), &e.kind);
            return (vec![], Some(e.to_string()));
        }
    };
    let mut rows = vec![];
    for item in reader.by_ref() {
        match item {
            Ok(case) => {
                assert_eq!(case.number, rows.len() as u64 + 1);
                assert!(!case.piles.is_empty() && case.piles.len() <= max);
                assert!(case.piles.iter().all(|&p| (1..=MAX_PILE).contains(&p)));
                rows.push(case.piles.into_vec());
            }
            Err(e) => {
                let trailing = matches!(e.kind, OjErrorKind::TrailingInput { .. });
                if trailing {
                    assert_eq!(e.case, None);
                } else {
                    assert_eq!(e.case, Some(rows.len() as u64 + 1), "{e}");
                    assert!(
                        e.to_string()
                            .starts_with(&format!("case {}: ", rows.len() + 1))
                    );
                }
                if let Some(pile) = e.pile {
                    assert!(pile >= 1 && pile <= max, "{e}");
                }
                assert_placed(text, &e.to_string(), &e.kind);
                return (rows, Some(e.to_string()));
            }
        }
    }
    (rows, None)
}

/// The error's `line L, column C` is in the file: at a token's first byte,
/// or (a missing token) just past the end.
fn assert_placed(text: &[u8], message: &str, kind: &OjErrorKind) {
    let (line, column) =
        stonegame_fuzz::named_position(message).unwrap_or_else(|| panic!("no place: {message}"));
    let (lines, width) = extent(text);
    assert!(
        line >= 1 && line <= lines && column >= 1 && column <= width,
        "{message}"
    );
    let start: usize = text
        .split(|&b| b == b'\n')
        .take(line as usize - 1)
        .map(|l| l.len() + 1)
        .sum();
    let at = start + column as usize - 1;
    if matches!(kind, OjErrorKind::UnexpectedEnd { .. }) {
        assert!(
            text[at.min(text.len())..]
                .iter()
                .all(u8::is_ascii_whitespace),
            "{message}"
        );
    } else {
        assert!(
            at < text.len() && !text[at].is_ascii_whitespace(),
            "{message}"
        );
        assert!(at == 0 || text[at - 1].is_ascii_whitespace(), "{message}");
        // The token's kind, read from all of its bytes.
        let token = text[at..].split(u8::is_ascii_whitespace).next().unwrap();
        let digits = |t: &[u8]| !t.is_empty() && t.iter().all(u8::is_ascii_digit);
        let unsigned = token.strip_prefix(b"+").unwrap_or(token);
        let negative = token.strip_prefix(b"-").is_some_and(digits);
        // The value, saturated at 2^64 (as u128).
        let value = || {
            unsigned
                .iter()
                .fold(0u128, |v, &d| (v * 10 + u128::from(d - b'0')).min(1 << 64))
        };
        match kind {
            OjErrorKind::Negative { .. } => assert!(negative, "{message}"),
            OjErrorKind::NotANumber { .. } => {
                assert!(!negative && !digits(unsigned), "{message}")
            }
            OjErrorKind::TooLarge { max, .. } => {
                assert!(digits(unsigned) && value() > u128::from(*max), "{message}")
            }
            _ => {}
        }
    }
}

/// The format read the plain way: the rows, and whether it ends in an error.
fn reference(text: &[u8], max: usize) -> (Vec<Vec<u64>>, bool) {
    let mut tokens = text
        .split(u8::is_ascii_whitespace)
        .filter(|t| !t.is_empty());
    let mut number = |limit: u64| -> Option<u64> {
        let t = tokens.next()?;
        let v: u64 = std::str::from_utf8(t).ok()?.parse().ok()?;
        (v <= limit).then_some(v)
    };
    let mut rows = vec![];
    let Some(cases) = number(u64::MAX).filter(|&t| t > 0) else {
        return (rows, true);
    };
    while (rows.len() as u64) < cases {
        let Some(n) = number(u64::MAX).filter(|&n| n >= 1 && n <= max as u64) else {
            return (rows, true);
        };
        let mut row = vec![];
        for _ in 0..n {
            match number(MAX_PILE).filter(|&v| v > 0) {
                Some(v) => row.push(v),
                None => return (rows, true),
            }
        }
        rows.push(row);
    }
    let trailing = tokens.next().is_some();
    (rows, trailing)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (sizes, text) = match rest.split_first() {
        Some((&k, rest)) if rest.len() >= usize::from(k % 8) => rest.split_at(usize::from(k % 8)),
        _ => (&[][..], rest),
    };
    let max = LIMITS[usize::from(mode % 8)];
    let whole = read(text, max, text);
    let pieces = read(Pieces::new(text, sizes), max, text);
    assert_eq!(whole, pieces, "reading in pieces changed the outcome");
    let (rows, failed) = reference(text, max);
    assert_eq!(whole.0, rows, "rows differ from the plain reading");
    assert_eq!(whole.1.is_some(), failed, "error differs: {:?}", whole.1);
    for row in whole.0.iter().take(64) {
        let row = stonegame::core::ValidRow::new(&row[..], max).unwrap();
        for variant in [Variant::TwoEnds, Variant::Leftmost] {
            assert_solved_right(&row, variant);
        }
    }
});
