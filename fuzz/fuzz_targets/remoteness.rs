//! The closed form of the two-ends remoteness against the exact DP
//! (`core::remoteness::closed_form_differs`): the conjecture the fast
//! algorithm rests on (docs/game.md §5), hunted for a counterexample on
//! fuzzer-chosen rows.
//!
//! Input: byte 0 picks how the other bytes become piles (one pile a byte,
//! at most 24): small (1–4 or 1–8, where the structure is densest), a
//! byte's value (1–256), a base plus 0–3 (the base from the first pile's
//! byte times 2^24), or near the largest pile (2^63 − 1 minus 0–7).
//!
//! Holds: on every row of two or more piles, the closed form (the
//! service's path: the row's width, cache blocks, every thread) gives the
//! remoteness and the remoteness after every move of either end that the
//! exact DP gives, and its tripwire does not go off.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stonegame::core::MAX_PILE;
use stonegame::core::remoteness::closed_form_differs;

/// The most piles of a row: the DP costs about a millisecond at 32.
const MAX_N: usize = 24;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let bytes = &bytes[..bytes.len().min(MAX_N)];
    if bytes.len() < 2 {
        return;
    }
    let base = u64::from(bytes[0]) << 24;
    let row: Vec<u64> = bytes
        .iter()
        .map(|&b| {
            let b = u64::from(b);
            match mode % 5 {
                0 => 1 + b % 4,
                1 => 1 + b % 8,
                2 => 1 + b,
                3 => 1 + base + b % 4,
                _ => MAX_PILE - b % 8,
            }
        })
        .collect();
    if let Some(difference) = closed_form_differs(&row) {
        panic!("the closed form and the exact DP differ: {difference}");
    }
});
