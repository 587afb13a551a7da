//! What a game costs in memory and work before it is built: the bounds
//! the service admits a Play game with (a row's prepared bytes, a game's
//! largest cone), beside the real sizes ([`GameRow::heap_bytes`],
//! [`Game::heap_bytes`]) they must bound (the test below).
//!
//! [`GameRow::heap_bytes`]: super::GameRow::heap_bytes
//! [`Game::heap_bytes`]: super::Game::heap_bytes

use super::{DEFAULT_STRIDE, FULL_TABLE_MAX_PILES};
use crate::core::row::Variant;

/// The cell updates and the heap bytes of one game's cones on a row of `n`
/// piles (the largest cone: the full table of a row of at most
/// `FULL_TABLE_MAX_PILES`, else one stride of layers).
pub fn game_cost(n: usize, variant: Variant) -> (u64, u64) {
    if variant == Variant::Leftmost || n < 3 {
        return (1, 0);
    }
    let w = (n - 2).min(DEFAULT_STRIDE.max(FULL_TABLE_MAX_PILES)) as u64;
    let cells = w * (w + 1) / 2;
    // The layers, one byte a cell, and the kernel's two ping-pong buffers
    // (a power of two of cells plus their slack).
    let buffers = 4 * (w.next_power_of_two() + crate::core::kernel::PAD as u64);
    (cells.max(1), cells + 4 * buffers + 64)
}

/// The heap bytes of a prepared row, estimated before it is built (the
/// row, the kernel's arrays, the kept layers: docs/play.md).
pub fn row_bytes_estimate(n: usize, variant: Variant) -> u64 {
    let n = n as u64;
    match variant {
        Variant::Leftmost => 9 * n + 1,
        // The piles (8 bytes each) and the kernel's arrays (about 18 bytes
        // a pile, each array with its slack of PAD cells).
        Variant::TwoEnds if n as usize <= FULL_TABLE_MAX_PILES => 32 * n + 1024,
        Variant::TwoEnds => {
            let s = DEFAULT_STRIDE as u64;
            // Layer k keeps n − k + 1 cells at a nibble each: about n/4
            // bytes on average over the n/s kept layers.
            32 * n + 1024 + (n / s) * (n / 4 + n / 8 + 24)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{Game, GameRow};
    use crate::core::{Never, Side, ValidRow};
    use std::sync::Arc;

    /// The reservations are bounds: a prepared row's estimate (before the
    /// sweep) is at least its real heap bytes, and a game's cone bound at
    /// least what its cones hold over a whole game.
    #[test]
    fn memory_estimates_bound_the_real_sizes() {
        for n in [1usize, 2, 3, 100, 1024, 1025, 1100, 2500, 5000] {
            let piles: Vec<u64> = (0..n as u64).map(|i| 1 + (i * 37) % 11).collect();
            let row = ValidRow::new(piles, n).unwrap();
            for variant in [Variant::TwoEnds, Variant::Leftmost] {
                let Ok(prepared) = GameRow::new(&row, variant, &Never);
                let real = prepared.heap_bytes() as u64;
                let estimate = row_bytes_estimate(n, variant);
                assert!(estimate >= real, "n = {n} {variant}: {estimate} < {real}");
                let mut game = Game::new(Arc::new(prepared));
                let (_, cone_bound) = game_cost(n, variant);
                let mut most = game.heap_bytes() as u64;
                // Remove piles from the left, one move each, to the end.
                while !game.is_over() {
                    game.play(Side::Left, game.left_size()).unwrap();
                    most = most.max(game.heap_bytes() as u64);
                }
                assert!(
                    cone_bound >= most,
                    "n = {n} {variant}: {cone_bound} < {most}"
                );
            }
        }
    }
}
