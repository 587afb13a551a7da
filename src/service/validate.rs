//! Request validation at the boundary: typed errors ([`RequestError`],
//! [`CaseError`](pb::CaseError)) and their mapping to `tonic::Status`.
//!
//! Limits a request breaches map to `RESOURCE_EXHAUSTED`, malformed values
//! to `INVALID_ARGUMENT`, an empty row in SuggestMove (the player to move
//! has already lost) to `FAILED_PRECONDITION`.

use std::borrow::Cow;

use tonic::{Code, Status};

use crate::core::{RowError, ValidRow, Variant};

use crate::judge::generate::{Family, GenSpec};

use super::config::Limits;
use super::convert::{LeWidth, piles_from_le, variant_from_pb};
use super::pb::{self, CaseErrorCode};

/// Why a whole request is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// A SolveRequest with more cases than allowed.
    #[error("cases: the batch has {cases} cases, more than the limit of {max} per request")]
    TooManyCases { cases: usize, max: usize },
    /// More piles than allowed.
    #[error("piles: the row has {len} piles, more than the limit of {max}")]
    TooManyPiles { len: usize, max: usize },
    /// A GetTables row larger than allowed.
    #[error("piles: the row has {len} piles, more than the table limit of {max}")]
    TableTooLarge { len: usize, max: usize },
    /// An empty row where a move is asked for.
    #[error("piles: the row is empty, so the player to move has already lost")]
    AlreadyLost,
    /// An empty row where tables are asked for.
    #[error("piles: the row is empty: it needs at least one pile")]
    Empty,
    /// A pile out of range.
    #[error("piles: {0}")]
    Pile(RowError),
    /// A Solve case whose row is invalid, in the field that carries it.
    #[error("{}: {error}", field.name())]
    CaseRow { field: PileField, error: RowError },
    /// A Solve case with both `piles` and `piles_le` set.
    #[error(
        "piles_le: set together with piles ({len} piles); a case carries its row in one \
         of the two fields"
    )]
    BothPileFields { len: usize },
    /// A `piles_le` whose length is not a multiple of its width.
    #[error(
        "piles_le: {len} bytes is not a multiple of {width}, the bytes of each pile's \
         little-endian word (piles_le_width; 0 means 8)"
    )]
    PilesLeLength { len: usize, width: usize },
    /// A `piles_le_width` above 8.
    #[error("piles_le_width: {0} is not a width of 1 to 8 bytes (0 means 8)")]
    PilesLeWidth(u32),
    /// An unknown variant number.
    #[error("variant: {0} is not a known Variant")]
    UnknownVariant(i32),
    /// Strength outside [0, 1] or NaN.
    #[error("strength: {0} is not a number between 0 and 1")]
    BadStrength(f64),
    /// A Check message naming another variant than the first message.
    #[error(
        "variant: the stream is judged for {first} (its first message), but a later \
         message names {}", variant_name(*now)
    )]
    VariantChanged { first: Variant, now: i32 },
    /// A Generate family this server does not know.
    #[error("family: {0}")]
    UnknownFamily(String),
    /// Generate parameters the generator refuses (its message).
    #[error("{0}")]
    Generator(String),
    /// A Generate request making more cases than allowed.
    #[error("cases: the request makes {cases} cases, more than the limit of {max}")]
    TooManyGeneratedCases { cases: u64, max: u64 },
    /// A Generate request whose output could exceed the size limit.
    #[error(
        "max_n: {cases} cases of up to {max_n} piles make up to {piles} piles, more than \
         the limit of {max} per request"
    )]
    TooManyGeneratedPiles {
        cases: u64,
        max_n: u64,
        piles: u64,
        max: u64,
    },
}

fn variant_name(raw: i32) -> String {
    match pb::Variant::try_from(raw) {
        Ok(v) => v.as_str_name().to_string(),
        Err(_) => format!("the unknown variant {raw}"),
    }
}

impl RequestError {
    /// The gRPC status code of this error.
    pub fn code(&self) -> Code {
        match self {
            RequestError::TooManyCases { .. }
            | RequestError::TooManyPiles { .. }
            | RequestError::TableTooLarge { .. }
            | RequestError::TooManyGeneratedCases { .. }
            | RequestError::TooManyGeneratedPiles { .. } => Code::ResourceExhausted,
            RequestError::CaseRow { error, .. } => match error {
                RowError::TooManyPiles { .. } => Code::ResourceExhausted,
                _ => Code::InvalidArgument,
            },
            RequestError::AlreadyLost => Code::FailedPrecondition,
            RequestError::Empty
            | RequestError::Pile(_)
            | RequestError::BothPileFields { .. }
            | RequestError::PilesLeLength { .. }
            | RequestError::PilesLeWidth(_)
            | RequestError::UnknownVariant(_)
            | RequestError::BadStrength(_)
            | RequestError::VariantChanged { .. }
            | RequestError::UnknownFamily(_)
            | RequestError::Generator(_) => Code::InvalidArgument,
        }
    }
}

impl From<RequestError> for Status {
    fn from(e: RequestError) -> Status {
        Status::new(e.code(), e.to_string())
    }
}

/// Validates a GenerateRequest against the generator's rules and the
/// server's limits; the spec to generate.
pub fn check_generate(req: &pb::GenerateRequest, limits: &Limits) -> Result<GenSpec, RequestError> {
    let family: Family = req.family.parse().map_err(RequestError::UnknownFamily)?;
    let variant = variant_from_pb(req.variant).ok_or(RequestError::UnknownVariant(req.variant))?;
    let spec = GenSpec {
        family,
        cases: req.cases,
        max_n: req.max_n,
        max_a: req.max_a,
        seed: req.seed,
        variant,
    };
    let cases = spec
        .validate()
        .map_err(|e| RequestError::Generator(e.to_string()))?;
    if cases > limits.max_generate_cases {
        return Err(RequestError::TooManyGeneratedCases {
            cases,
            max: limits.max_generate_cases,
        });
    }
    let piles = cases.saturating_mul(spec.max_n);
    if piles > limits.max_generate_piles {
        return Err(RequestError::TooManyGeneratedPiles {
            cases,
            max_n: spec.max_n,
            piles,
            max: limits.max_generate_piles,
        });
    }
    Ok(spec)
}

/// Checks the number of cases of a SolveRequest.
pub fn check_batch(req: &pb::SolveRequest, max_cases: usize) -> Result<(), RequestError> {
    if req.cases.len() > max_cases {
        return Err(RequestError::TooManyCases {
            cases: req.cases.len(),
            max: max_cases,
        });
    }
    Ok(())
}

/// Which field of a [`pb::Case`] carries its row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PileField {
    /// `repeated uint64 piles` (varints).
    Piles,
    /// `bytes piles_le` (little-endian words of `piles_le_width` bytes).
    PilesLe,
}

impl PileField {
    /// The field's name in the .proto.
    pub fn name(self) -> &'static str {
        match self {
            PileField::Piles => "piles",
            PileField::PilesLe => "piles_le",
        }
    }
}

/// The number of piles a case carries in either field, before any
/// validation (for admission control; a case setting both fields counts
/// both, and one with a bad `piles_le_width` counts 8-byte words: both are
/// refused later).
pub fn case_pile_count(case: &pb::Case) -> usize {
    let width = LeWidth::from_pb(case.piles_le_width).unwrap_or(LeWidth::FULL);
    case.piles.len() + case.piles_le.len() / width.bytes()
}

/// Validates one Solve case: its variant, which field carries the row, and
/// the row. Returns the variant and the row (borrowed from `piles`, or
/// unpacked from `piles_le`). An invalid case gets a [`pb::CaseError`]
/// naming the field and the pile.
pub fn check_case(
    case: &pb::Case,
    max_piles: usize,
) -> Result<(Variant, ValidRow<'_>), pb::CaseError> {
    let variant = variant_from_pb(case.variant).ok_or_else(|| pb::CaseError {
        code: CaseErrorCode::UnknownVariant as i32,
        message: RequestError::UnknownVariant(case.variant).to_string(),
        field: "variant".into(),
        pile_index: 0,
    })?;
    let field = match (case.piles.is_empty(), case.piles_le.is_empty()) {
        (false, false) => {
            return Err(pb::CaseError {
                code: CaseErrorCode::BothPileFields as i32,
                message: RequestError::BothPileFields {
                    len: case.piles.len(),
                }
                .to_string(),
                field: PileField::PilesLe.name().into(),
                pile_index: 0,
            });
        }
        (true, false) => PileField::PilesLe,
        (_, true) => PileField::Piles,
    };
    let width = match field {
        PileField::Piles => LeWidth::FULL,
        PileField::PilesLe => {
            LeWidth::from_pb(case.piles_le_width).ok_or_else(|| pb::CaseError {
                code: CaseErrorCode::PilesLeWidth as i32,
                message: RequestError::PilesLeWidth(case.piles_le_width).to_string(),
                field: "piles_le_width".into(),
                pile_index: 0,
            })?
        }
    };
    let bad_length = || pb::CaseError {
        code: CaseErrorCode::PilesLeLength as i32,
        message: RequestError::PilesLeLength {
            len: case.piles_le.len(),
            width: width.bytes(),
        }
        .to_string(),
        field: field.name().into(),
        pile_index: 0,
    };
    let row_err = |code: CaseErrorCode, error: RowError| pb::CaseError {
        code: code as i32,
        pile_index: error.pile().unwrap_or(0) as u64,
        message: RequestError::CaseRow { field, error }.to_string(),
        field: field.name().into(),
    };
    let len = match field {
        PileField::Piles => case.piles.len(),
        PileField::PilesLe if !case.piles_le.len().is_multiple_of(width.bytes()) => {
            return Err(bad_length());
        }
        PileField::PilesLe => case.piles_le.len() / width.bytes(),
    };
    if len == 0 {
        return Err(row_err(CaseErrorCode::EmptyRow, RowError::Empty));
    }
    if len > max_piles {
        let error = RowError::TooManyPiles {
            len,
            max: max_piles,
        };
        return Err(row_err(CaseErrorCode::TooManyPiles, error));
    }
    // Unpacked only once its length is known to fit.
    let piles = match field {
        PileField::Piles => Cow::Borrowed(case.piles.as_slice()),
        PileField::PilesLe => {
            Cow::Owned(piles_from_le(&case.piles_le, width).ok_or_else(bad_length)?)
        }
    };
    let row = ValidRow::new(piles, max_piles).map_err(|e| {
        let code = match e {
            RowError::Empty => CaseErrorCode::EmptyRow,
            RowError::TooManyPiles { .. } => CaseErrorCode::TooManyPiles,
            RowError::ZeroPile { .. } => CaseErrorCode::ZeroPile,
            RowError::PileTooLarge { .. } => CaseErrorCode::PileTooLarge,
        };
        row_err(code, e)
    })?;
    Ok((variant, row))
}

/// Validates a SuggestMove request: the variant, a non-empty row within the
/// limit, and the strength (default 1). The row is taken out of `req`.
pub fn check_suggest(
    req: &mut pb::SuggestMoveRequest,
    max_piles: usize,
) -> Result<(Variant, f64, ValidRow<'static>), RequestError> {
    let variant = variant_from_pb(req.variant).ok_or(RequestError::UnknownVariant(req.variant))?;
    let strength = req.strength.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&strength) {
        // NaN fails `contains` too.
        return Err(RequestError::BadStrength(strength));
    }
    let row = check_row(std::mem::take(&mut req.piles), max_piles, false)?;
    Ok((variant, strength, row))
}

/// Validates a GetTables row, taken out of `req`.
pub fn check_tables(
    req: &mut pb::GetTablesRequest,
    max_piles: usize,
) -> Result<ValidRow<'static>, RequestError> {
    check_row(std::mem::take(&mut req.piles), max_piles, true)
}

fn check_row(piles: Vec<u64>, max: usize, tables: bool) -> Result<ValidRow<'static>, RequestError> {
    ValidRow::new(piles, max).map_err(|e| match e {
        RowError::Empty if tables => RequestError::Empty,
        RowError::Empty => RequestError::AlreadyLost,
        RowError::TooManyPiles { len, max } if tables => RequestError::TableTooLarge { len, max },
        RowError::TooManyPiles { len, max } => RequestError::TooManyPiles { len, max },
        e => RequestError::Pile(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(piles: Vec<u64>, variant: i32) -> pb::Case {
        pb::Case {
            id: "c".into(),
            piles,
            variant,
            ..Default::default()
        }
    }

    #[test]
    fn case_errors_name_field_and_pile() {
        let e = check_case(&case(vec![1, 0, 2], 0), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::ZeroPile as i32);
        assert_eq!(e.field, "piles");
        assert_eq!(e.pile_index, 2);
        assert!(e.message.contains("pile 2 is 0"), "{}", e.message);
        let e = check_case(&case(vec![1, u64::MAX], 0), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PileTooLarge as i32);
        assert_eq!(e.pile_index, 2);
        let e = check_case(&case(vec![1; 11], 0), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::TooManyPiles as i32);
        let e = check_case(&case(vec![], 0), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::EmptyRow as i32);
        let e = check_case(&case(vec![1], 7), 10).unwrap_err();
        assert_eq!(e.field, "variant");
        let c = case(vec![1], 2);
        assert_eq!(
            check_case(&c, 10),
            Ok((Variant::Leftmost, ValidRow::new(&[1u64][..], 1).unwrap()))
        );
    }

    /// A case with its row in `piles_le`, in 8-byte words and
    /// `piles_le_width` left at 0.
    fn case_le(piles: &[u64]) -> pb::Case {
        pb::Case {
            id: "c".into(),
            piles_le: super::super::convert::piles_to_le(piles, LeWidth::FULL),
            ..Default::default()
        }
    }

    /// A case with its row in `piles_le` words of `width` bytes.
    fn case_le_width(piles: &[u64], width: usize) -> pb::Case {
        let width = LeWidth::new(width).unwrap();
        pb::Case {
            id: "c".into(),
            piles_le: super::super::convert::piles_to_le(piles, width),
            piles_le_width: width.to_pb(),
            ..Default::default()
        }
    }

    #[test]
    fn every_width_gives_the_same_row_and_errors_name_the_pile() {
        for width in 1..=8 {
            let c = case_le_width(&[3, 1, 9, 4], width);
            let (v, piles) = check_case(&c, 10).unwrap();
            assert_eq!(
                (v, &*piles),
                (Variant::TwoEnds, &[3, 1, 9, 4][..]),
                "{width}"
            );
            let e = check_case(&case_le_width(&[1, 2, 0], width), 10).unwrap_err();
            assert_eq!(e.code, CaseErrorCode::ZeroPile as i32);
            assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 3));
            let e = check_case(&case_le_width(&[1; 11], width), 10).unwrap_err();
            assert_eq!(e.code, CaseErrorCode::TooManyPiles as i32);
            assert!(e.message.contains("11 piles"), "{}", e.message);
            assert_eq!(case_pile_count(&case_le_width(&[1; 11], width)), 11);
        }
        // The largest pile of 4-byte words, and one of 8-byte words beyond
        // the limit of 2^63 - 1.
        let c = case_le_width(&[u32::MAX.into(), 1], 4);
        let (_, piles) = check_case(&c, 10).unwrap();
        assert_eq!(&*piles, &[u64::from(u32::MAX), 1][..]);
        let e = check_case(&case_le_width(&[1, 1 << 63], 8), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PileTooLarge as i32);
        assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
    }

    #[test]
    fn bad_widths_and_lengths_that_do_not_fit_the_width_are_case_errors() {
        for bad in [9, 16, u32::MAX] {
            let mut c = case_le_width(&[1, 2], 4);
            c.piles_le_width = bad;
            let e = check_case(&c, 10).unwrap_err();
            assert_eq!(e.code, CaseErrorCode::PilesLeWidth as i32);
            assert_eq!((e.field.as_str(), e.pile_index), ("piles_le_width", 0));
            assert_eq!(
                e.message,
                format!("piles_le_width: {bad} is not a width of 1 to 8 bytes (0 means 8)")
            );
        }
        // 8 bytes of 3-byte words; 9 bytes of the default 8-byte words.
        let mut c = case_le_width(&[1, 2], 4);
        c.piles_le_width = 3;
        let e = check_case(&c, 10).unwrap_err();
        assert_eq!(
            (e.code, e.field.as_str()),
            (CaseErrorCode::PilesLeLength as i32, "piles_le")
        );
        assert!(
            e.message
                .starts_with("piles_le: 8 bytes is not a multiple of 3,"),
            "{}",
            e.message
        );
        let mut c = case_le_width(&[1, 2, 3], 3);
        c.piles_le_width = 0;
        let e = check_case(&c, 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PilesLeLength as i32);
        // A width with the row in `piles` is ignored.
        let mut c = case(vec![3, 1, 9, 4], 0);
        c.piles_le_width = 99;
        assert!(check_case(&c, 10).is_ok());
    }

    #[test]
    fn piles_le_gives_the_same_row_and_errors_name_it() {
        let c = case_le(&[3, 1, 9, 4]);
        let (v, piles) = check_case(&c, 10).unwrap();
        assert_eq!((v, &*piles), (Variant::TwoEnds, &[3, 1, 9, 4][..]));
        let e = check_case(&case_le(&[1, 0, 2]), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::ZeroPile as i32);
        assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
        assert_eq!(
            e.message,
            "piles_le: pile 2 is 0: every pile needs at least 1 stone"
        );
        let e = check_case(&case_le(&[1, u64::MAX]), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PileTooLarge as i32);
        assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 2));
        let e = check_case(&case_le(&[1; 11]), 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::TooManyPiles as i32);
        assert_eq!(e.field, "piles_le");
        assert!(e.message.contains("11 piles"), "{}", e.message);
        // Empty in both fields: the row is empty (named by the usual field).
        let e = check_case(&case_le(&[]), 10).unwrap_err();
        assert_eq!(
            (e.code, e.field.as_str()),
            (CaseErrorCode::EmptyRow as i32, "piles")
        );
    }

    #[test]
    fn both_fields_and_bad_lengths_are_case_errors() {
        let mut c = case_le(&[1, 2]);
        c.piles = vec![1, 2];
        let e = check_case(&c, 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::BothPileFields as i32);
        assert_eq!((e.field.as_str(), e.pile_index), ("piles_le", 0));
        assert!(
            e.message.starts_with("piles_le: set together with piles"),
            "{}",
            e.message
        );
        for len in [1usize, 7, 9, 15, 13] {
            let c = pb::Case {
                piles_le: vec![1u8; len].into(),
                ..Default::default()
            };
            let e = check_case(&c, 10).unwrap_err();
            assert_eq!(e.code, CaseErrorCode::PilesLeLength as i32, "{len}");
            assert_eq!(e.field, "piles_le");
            assert!(
                e.message
                    .contains(&format!("{len} bytes is not a multiple of 8")),
                "{}",
                e.message
            );
        }
        // The length is checked before the limit on piles.
        let c = pb::Case {
            piles_le: vec![1u8; 8 * 11 + 1].into(),
            ..Default::default()
        };
        let e = check_case(&c, 10).unwrap_err();
        assert_eq!(e.code, CaseErrorCode::PilesLeLength as i32);
    }

    #[test]
    fn strength_is_checked() {
        let mut req = pb::SuggestMoveRequest {
            piles: vec![1, 2],
            ..Default::default()
        };
        let row = ValidRow::new(vec![1, 2], 2).unwrap();
        assert_eq!(
            check_suggest(&mut req.clone(), 10),
            Ok((Variant::TwoEnds, 1.0, row))
        );
        for bad in [f64::NAN, -0.1, 1.5] {
            req.strength = Some(bad);
            let e = check_suggest(&mut req.clone(), 10).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
        }
        req.strength = Some(0.5);
        req.piles.clear();
        assert_eq!(check_suggest(&mut req, 10), Err(RequestError::AlreadyLost));
    }
}
