//! What a row costs in the cell-update budget (`limits.max_cells_in_flight`):
//! pure arithmetic, kept in the lowest layer so that the configuration can
//! check its bounds against the budget at load and admission (through
//! `metrics::units`) charges the same.

/// Cost in cell updates of solving one valid row.
pub fn cells_of(n: usize, two_ends: bool) -> u64 {
    let n = n as u64;
    if two_ends {
        (n.saturating_mul(n.saturating_sub(1)) / 2).max(1)
    } else {
        n.max(1)
    }
}

/// Cost in cell updates of the remoteness of one valid row, on top of its
/// verdict's: `factor` (`limits.remoteness_cell_factor`) times the
/// verdict's cells for a two-ends row of n ≥ 2 piles (the DP costs about
/// 300 ns a cell where the verdict's kernel costs about 0.1), n for the
/// leftmost variant and a single pile (an O(n) pass).
pub fn remoteness_cells_of(n: usize, two_ends: bool, factor: u64) -> u64 {
    if two_ends && n >= 2 {
        cells_of(n, true).saturating_mul(factor)
    } else {
        (n as u64).max(1)
    }
}

/// The most piles of a two-ends row whose remoteness fits in a budget of
/// `max_cells` cell updates alone (with its verdict) at `factor`.
pub fn max_remoteness_piles(max_cells: u64, factor: u64) -> u64 {
    let cost = |n: u64| {
        let n = n as usize;
        cells_of(n, true).saturating_add(remoteness_cells_of(n, true, factor))
    };
    largest_fitting(max_cells, cost)
}

/// The largest row length n in 1 ..= 2^32 whose `cost` (monotone in n) is
/// at most `max_cells` (1 if none is): a binary search.
pub fn largest_fitting(max_cells: u64, cost: impl Fn(u64) -> u64) -> u64 {
    let (mut lo, mut hi) = (1u64, 1u64 << 32);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if cost(mid) <= max_cells {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
