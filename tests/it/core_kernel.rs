//! The O(n)-memory kernels against the O(n²) tables, and every execution path
//! (codes / direct u16·u32·u64, instruction sets, blocking, parallel) against
//! each other, on random rows, planted losses and edge values.

use std::io::Write;

use proptest::prelude::*;
use stonegame::core::kernel::codes::CoordWidth;
use stonegame::core::kernel::direct::{self, Width, Word};
use stonegame::core::kernel::{Isa, KernelOptions, codes};
use stonegame::core::planted::{left_of, plant_loss};
use stonegame::core::tables::Tables;
use stonegame::core::verdict::{EndValues, KernelKind, end_values_with};
use stonegame::core::{MAX_PILE, Never, ValidRow, Variant, analyze, first_player_wins};

/// A test row (panics if it is invalid).
fn valid(piles: &[u64]) -> ValidRow<'_> {
    ValidRow::new(piles, usize::MAX).unwrap()
}

fn ends(piles: &[u64], kind: KernelKind, opts: KernelOptions) -> EndValues {
    let Ok(ends) = end_values_with(&valid(piles), kind, opts, &Never);
    ends
}

fn wins(piles: &[u64]) -> bool {
    first_player_wins(&valid(piles), Variant::TwoEnds)
}

fn tables(piles: &[u64]) -> Tables {
    Tables::new(&valid(piles))
}

/// The instruction sets whose kernels this machine runs. Those the CPU
/// lacks cannot be run here; `isa_paths_tested_and_skipped` reports both.
fn isas() -> Vec<Isa> {
    Isa::available()
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
        for isa in isas() {
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
    let t = tables(piles);
    let n = piles.len();
    let opts = KernelOptions::default();
    for last in [1, 2, n / 2 + 1, n.saturating_sub(1).max(1), n] {
        let Ok((cl, cr)) = codes::layer(&valid(piles), last, opts, &Never);
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
            let Ok((dl, dr)) = direct::layer(&a, last, opts, &Never);
            assert_eq!(dl.len(), n - last + 1);
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
    let row = valid(piles);
    let Ok(want) = codes::layer_with(&row, last, base, None, &Never);
    for isa in isas() {
        for (parallel, blocking) in [(false, false), (true, true)] {
            let opts = KernelOptions {
                isa,
                parallel,
                blocking,
            };
            for width in [CoordWidth::Narrow, CoordWidth::Wide] {
                let Ok(got) = codes::layer_with(&row, last, opts, Some(width), &Never);
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
        prop_assert_eq!(wins(&piles), tables(&piles).first_player_wins());
    }

    /// A loss is planted exactly when `left_of` the tail is a pile (the
    /// tables say what it is), and the planted row is a loss.
    #[test]
    fn planted_losses_are_losses(tail in row_strategy(200)) {
        let t = left_of(&valid(&tail));
        let m = tail.len();
        prop_assert_eq!(t, tables(&tail).left(0, m - 1));
        let planted = plant_loss(&valid(&tail));
        prop_assert_eq!(planted.is_some(), (1..=MAX_PILE).contains(&t));
        if let Some(row) = planted {
            prop_assert_eq!(row.first_pile(), t);
            prop_assert_eq!(&row[1..], &tail[..]);
            prop_assert!(!first_player_wins(&row, Variant::TwoEnds));
            prop_assert!(!Tables::new(&row).first_player_wins());
            // One off the losing value is a win.
            let mut near = row.to_vec();
            near[0] += 1;
            if near[0] <= MAX_PILE {
                prop_assert!(wins(&near));
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
            // One of the first seven piles (of all, in a row shorter than 7).
            let v = piles[piles.len() % 7 % piles.len()] ^ (x >> 60);
            piles.push(v.clamp(1, MAX_PILE - 1));
        }
        check_all_paths_agree(&piles);
        check_coordinate_widths_agree(&piles, piles.len() / 2 + 3);
        if let Some(lost) = plant_loss(&valid(&piles[1..])) {
            check_all_paths_agree(&lost);
            prop_assert!(!first_player_wins(&lost, Variant::TwoEnds));
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
    let row = plant_loss(&valid(&tail)).expect("a loss can be planted");
    for piles in [&tail[..], &row[..]] {
        let want = ends(piles, KernelKind::Codes, PORTABLE_SEQUENTIAL);
        for isa in isas() {
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
    assert!(!first_player_wins(&row, Variant::TwoEnds));
}

#[test]
fn large_planted_loss_agrees_with_tables() {
    // n = 1,500: the tables are still cheap, the kernel runs its blocked path
    // only above two blocks, so compare end values and the verdict.
    let tail: Vec<u64> = (0..1_499u64).map(|i| 1 + (i * 7919 % 13)).collect();
    let row = plant_loss(&valid(&tail)).expect("a loss can be planted");
    let t = Tables::new(&row);
    assert!(!t.first_player_wins());
    assert!(!first_player_wins(&row, Variant::TwoEnds));
    assert_eq!(left_of(&valid(&tail)), t.left(1, row.len() - 1));
}

#[test]
fn sample_and_known_cases() {
    let v = wins;
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
        assert_eq!(v(&row), tables(&row).first_player_wins(), "{row:?}");
        check_layers_against_tables(&row);
    }
}

#[test]
fn analysis_of_the_sample() {
    let row = valid(&[3, 1, 9, 4]);
    let a = analyze(&row, Variant::TwoEnds);
    assert!(!a.first_player_wins && a.winning_moves.is_empty());
    // The bot takes one stone from the larger end (9 is inside; ends are 3 and 4).
    let after = a.best_move.apply(&row).unwrap().unwrap();
    assert_eq!(after.as_slice(), &[3, 1, 9, 3]);
}

#[test]
fn invalid_rows_are_typed_errors_before_any_solving() {
    use stonegame::core::RowError;
    let check = |piles: &[u64]| ValidRow::try_from(piles).map(|_| ());
    assert_eq!(check(&[]), Err(RowError::Empty));
    assert_eq!(check(&[3, 0, 1]), Err(RowError::ZeroPile { pile: 2 }));
    assert_eq!(
        check(&[1, MAX_PILE + 1]),
        Err(RowError::PileTooLarge {
            pile: 2,
            value: MAX_PILE + 1
        })
    );
    let long = vec![1u64; stonegame::core::MAX_PILES + 1];
    assert_eq!(
        check(&long),
        Err(RowError::TooManyPiles {
            len: stonegame::core::MAX_PILES + 1,
            max: stonegame::core::MAX_PILES
        })
    );
    assert_eq!(
        ValidRow::new(&[1, 2, 3][..], 2),
        Err(RowError::TooManyPiles { len: 3, max: 2 })
    );
    assert_eq!(
        RowError::ZeroPile { pile: 2 }.to_string(),
        "pile 2 is 0: every pile needs at least 1 stone"
    );
}

/// Every public function that solves a row takes a `ValidRow` and agrees
/// with the tables (and the moves it returns can be applied).
#[test]
fn public_functions_work_through_valid_rows() {
    use stonegame::core::{
        IllegalMove, Move, Side, bot_move, end_values, leftmost, solve_batch, solve_valid_batch,
        winning_moves,
    };
    for piles in [
        vec![3, 1, 9, 4],
        vec![5],
        vec![7, 7],
        vec![2, 5, 2, 1, 6],
        vec![MAX_PILE, 1, MAX_PILE],
    ] {
        let row = valid(&piles);
        let t = Tables::new(&row);
        let n = row.len();
        let wins = t.first_player_wins();
        assert_eq!(first_player_wins(&row, Variant::TwoEnds), wins, "{piles:?}");
        let e = end_values(&row);
        if n >= 2 {
            assert_eq!(e.left_of_tail, t.left(1, n - 1));
            assert_eq!(e.right_of_head, t.right(0, n - 2));
        } else {
            assert_eq!((e.left_of_tail, e.right_of_head), (0, 0));
        }
        let moves = winning_moves(&row, Variant::TwoEnds);
        assert_eq!(moves.is_empty(), !wins, "{piles:?}");
        let a = analyze(&row, Variant::TwoEnds);
        assert_eq!((a.first_player_wins, &a.winning_moves), (wins, &moves));
        for m in &moves {
            // A winning move leaves a lost row (or no row: the opponent lost).
            if let Some(next) = m.apply(&row).unwrap() {
                assert!(
                    !first_player_wins(&next, Variant::TwoEnds),
                    "{m} on {piles:?}"
                );
            }
        }
        let bot = bot_move(&row, Variant::TwoEnds);
        let next = bot.apply(&row).unwrap();
        let left = next
            .as_ref()
            .map_or(0, |r| r.iter().map(|&v| u128::from(v)).sum::<u128>());
        let before: u128 = row.iter().map(|&v| u128::from(v)).sum();
        assert_eq!(left + 1, before, "the bot takes one stone");
        assert_eq!(
            leftmost::first_player_wins(&row),
            analyze(&row, Variant::Leftmost).first_player_wins
        );
        assert_eq!(
            leftmost::winning_remaining(&row).is_some(),
            leftmost::first_player_wins(&row)
        );
        assert_eq!(
            solve_valid_batch(&[row.clone(), row.borrowed()], Variant::TwoEnds),
            vec![wins, wins]
        );
    }
    // Taking the only pile leaves no row; illegal moves are errors.
    let one = valid(&[4]);
    let all = Move::to_remaining(Side::Left, 4, 0);
    assert_eq!(all.apply(&one), Ok(None));
    let too_many = Move {
        side: Side::Right,
        take: 5,
        remaining: 0,
    };
    assert_eq!(
        too_many.apply(&one),
        Err(IllegalMove {
            mv: too_many,
            pile: 4
        })
    );
    assert_eq!(
        too_many.apply(&one).unwrap_err().to_string(),
        "cannot take all 5 from the right pile: that pile holds 4"
    );
    let inconsistent = Move {
        side: Side::Left,
        take: 1,
        remaining: 1,
    };
    assert!(inconsistent.apply(&one).is_err());
    let none = Move {
        side: Side::Left,
        take: 0,
        remaining: 4,
    };
    assert!(none.apply(&one).is_err());
    // solve_batch validates each row once and keeps the errors in place.
    let rows: Vec<Vec<u64>> = vec![vec![7, 7], vec![], vec![7, 8], vec![1, 0]];
    let got = solve_batch(&rows, Variant::TwoEnds);
    assert_eq!(got[0], Ok(false));
    assert_eq!(got[1], Err(stonegame::core::RowError::Empty));
    assert_eq!(got[2], Ok(true));
    assert_eq!(got[3], Err(stonegame::core::RowError::ZeroPile { pile: 2 }));
}

#[test]
fn cancellation_stops_the_kernel() {
    let piles: Vec<u64> = (1..=30_000).collect();
    let row = valid(&piles);
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let cancel = || calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 2;
    let got = end_values_with(&row, KernelKind::Codes, KernelOptions::default(), &cancel);
    assert_eq!(got, Err(stonegame::core::Cancelled));
    assert!(calls.load(std::sync::atomic::Ordering::Relaxed) <= 4);
    // The same row with a check that never fires completes.
    let never = || false;
    let done = end_values_with(&row, KernelKind::Codes, KernelOptions::default(), &never);
    assert_eq!(
        done.ok(),
        Some(ends(&piles, KernelKind::Codes, KernelOptions::default()))
    );
}

#[test]
fn batch_keeps_input_order() {
    // Rows of distinct lengths and verdicts, so any reordering shows.
    let rows: Vec<Vec<u64>> = (0..500u64)
        .map(|i| {
            let mut r = vec![1 + i % 3; 1 + (i % 7) as usize];
            r.push(1 + (i / 3) % 4);
            r
        })
        .collect();
    let want: Vec<bool> = rows.iter().map(|r| tables(r).first_player_wins()).collect();
    assert!(want.iter().any(|&w| w) && want.iter().any(|&w| !w));
    let got = stonegame::core::solve_batch(&rows, Variant::TwoEnds);
    let got: Vec<bool> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(got, want);
    let mut batch = stonegame::core::batch::Batch::default();
    for r in &rows {
        batch.push(ValidRow::try_from(r.clone()).unwrap());
    }
    assert_eq!(batch.len(), rows.len());
    assert_eq!(batch.solve(Variant::TwoEnds), want);
    assert!(batch.is_empty());
}

/// Which kernel instruction sets the tests above ran, and which they could
/// not because the CPU lacks them (written past the test harness's output
/// capture, so it shows in every `cargo test` run). Set
/// `STONEGAME_REQUIRE_ISA=avx2,avx512` to make a skip a failure (for CI
/// machines that must test the SIMD paths).
#[test]
fn isa_paths_tested_and_skipped() {
    let tested = isas();
    let skipped: Vec<Isa> = Isa::ALL
        .into_iter()
        .filter(|isa| !tested.contains(isa))
        .collect();
    let names = |v: &[Isa]| v.iter().map(|i| i.name()).collect::<Vec<_>>().join(", ");
    let _ = writeln!(
        std::io::stderr(),
        "core_kernel: ISA paths tested: [{}] ({} of {}), skipped, the CPU lacks them: [{}] ({})",
        names(&tested),
        tested.len(),
        Isa::ALL.len(),
        names(&skipped),
        skipped.len(),
    );
    // The portable path always runs, first; every set is tested or skipped.
    assert_eq!(tested.first(), Some(&Isa::Baseline));
    assert_eq!(tested.len() + skipped.len(), Isa::ALL.len());
    // A tested set runs its own kernel (no silent fallback); a skipped one
    // falls back to one that is tested.
    for &isa in &tested {
        assert_eq!(isa.supported(), isa);
    }
    for &isa in &skipped {
        assert!(tested.contains(&isa.supported()), "{isa:?}");
    }
    // What is tested is what the CPU has, detected independently here.
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        let avx512 = avx2
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw");
        assert_eq!(tested.contains(&Isa::Avx2), avx2);
        assert_eq!(tested.contains(&Isa::Avx512), avx512);
    }
    if let Ok(required) = std::env::var("STONEGAME_REQUIRE_ISA") {
        for name in required.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            assert!(
                tested.iter().any(|i| i.name() == name),
                "STONEGAME_REQUIRE_ISA asks for {name}, which this CPU cannot run"
            );
        }
    }
}
