//! Decoding and validating a Solve request: `pb::SolveRequest` decoded by
//! prost from arbitrary bytes, its batch size checked (`check_batch`), each
//! case's header (`CaseShape::of`) and row (`CaseShape::row`, `check_case`)
//! decoded as the server does, `piles` and `piles_le`/`piles_le_width` alike.
//!
//! Input: byte 0 picks the limits (piles per case, cases per batch), the
//! rest is the encoded `SolveRequest`.
//!
//! Holds: no panic; a re-encoded request decodes to the same; the batch is
//! refused exactly when it has too many cases, naming `cases`; each case's
//! result is exactly what the rules give, worked out independently
//! (variant, both fields, width, length, empty, too many, zero pile, pile
//! too large — in that order): an error names its field, starts with it,
//! and names the 1-based pile for a bad pile (`pile_index` set to it, 0
//! otherwise); the admission price (`cells`) is the cost of a good case and
//! 0 for a bad header (a bad pile value is found after admission: the
//! row's price); a good case's row is the piles sent (unpacked
//! independently from the little-endian words); the same row sent in the
//! other field gives the same answer; verdicts and moves equal the
//! reference solvers'.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use stonegame::core::{MAX_PILE, Variant};
use stonegame::service::pb::{self, CaseErrorCode as C};
use stonegame::service::rpc::validate::{CaseShape, check_batch, check_case};
use stonegame::service::state::limits::cells_of;
use stonegame::wire::{LeWidth, piles_to_le};
use stonegame_fuzz::assert_solved_right;

const MAX_PILES: [usize; 4] = [1, 3, 8, 100_000];
const MAX_CASES: [usize; 4] = [1, 4, 64, 1024];

/// What the rules say of a case: its variant and row, or the error's code
/// and pile.
fn expected(case: &pb::Case, max_piles: usize) -> Result<(Variant, Vec<u64>), (C, u64)> {
    let variant = match case.variant {
        0 | 1 => Variant::TwoEnds,
        2 => Variant::Leftmost,
        _ => return Err((C::UnknownVariant, 0)),
    };
    let piles: Vec<u64> = if case.piles_le.is_empty() {
        case.piles.clone()
    } else {
        if !case.piles.is_empty() {
            return Err((C::BothPileFields, 0));
        }
        let width = match case.piles_le_width {
            0 => 8,
            w @ 1..=8 => w as usize,
            _ => return Err((C::PilesLeWidth, 0)),
        };
        if case.piles_le.len() % width != 0 {
            return Err((C::PilesLeLength, 0));
        }
        case.piles_le
            .chunks(width)
            .map(|w| w.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b)))
            .collect()
    };
    if piles.is_empty() {
        return Err((C::EmptyRow, 0));
    }
    if piles.len() > max_piles {
        return Err((C::TooManyPiles, 0));
    }
    for (i, &p) in piles.iter().enumerate() {
        if p == 0 {
            return Err((C::ZeroPile, i as u64 + 1));
        }
        if p > MAX_PILE {
            return Err((C::PileTooLarge, i as u64 + 1));
        }
    }
    Ok((variant, piles))
}

/// Validates `case` as the server does and holds it to [`expected`].
fn validate(case: &pb::Case, max_piles: usize) -> Result<Vec<u64>, pb::CaseError> {
    let shape = CaseShape::of(case);
    let got = shape.row(case, max_piles);
    assert_eq!(
        got.as_ref().map(|(v, r)| (*v, r.to_vec())),
        check_case(case, max_piles)
            .as_ref()
            .map(|(v, r)| (*v, r.to_vec())),
    );
    match (got, expected(case, max_piles)) {
        (Ok((variant, row)), Ok((want_variant, want_row))) => {
            assert_eq!((variant, &row[..]), (want_variant, &want_row[..]));
            assert_eq!(
                shape.cells(max_piles, None),
                cells_of(row.len(), variant == Variant::TwoEnds)
            );
            assert_eq!(shape.held_piles(), row.len());
            assert_solved_right(&row, variant);
            Ok(want_row)
        }
        (Err(e), Err((code, pile))) => {
            assert_eq!((e.code, e.pile_index), (code as i32, pile), "{e:?}");
            assert!(
                ["variant", "piles", "piles_le", "piles_le_width"].contains(&e.field.as_str()),
                "{e:?}"
            );
            assert!(e.message.starts_with(&format!("{}: ", e.field)), "{e:?}");
            if pile > 0 {
                assert!(e.message.contains(&format!("pile {pile} ")), "{e:?}");
            }
            // The price reads the header only: a bad header costs nothing,
            // a bad pile value is found on the pool, after admission.
            let price = match code {
                C::ZeroPile | C::PileTooLarge => {
                    let two_ends = case.variant != pb::Variant::Leftmost as i32;
                    cells_of(shape.held_piles(), two_ends)
                }
                _ => 0,
            };
            assert_eq!(
                shape.cells(max_piles, None),
                price,
                "price of a refused case"
            );
            Err(e)
        }
        (got, want) => panic!("validation gave {got:?}, the rules {want:?} for {case:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let Ok(req) = pb::SolveRequest::decode(bytes) else {
        return;
    };
    assert_eq!(
        pb::SolveRequest::decode(&req.encode_to_vec()[..]).as_ref(),
        Ok(&req)
    );
    let max_piles = MAX_PILES[usize::from(mode & 3)];
    let max_cases = MAX_CASES[usize::from(mode >> 2) & 3];
    match check_batch(&req, max_cases) {
        Ok(()) => assert!(req.cases.len() <= max_cases),
        Err(e) => {
            assert!(req.cases.len() > max_cases);
            assert!(e.to_string().starts_with("cases: "), "{e}");
        }
    }
    for case in req.cases.iter().take(max_cases) {
        let result = validate(case, max_piles);
        // The same row in the other field.
        let moved = if case.piles_le.is_empty() {
            (!case.piles.is_empty()).then(|| {
                let width = LeWidth::narrowest(&case.piles);
                pb::Case {
                    piles: vec![],
                    piles_le: piles_to_le(&case.piles, width),
                    piles_le_width: width.to_pb(),
                    ..case.clone()
                }
            })
        } else if case.piles.is_empty() {
            match &result {
                Ok(row) => Some(pb::Case {
                    piles: row.clone(),
                    piles_le: Default::default(),
                    piles_le_width: 0,
                    ..case.clone()
                }),
                Err(_) => None,
            }
        } else {
            None
        };
        if let Some(moved) = moved {
            let again = validate(&moved, max_piles);
            match (&result, &again) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!((a.code, a.pile_index), (b.code, b.pile_index)),
                _ => panic!("{result:?} vs {again:?} for the same row in the other field"),
            }
        }
    }
});
