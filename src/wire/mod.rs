//! The wire format of `stonegame.v1`, shared by the service and the client.
//!
//! * [`pb`] — the types and the tonic client/server generated from
//!   `proto/stonegame/v1/stonegame.proto`;
//! * [`le`] — the `Case.piles_le` packing (little-endian words of
//!   `piles_le_width` bytes);
//! * [`convert`] — conversions between the wire types and the core's and
//!   judge's types, in both directions, with typed errors ([`WireError`])
//!   where a wire value can be out of range;
//! * [`unpack_code`] — reading the 2-bit codes of a `TablesChunk`;
//! * [`MAX_FRAME_SIZE`] — the HTTP/2 frame size both ends announce.
//!
//! Validation against a server's limits is the service's business
//! ([`crate::service::rpc::validate`]); this module only encodes and decodes.

pub mod convert;
pub mod le;

pub use convert::WireError;
pub use le::{LeWidth, piles_from_le, piles_to_le};

/// Generated protobuf types, client and server of `stonegame.v1`.
pub mod pb {
    #![allow(missing_docs, clippy::all, clippy::pedantic)]
    tonic::include_proto!("stonegame.v1");
    // The proto3 JSON mapping (serde) of these types, for Connect JSON.
    #[cfg(feature = "json")]
    include!(concat!(env!("OUT_DIR"), "/stonegame.v1.serde.rs"));

    /// The encoded file descriptor set of `stonegame.proto` (for reflection).
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/stonegame_descriptor.bin"));
}

/// The largest HTTP/2 frame both ends accept (SETTINGS_MAX_FRAME_SIZE; the
/// protocol's default is 16 KiB): a Solve batch of 32 cases of n = 1000
/// travels in one frame instead of up to sixteen, and larger frames only
/// delay other streams of the same connection by one frame's transfer.
pub const MAX_FRAME_SIZE: u32 = 256 << 10;

/// The code of entry `k` of a packed `TablesChunk` field (`left_codes`,
/// `right_codes`): four codes per byte, the first in the lowest two bits.
pub fn unpack_code(codes: &[u8], k: usize) -> Option<u8> {
    codes.get(k / 4).map(|b| (b >> (2 * (k % 4))) & 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_unpack_lowest_bits_first() {
        // Codes 0, 1, 2, 3 then 3, 2, 1.
        let packed = [0b11_10_01_00, 0b00_01_10_11];
        let codes: Vec<_> = (0..7).map(|k| unpack_code(&packed, k).unwrap()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 3, 2, 1]);
        assert_eq!(unpack_code(&packed, 8), None);
    }
}
