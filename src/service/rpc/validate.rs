//! Request validation at the boundary: typed errors ([`RequestError`],
//! [`CaseError`](pb::CaseError)) and their mapping to `tonic::Status`, and
//! the one decoding of a Solve case's header ([`CaseShape`]) that both
//! admission and validation use.
//!
//! Limits a request breaches map to `RESOURCE_EXHAUSTED`, malformed values
//! to `INVALID_ARGUMENT`, an empty row in SuggestMove (the player to move
//! has already lost) to `FAILED_PRECONDITION`.

use std::borrow::Cow;

use tonic::{Code, Status};

use crate::core::{RowError, ValidRow, Variant, named_enum};
use crate::wire::convert::variant_from_wire;
use crate::wire::{LeWidth, WireError, piles_from_le};

use crate::service::metrics::units::remoteness_cells_of;
use crate::service::pb::{self, CaseErrorCode};
use crate::service::state::limits::cells_of;

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
    /// A wire value out of its range: an unknown variant number, a
    /// `piles_le_width` above 8.
    #[error(transparent)]
    Wire(#[from] WireError),
    /// Strength outside [0, 1] or NaN; printed short ([`short_float`]).
    #[error("strength: {} is not a number between 0 and 1", short_float(*.0))]
    BadStrength(f64),
    /// A Play row (StartGame, ResumeGame) that is not valid: the case
    /// error of the same row in a Solve case.
    #[error("{}", .0.message)]
    Row(pb::CaseError),
    /// A StartGame seat that is not one of the four.
    #[error("client_seat: {0} is not a known Seat (1 FIRST, 2 SECOND, 3 BOTH, 4 NONE)")]
    BadSeat(i32),
    /// A Play stream whose first message is not a start or a resume.
    #[error(
        "the first message of a Play stream must be `start` (StartGame) or `resume` \
         (ResumeGame), not {0}"
    )]
    NoStart(&'static str),
    /// A start or resume after the first message of a Play stream.
    #[error(
        "a Play stream plays one game: `start` and `resume` are only allowed as its first \
         message; open another stream for another game"
    )]
    SecondStart,
    /// A PlayStepRequest with neither a start nor a turn.
    #[error("step: a PlayStepRequest must carry `start` (StartGame) or `turn` (Turn)")]
    NoStep,
    /// A PlayStep turn with no action.
    #[error(
        "turn.action: a Turn must carry `move` (SubmitMove), `resign` (Resign) or `play_on` \
         (PlayOn)"
    )]
    NoTurnAction,
    /// A ResumeGame token that does not open.
    #[error(transparent)]
    Token(#[from] crate::service::state::play_token::TokenError),
    /// A ResumeGame row that is not the one the token's game started on.
    #[error(
        "piles: the row is not the one the token's game was started on (its SHA-256 differs); \
         send the original row"
    )]
    RowDigest,
    /// A signed state that does not fit its row (cannot happen with a
    /// token this server made for that row).
    #[error("state_token: {0}")]
    State(crate::core::game::StateError),
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
            | RequestError::TooManyGeneratedPiles { .. }
            | RequestError::CaseRow {
                error: RowError::TooManyPiles { .. },
                ..
            } => Code::ResourceExhausted,
            RequestError::Row(e) if e.code == CaseErrorCode::TooManyPiles as i32 => {
                Code::ResourceExhausted
            }
            RequestError::AlreadyLost => Code::FailedPrecondition,
            // Every other refusal is a malformed value.
            _ => Code::InvalidArgument,
        }
    }
}

impl From<RequestError> for Status {
    fn from(e: RequestError) -> Status {
        Status::new(e.code(), e.to_string())
    }
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

named_enum! {
    /// Which field of a [`pb::Case`] carries its row (by its name in the
    /// .proto).
    pub enum PileField: fn name {
        /// `repeated uint64 piles` (varints).
        Piles => "piles",
        /// `bytes piles_le` (little-endian words of `piles_le_width` bytes).
        PilesLe => "piles_le",
    }
}

/// A Solve case's header, decoded once in O(1) without reading its piles:
/// its variant, the field and word width carrying its row, and the number of
/// piles. Admission prices a case with it ([`CaseShape::held_piles`],
/// [`CaseShape::cells`]) before the batch goes to the pool, where
/// [`CaseShape::row`] validates the case and unpacks its piles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaseShape {
    variant: Result<Variant, WireError>,
    /// The field carrying the row and its words' width, or why neither can
    /// be used.
    layout: Result<(PileField, LeWidth), LayoutError>,
    /// Piles in both fields (a bad width counts 8-byte words).
    held: usize,
}

/// Why a case's row cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LayoutError {
    /// Both `piles` (this many) and `piles_le` are set.
    BothFields(usize),
    /// `piles_le_width` is above 8.
    Width(u32),
    /// `piles_le` is not a whole number of words.
    Length { len: usize, width: usize },
}

impl CaseShape {
    /// Decodes the header of `case`.
    pub fn of(case: &pb::Case) -> CaseShape {
        let width = LeWidth::from_pb(case.piles_le_width);
        let held = case.piles.len() + case.piles_le.len() / width.unwrap_or(LeWidth::FULL).bytes();
        let layout = match (case.piles.is_empty(), case.piles_le.is_empty()) {
            (false, false) => Err(LayoutError::BothFields(case.piles.len())),
            (_, true) => Ok((PileField::Piles, LeWidth::FULL)),
            (true, false) => match width {
                Err(_) => Err(LayoutError::Width(case.piles_le_width)),
                Ok(w) if !case.piles_le.len().is_multiple_of(w.bytes()) => {
                    Err(LayoutError::Length {
                        len: case.piles_le.len(),
                        width: w.bytes(),
                    })
                }
                Ok(w) => Ok((PileField::PilesLe, w)),
            },
        };
        CaseShape {
            variant: variant_from_wire(case.variant),
            layout,
            held,
        }
    }

    /// The piles the case holds in memory, whatever its fields say (both
    /// fields count; a bad width counts 8-byte words).
    pub fn held_piles(&self) -> usize {
        self.held
    }

    /// The cell updates solving it costs: 0 for a case that will be
    /// answered with an error instead (a bad header, an empty row, more than
    /// `max_piles` piles); with `remoteness_factor`
    /// (`limits.remoteness_cell_factor`, when the batch wants the
    /// remoteness), its remoteness's too.
    pub fn cells(&self, max_piles: usize, remoteness_factor: Option<u64>) -> u64 {
        match (self.variant, self.layout) {
            (Ok(variant), Ok(_)) if (1..=max_piles).contains(&self.held) => {
                let two_ends = variant == Variant::TwoEnds;
                let verdict = cells_of(self.held, two_ends);
                match remoteness_factor {
                    Some(f) => verdict.saturating_add(remoteness_cells_of(self.held, two_ends, f)),
                    None => verdict,
                }
            }
            _ => 0,
        }
    }

    /// Validates the case (`case` must be the one the shape was decoded
    /// from): its variant, which field carries the row, and the row. Returns
    /// the variant and the row (borrowed from `piles`, or unpacked from
    /// `piles_le`). An invalid case gets a [`pb::CaseError`] naming the
    /// field and the pile.
    pub fn row<'a>(
        &self,
        case: &'a pb::Case,
        max_piles: usize,
    ) -> Result<(Variant, ValidRow<'a>), pb::CaseError> {
        let case_error = |code: CaseErrorCode, field: &str, error: RequestError| pb::CaseError {
            code: code as i32,
            message: error.to_string(),
            field: field.into(),
            pile_index: 0,
        };
        let variant = self
            .variant
            .map_err(|e| case_error(CaseErrorCode::UnknownVariant, "variant", e.into()))?;
        let (field, width) = self.layout.map_err(|e| match e {
            LayoutError::BothFields(len) => case_error(
                CaseErrorCode::BothPileFields,
                PileField::PilesLe.name(),
                RequestError::BothPileFields { len },
            ),
            LayoutError::Width(raw) => case_error(
                CaseErrorCode::PilesLeWidth,
                "piles_le_width",
                WireError::PilesLeWidth(raw).into(),
            ),
            LayoutError::Length { len, width } => case_error(
                CaseErrorCode::PilesLeLength,
                PileField::PilesLe.name(),
                RequestError::PilesLeLength { len, width },
            ),
        })?;
        let row_err = |code: CaseErrorCode, error: RowError| pb::CaseError {
            code: code as i32,
            pile_index: error.pile().unwrap_or(0) as u64,
            message: RequestError::CaseRow { field, error }.to_string(),
            field: field.name().into(),
        };
        let len = self.held;
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
        // Unpacked only once its length is known to fit (the layout checked
        // that it is a whole number of words).
        let piles = match field {
            PileField::Piles => Cow::Borrowed(case.piles.as_slice()),
            PileField::PilesLe => match piles_from_le(&case.piles_le, width) {
                Some(piles) => Cow::Owned(piles),
                None => {
                    let error = RequestError::PilesLeLength {
                        len: case.piles_le.len(),
                        width: width.bytes(),
                    };
                    return Err(case_error(
                        CaseErrorCode::PilesLeLength,
                        field.name(),
                        error,
                    ));
                }
            },
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
}

/// Validates one Solve case ([`CaseShape::row`] of its shape).
pub fn check_case(
    case: &pb::Case,
    max_piles: usize,
) -> Result<(Variant, ValidRow<'_>), pb::CaseError> {
    CaseShape::of(case).row(case, max_piles)
}

/// A float as an error message shows it: short, and still the value sent.
/// Rust's `{}` writes every digit of the decimal expansion (−1e−300 is 330
/// characters); this is the shortest representation that reads back as the
/// same `f64`, in plain notation between 1e−4 and 1e16 (`0.5`, `-0.1`,
/// `1.5`) and in exponent notation outside (`-1e-300`,
/// `1.7976931348623157e308`), so at most 24 characters; `NaN`, `inf`,
/// `-inf` as themselves.
pub fn short_float(x: f64) -> String {
    let magnitude = x.abs();
    if !x.is_finite() || x == 0.0 || (1e-4..1e16).contains(&magnitude) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests;
