//! The request messages the client builds: Solve cases with their rows in
//! `piles_le` ([`solve_case`], [`pack_case`]) and the Generate request of
//! a [`GenSpec`] ([`generate_request`]).

use crate::core::Variant;
use crate::judge::generate::GenSpec;
use crate::wire::{LeWidth, pb, piles_to_le};

/// `piles` as the client sends them: `Case.piles_le` in the narrowest width
/// that holds the largest pile, and the `Case.piles_le_width` naming it.
pub(super) fn packed(piles: &[u64]) -> (prost::bytes::Bytes, u32) {
    let width = LeWidth::narrowest(piles);
    (piles_to_le(piles, width), width.to_pb())
}

/// A Solve case carrying `piles` in `piles_le`, in the narrowest width
/// that holds them.
pub fn solve_case(id: impl Into<String>, piles: &[u64], variant: Variant) -> pb::Case {
    let (piles_le, piles_le_width) = packed(piles);
    pb::Case {
        id: id.into(),
        piles: Vec::new(),
        variant: pb::Variant::from(variant) as i32,
        piles_le,
        piles_le_width,
    }
}

/// Moves a case's row from `piles` to `piles_le`, in the narrowest width
/// that holds it (rows of piles below 2^32 take half the bytes of 8-byte
/// words). A case that already uses `piles_le` (or sets both fields, which
/// the server refuses) is left as it is.
pub fn pack_case(case: &mut pb::Case) {
    if case.piles_le.is_empty() && !case.piles.is_empty() {
        (case.piles_le, case.piles_le_width) = packed(&case.piles);
        case.piles = Vec::new();
    }
}

/// The request of a [`GenSpec`].
pub fn generate_request(spec: &GenSpec) -> pb::GenerateRequest {
    pb::GenerateRequest {
        family: spec.family.name().to_string(),
        cases: spec.cases,
        max_n: spec.max_n,
        max_a: spec.max_a,
        seed: spec.seed,
        variant: pb::Variant::from(spec.variant) as i32,
    }
}
