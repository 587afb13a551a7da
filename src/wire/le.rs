//! `Case.piles_le`: a row of piles as little-endian words of 1 to 8 bytes
//! each ([`LeWidth`], named by `Case.piles_le_width`, where 0 means 8).
//! Much cheaper to encode and decode than the varints of `Case.piles`; the
//! client packs with [`piles_to_le`], the server unpacks with
//! [`piles_from_le`].

use prost::bytes::Bytes;

use super::WireError;

/// Calls `$f::<W>($arg)` with the const `W` equal to the [`LeWidth`]'s bytes,
/// so each width gets its own loop with fixed-size copies.
macro_rules! with_width {
    ($width:expr, $f:ident, $arg:expr) => {
        match $width.bytes() {
            1 => $f::<1>($arg),
            2 => $f::<2>($arg),
            3 => $f::<3>($arg),
            4 => $f::<4>($arg),
            5 => $f::<5>($arg),
            6 => $f::<6>($arg),
            7 => $f::<7>($arg),
            _ => $f::<8>($arg),
        }
    };
}

/// The width of the little-endian words of `Case.piles_le`: 1 to 8 bytes
/// per pile (`Case.piles_le_width`, where 0 means 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeWidth(u8);

impl LeWidth {
    /// 8-byte words: any pile fits; what a `piles_le_width` of 0 means.
    pub const FULL: LeWidth = LeWidth(8);

    /// A width of `bytes` bytes; `None` unless 1 ≤ `bytes` ≤ 8.
    pub fn new(bytes: usize) -> Option<LeWidth> {
        (1..=8).contains(&bytes).then_some(LeWidth(bytes as u8))
    }

    /// Decodes `Case.piles_le_width`: 0 is 8; above 8 is an error.
    pub fn from_pb(raw: u32) -> Result<LeWidth, WireError> {
        match raw {
            0 => Ok(LeWidth::FULL),
            _ => usize::try_from(raw)
                .ok()
                .and_then(LeWidth::new)
                .ok_or(WireError::PilesLeWidth(raw)),
        }
    }

    /// The fewest bytes that hold every pile of `piles` (1 for an empty row).
    pub fn narrowest(piles: &[u64]) -> LeWidth {
        // The OR of the piles has the same highest bit as their maximum.
        let bits = u64::BITS - piles.iter().fold(0, |acc, &p| acc | p).leading_zeros();
        LeWidth(bits.div_ceil(8).max(1) as u8)
    }

    /// Bytes per pile.
    pub fn bytes(self) -> usize {
        usize::from(self.0)
    }

    /// The value of `Case.piles_le_width` that names this width.
    pub fn to_pb(self) -> u32 {
        u32::from(self.0)
    }
}

/// Packs piles as `Case.piles_le`: each pile a little-endian word of
/// `width` bytes. A pile that needs more bytes loses its high ones, so pick
/// the width with [`LeWidth::narrowest`].
pub fn piles_to_le(piles: &[u64], width: LeWidth) -> Bytes {
    fn pack<const W: usize>(piles: &[u64]) -> Vec<u8> {
        let mut out = vec![0u8; piles.len() * W];
        for (word, pile) in out.as_chunks_mut::<W>().0.iter_mut().zip(piles) {
            word.copy_from_slice(&pile.to_le_bytes()[..W]);
        }
        out
    }
    debug_assert!(LeWidth::narrowest(piles).bytes() <= width.bytes());
    Bytes::from(with_width!(width, pack, piles))
}

/// Unpacks `Case.piles_le` of `width`-byte words; `None` when its length is
/// not a multiple of the width. The values are not validated.
pub fn piles_from_le(bytes: &[u8], width: LeWidth) -> Option<Vec<u64>> {
    fn unpack<const W: usize>(bytes: &[u8]) -> Option<Vec<u64>> {
        let (words, rest) = bytes.as_chunks::<W>();
        if !rest.is_empty() {
            return None;
        }
        let widen = |word: &[u8; W]| {
            let mut full = [0u8; 8];
            full[..W].copy_from_slice(word);
            u64::from_le_bytes(full)
        };
        Some(words.iter().map(widen).collect())
    }
    with_width!(width, unpack, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn piles_le_round_trips() {
        let piles = [1, 2, 255, 256, 1 << 40, u64::MAX, 0];
        let packed = piles_to_le(&piles, LeWidth::FULL);
        assert_eq!(packed.len(), 8 * piles.len());
        assert_eq!(&packed[8..16], &[2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&packed[24..32], &[0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            piles_from_le(&packed, LeWidth::FULL).as_deref(),
            Some(&piles[..])
        );
        assert_eq!(piles_from_le(&[], LeWidth::FULL), Some(vec![]));
        assert_eq!(piles_from_le(&packed[..13], LeWidth::FULL), None);
        assert_eq!(piles_from_le(&[1], LeWidth::FULL), None);
    }

    #[test]
    fn narrow_widths_pack_each_pile_in_width_bytes() {
        let w = |b| LeWidth::new(b).unwrap();
        let packed = piles_to_le(&[3, 0x0102_0304, 9], w(4));
        assert_eq!(&packed[..], &[3, 0, 0, 0, 4, 3, 2, 1, 9, 0, 0, 0]);
        let packed = piles_to_le(&[0x01_0203, 5], w(3));
        assert_eq!(&packed[..], &[3, 2, 1, 5, 0, 0]);
        assert_eq!(piles_from_le(&packed, w(3)), Some(vec![0x01_0203, 5]));
        // A length that is a multiple of 8 but not of the width, and back.
        assert_eq!(piles_from_le(&[1; 8], w(3)), None);
        assert_eq!(piles_from_le(&[1; 9], w(3)).map(|p| p.len()), Some(3));
        assert_eq!(piles_from_le(&[1; 9], LeWidth::FULL), None);
    }

    #[test]
    fn widths_decode_from_the_wire_and_the_narrowest_holds_the_row() {
        assert_eq!(LeWidth::from_pb(0), Ok(LeWidth::FULL));
        for b in 1..=8u32 {
            assert_eq!(LeWidth::from_pb(b).map(LeWidth::to_pb), Ok(b));
        }
        for bad in [9, 16, u32::MAX] {
            assert_eq!(LeWidth::from_pb(bad), Err(WireError::PilesLeWidth(bad)));
        }
        assert_eq!(LeWidth::new(0), None);
        let narrowest = |p: &[u64]| LeWidth::narrowest(p).bytes();
        assert_eq!(narrowest(&[]), 1);
        assert_eq!(narrowest(&[1, 255]), 1);
        assert_eq!(narrowest(&[1, 256]), 2);
        assert_eq!(narrowest(&[1_000_000_000, 7]), 4);
        assert_eq!(narrowest(&[(1 << 32) - 1]), 4);
        assert_eq!(narrowest(&[1 << 32]), 5);
        assert_eq!(narrowest(&[(1 << 63) - 1, 1]), 8);
        assert_eq!(narrowest(&[u64::MAX]), 8);
    }

    proptest! {
        /// Every row round-trips through its narrowest width and through
        /// every wider one, with width × piles bytes.
        #[test]
        fn rows_round_trip_through_every_wide_enough_width(
            piles in proptest::collection::vec(any::<u64>().prop_map(|p| p >> (p % 64)), 0..40),
        ) {
            let narrowest = LeWidth::narrowest(&piles).bytes();
            for bytes in narrowest..=8 {
                let width = LeWidth::new(bytes).unwrap();
                let packed = piles_to_le(&piles, width);
                prop_assert_eq!(packed.len(), bytes * piles.len());
                prop_assert_eq!(piles_from_le(&packed, width), Some(piles.clone()));
            }
            if narrowest > 1 {
                // One byte fewer cannot hold the largest pile.
                let width = LeWidth::new(narrowest - 1).unwrap();
                let max = piles.iter().max().copied().unwrap_or(0);
                prop_assert!(max >> (8 * width.bytes()) != 0);
            }
        }
    }
}
