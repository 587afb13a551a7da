//! Conversions between the generated protobuf types ([`pb`]) and the game
//! core's types. Validation lives in [`super::validate`]; this module only
//! maps values that are already known to be valid, plus the enum decoding
//! that can fail.

use crate::core::{Move, Side, Variant};

use super::pb;

/// Decodes a wire `Variant` (an `i32`); unspecified means two-ends.
/// `None` for a number this server does not know.
pub fn variant_from_pb(raw: i32) -> Option<Variant> {
    match pb::Variant::try_from(raw).ok()? {
        pb::Variant::Unspecified | pb::Variant::TwoEnds => Some(Variant::TwoEnds),
        pb::Variant::Leftmost => Some(Variant::Leftmost),
    }
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
    fn moves_round_trip() {
        let m = Move {
            side: Side::Right,
            take: 3,
            remaining: 4,
        };
        assert_eq!(move_from_pb(&m.into()), Some(m));
        assert_eq!(move_from_pb(&pb::Move::default()), None);
    }
}
