//! Conversions between the generated protobuf types ([`pb`]) and the game
//! core's types. Validation lives in [`super::validate`]; this module only
//! maps values that are already known to be valid, plus the decoding that
//! can fail (enums, `Case.piles_le`).

use prost::bytes::Bytes;

use crate::core::{Move, Side, Variant};
use crate::judge::check::{CheckReport, Mismatch, Verdict};

use super::pb;

/// Decodes a wire `Variant` (an `i32`); unspecified means two-ends.
/// `None` for a number this server does not know.
pub fn variant_from_pb(raw: i32) -> Option<Variant> {
    match pb::Variant::try_from(raw).ok()? {
        pb::Variant::Unspecified | pb::Variant::TwoEnds => Some(Variant::TwoEnds),
        pb::Variant::Leftmost => Some(Variant::Leftmost),
    }
}

/// Packs piles as `Case.piles_le`: each pile a little-endian 8-byte word.
pub fn piles_to_le(piles: &[u64]) -> Bytes {
    let mut out = vec![0u8; piles.len() * 8];
    for (word, pile) in out.as_chunks_mut::<8>().0.iter_mut().zip(piles) {
        *word = pile.to_le_bytes();
    }
    Bytes::from(out)
}

/// Unpacks `Case.piles_le`; `None` when its length is not a multiple of 8.
/// The values are not validated.
pub fn piles_from_le(bytes: &[u8]) -> Option<Vec<u64>> {
    let (words, rest) = bytes.as_chunks::<8>();
    if !rest.is_empty() {
        return None;
    }
    Some(words.iter().map(|w| u64::from_le_bytes(*w)).collect())
}

/// The wire `Variant` of a core variant.
pub fn variant_to_pb(variant: Variant) -> pb::Variant {
    match variant {
        Variant::TwoEnds => pb::Variant::TwoEnds,
        Variant::Leftmost => pb::Variant::Leftmost,
    }
}

/// The wire `Side` of a core side.
pub fn side_to_pb(side: Side) -> pb::Side {
    match side {
        Side::Left => pb::Side::Left,
        Side::Right => pb::Side::Right,
    }
}

/// Decodes a wire `Side`; `None` when unspecified or unknown.
pub fn side_from_pb(raw: i32) -> Option<Side> {
    match pb::Side::try_from(raw).ok()? {
        pb::Side::Left => Some(Side::Left),
        pb::Side::Right => Some(Side::Right),
        pb::Side::Unspecified => None,
    }
}

impl From<Move> for pb::Move {
    fn from(m: Move) -> Self {
        pb::Move {
            side: side_to_pb(m.side) as i32,
            take: m.take,
            remaining: m.remaining,
        }
    }
}

/// Decodes a wire `Move`; `None` when its side is not left or right.
pub fn move_from_pb(m: &pb::Move) -> Option<Move> {
    Some(Move {
        side: side_from_pb(m.side)?,
        take: m.take,
        remaining: m.remaining,
    })
}

/// The wire `Verdict` of a checker verdict.
pub fn verdict_to_pb(verdict: Verdict) -> pb::Verdict {
    match verdict {
        Verdict::Accepted => pb::Verdict::Accepted,
        Verdict::WrongAnswer => pb::Verdict::WrongAnswer,
        Verdict::PresentationError => pb::Verdict::PresentationError,
        Verdict::JudgeFailure => pb::Verdict::JudgeFailure,
    }
}

/// Decodes a wire `Verdict`; `None` when unspecified or unknown.
pub fn verdict_from_pb(raw: i32) -> Option<Verdict> {
    match pb::Verdict::try_from(raw).ok()? {
        pb::Verdict::Accepted => Some(Verdict::Accepted),
        pb::Verdict::WrongAnswer => Some(Verdict::WrongAnswer),
        pb::Verdict::PresentationError => Some(Verdict::PresentationError),
        pb::Verdict::JudgeFailure => Some(Verdict::JudgeFailure),
        pb::Verdict::Unspecified => None,
    }
}

impl From<CheckReport> for pb::CheckResponse {
    fn from(r: CheckReport) -> Self {
        pb::CheckResponse {
            verdict: verdict_to_pb(r.verdict) as i32,
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

/// Decodes a wire `CheckResponse`; `None` when its verdict is not one of
/// the four or a mismatch holds something other than 0 or 1.
pub fn report_from_pb(r: pb::CheckResponse) -> Option<CheckReport> {
    let bit = |v: u32| match v {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    };
    let first_mismatch = match r.first_mismatch {
        Some(m) => Some(Mismatch {
            case: m.case,
            expected: bit(m.expected)?,
            got: bit(m.got)?,
        }),
        None => None,
    };
    Some(CheckReport {
        verdict: verdict_from_pb(r.verdict)?,
        message: r.message,
        cases: r.cases,
        wrong_cases: r.wrong_cases,
        first_mismatch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_round_trip() {
        assert_eq!(variant_from_pb(0), Some(Variant::TwoEnds));
        for v in [Variant::TwoEnds, Variant::Leftmost] {
            assert_eq!(variant_from_pb(variant_to_pb(v) as i32), Some(v));
        }
        assert_eq!(variant_from_pb(99), None);
    }

    #[test]
    fn piles_le_round_trips() {
        let piles = [1, 2, 255, 256, 1 << 40, u64::MAX, 0];
        let packed = piles_to_le(&piles);
        assert_eq!(packed.len(), 8 * piles.len());
        assert_eq!(&packed[8..16], &[2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&packed[24..32], &[0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(piles_from_le(&packed).as_deref(), Some(&piles[..]));
        assert_eq!(piles_from_le(&[]), Some(vec![]));
        assert_eq!(piles_from_le(&packed[..13]), None);
        assert_eq!(piles_from_le(&[1]), None);
    }

    #[test]
    fn moves_round_trip() {
        let m = Move {
            side: Side::Right,
            take: 3,
            remaining: 4,
        };
        assert_eq!(move_from_pb(&m.into()), Some(m));
        assert_eq!(move_from_pb(&pb::Move::default()), None);
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
        assert_eq!(report_from_pb(r.clone().into()), Some(r));
        assert_eq!(report_from_pb(pb::CheckResponse::default()), None);
    }
}
