//! The units of the server's budgets (cell updates, piles, Play
//! sessions), what a row costs in them (the arithmetic lives in
//! `config::costs`, which the configuration's checks share), and why
//! admission refuses a request ([`AdmissionError`]): the kinds that
//! admission (in `state`) raises and that the metrics count, kept here so
//! both reach them without either reaching up.

/// Piles-budget units (8 bytes each) of `bytes`.
pub fn piles_of_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(8)
}

pub use crate::service::config::costs::{cells_of, max_remoteness_piles, remoteness_cells_of};

/// The unit of the cell-update budget (`Budget::cells`).
pub const CELLS: &str = "cell updates";

/// The unit of the piles budget (`Budget::piles`).
pub const PILES: &str = "piles (memory units of 8 bytes)";

/// The unit of the Play session limit (`Budget::play_sessions`).
pub const PLAY_SESSIONS: &str = "play sessions";

/// Why a request was not admitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdmissionError {
    /// Not now: retry later.
    #[error(
        "server busy: the request needs {amount} {unit} and {in_flight} of the \
         server's budget of {max} are in flight; retry after {retry_after_ms} ms"
    )]
    Busy {
        unit: &'static str,
        amount: u64,
        in_flight: u64,
        max: u64,
        retry_after_ms: u64,
    },
    /// Never: larger than the whole budget.
    #[error(
        "the request needs {amount} {unit}, more than the server's whole budget \
         of {max}; split it into smaller requests"
    )]
    TooLarge {
        unit: &'static str,
        amount: u64,
        max: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remoteness_costs_and_the_largest_row() {
        assert_eq!(remoteness_cells_of(10, true, 20), 45 * 20);
        assert_eq!(remoteness_cells_of(1, true, 20), 1);
        assert_eq!(remoteness_cells_of(10, false, 20), 10);
        // The defaults: 26e10 cells at 12 hold a row of 200,000 piles.
        let n = max_remoteness_piles(260_000_000_000, 12);
        assert_eq!(n, 200_000);
        let cost = |n: usize| cells_of(n, true) + remoteness_cells_of(n, true, 12);
        assert!(cost(200_000) <= 260_000_000_000 && cost(200_001) > 260_000_000_000);
        assert_eq!(max_remoteness_piles(0, 1), 1);
        assert_eq!(max_remoteness_piles(u64::MAX, 1), 1 << 32);
    }
}
