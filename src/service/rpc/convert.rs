//! The door: each request decoded and validated, against the server's
//! [`Limits`], into the type its handler works on — `TryFrom` impls whose
//! error ([`RequestError`]) keeps the reason and maps to a `tonic::Status`.
//!
//! * `(pb::SuggestMoveRequest, &Limits)` → [`SuggestMove`];
//! * `(pb::GetTablesRequest, &Limits)` → [`TablesRequest`];
//! * `(&pb::GenerateRequest, &Limits)` → [`GenSpec`];
//! * a Solve case → its row: [`CaseShape`], on
//!   the pool, since a case's error stays inside the response;
//! * `(pb::StartGame, &Limits)` → [`PlayStart`], and a Play row
//!   ([`play_row`], the same decoding and messages as a Solve case's).
//!
//! The conversions both ends share (variants, moves, reports, `piles_le`)
//! live in [`crate::wire`].

use crate::core::{RowError, ValidRow, Variant};
use crate::judge::generate::{Family, GenSpec};
use crate::wire::convert::variant_from_wire;

use crate::service::config::Limits;
use crate::service::pb;
use crate::service::rpc::validate::{CaseShape, RequestError};

/// A bot's strength: in [0, 1] (NaN is not), 1 when absent.
fn strength(strength: Option<f64>) -> Result<f64, RequestError> {
    match strength.unwrap_or(1.0) {
        s if (0.0..=1.0).contains(&s) => Ok(s),
        s => Err(RequestError::BadStrength(s)),
    }
}

/// `value` capped at `max`, 0 meaning `max`.
pub(super) fn at_most(value: u32, max: u32) -> u32 {
    if value == 0 { max } else { value.min(max) }
}

/// A SuggestMove request, validated: a non-empty row of valid piles within
/// `max_piles`, a known variant, a strength in [0, 1] (default 1).
#[derive(Debug, Clone, PartialEq)]
pub struct SuggestMove {
    /// The row.
    pub row: ValidRow<'static>,
    /// The game.
    pub variant: Variant,
    /// The probability of the optimal move.
    pub strength: f64,
    /// The seed of the bot's random moves.
    pub seed: u64,
    /// Compute the remoteness too.
    pub want_remoteness: bool,
}

impl TryFrom<(pb::SuggestMoveRequest, &Limits)> for SuggestMove {
    type Error = RequestError;

    fn try_from((req, limits): (pb::SuggestMoveRequest, &Limits)) -> Result<Self, RequestError> {
        let variant = variant_from_wire(req.variant)?;
        let strength = strength(req.strength)?;
        let row = ValidRow::new(req.piles, limits.max_piles.get()).map_err(|e| match e {
            RowError::Empty => RequestError::AlreadyLost,
            RowError::TooManyPiles { len, max } => RequestError::TooManyPiles { len, max },
            e => RequestError::Pile(e),
        })?;
        Ok(SuggestMove {
            row,
            variant,
            strength,
            seed: req.seed,
            want_remoteness: req.want_remoteness,
        })
    }
}

/// A StartGame, validated: the row (as a Solve case's, `piles` or
/// `piles_le`), a known variant and seat (unspecified: FIRST), a strength in
/// [0, 1] (default 1), the move timeout (0 and anything above
/// `play_move_timeout` mean that limit).
#[derive(Debug, Clone, PartialEq)]
pub struct PlayStart {
    /// The row.
    pub row: ValidRow<'static>,
    /// The game.
    pub variant: Variant,
    /// The client's seat.
    pub seat: pb::Seat,
    /// The bot's strength.
    pub strength: f64,
    /// The bot's seed.
    pub seed: u64,
    /// The move timeout in ms.
    pub move_timeout_ms: u32,
    /// Fill in the analysis.
    pub analysis: bool,
}

impl TryFrom<(pb::StartGame, &Limits)> for PlayStart {
    type Error = RequestError;

    fn try_from((req, limits): (pb::StartGame, &Limits)) -> Result<Self, RequestError> {
        let seat = match pb::Seat::try_from(req.client_seat) {
            Ok(pb::Seat::Unspecified) => pb::Seat::First,
            Ok(seat) => seat,
            Err(_) => return Err(RequestError::BadSeat(req.client_seat)),
        };
        let strength = strength(req.strength)?;
        let move_timeout_ms = at_most(req.move_timeout_ms, limits.play_move_timeout_ms());
        let (variant, row) = play_row(
            req.piles,
            req.piles_le,
            req.piles_le_width,
            req.variant,
            limits.max_piles.get(),
        )?;
        Ok(PlayStart {
            row,
            variant,
            seat,
            strength,
            seed: req.seed,
            move_timeout_ms,
            analysis: req.analysis,
        })
    }
}

/// The row of a StartGame or ResumeGame, decoded and validated as a Solve
/// case's ([`CaseShape`]): its errors carry the same messages, naming the
/// field and the pile.
pub fn play_row(
    piles: Vec<u64>,
    piles_le: Vec<u8>,
    piles_le_width: u32,
    variant: i32,
    max_piles: usize,
) -> Result<(Variant, ValidRow<'static>), RequestError> {
    let case = pb::Case {
        piles,
        piles_le: piles_le.into(),
        piles_le_width,
        variant,
        ..Default::default()
    };
    CaseShape::of(&case)
        .row(&case, max_piles)
        .map(|(variant, row)| (variant, row.into_owned()))
        .map_err(RequestError::Row)
}

/// A GetTables request, validated: a non-empty row of valid piles within
/// `max_table_piles`, and the rows per chunk (0 and anything above
/// `max_chunk_rows` mean `max_chunk_rows`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablesRequest {
    /// The row.
    pub row: ValidRow<'static>,
    /// Rows per `TablesChunk`, at least 1.
    pub chunk_rows: usize,
}

impl TryFrom<(pb::GetTablesRequest, &Limits)> for TablesRequest {
    type Error = RequestError;

    fn try_from((req, limits): (pb::GetTablesRequest, &Limits)) -> Result<Self, RequestError> {
        let row = ValidRow::new(req.piles, limits.max_table_piles.get()).map_err(|e| match e {
            RowError::Empty => RequestError::Empty,
            RowError::TooManyPiles { len, max } => RequestError::TableTooLarge { len, max },
            e => RequestError::Pile(e),
        })?;
        Ok(TablesRequest {
            row,
            chunk_rows: at_most(req.chunk_rows, limits.max_chunk_rows.get()) as usize,
        })
    }
}

impl TryFrom<(&pb::GenerateRequest, &Limits)> for GenSpec {
    type Error = RequestError;

    /// Checks the generator's rules, then the server's limits on the cases
    /// and on cases × max_n.
    fn try_from((req, limits): (&pb::GenerateRequest, &Limits)) -> Result<Self, RequestError> {
        let family: Family = req.family.parse().map_err(RequestError::UnknownFamily)?;
        let spec = GenSpec {
            family,
            cases: req.cases,
            max_n: req.max_n,
            max_a: req.max_a,
            seed: req.seed,
            variant: variant_from_wire(req.variant)?,
        };
        let cases = spec.validate().map_err(|e| {
            // Like every other refusal at the door: the field first.
            RequestError::Generator(match e.field() {
                Some(field) => format!("{field}: {e}"),
                None => e.to_string(),
            })
        })?;
        if cases > limits.max_generate_cases.get() {
            return Err(RequestError::TooManyGeneratedCases {
                cases,
                max: limits.max_generate_cases.get(),
            });
        }
        let piles = cases.saturating_mul(spec.max_n);
        if piles > limits.max_generate_piles.get() {
            return Err(RequestError::TooManyGeneratedPiles {
                cases,
                max_n: spec.max_n,
                piles,
                max: limits.max_generate_piles.get(),
            });
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::Config;
    use std::num::{NonZeroU32, NonZeroUsize};
    use tonic::Code;

    fn limits(max_piles: usize) -> Limits {
        let mut limits = Config::defaults().unwrap().limits;
        limits.max_piles = NonZeroUsize::new(max_piles).unwrap();
        limits.max_table_piles = NonZeroUsize::new(max_piles).unwrap();
        limits
    }

    #[test]
    fn suggest_requests_keep_the_reason() {
        let limits = limits(10);
        let mut req = pb::SuggestMoveRequest {
            piles: vec![1, 2],
            ..Default::default()
        };
        let ok = SuggestMove::try_from((req.clone(), &limits)).unwrap();
        assert_eq!((ok.variant, ok.strength), (Variant::TwoEnds, 1.0));
        for bad in [f64::NAN, -0.1, 1.5] {
            req.strength = Some(bad);
            let e = SuggestMove::try_from((req.clone(), &limits)).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
        }
        req.strength = Some(0.5);
        req.variant = 9;
        let e = SuggestMove::try_from((req.clone(), &limits)).unwrap_err();
        assert_eq!(e.to_string(), "variant: 9 is not a known Variant");
        req.variant = 0;
        req.piles = vec![1; 11];
        let e = SuggestMove::try_from((req.clone(), &limits)).unwrap_err();
        assert_eq!(e.code(), Code::ResourceExhausted);
        req.piles.clear();
        assert_eq!(
            SuggestMove::try_from((req, &limits)),
            Err(RequestError::AlreadyLost)
        );
    }

    #[test]
    fn tables_requests_clamp_the_chunk_rows() {
        let mut limits = limits(10);
        limits.max_chunk_rows = NonZeroU32::new(4).unwrap();
        let req = |chunk_rows| pb::GetTablesRequest {
            piles: vec![3, 1, 2],
            chunk_rows,
        };
        let rows = |r| {
            TablesRequest::try_from((req(r), &limits))
                .unwrap()
                .chunk_rows
        };
        assert_eq!((rows(0), rows(2), rows(9)), (4, 2, 4));
        let e = TablesRequest::try_from((pb::GetTablesRequest::default(), &limits)).unwrap_err();
        assert_eq!(e, RequestError::Empty);
        let mut big = req(0);
        big.piles = vec![1; 11];
        let e = TablesRequest::try_from((big, &limits)).unwrap_err();
        assert_eq!(e.code(), Code::ResourceExhausted);
    }
}
