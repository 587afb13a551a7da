//! The checker (`stonegame::judge::check::check`) on an arbitrary test
//! input and an arbitrary answer, each read whole and in fuzzer-chosen
//! pieces.
//!
//! Input: byte 0 holds the variant (bit 0) and which case to flip (the
//! rest), byte 1 (mod 8) the number of piece sizes that follow; then the
//! test input, a NUL byte, and the answer.
//!
//! Holds: no panic; the pieces change nothing; the verdict is exactly what
//! the rules give, read independently: a malformed input is a judge
//! failure naming `line L, column C` (and exactly when the OJ reader
//! fails), an answer breaking the line rules a presentation error naming a
//! line, otherwise wrong answer with the right count and first mismatch,
//! or accepted; on a well-formed input, the answer made from the
//! reference verdicts is accepted (also with CRLF, trailing blanks and no
//! final line end) and the same with one case flipped is a wrong answer at
//! that case.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stonegame::core::{ValidRow, Variant, first_player_wins};
use stonegame::judge::check::{CheckReport, Mismatch, Verdict, check};
use stonegame::ojformat::OjReader;
use stonegame_fuzz::{Pieces, answer_text, named_position, reference_wins};

fn trailing_space(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// The answer read by the rules: the `0`/`1` of each case, or the number
/// of the line where it breaks them.
fn answers(answer: &[u8], cases: usize) -> Result<Vec<bool>, u64> {
    let mut lines = answer.split(|&b| b == b'\n');
    let mut got = vec![];
    for k in 0..cases {
        let line = lines.next().ok_or(k as u64 + 1)?;
        let end = line
            .iter()
            .rposition(|b| !trailing_space(b))
            .map_or(0, |i| i + 1);
        match &line[..end] {
            b"0" => got.push(false),
            b"1" => got.push(true),
            _ => return Err(k as u64 + 1),
        }
    }
    for (k, line) in lines.enumerate() {
        if !line.iter().all(trailing_space) {
            return Err((cases + k) as u64 + 1);
        }
    }
    Ok(got)
}

fn report(input: &[u8], answer: &[u8], variant: Variant, sizes: &[u8]) -> CheckReport {
    let whole = check(input, answer, variant);
    let (a, b) = sizes.split_at(sizes.len() / 2);
    let pieces = check(Pieces::new(input, a), Pieces::new(answer, b), variant);
    assert_eq!(whole, pieces, "reading in pieces changed the report");
    whole
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (sizes, files) = match rest.split_first() {
        Some((&k, rest)) if rest.len() >= usize::from(k % 8) => rest.split_at(usize::from(k % 8)),
        _ => (&[][..], rest),
    };
    let (input, answer) = match files.iter().position(|&b| b == 0) {
        Some(i) => (&files[..i], &files[i + 1..]),
        None => (files, &[][..]),
    };
    let variant = if mode & 1 == 0 {
        Variant::TwoEnds
    } else {
        Variant::Leftmost
    };
    let got = report(input, answer, variant, sizes);

    // The input read on its own.
    let rows: Result<Vec<ValidRow<'static>>, String> = OjReader::new(input)
        .map_err(|e| e.to_string())
        .and_then(|r| {
            r.map(|c| c.map(|c| c.piles).map_err(|e| e.to_string()))
                .collect()
        });
    let rows = match rows {
        Err(e) => {
            assert_eq!(got.verdict, Verdict::JudgeFailure, "{e} / {got:?}");
            assert_eq!(
                got.message,
                format!("FAIL the test input is malformed: {e}")
            );
            assert!(named_position(&got.message).is_some(), "{}", got.message);
            return;
        }
        Ok(rows) => rows,
    };
    assert_ne!(got.verdict, Verdict::JudgeFailure, "{got:?}");
    assert_eq!(got.cases, rows.len() as u64);
    let truth: Vec<bool> = rows
        .iter()
        .map(|row| {
            let fast = first_player_wins(row, variant);
            if let Some(r) = reference_wins(row, variant) {
                assert_eq!(fast, r, "{variant} verdict of {:?}", &row[..]);
            }
            fast
        })
        .collect();

    // The fuzzed answer, by the rules.
    match answers(answer, rows.len()) {
        Err(line) => {
            assert_eq!(
                got.verdict,
                Verdict::PresentationError,
                "line {line}: {got:?}"
            );
            assert!(got.message.contains("line"), "{}", got.message);
        }
        Ok(said) => {
            let wrong: Vec<usize> = (0..rows.len()).filter(|&k| said[k] != truth[k]).collect();
            assert_eq!(got.wrong_cases, wrong.len() as u64, "{got:?}");
            match wrong.first() {
                None => assert_eq!(got.verdict, Verdict::Accepted, "{got:?}"),
                Some(&k) => {
                    assert_eq!(got.verdict, Verdict::WrongAnswer, "{got:?}");
                    let expected = truth[k];
                    let m = Mismatch {
                        case: k as u64 + 1,
                        expected,
                        got: !expected,
                    };
                    assert_eq!(got.first_mismatch, Some(m));
                }
            }
        }
    }

    // A correct answer, in several spellings, and one flipped case.
    let right = answer_text(&truth);
    for spelling in [
        right.clone(),
        right.replace('\n', "\r\n"),
        right.replace('\n', " \t\n") + "\n \n",
        right.trim_end().to_string(),
    ] {
        let r = report(input, spelling.as_bytes(), variant, sizes);
        assert_eq!(r.verdict, Verdict::Accepted, "{r:?}");
        assert_eq!((r.wrong_cases, r.first_mismatch), (0, None));
    }
    let k = usize::from(mode >> 1) % truth.len();
    let mut flipped = truth.clone();
    flipped[k] = !flipped[k];
    let r = report(input, answer_text(&flipped).as_bytes(), variant, sizes);
    assert_eq!(r.verdict, Verdict::WrongAnswer, "{r:?}");
    assert_eq!(r.wrong_cases, 1);
    let m = Mismatch {
        case: k as u64 + 1,
        expected: truth[k],
        got: !truth[k],
    };
    assert_eq!(r.first_mismatch, Some(m));
});
