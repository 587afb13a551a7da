//! The O(n)-memory kernels against the O(n²) tables, and every execution path
//! (codes / direct u16·u32·u64, instruction sets, blocking, parallel) against
//! each other, on random rows, planted losses and edge values.

use proptest::prelude::*;
use stonegame::core::kernel::codes::CoordWidth;
use stonegame::core::kernel::direct::{self, Width, Word};
use stonegame::core::kernel::{Isa, KernelOptions, codes};
use stonegame::core::planted::{left_of, plant_loss};
use stonegame::core::tables::Tables;
use stonegame::core::verdict::{EndValues, KernelKind, end_values_with};
use stonegame::core::{MAX_PILE, Variant, analyze, first_player_wins};

const NEVER: fn() -> bool = || false;

fn ends(piles: &[u64], kind: KernelKind, opts: KernelOptions) -> EndValues {
    end_values_with(piles, kind, opts, &NEVER).expect("not cancelled")
}

/// Every kernel path that can handle `piles`.
fn all_paths(piles: &[u64]) -> Vec<(KernelKind, KernelOptions)> {
    let max = piles.iter().copied().max().unwrap();
    let mut kinds = vec![KernelKind::Codes];
    kinds.extend(
        Width::all_for_max_pile(max)
            .into_iter()
            .map(KernelKind::Direct),
    );
    let mut out = Vec::new();
    for kind in kinds {
        for isa in Isa::available() {
            for (parallel, blocking) in [(false, false), (false, true), (true, true)] {
                out.push((
                    kind,
                    KernelOptions {
                        isa,
                        parallel,
                        blocking,
                    },
                ));
            }
        }
    }
    out
}

/// Whole layers of both kernels equal the tables, cell by cell.
fn check_layers_against_tables(piles: &[u64]) {
    let t = Tables::new(piles, 2_000).unwrap();
    let n = piles.len();
    let opts = KernelOptions::default();
    for last in [1, 2, n / 2 + 1, n.saturating_sub(1).max(1), n] {
        let (cl, cr) = codes::layer(piles, last, opts, &NEVER).unwrap();
        assert_eq!(cl.len(), n - last + 1);
        for i in 0..cl.len() {
            let j = i + last - 1;
            assert_eq!(
                codes::decode(cl[i], piles[j]),
                t.left(i, j),
                "codes left[{i}][{j}] of {piles:?}"
            );
            assert_eq!(
                codes::decode(cr[i], piles[i]),
                t.right(i, j),
                "codes right[{i}][{j}] of {piles:?}"
            );
        }
        if piles.iter().all(|&v| v <= <i64 as Word>::MAX_PILE) {
            let a = direct::encode_row::<i64>(piles);
            let (dl, dr) = direct::layer(&a, last, opts, &NEVER).unwrap();
            for i in 0..dl.len() {
                let j = i + last - 1;
                assert_eq!(dl[i].decode(), t.left(i, j), "direct left[{i}][{j}]");
                assert_eq!(dr[i].decode(), t.right(i, j), "direct right[{i}][{j}]");
            }
        }
    }
}

/// The reference path the others are held against: the portable codes
/// kernel, one thread, no blocking.
const PORTABLE_SEQUENTIAL: KernelOptions = KernelOptions {
    isa: Isa::Baseline,
    parallel: false,
    blocking: false,
};

/// The codes kernel with 16- and 32-bit coordinates, on every instruction
/// set, blocked or not, gives the same whole layers.
fn check_coordinate_widths_agree(piles: &[u64], last: usize) {
    let base = PORTABLE_SEQUENTIAL;
    let want = codes::layer_with(piles, last, base, None, &NEVER).unwrap();
    for isa in Isa::available() {
        for (parallel, blocking) in [(false, false), (true, true)] {
            let opts = KernelOptions {
                isa,
                parallel,
                blocking,
            };
            for width in [CoordWidth::Narrow, CoordWidth::Wide] {
                let got = codes::layer_with(piles, last, opts, Some(width), &NEVER).unwrap();
                assert!(
                    got == want,
                    "{width:?} {opts:?} differs on layer {last} of n = {}",
                    piles.len()
                );
            }
        }
    }
}

fn check_all_paths_agree(piles: &[u64]) {
    let want = ends(piles, KernelKind::Codes, PORTABLE_SEQUENTIAL);
    for (kind, opts) in all_paths(piles) {
        assert_eq!(
            ends(piles, kind, opts),
            want,
            "{kind:?} {opts:?} on n = {}",
            piles.len()
        );
    }
}

/// Rows whose values are drawn in ways that make ties and near-ties common.
fn row_strategy(max_len: usize) -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![
        prop::collection::vec(1u64..=5, 2..max_len),
        prop::collection::vec(1u64..=1_000_000_000, 2..max_len),
        (
            1u64..=1_000_000_000,
            prop::collection::vec(0u64..=3, 2..max_len)
        )
            .prop_map(|(base, d)| d.into_iter().map(|x| base + x).collect()),
        (
            prop::sample::select(vec![
                i16::MAX as u64,
                u16::MAX as u64,
                i32::MAX as u64,
                u32::MAX as u64,
                MAX_PILE - 3
            ]),
            prop::collection::vec(0u64..=3, 2..max_len)
        )
            .prop_map(|(top, d)| d
                .into_iter()
                .map(|x| top - x + 1)
                .map(|v| v.min(MAX_PILE))
                .collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn kernels_equal_tables_on_small_rows(piles in row_strategy(120)) {
        check_layers_against_tables(&piles);
        let t = Tables::new(&piles, 2_000).unwrap();
        prop_assert_eq!(first_player_wins(&piles, Variant::TwoEnds).unwrap(), t.first_player_wins());
    }

    #[test]
    fn planted_losses_are_losses(tail in row_strategy(200)) {
        if let Some(row) = plant_loss(&tail).unwrap() {
            prop_assert!(!first_player_wins(&row, Variant::TwoEnds).unwrap());
            prop_assert!(!Tables::new(&row, 2_000).unwrap().first_player_wins());
            // One off the losing value is a win.
            let mut near = row.clone();
            near[0] += 1;
            if near[0] <= MAX_PILE {
                prop_assert!(first_player_wins(&near, Variant::TwoEnds).unwrap());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Large rows: every path (widths, instruction sets, blocking, parallel)
    /// gives the same end values; blocking needs rows wider than two blocks.
    #[test]
    fn all_paths_agree_on_large_rows(piles in row_strategy(12_000), pad in 8_400usize..9_000) {
        let mut piles = piles;
        let mut x = 12345u64;
        while piles.len() < pad {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = piles[piles.len() % 7] ^ (x >> 60);
            piles.push(v.clamp(1, MAX_PILE - 1));
        }
        check_all_paths_agree(&piles);
        check_coordinate_widths_agree(&piles, piles.len() / 2 + 3);
        if let Some(lost) = plant_loss(&piles[1..]).unwrap() {
            check_all_paths_agree(&lost);
            prop_assert!(!first_player_wins(&lost, Variant::TwoEnds).unwrap());
        }
    }
}

/// Rows too long for 16-bit coordinates (over 32,768 distinct, spread
/// values) take the 32-bit path by themselves; every instruction set and
/// blocking agree with the portable kernel, and a planted loss is a loss.
#[test]
fn rows_beyond_16_bit_coordinates() {
    let n = 33_000u64;
    let tail: Vec<u64> = (0..n)
        .map(|i| 1 + (i * 2_654_435_761 % 1_000_003) * 3 + (i % 3))
        .collect();
    assert_eq!(
        codes::narrowest(&codes::coordinates(&tail)),
        CoordWidth::Wide
    );
    let row = plant_loss(&tail).unwrap().expect("a loss can be planted");
    for piles in [&tail, &row] {
        let want = ends(piles, KernelKind::Codes, PORTABLE_SEQUENTIAL);
        for isa in Isa::available() {
            let opts = KernelOptions {
                isa,
                parallel: true,
                blocking: true,
            };
            assert_eq!(ends(piles, KernelKind::Codes, opts), want, "{isa:?}");
            let u32_path = ends(piles, KernelKind::Direct(Width::W32), opts);
            assert_eq!(u32_path, want, "direct u32 {isa:?}");
        }
    }
    assert!(!first_player_wins(&row, Variant::TwoEnds).unwrap());
}

#[test]
fn large_planted_loss_agrees_with_tables() {
    // n = 1,500: the tables are still cheap, the kernel runs its blocked path
    // only above two blocks, so compare end values and the verdict.
    let tail: Vec<u64> = (0..1_499u64).map(|i| 1 + (i * 7919 % 13)).collect();
    let row = plant_loss(&tail).unwrap().expect("a loss can be planted");
    let t = Tables::new(&row, 2_000).unwrap();
    assert!(!t.first_player_wins());
    assert!(!first_player_wins(&row, Variant::TwoEnds).unwrap());
    assert_eq!(left_of(&tail).unwrap(), t.left(1, row.len() - 1));
}

#[test]
fn sample_and_known_cases() {
    let v = |p: &[u64]| first_player_wins(p, Variant::TwoEnds).unwrap();
    assert!(!v(&[3, 1, 9, 4]), "the problem's sample");
    assert!(!v(&[1, 1, 2, 2]), "seed 004's counter-example");
    assert!(v(&[1]) && v(&[MAX_PILE]), "n = 1 always wins");
    assert!(
        !v(&[7, 7]) && v(&[7, 8]) && v(&[8, 7]),
        "n = 2: lost iff equal"
    );
    assert!(!v(&[1_000_000_000, 1_000_000_000]));
    assert!(!v(&[MAX_PILE, MAX_PILE]) && v(&[MAX_PILE, MAX_PILE - 1]));
    for row in [
        vec![1_000_000_000, 999_999_999, 1_000_000_000, 1],
        vec![MAX_PILE, 1, MAX_PILE - 1, MAX_PILE],
        vec![MAX_PILE; 9],
        vec![u32::MAX as u64, u32::MAX as u64 - 1, 5, u32::MAX as u64],
    ] {
        let t = Tables::new(&row, 100).unwrap();
        assert_eq!(v(&row), t.first_player_wins(), "{row:?}");
        check_layers_against_tables(&row);
    }
}

#[test]
fn analysis_of_the_sample() {
    let a = analyze(&[3, 1, 9, 4], Variant::TwoEnds).unwrap();
    assert!(!a.first_player_wins && a.winning_moves.is_empty());
    // The bot takes one stone from the larger end (9 is inside; ends are 3 and 4).
    assert_eq!(a.best_move.apply(&[3, 1, 9, 4]), vec![3, 1, 9, 3]);
}

#[test]
fn invalid_rows_are_typed_errors() {
    use stonegame::core::RowError;
    assert_eq!(
        first_player_wins(&[], Variant::TwoEnds),
        Err(RowError::Empty)
    );
    assert_eq!(
        first_player_wins(&[3, 0, 1], Variant::TwoEnds),
        Err(RowError::ZeroPile { pile: 2 })
    );
    assert_eq!(
        first_player_wins(&[1, MAX_PILE + 1], Variant::Leftmost),
        Err(RowError::PileTooLarge {
            pile: 2,
            value: MAX_PILE + 1
        })
    );
    let long = vec![1u64; stonegame::core::MAX_PILES + 1];
    assert!(matches!(
        first_player_wins(&long, Variant::TwoEnds),
        Err(RowError::TooManyPiles { .. })
    ));
    let msg = RowError::ZeroPile { pile: 2 }.to_string();
    assert!(msg.contains("pile 2"), "{msg}");
}

#[test]
fn cancellation_stops_the_kernel() {
    let row: Vec<u64> = (1..=30_000).collect();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let cancel = || calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 2;
    let got = end_values_with(&row, KernelKind::Codes, KernelOptions::default(), &cancel);
    assert!(got.is_none());
    assert!(calls.load(std::sync::atomic::Ordering::Relaxed) <= 4);
}

#[test]
fn batch_keeps_input_order() {
    let rows: Vec<Vec<u64>> = (0..500u64)
        .map(|i| vec![i % 5 + 1, (i / 5) % 5 + 1])
        .collect();
    let got = stonegame::core::solve_batch(&rows, Variant::TwoEnds);
    for (row, v) in rows.iter().zip(got) {
        assert_eq!(v.unwrap(), row[0] != row[1]);
    }
}
