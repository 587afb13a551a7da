use std::num::Wrapping;
use std::time::Instant;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::closed::Plan;
use super::exhaustive::ExhaustiveRemoteness;
use super::*;
use crate::core::exhaustive::{after, all_rows};
use crate::core::moves::legal_moves;
use crate::core::row::{MAX_PILE, MAX_PILES};
use crate::core::verdict::first_player_wins;

fn valid(piles: &[u64]) -> ValidRow<'_> {
    ValidRow::new(piles, MAX_PILES).unwrap()
}

/// Checks `solved` (remoteness, move ranges) of `row` against the game tree.
fn check_against_tree(ex: &mut ExhaustiveRemoteness, row: &[u64], variant: Variant) {
    let v = valid(row);
    let solved = solve_with(&v, variant, &Never).unwrap();
    assert_eq!(
        solved.remoteness,
        u128::from(ex.remoteness(row)),
        "{variant} {row:?}"
    );
    assert_eq!(remoteness(&v, variant), solved.remoteness);
    // Every legal move exactly once, with the right remoteness and outcome.
    let mut covered: Vec<(Side, u64, u128)> = Vec::new();
    for r in &solved.ranges {
        assert!(r.left_min <= r.left_max, "{row:?} {r:?}");
        for left in r.left_min..=r.left_max {
            let rem = r.remoteness_at(left);
            assert_eq!(r.mover_wins, rem % 2 == 0, "{row:?} {r:?}");
            covered.push((r.side, left, rem));
        }
    }
    covered.sort();
    let mut truth: Vec<(Side, u64, u128)> = ex
        .children(row)
        .into_iter()
        .map(|(m, c)| (m.side, m.remaining, u128::from(c)))
        .collect();
    truth.sort();
    assert_eq!(covered, truth, "{variant} {row:?}: {:?}", solved.ranges);
    // Best first: the key of each range is no better than the previous one.
    let key = |r: &MoveRange| {
        let (_, rem) = r.best();
        (
            !r.mover_wins,
            if r.mover_wins {
                rem as i128
            } else {
                -(rem as i128)
            },
        )
    };
    for w in solved.ranges.windows(2) {
        assert!(key(&w[0]) <= key(&w[1]), "{row:?}: {:?}", solved.ranges);
    }
    // The best move leaves the optimal remoteness, with the stated tie-break.
    let best = best_move(&v, variant);
    let wins: Vec<&(Side, u64, u128)> = truth.iter().filter(|t| t.2 % 2 == 0).collect();
    let target = match wins.iter().map(|t| t.2).min() {
        Some(w) => w,
        None => truth.iter().map(|t| t.2).max().unwrap(),
    };
    let expected = truth
        .iter()
        .filter(|t| t.2 == target)
        .min_by_key(|t| (t.0, std::cmp::Reverse(t.1)))
        .unwrap();
    assert_eq!(
        (best.side, best.remaining),
        (expected.0, expected.1),
        "{variant} {row:?}"
    );
    assert_eq!(u128::from(ex.remoteness(&after(row, best))), target);
    assert_eq!(legal_moves(row, variant).len(), truth.len());
}

/// The array reference (the curve recursion) against the game tree: the
/// row and every child, on every row of ≤ 5 piles of ≤ 6 stones.
#[test]
fn reference_recursion_matches_the_game_tree() {
    let mut ex = ExhaustiveRemoteness::new(Variant::TwoEnds);
    for row in all_rows(5, 6) {
        let (r, left, right) = reference::remoteness_arrays(&row);
        assert_eq!(r, u128::from(ex.remoteness(&row)), "{row:?}");
        for (m, child) in ex.children(&row) {
            let got = match m.side {
                Side::Left => left[m.remaining as usize],
                Side::Right => right[m.remaining as usize],
            };
            assert_eq!(got, u128::from(child), "{row:?} {m}");
        }
    }
}

#[test]
fn known_examples_by_the_game_tree() {
    let mut ex = ExhaustiveRemoteness::new(Variant::TwoEnds);
    for (row, r) in [
        (vec![1u64, 1, 1, 1], 4),
        (vec![1, 2, 2, 1], 6),
        (vec![3, 1, 2, 3], 8),
        (vec![4, 2, 1, 1, 3, 4], 12),
        (vec![3, 3], 6),
        (vec![2, 5], 5),
    ] {
        assert_eq!(ex.remoteness(&row), r, "{row:?}");
    }
    // From (4, 2, 1, 1, 3, 4), taking one stone from the left leaves a row
    // of remoteness 9 (the game then lasts 10 plies), taking two 11 (12).
    assert_eq!(ex.remoteness(&[3, 2, 1, 1, 3, 4]), 9);
    assert_eq!(ex.remoteness(&[2, 2, 1, 1, 3, 4]), 11);
}

/// Remoteness and move ranges of every row of ≤ 6 piles of ≤ 8 stones and
/// of ≤ 4 piles of ≤ 20 stones, both variants, against the game tree.
#[test]
fn remoteness_and_move_ranges_match_the_game_tree_on_all_small_rows() {
    let start = Instant::now();
    for variant in Variant::ALL {
        let mut ex = ExhaustiveRemoteness::new(variant);
        let mut rows = all_rows(6, 8);
        rows.extend(
            all_rows(4, 20)
                .into_iter()
                .filter(|r| r.iter().any(|&p| p > 8)),
        );
        for row in &rows {
            check_against_tree(&mut ex, row, variant);
        }
    }
    eprintln!("all small rows: {:?}", start.elapsed());
}

fn random_row(rng: &mut ChaCha8Rng, n: usize, max: u64) -> Vec<u64> {
    (0..n).map(|_| rng.random_range(1..=max)).collect()
}

/// The DP against the array reference (an independent O(n² · A) program
/// of the curve recursion) on random rows of up to 14 piles of ≤ 3,000,
/// the row and every child, with some planted losses.
#[test]
fn remoteness_matches_the_array_reference_on_random_rows() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for case in 0..300 {
        let n = rng.random_range(2..=14);
        let max = [5, 40, 3000][case % 3];
        let mut row = random_row(&mut rng, n, max);
        if case % 2 == 1 {
            // Plant a loss when the tail allows it.
            let t = crate::core::verdict::end_values(&valid(&row)).left_of_tail;
            if t >= 1 {
                row[0] = t;
            }
        }
        let (r, left, right) = reference::remoteness_arrays(&row);
        let v = valid(&row);
        let solved = solve_with(&v, Variant::TwoEnds, &Never).unwrap();
        assert_eq!(solved.remoteness, r, "{row:?}");
        for m in &solved.ranges {
            let arr = if m.side == Side::Left { &left } else { &right };
            for x in m.left_min..=m.left_max {
                assert_eq!(m.remoteness_at(x), arr[x as usize], "{row:?} {m:?}");
            }
        }
        let count: u64 = solved
            .ranges
            .iter()
            .map(|m| m.left_max - m.left_min + 1)
            .sum();
        assert_eq!(count, row[0] + row[n - 1], "{row:?}");
    }
}

/// Fails loudly if a row needs more pieces than [`PIECE_BOUND`], the bound
/// the quadratic running time rests on.
#[test]
fn the_piece_count_stays_within_the_bound() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut worst = 0;
    for case in 0..120 {
        let n = rng.random_range(2..=300);
        let row: Vec<u64> = match case % 4 {
            0 => random_row(&mut rng, n, 5),
            1 => random_row(&mut rng, n, 1_000_000_000),
            2 => {
                let base = rng.random_range(1..=1_000_000u64);
                (0..n).map(|_| base + rng.random_range(0..=3)).collect()
            }
            _ => (0..n).map(|_| MAX_PILE - rng.random_range(0..=3)).collect(),
        };
        let solved = dp::row_functions(&row, &Never).unwrap();
        worst = worst.max(solved.max_pieces);
        assert!(
            solved.max_pieces <= PIECE_BOUND,
            "{} pieces on {row:?}",
            solved.max_pieces
        );
    }
    eprintln!("most pieces: {worst}");
}

#[test]
fn known_examples() {
    for (row, r) in [
        (vec![1u64, 1, 1, 1], 4),
        (vec![1, 2, 2, 1], 6),
        (vec![3, 1, 2, 3], 8),
        (vec![4, 2, 1, 1, 3, 4], 12),
        (vec![3, 2, 1, 1, 3, 4], 9),
        (vec![2, 2, 1, 1, 3, 4], 11),
    ] {
        assert_eq!(remoteness(&valid(&row), Variant::TwoEnds), r, "{row:?}");
    }
    let ranges = move_ranges(&valid(&[4, 2, 1, 1, 3, 4]), Variant::TwoEnds);
    let left = |x: u64| {
        let m = ranges
            .iter()
            .find(|m| m.side == Side::Left && m.left_min <= x && x <= m.left_max)
            .unwrap();
        m.remoteness_at(x)
    };
    assert_eq!((left(3), left(2)), (9, 11));
    assert_eq!(remoteness(&valid(&[MAX_PILE]), Variant::TwoEnds), 1);
    assert_eq!(
        remoteness(&valid(&[MAX_PILE, MAX_PILE]), Variant::TwoEnds),
        2 * u128::from(MAX_PILE)
    );
    // More than 2^64 − 1 plies.
    let big = remoteness(
        &valid(&[MAX_PILE, 1, MAX_PILE, MAX_PILE, 1, MAX_PILE]),
        Variant::TwoEnds,
    );
    assert!(big > u128::from(u64::MAX), "{big}");
    // Leftmost: (1, 1, 1) takes 3 plies; (5) 1; (5, 1) and (5, 2) 3 (leave
    // one stone); (1, 2) 2.
    for (row, r) in [
        (vec![1u64, 1, 1], 3),
        (vec![5], 1),
        (vec![5, 1], 3),
        (vec![5, 2], 3),
        (vec![1, 2], 2),
    ] {
        assert_eq!(remoteness(&valid(&row), Variant::Leftmost), r, "{row:?}");
    }
}

#[test]
fn cancellation_stops_the_dp() {
    let row: Vec<u64> = (1..=400).collect();
    let v = valid(&row);
    assert_eq!(
        remoteness_cancellable(&v, Variant::TwoEnds, &|| true),
        Err(Cancelled)
    );
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let stop_later = || calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 10;
    assert_eq!(
        remoteness_with(&v, Variant::TwoEnds, &stop_later),
        Err(Cancelled)
    );
    assert_eq!(
        remoteness_cancellable(&v, Variant::TwoEnds, &|| false),
        Ok(remoteness(&v, Variant::TwoEnds))
    );
    // A row long enough for cache blocks stops between block steps.
    let long: Vec<u64> = (1..=4300).collect();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let stop_later = || calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= 2;
    assert_eq!(
        remoteness_with(&valid(&long), Variant::TwoEnds, &stop_later),
        Err(Cancelled)
    );
    assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 3);
}

fn pile() -> impl Strategy<Value = u64> {
    prop_oneof![
        1..=6u64,
        1..=1_000_000_000u64,
        (MAX_PILE - 4)..=MAX_PILE,
        1..=MAX_PILE
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Odd remoteness exactly when the first player wins; a reversed row
    /// has the same remoteness; every won row's best move is winning.
    #[test]
    fn parity_is_the_verdict_and_reversal_keeps_it(row in prop::collection::vec(pile(), 1..40)) {
        let v = valid(&row);
        for variant in Variant::ALL {
            let r = remoteness(&v, variant);
            prop_assert_eq!(r % 2 == 1, first_player_wins(&v, variant), "{} {:?}", variant, row);
        }
        let r = remoteness(&v, Variant::TwoEnds);
        let rev: Vec<u64> = row.iter().rev().copied().collect();
        prop_assert_eq!(remoteness(&valid(&rev), Variant::TwoEnds), r);
        let ranges = move_ranges(&v, Variant::TwoEnds);
        prop_assert_eq!(ranges[0].mover_wins, r % 2 == 1);
        prop_assert_eq!(ranges[0].best().1 + 1 == r, r % 2 == 1 || ranges[0].best().1 + 1 == r);
    }

    /// Two piles: 2a when equal, 1 + 2 min(a, b) otherwise; three piles
    /// (x, c, y): lost exactly when x = y ≠ c, remoteness
    /// 2m + 2·[m < c] + [mover wins] with m = min(x, y).
    #[test]
    fn two_and_three_pile_formulas(a in pile(), b in pile(), c in pile(), equal in any::<bool>()) {
        let b = if equal { a } else { b };
        let (a128, b128) = (u128::from(a), u128::from(b));
        let two = if a == b { 2 * a128 } else { 1 + 2 * a128.min(b128) };
        prop_assert_eq!(remoteness(&valid(&[a, b]), Variant::TwoEnds), two);
        let wins = !(a == b && a != c);
        let m = a128.min(b128);
        let three = 2 * m + 2 * u128::from(m < u128::from(c)) + u128::from(wins);
        prop_assert_eq!(remoteness(&valid(&[a, c, b]), Variant::TwoEnds), three);
    }
}

/// Timing (run with `--ignored --nocapture`): remoteness beside the
/// verdict on one random row of piles up to 10^9 per size ([`bench`]);
/// `REM_SIZES` (comma-separated) overrides the sizes, `REM_THREADS` the
/// number of threads (default: rayon's).
#[test]
#[ignore]
fn time_remoteness_beside_the_verdict() {
    let threads: usize = std::env::var("REM_THREADS").map_or(0, |t| t.parse().unwrap());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let sizes: Vec<usize> = std::env::var("REM_SIZES")
        .unwrap_or_else(|_| "1000,20000".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    for n in sizes {
        let Ok(t) = pool.install(|| bench(n, 1_000_000_000, 2009, &Never));
        eprintln!(
            "n = {n}, {} threads: verdict {:?}, remoteness {:?} (= {}, {} pieces at most)",
            pool.current_num_threads(),
            t.verdict,
            t.remoteness,
            t.value,
            t.max_pieces
        );
    }
}

/// A row long enough for the parallel layers: parity is the verdict,
/// reversal keeps the remoteness, pieces within the bound.
#[test]
fn parallel_layers_agree_with_the_verdict_and_reversal() {
    let mut rng = ChaCha8Rng::seed_from_u64(2100);
    let n = dp::PARALLEL_MIN_SEGMENTS + 60;
    for max in [3, 1_000_000_000] {
        let mut row = random_row(&mut rng, n, max);
        let t = crate::core::verdict::end_values(&valid(&row)).left_of_tail;
        if max == 3 && t >= 1 {
            row[0] = t; // a planted loss
        }
        let v = valid(&row);
        let solved = solve_with(&v, Variant::TwoEnds, &Never).unwrap();
        assert_eq!(
            solved.remoteness % 2 == 1,
            first_player_wins(&v, Variant::TwoEnds)
        );
        let rev: Vec<u64> = row.iter().rev().copied().collect();
        assert_eq!(
            remoteness(&valid(&rev), Variant::TwoEnds),
            solved.remoteness
        );
    }
}

/// The closed form against the exact DP on random rows of up to 80 piles
/// (small piles, piles up to 10^9 and up to 2^40, a base plus 0–3, piles
/// near 2^63, ones and twos), in the row's width and in `i128`: the same
/// remoteness and the same move ranges, and the tripwire never goes off.
#[test]
fn the_closed_form_equals_the_exact_dp() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    for case in 0..3500 {
        let n = rng.random_range(2..=80);
        let row: Vec<u64> = match case % 7 {
            6 => random_row(&mut rng, n, 1 << 40),
            0 => random_row(&mut rng, n, 5),
            1 => random_row(&mut rng, n, 1_000_000_000),
            2 => {
                let base = rng.random_range(1..=1_000_000u64);
                (0..n).map(|_| base + rng.random_range(0..=3)).collect()
            }
            3 => (0..n).map(|_| MAX_PILE - rng.random_range(0..=3)).collect(),
            4 => random_row(&mut rng, n, 2),
            _ => random_row(&mut rng, n, 40),
        };
        // The service's path (the row's width) against the DP.
        assert_eq!(closed_form_differs(&row), None);
        // The row's width against `i128`, layer by layer.
        let isa = crate::core::kernel::Isa::detect();
        let wide = closed::top::<i128, _>(&row, Plan::plain(isa), &Never)
            .unwrap()
            .unwrap_or_else(|| panic!("tripped on {row:?}"));
        let width = closed::width(&row);
        let narrow = match width {
            32 => closed::top::<Wrapping<i32>, _>(&row, Plan::plain(isa), &Never)
                .unwrap()
                .map(|t| t.widen()),
            64 => closed::top::<Wrapping<i64>, _>(&row, Plan::plain(isa), &Never)
                .unwrap()
                .map(|t| t.widen()),
            _ => None,
        };
        if width < 128 {
            let narrow = narrow.unwrap_or_else(|| panic!("tripped on {row:?}"));
            assert_eq!(narrow.inner, wide.inner, "{row:?}");
            assert_eq!(narrow.without_first, wide.without_first);
            assert_eq!(narrow.without_last, wide.without_last);
        }
    }
}

/// Every instruction set's copy of the layer pass, the parallel layers
/// (in chunks of 16 here) and the cache blocks (small ones, of every
/// shape that divides a row's layers evenly or not) give the same top as
/// the baseline's `i128` pass, layer by layer.
#[test]
fn every_pass_the_parallel_layers_and_the_blocks_agree() {
    use crate::core::kernel::Isa;
    let mut rng = ChaCha8Rng::seed_from_u64(4099);
    for (n, max) in [(300, 3), (300, 1_000_000_000), (97, 40)] {
        let row = random_row(&mut rng, n, max);
        let base = closed::top::<i128, _>(&row, Plan::plain(Isa::Baseline), &Never)
            .unwrap()
            .unwrap();
        let blocks = [
            None,
            Some((8, 3)),
            Some((16, 5)),
            Some((40, 40)),
            Some((1, 1)),
        ];
        for isa in Isa::available() {
            for (parallel, blocks) in [None, Some(16)]
                .into_iter()
                .flat_map(|p| blocks.map(|b| (p, b)))
            {
                let plan = Plan {
                    isa,
                    parallel,
                    blocks,
                };
                let narrow = closed::top::<Wrapping<i32>, _>(&row, plan, &Never)
                    .unwrap()
                    .unwrap();
                let t = closed::top::<Wrapping<i64>, _>(&row, plan, &Never)
                    .unwrap()
                    .unwrap();
                let wide = closed::top::<i128, _>(&row, plan, &Never).unwrap().unwrap();
                for t in [narrow.widen(), t.widen(), wide] {
                    assert_eq!(t.inner, base.inner, "{plan:?}");
                    assert_eq!(t.without_first, base.without_first);
                    assert_eq!(t.without_last, base.without_last);
                }
            }
        }
    }
}

/// The service's plan (blocks of [`closed::BLOCK_CELLS`] by
/// [`closed::BLOCK_LAYERS`], on every thread) on a row long enough to be
/// blocked gives the same top as the plain layers.
#[test]
fn the_default_blocks_agree_with_the_plain_layers() {
    let mut rng = ChaCha8Rng::seed_from_u64(4160);
    let n = 2 * closed::BLOCK_CELLS + 3 * closed::BLOCK_LAYERS + 7;
    for max in [4, 1_000_000_000] {
        let row = random_row(&mut rng, n, max);
        let plain = closed::top::<Wrapping<i32>, _>(&row, Plan::plain(Plan::best().isa), &Never)
            .unwrap()
            .unwrap();
        let best = closed::top::<Wrapping<i32>, _>(&row, Plan::best(), &Never)
            .unwrap()
            .unwrap();
        assert_eq!(best.inner, plain.inner);
        assert_eq!(best.without_first, plain.without_first);
        assert_eq!(best.without_last, plain.without_last);
    }
}

/// The closed form against the exact DP on every row of 7 piles of 1–4
/// stones and 8 piles of 1–3 (rows the game-tree test does not reach), the
/// row's remoteness and the tripwire.
#[test]
fn the_closed_form_equals_the_exact_dp_on_every_row_of_seven_and_eight_piles() {
    let isa = crate::core::kernel::Isa::detect();
    for (n, max) in [(7, 4), (8, 3)] {
        for row in all_rows(n, max).into_iter().filter(|r| r.len() == n) {
            let exact = dp::row_functions(&row, &Never).unwrap();
            let t = closed::top::<Wrapping<i32>, _>(&row, Plan::plain(isa), &Never)
                .unwrap()
                .unwrap_or_else(|| panic!("tripped on {row:?}"));
            assert_eq!(
                i128::from(t.remoteness(row[0], row[n - 1]).0),
                exact.left.eval(i128::from(row[0])),
                "{row:?}"
            );
        }
    }
}

/// The closed form against the exact DP, through the service's path
/// (`top_wide`), on every row of 14 piles of 1–2 stones, 10 of 1–3, 9 of
/// 1–4, 8 of 1–5 and 7 of 1–7 (1,551,745 rows): the same remoteness and
/// the same value of every move of both ends. About 30 s: run by hand, its
/// figures in docs/game.md §5.
#[test]
#[ignore = "about 30 s; run by hand"]
fn the_closed_form_equals_the_exact_dp_on_every_row_of_up_to_fourteen_small_piles() {
    use rayon::prelude::*;
    let mut count = 0;
    for (n, max) in [(14, 2), (10, 3), (9, 4), (8, 5), (7, 7)] {
        let rows: Vec<Vec<u64>> = all_rows(n, max)
            .into_iter()
            .filter(|r| r.len() == n)
            .collect();
        rows.par_iter()
            .for_each(|row| assert_eq!(closed_form_differs(row), None));
        count += rows.len();
    }
    assert_eq!(count, 1_551_745);
}

/// The closed form against the exact DP on long random rows (100–1,000
/// piles, then three of 4,500 that run in cache blocks), through the
/// service's path (`top_wide`: the row's width, blocks, every thread);
/// about 30 s: run by hand, its figures in docs/game.md §5.
#[test]
#[ignore = "about 30 s; run by hand"]
fn the_closed_form_equals_the_exact_dp_on_long_rows() {
    let mut rng = ChaCha8Rng::seed_from_u64(1000);
    for case in 0..63 {
        let n = if case < 60 {
            rng.random_range(100..=1000)
        } else {
            4500
        };
        let row = match case % 3 {
            0 => random_row(&mut rng, n, 5),
            1 => random_row(&mut rng, n, 1_000_000_000),
            _ => (0..n).map(|_| MAX_PILE - rng.random_range(0..=3)).collect(),
        };
        assert_eq!(closed_form_differs(&row), None);
    }
}

#[test]
fn plies_are_counted_in_words() {
    assert_eq!(Plies(0).to_string(), "0 plies");
    assert_eq!(Plies(1).to_string(), "1 ply");
    assert_eq!(Plies(2).to_string(), "2 plies");
    assert_eq!(Plies::from(1u64).to_string(), "1 ply");
    assert_eq!(Plies(u128::MAX).to_string(), format!("{} plies", u128::MAX));
}
