//! Request validation at the boundary: typed errors ([`RequestError`],
//! [`CaseError`](pb::CaseError)) and their mapping to `tonic::Status`.
//!
//! Limits a request breaches map to `RESOURCE_EXHAUSTED`, malformed values
//! to `INVALID_ARGUMENT`, an empty row in SuggestMove (the player to move
//! has already lost) to `FAILED_PRECONDITION`.

use tonic::{Code, Status};

use crate::core::row::validate_piles;
use crate::core::{RowError, Variant};

use crate::judge::generate::{Family, GenSpec};

use super::config::Limits;
use super::convert::variant_from_pb;
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
            RequestError::AlreadyLost => Code::FailedPrecondition,
            RequestError::Empty
            | RequestError::Pile(_)
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

/// Validates one Solve case: its variant and row. An invalid case gets a
/// [`pb::CaseError`] naming the field and the pile.
pub fn check_case(case: &pb::Case, max_piles: usize) -> Result<Variant, pb::CaseError> {
    let variant = variant_from_pb(case.variant).ok_or_else(|| pb::CaseError {
        code: CaseErrorCode::UnknownVariant as i32,
        message: RequestError::UnknownVariant(case.variant).to_string(),
        field: "variant".into(),
        pile_index: 0,
    })?;
    let piles = &case.piles;
    let err = |code: CaseErrorCode, e: RequestError, pile: Option<usize>| pb::CaseError {
        code: code as i32,
        message: e.to_string(),
        field: "piles".into(),
        pile_index: pile.unwrap_or(0) as u64,
    };
    if piles.is_empty() {
        return Err(err(
            CaseErrorCode::EmptyRow,
            RequestError::Pile(RowError::Empty),
            None,
        ));
    }
    if piles.len() > max_piles {
        return Err(err(
            CaseErrorCode::TooManyPiles,
            RequestError::TooManyPiles {
                len: piles.len(),
                max: max_piles,
            },
            None,
        ));
    }
    validate_piles(piles).map_err(|e| {
        let code = match e {
            RowError::ZeroPile { .. } => CaseErrorCode::ZeroPile,
            _ => CaseErrorCode::PileTooLarge,
        };
        let pile = e.pile();
        err(code, RequestError::Pile(e), pile)
    })?;
    Ok(variant)
}

/// Validates a SuggestMove request: the variant, a non-empty row within the
/// limit, and the strength (default 1).
pub fn check_suggest(
    req: &pb::SuggestMoveRequest,
    max_piles: usize,
) -> Result<(Variant, f64), RequestError> {
    let variant = variant_from_pb(req.variant).ok_or(RequestError::UnknownVariant(req.variant))?;
    let strength = req.strength.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&strength) {
        // NaN fails `contains` too.
        return Err(RequestError::BadStrength(strength));
    }
    if req.piles.is_empty() {
        return Err(RequestError::AlreadyLost);
    }
    check_row_len(&req.piles, max_piles, false)?;
    Ok((variant, strength))
}

/// Validates a GetTables row.
pub fn check_tables(req: &pb::GetTablesRequest, max_piles: usize) -> Result<(), RequestError> {
    if req.piles.is_empty() {
        return Err(RequestError::Empty);
    }
    check_row_len(&req.piles, max_piles, true)
}

fn check_row_len(piles: &[u64], max: usize, tables: bool) -> Result<(), RequestError> {
    if piles.len() > max {
        let len = piles.len();
        return Err(if tables {
            RequestError::TableTooLarge { len, max }
        } else {
            RequestError::TooManyPiles { len, max }
        });
    }
    validate_piles(piles).map_err(RequestError::Pile)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(piles: Vec<u64>, variant: i32) -> pb::Case {
        pb::Case {
            id: "c".into(),
            piles,
            variant,
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
        assert_eq!(check_case(&case(vec![1], 2), 10), Ok(Variant::Leftmost));
    }

    #[test]
    fn strength_is_checked() {
        let mut req = pb::SuggestMoveRequest {
            piles: vec![1, 2],
            ..Default::default()
        };
        assert_eq!(check_suggest(&req, 10), Ok((Variant::TwoEnds, 1.0)));
        for bad in [f64::NAN, -0.1, 1.5] {
            req.strength = Some(bad);
            let e = check_suggest(&req, 10).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
        }
        req.strength = Some(0.5);
        req.piles.clear();
        assert_eq!(check_suggest(&req, 10), Err(RequestError::AlreadyLost));
    }
}
