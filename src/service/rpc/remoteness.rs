//! The remoteness that SuggestMove and Solve compute when a request sets
//! `want_remoteness` (docs/game.md §5, docs/service.md "Remoteness"): what
//! it costs in admission, the refusal of a request no budget can hold, and
//! its encoding on the wire.
//!
//! The two-ends remoteness is O(n²) with a constant 8–13 times the
//! verdict's kernel's (about 0.15 s at n = 20,000), so a row's remoteness
//! is charged `limits.remoteness_cell_factor` (default 12) times its
//! verdict's cell updates, on top of the verdict's: the
//! budget then bounds the remoteness work in flight as it bounds the
//! verdicts', and a row too large for the whole budget is refused at the
//! door with the largest row that fits. The leftmost variant's remoteness
//! is an O(n) pass, charged n.

use std::sync::Arc;

use tonic::Status;

use crate::core::remoteness::{MoveRange, after_move};
use crate::core::{Move, Variant};
use crate::service::metrics::units::{
    AdmissionError, CELLS, cells_of, max_remoteness_piles, remoteness_cells_of,
};
use crate::service::pb;
use crate::service::state::State;
use crate::service::state::limits::Reservation;

/// The cell updates of a valid row of `n` piles: its verdict's, plus its
/// remoteness's when `want` is set.
pub fn row_cells(state: &State, n: usize, variant: Variant, want: bool) -> u64 {
    let two_ends = variant == Variant::TwoEnds;
    let verdict = cells_of(n, two_ends);
    if want {
        let factor = state.limits.remoteness_cell_factor.get();
        verdict.saturating_add(remoteness_cells_of(n, two_ends, factor))
    } else {
        verdict
    }
}

/// The cell updates of the bot's tempo solve of a row of `n` piles that
/// no `want_remoteness` asked for (SuggestMove's `chosen`, a Play bot's
/// move): its remoteness's, plus its verdict's when `with_verdict`, the
/// remoteness charged at most what the whole budget leaves beside the
/// verdict. The bot's move must not depend on the budget (every replica
/// plays the same move, docs/play.md "Tempo"), so a solve larger than the
/// budget is charged all of it (it runs alone) instead of being refused or
/// skipped.
pub fn tempo_cells(state: &State, n: usize, variant: Variant, with_verdict: bool) -> u64 {
    let two_ends = variant == Variant::TwoEnds;
    let verdict = if with_verdict {
        cells_of(n, two_ends)
    } else {
        0
    };
    let factor = state.limits.remoteness_cell_factor.get();
    let room = state.budget.max().saturating_sub(verdict);
    verdict.saturating_add(remoteness_cells_of(n, two_ends, factor).min(room))
}

/// Admits `cells` cell updates over `piles` piles like
/// [`State::admit_work`]; when a request with `want_remoteness` is larger
/// than the whole cell budget, the refusal (RESOURCE_EXHAUSTED, counted
/// like any other) says so, with the keys and the largest row that fits.
pub fn admit(
    state: &Arc<State>,
    cells: u64,
    piles: u64,
    want: bool,
    what: &str,
) -> Result<[Reservation; 2], Status> {
    state.try_admit(cells, piles).map_err(|e| match e {
        AdmissionError::TooLarge { unit, max, .. } if want && unit == CELLS => {
            let _counted = state.refused(e);
            let factor = state.limits.remoteness_cell_factor.get();
            Status::resource_exhausted(format!(
                "{what} with want_remoteness needs {cells} cell updates (the remoteness \
                 of a two-ends row costs limits.remoteness_cell_factor = {factor} times \
                 its verdict's), more than the server's whole budget of {max} \
                 (limits.max_cells_in_flight); the largest two-ends row whose remoteness \
                 fits has {} piles",
                max_remoteness_piles(max, factor)
            ))
        }
        e => state.refused(e),
    })
}

/// A move range on the wire; INTERNAL if its slope does not fit `sint64`
/// (the DP only makes slopes 0 and 2: never seen).
pub fn range_to_wire(r: MoveRange) -> Result<pb::MoveRange, Status> {
    pb::MoveRange::try_from(r).map_err(|e| Status::internal(e.to_string()))
}

/// `m` on the wire with the remoteness it leaves.
pub fn move_with_after(ranges: &[MoveRange], n: usize, m: Move) -> Result<pb::Move, Status> {
    let after = after_move(ranges, n, &m).ok_or_else(|| {
        Status::internal(format!("no move range holds the move {m} (a server bug)"))
    })?;
    Ok(pb::Move {
        remoteness_after: Some(after.into()),
        ..pb::Move::from(m)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ValidRow;
    use crate::core::remoteness::{ExhaustiveRemoteness, solve_with};

    #[test]
    fn every_move_finds_its_range() {
        for (piles, variant) in [
            (vec![4, 1, 3], Variant::TwoEnds),
            (vec![5], Variant::TwoEnds),
            (vec![3, 2, 2], Variant::Leftmost),
        ] {
            let row = ValidRow::new(piles.clone(), 10).unwrap();
            let Ok(solved) = solve_with(&row, variant, &crate::core::Never);
            let mut truth = ExhaustiveRemoteness::new(variant);
            for (m, r) in truth.children(&piles) {
                assert_eq!(
                    after_move(&solved.ranges, piles.len(), &m),
                    Some(u128::from(r)),
                    "{piles:?} {m}"
                );
            }
        }
    }
}
