//! The units of the server's budgets (cell updates, piles, Play
//! sessions), what a row costs in them, and why admission refuses a
//! request ([`AdmissionError`]): the kinds that admission (in `state`)
//! raises and that the metrics count, kept here so both reach them
//! without either reaching up.

/// Piles-budget units (8 bytes each) of `bytes`.
pub fn piles_of_bytes(bytes: u64) -> u64 {
    bytes.div_ceil(8)
}

/// Cost in cell updates of solving one valid row.
pub fn cells_of(n: usize, two_ends: bool) -> u64 {
    let n = n as u64;
    if two_ends {
        (n.saturating_mul(n.saturating_sub(1)) / 2).max(1)
    } else {
        n.max(1)
    }
}

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
