//! Decoding and validating a Generate request and generating what it asks
//! for, under small limits: `pb::GenerateRequest` decoded by prost from
//! arbitrary bytes, converted to a `GenSpec` with the server's `TryFrom`
//! (`service::convert`), then `judge::generate::generate`.
//!
//! Input: byte 0 picks the limits (at most 1–300 cases and 1–3,000 piles
//! per request: nothing large is ever generated), the rest is the encoded
//! request.
//!
//! Holds: no panic; the request is refused exactly when the rules say
//! (unknown family or variant, no cases, max_n or max_a 0 or too large,
//! `planted`/`hack` with max_n < 2, `exhaustive` with more rows than
//! cases, more cases or cases × max_n than the limits), and the message
//! starts with the field (`family`, `variant`, `cases`, `max_n`,
//! `max_a`); an accepted request generates deterministically a
//! well-formed OJ file of exactly the cases announced, rows within max_n
//! and max_a (every row, in order, for `exhaustive`), whose expected
//! answers the checker accepts, with the counts of the summary.
#![no_main]

use std::num::NonZeroU64;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prost::Message;
use stonegame::core::exhaustive::all_rows;
use stonegame::core::{MAX_PILE, MAX_PILES, Variant};
use stonegame::judge::check::{Verdict, check};
use stonegame::judge::generate::{Family, GenSpec, generate};
use stonegame::ojformat::OjReader;
use stonegame::service::{Config, Limits, pb};

const MAX_CASES: [u64; 4] = [1, 10, 100, 300];
const MAX_PILES_OUT: [u64; 4] = [1, 40, 1000, 3000];

fn limits(cases: u64, piles: u64) -> Limits {
    static DEFAULTS: OnceLock<Limits> = OnceLock::new();
    let mut limits = DEFAULTS
        .get_or_init(|| Config::defaults().unwrap().limits)
        .clone();
    limits.max_generate_cases = NonZeroU64::new(cases).unwrap();
    limits.max_generate_piles = NonZeroU64::new(piles).unwrap();
    limits
}

/// Rows of 1 ..= n piles of 1 ..= a, if at most `cap`.
fn exhaustive_count(n: u64, a: u64, cap: u64) -> Option<u64> {
    let (mut total, mut layer) = (0u64, 1u64);
    for _ in 0..n {
        layer = layer.checked_mul(a)?;
        total = total.checked_add(layer)?;
        if total > cap {
            return None;
        }
    }
    Some(total)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let Ok(req) = pb::GenerateRequest::decode(bytes) else {
        return;
    };
    let (max_cases, max_piles) = (
        MAX_CASES[usize::from(mode & 3)],
        MAX_PILES_OUT[usize::from(mode >> 2) & 3],
    );
    let family: Option<Family> = req.family.parse().ok();
    // The rules, independently: the field at fault, or the number of cases.
    let want: Result<u64, &[&str]> = (|| {
        let family = family.ok_or(&["family"][..])?;
        if !(0..=2).contains(&req.variant) {
            return Err(&["variant"][..]);
        }
        if req.cases == 0 {
            return Err(&["cases"][..]);
        }
        if req.max_n == 0 || req.max_n > MAX_PILES as u64 {
            return Err(&["max_n"][..]);
        }
        if req.max_a == 0 || req.max_a > MAX_PILE {
            return Err(&["max_a"][..]);
        }
        let cases = match family {
            Family::Planted | Family::Hack if req.max_n < 2 => return Err(&["max_n"][..]),
            Family::Exhaustive => {
                exhaustive_count(req.max_n, req.max_a, req.cases).ok_or(&["cases"][..])?
            }
            _ => req.cases,
        };
        if cases > max_cases {
            return Err(&["cases"][..]);
        }
        if cases.saturating_mul(req.max_n) > max_piles {
            return Err(&["max_n"][..]);
        }
        Ok(cases)
    })();
    let spec = match (
        GenSpec::try_from((&req, &limits(max_cases, max_piles))),
        want,
    ) {
        (Err(e), Err(fields)) => {
            let message = e.to_string();
            assert!(
                fields
                    .iter()
                    .any(|f| message.starts_with(&format!("{f}: "))),
                "{message} does not start with one of {fields:?}"
            );
            return;
        }
        (Ok(spec), Ok(cases)) => {
            assert_eq!(spec.validate().unwrap(), cases);
            spec
        }
        (got, want) => panic!("{got:?} but the rules say {want:?} for {req:?}"),
    };
    let (mut input, mut answers) = (vec![], vec![]);
    let summary = generate(&spec, &mut input, Some(&mut answers)).expect("generating");
    let (mut input2, mut answers2) = (vec![], vec![]);
    generate(&spec, &mut input2, Some(&mut answers2)).unwrap();
    assert!(input == input2 && answers == answers2, "not deterministic");
    let rows: Vec<Vec<u64>> = OjReader::new(&input[..])
        .unwrap()
        .map(|c| c.unwrap().piles.into_vec())
        .collect();
    assert_eq!(rows.len() as u64, summary.cases);
    assert_eq!(
        rows.iter().map(Vec::len).sum::<usize>() as u64,
        summary.piles
    );
    for row in &rows {
        assert!(row.len() as u64 <= spec.max_n && row.iter().all(|&p| p <= spec.max_a));
    }
    if spec.family == Family::Exhaustive {
        assert_eq!(rows, all_rows(spec.max_n as usize, spec.max_a));
    }
    let zeros = answers
        .split(|&b| b == b'\n')
        .filter(|l| *l == b"0")
        .count() as u64;
    assert_eq!(summary.losses, Some(zeros));
    let variant: Variant = spec.variant;
    let report = check(&input[..], &answers[..], variant);
    assert_eq!(report.verdict, Verdict::Accepted, "{report:?}");
});
