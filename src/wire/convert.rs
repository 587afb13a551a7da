//! Conversions between the wire types ([`pb`]) and the core's and the
//! judge's types, for both ends. Encoding always succeeds (`From`);
//! decoding a value proto3 lets be anything (an enum number, a 0/1 field)
//! is a `TryFrom` (or a `*_from_wire` function for bare enum numbers) whose
//! [`WireError`] names the field and the value.

use crate::core::remoteness::MoveRange;
use crate::core::{Move, Side, Variant};
use crate::judge::check::{CheckReport, Mismatch, Verdict};

use super::pb;

/// A wire value out of its range, with the field it came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// An enum number this build does not know as a `Variant`.
    #[error("variant: {0} is not a known Variant")]
    UnknownVariant(i32),
    /// A `piles_le_width` above 8.
    #[error("piles_le_width: {0} is not a width of 1 to 8 bytes (0 means 8)")]
    PilesLeWidth(u32),
    /// A `Side` that is neither left nor right.
    #[error("side: {0} is not left or right")]
    Side(i32),
    /// A `Verdict` that is not one of the four.
    #[error("verdict: {0} is not one of the four verdicts")]
    Verdict(i32),
    /// A `Mismatch` bit other than 0 or 1.
    #[error("first_mismatch.{field}: {value} is neither 0 nor 1")]
    Bit { field: &'static str, value: u32 },
    /// A `Remoteness.plies` that is not a decimal number below 2^128.
    #[error("remoteness: plies is not a decimal number of at most 39 digits")]
    Remoteness,
}

/// A move range whose slope does not fit the wire's `sint64` (the DP only
/// makes slopes 0 and 2, docs/game.md §5: never seen).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a move range's slope {0} does not fit in the wire's sint64")]
pub struct SlopeOutOfRange(pub i128);

impl From<Variant> for pb::Variant {
    fn from(variant: Variant) -> pb::Variant {
        match variant {
            Variant::TwoEnds => pb::Variant::TwoEnds,
            Variant::Leftmost => pb::Variant::Leftmost,
        }
    }
}

impl From<pb::Variant> for Variant {
    /// Unspecified means two-ends.
    fn from(variant: pb::Variant) -> Variant {
        match variant {
            pb::Variant::Unspecified | pb::Variant::TwoEnds => Variant::TwoEnds,
            pb::Variant::Leftmost => Variant::Leftmost,
        }
    }
}

/// Decodes a wire `Variant` number; unspecified (0) means two-ends.
pub fn variant_from_wire(raw: i32) -> Result<Variant, WireError> {
    pb::Variant::try_from(raw)
        .map(Variant::from)
        .map_err(|_| WireError::UnknownVariant(raw))
}

impl From<Side> for pb::Side {
    fn from(side: Side) -> pb::Side {
        match side {
            Side::Left => pb::Side::Left,
            Side::Right => pb::Side::Right,
        }
    }
}

/// Decodes a wire `Side` number; unspecified is an error.
pub fn side_from_wire(raw: i32) -> Result<Side, WireError> {
    match pb::Side::try_from(raw) {
        Ok(pb::Side::Left) => Ok(Side::Left),
        Ok(pb::Side::Right) => Ok(Side::Right),
        Ok(pb::Side::Unspecified) | Err(_) => Err(WireError::Side(raw)),
    }
}

impl From<Move> for pb::Move {
    fn from(m: Move) -> Self {
        pb::Move {
            side: pb::Side::from(m.side) as i32,
            take: m.take,
            remaining: m.remaining,
            remoteness_after: None,
        }
    }
}

impl TryFrom<&pb::Move> for Move {
    type Error = WireError;

    /// Fails when the side is not left or right.
    fn try_from(m: &pb::Move) -> Result<Move, WireError> {
        Ok(Move {
            side: side_from_wire(m.side)?,
            take: m.take,
            remaining: m.remaining,
        })
    }
}

impl From<u128> for pb::Remoteness {
    /// The plies in decimal, exact (a remoteness can pass 2^64 − 1).
    fn from(plies: u128) -> pb::Remoteness {
        pb::Remoteness {
            plies: plies.to_string(),
        }
    }
}

/// Decodes a wire remoteness: decimal digits only (no sign, no spaces),
/// below 2^128.
pub fn remoteness_from_wire(r: &pb::Remoteness) -> Result<u128, WireError> {
    if r.plies.is_empty() || !r.plies.bytes().all(|b| b.is_ascii_digit()) {
        return Err(WireError::Remoteness);
    }
    r.plies.parse().map_err(|_| WireError::Remoteness)
}

impl TryFrom<MoveRange> for pb::MoveRange {
    type Error = SlopeOutOfRange;

    /// Fails only when the slope does not fit in `i64`.
    fn try_from(r: MoveRange) -> Result<pb::MoveRange, SlopeOutOfRange> {
        Ok(pb::MoveRange {
            side: pb::Side::from(r.side) as i32,
            left_min: r.left_min,
            left_max: r.left_max,
            mover_wins: r.mover_wins,
            remoteness_at_min: Some(r.remoteness_at_min.into()),
            slope: i64::try_from(r.slope).map_err(|_| SlopeOutOfRange(r.slope))?,
        })
    }
}

impl TryFrom<&pb::MoveRange> for MoveRange {
    type Error = WireError;

    /// Fails when the side is not left or right or the remoteness is
    /// missing or not a number.
    fn try_from(r: &pb::MoveRange) -> Result<MoveRange, WireError> {
        Ok(MoveRange {
            side: side_from_wire(r.side)?,
            left_min: r.left_min,
            left_max: r.left_max,
            mover_wins: r.mover_wins,
            remoteness_at_min: remoteness_from_wire(
                r.remoteness_at_min.as_ref().ok_or(WireError::Remoteness)?,
            )?,
            slope: i128::from(r.slope),
        })
    }
}

impl From<Verdict> for pb::Verdict {
    fn from(verdict: Verdict) -> pb::Verdict {
        match verdict {
            Verdict::Accepted => pb::Verdict::Accepted,
            Verdict::WrongAnswer => pb::Verdict::WrongAnswer,
            Verdict::PresentationError => pb::Verdict::PresentationError,
            Verdict::JudgeFailure => pb::Verdict::JudgeFailure,
        }
    }
}

/// Decodes a wire `Verdict` number; unspecified is an error.
pub fn verdict_from_wire(raw: i32) -> Result<Verdict, WireError> {
    match pb::Verdict::try_from(raw) {
        Ok(pb::Verdict::Accepted) => Ok(Verdict::Accepted),
        Ok(pb::Verdict::WrongAnswer) => Ok(Verdict::WrongAnswer),
        Ok(pb::Verdict::PresentationError) => Ok(Verdict::PresentationError),
        Ok(pb::Verdict::JudgeFailure) => Ok(Verdict::JudgeFailure),
        Ok(pb::Verdict::Unspecified) | Err(_) => Err(WireError::Verdict(raw)),
    }
}

impl From<CheckReport> for pb::CheckResponse {
    fn from(r: CheckReport) -> Self {
        pb::CheckResponse {
            verdict: pb::Verdict::from(r.verdict) as i32,
            message: r.message,
            cases: r.cases,
            wrong_cases: r.wrong_cases,
            first_mismatch: r.first_mismatch.map(|m| pb::Mismatch {
                case: m.case,
                expected: u32::from(m.expected),
                got: u32::from(m.got),
            }),
        }
    }
}

impl TryFrom<pb::CheckResponse> for CheckReport {
    type Error = WireError;

    /// Fails when the verdict is not one of the four or a mismatch holds
    /// something other than 0 or 1.
    fn try_from(r: pb::CheckResponse) -> Result<CheckReport, WireError> {
        let bit = |field, value: u32| match value {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(WireError::Bit { field, value }),
        };
        let first_mismatch = match r.first_mismatch {
            Some(m) => Some(Mismatch {
                case: m.case,
                expected: bit("expected", m.expected)?,
                got: bit("got", m.got)?,
            }),
            None => None,
        };
        Ok(CheckReport {
            verdict: verdict_from_wire(r.verdict)?,
            message: r.message,
            cases: r.cases,
            wrong_cases: r.wrong_cases,
            first_mismatch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remoteness_round_trips_past_u64() {
        for plies in [0, 1, u128::from(u64::MAX) + 1, u128::MAX] {
            let wire = pb::Remoteness::from(plies);
            assert_eq!(remoteness_from_wire(&wire), Ok(plies));
        }
        for bad in [
            "",
            "-1",
            "+1",
            " 1",
            "1e3",
            "340282366920938463463374607431768211456",
        ] {
            let wire = pb::Remoteness { plies: bad.into() };
            assert_eq!(
                remoteness_from_wire(&wire),
                Err(WireError::Remoteness),
                "{bad}"
            );
        }
    }

    #[test]
    fn move_ranges_round_trip_and_refuse_wide_slopes() {
        let r = MoveRange {
            side: Side::Right,
            left_min: 3,
            left_max: 9,
            mover_wins: true,
            remoteness_at_min: u128::from(u64::MAX) * 4,
            slope: 2,
        };
        let wire = pb::MoveRange::try_from(r).unwrap();
        assert_eq!(MoveRange::try_from(&wire), Ok(r));
        let wide = MoveRange {
            slope: i128::from(i64::MAX) + 1,
            ..r
        };
        assert_eq!(
            pb::MoveRange::try_from(wide),
            Err(SlopeOutOfRange(wide.slope))
        );
    }

    #[test]
    fn variants_round_trip() {
        assert_eq!(variant_from_wire(0), Ok(Variant::TwoEnds));
        for v in [Variant::TwoEnds, Variant::Leftmost] {
            assert_eq!(variant_from_wire(pb::Variant::from(v) as i32), Ok(v));
        }
        assert_eq!(variant_from_wire(99), Err(WireError::UnknownVariant(99)));
        assert_eq!(
            WireError::UnknownVariant(99).to_string(),
            "variant: 99 is not a known Variant"
        );
    }

    #[test]
    fn moves_round_trip() {
        let m = Move {
            side: Side::Right,
            take: 3,
            remaining: 4,
        };
        assert_eq!(Move::try_from(&pb::Move::from(m)), Ok(m));
        assert_eq!(
            Move::try_from(&pb::Move::default()),
            Err(WireError::Side(0))
        );
    }

    #[test]
    fn reports_round_trip() {
        let r = CheckReport {
            verdict: Verdict::WrongAnswer,
            message: "wrong answer case 2".into(),
            cases: 3,
            wrong_cases: 1,
            first_mismatch: Some(Mismatch {
                case: 2,
                expected: false,
                got: true,
            }),
        };
        assert_eq!(
            CheckReport::try_from(pb::CheckResponse::from(r.clone())),
            Ok(r)
        );
        assert_eq!(
            CheckReport::try_from(pb::CheckResponse::default()),
            Err(WireError::Verdict(0))
        );
        let mut bad = pb::CheckResponse {
            verdict: pb::Verdict::WrongAnswer as i32,
            first_mismatch: Some(pb::Mismatch {
                case: 1,
                expected: 2,
                got: 0,
            }),
            ..Default::default()
        };
        assert_eq!(
            CheckReport::try_from(bad.clone()),
            Err(WireError::Bit {
                field: "expected",
                value: 2
            })
        );
        bad.first_mismatch = None;
        assert!(CheckReport::try_from(bad).is_ok());
    }
}
