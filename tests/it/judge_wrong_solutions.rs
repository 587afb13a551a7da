//! The `hack` family is proven here: each known wrong solution is
//! re-implemented (in test code only, independently of the generator) and a
//! generated hack file of 50 cases must make each of them fail at least one
//! case, while our solver agrees with the O(n²) tables on every row and with
//! the exhaustive game-tree solver on the small ones.
//!
//! The wrong solutions:
//!
//! * (a) seed 004's C++ as written (docs/game.md, "A known wrong
//!   solution"): it reads `l = right[j+1][j+i], r = right[j+1][j+i]` (then
//!   swaps) where it should read `left` and `right`, and its `if` chain has
//!   no branch for `x == l && x > r`, so that cell keeps its 0; and the same
//!   program with only the `left`/`right` mix-up (the missing branch fixed);
//! * (b) the right recurrence on 32-bit words: piles read into `int32` /
//!   `uint32` (wrapping modulo 2^32, as glibc's `scanf("%d")` does for
//!   values below 2^63), `X + 1` / `X − 1` wrapping;
//! * (c) small n mishandled: (c1) a solution keeping `left[2][n]` in a global
//!   that, for n = 1, still answers `a_1 != left[2][n]` with the value the
//!   previous case left there; (c2) "n ≤ 2: the first player always wins";
//!   (c3) n = 2 inverted: "wins iff a_1 == a_2";
//! * (d) `≤`/`<` confused in the X vs L conditions: `X < L` written for
//!   `X ≤ L` (the X − 1 branch) and `X > L` for `X ≥ L` (the X + 1 branch).

use crate::common;

use common::{gen_strings, parse_answers, parse_rows};
use stonegame::core::exhaustive::{Exhaustive, all_rows};
use stonegame::core::tables::Tables;
use stonegame::core::{Variant, first_player_wins};
use stonegame::judge::generate::{Family, GenSpec};

/// Seed 004's `solve()`, line by line, with `int` widened to `i64` so that
/// only its logic is under test. For n = 1 the C++ reads `left[2][1]` out of
/// the vector's bounds (undefined behaviour); here that read gives 0.
/// `fix_missing_branch` writes `x <= l` in the `x - 1` branch, leaving only
/// the `left`/`right` mix-up.
fn seed004(piles: &[u64], fix_missing_branch: bool) -> bool {
    // One `if` chain of the C++; `None` when no branch is taken.
    let step = |l: i64, r: i64, x: i64| -> Option<i64> {
        let down = if fix_missing_branch { x <= l } else { x < l };
        if x == r {
            Some(0)
        } else if x < l && x < r {
            Some(x)
        } else if down && x > r {
            Some(x - 1)
        } else if x >= l && x < r {
            Some(x + 1)
        } else if x > l && x > r {
            Some(x)
        } else {
            None
        }
    };
    let n = piles.len();
    let mut a = vec![0i64; n + 1];
    for i in 1..=n {
        a[i] = piles[i - 1] as i64;
    }
    let mut left = vec![vec![0i64; n + 1]; n + 1];
    let mut right = vec![vec![0i64; n + 1]; n + 1];
    let mut i = 0;
    while i + 1 < n {
        if i == 0 {
            for j in 2..=n {
                left[j][j] = a[j];
                right[j][j] = a[j];
            }
        } else {
            let mut j = 2;
            while j + i <= n {
                let (l, r) = (left[j][j + i - 1], right[j][j + i - 1]);
                let x = a[j + i];
                if let Some(v) = step(l, r, x) {
                    left[j][j + i] = v;
                }
                let (mut l, mut r) = (right[j + 1][j + i], right[j + 1][j + i]);
                let x = a[j];
                std::mem::swap(&mut l, &mut r);
                if let Some(v) = step(l, r, x) {
                    right[j][j + i] = v;
                }
                j += 1;
            }
        }
        i += 1;
    }
    let t = if n >= 2 { left[2][n] } else { 0 };
    a[1] != t
}

/// A machine word a solution computes in.
trait Word: Copy + Ord {
    const ZERO: Self;
    /// Reading a pile into the word.
    fn read(v: u64) -> Self;
    fn inc(self) -> Self;
    fn dec(self) -> Self;
}

impl Word for i64 {
    const ZERO: Self = 0;
    fn read(v: u64) -> Self {
        v as i64
    }
    fn inc(self) -> Self {
        self + 1
    }
    fn dec(self) -> Self {
        self - 1
    }
}

impl Word for i32 {
    const ZERO: Self = 0;
    fn read(v: u64) -> Self {
        v as i32 // wraps modulo 2^32
    }
    fn inc(self) -> Self {
        self.wrapping_add(1)
    }
    fn dec(self) -> Self {
        self.wrapping_sub(1)
    }
}

impl Word for u32 {
    const ZERO: Self = 0;
    fn read(v: u64) -> Self {
        v as u32 // wraps modulo 2^32
    }
    fn inc(self) -> Self {
        self.wrapping_add(1)
    }
    fn dec(self) -> Self {
        self.wrapping_sub(1)
    }
}

/// The `left` step of docs/game.md §1; `confused` writes `X < L` for `X ≤ L` and `X > L`
/// for `X ≥ L`. `right`'s step is the same with L and R swapped.
fn left_step<W: Word>(l: W, r: W, x: W, confused: bool) -> W {
    let (ge, le) = if confused {
        (x > l, x < l)
    } else {
        (x >= l, x <= l)
    };
    if x == r {
        W::ZERO
    } else if x < r {
        if ge { x.inc() } else { x }
    } else if le {
        x.dec()
    } else {
        x
    }
}

/// `left[2][n]` by the O(n²) interval DP in word `W` (n ≥ 2).
fn left_of_tail<W: Word>(piles: &[u64], confused: bool) -> W {
    let a: Vec<W> = piles[1..].iter().map(|&v| W::read(v)).collect();
    let m = a.len();
    // Layer of interval length `len`: l[i], r[i] for [i, i + len − 1].
    let (mut l, mut r) = (a.clone(), a.clone());
    for len in 2..=m {
        let (mut nl, mut nr) = (Vec::new(), Vec::new());
        for i in 0..=m - len {
            let j = i + len - 1;
            nl.push(left_step(l[i], r[i], a[j], confused));
            nr.push(left_step(r[i + 1], l[i + 1], a[i], confused));
        }
        (l, r) = (nl, nr);
    }
    l[0]
}

/// The right algorithm computed in word `W`, optionally with `≤`/`<`
/// confused.
fn dp_solution<W: Word>(piles: &[u64], confused: bool) -> bool {
    piles.len() == 1 || W::read(piles[0]) != left_of_tail::<W>(piles, confused)
}

/// A solution: the verdict of one row (it may keep state across rows).
type Solve = Box<dyn FnMut(&[u64]) -> bool>;

/// A wrong solution, run over a whole file.
struct Wrong {
    name: &'static str,
    solve: Solve,
}

fn wrong_solutions() -> Vec<Wrong> {
    let mut stale = 0i64; // (c1)'s global, zero-initialised
    vec![
        Wrong {
            name: "(a) seed 004 as written",
            solve: Box::new(|p| seed004(p, false)),
        },
        Wrong {
            name: "(a') seed 004 with only the left/right mix-up",
            solve: Box::new(|p| seed004(p, true)),
        },
        Wrong {
            name: "(b) int32 piles",
            solve: Box::new(|p| dp_solution::<i32>(p, false)),
        },
        Wrong {
            name: "(b') uint32 piles",
            solve: Box::new(|p| dp_solution::<u32>(p, false)),
        },
        Wrong {
            name: "(c1) n = 1 compared with a stale left[2][n]",
            solve: Box::new(move |p| {
                if p.len() >= 2 {
                    stale = left_of_tail::<i64>(p, false);
                }
                p[0] as i64 != stale
            }),
        },
        Wrong {
            name: "(c2) n <= 2 always a win",
            solve: Box::new(|p| p.len() <= 2 || dp_solution::<i64>(p, false)),
        },
        Wrong {
            name: "(c3) n = 2 inverted",
            solve: Box::new(|p| {
                if p.len() == 2 {
                    p[0] == p[1]
                } else {
                    dp_solution::<i64>(p, false)
                }
            }),
        },
        Wrong {
            name: "(d) <= and < confused in X vs L",
            solve: Box::new(|p| dp_solution::<i64>(p, true)),
        },
    ]
}

/// Rows each wrong solution gets wrong (1-based case numbers).
fn failures(rows: &[Vec<u64>], truth: &[bool]) -> Vec<(&'static str, Vec<usize>)> {
    wrong_solutions()
        .into_iter()
        .map(|mut w| {
            let failed = rows
                .iter()
                .zip(truth)
                .enumerate()
                .filter(|(_, (row, want))| (w.solve)(row) != **want)
                .map(|(i, _)| i + 1)
                .collect();
            (w.name, failed)
        })
        .collect()
}

fn hack(seed: u64, max_a: u64) -> GenSpec {
    GenSpec {
        family: Family::Hack,
        cases: 50,
        max_n: 8,
        max_a,
        seed,
        variant: Variant::TwoEnds,
    }
}

#[test]
fn seed004_port_answers_42_of_583_small_rows_wrongly() {
    let mut truth = Exhaustive::new(Variant::TwoEnds);
    let mut rows = all_rows(4, 4);
    rows.extend(all_rows(5, 3).into_iter().filter(|r| r.len() == 5));
    assert_eq!(rows.len(), 583);
    let wrong = rows
        .iter()
        .filter(|r| seed004(r, false) != truth.wins(r))
        .count();
    assert_eq!(wrong, 42);
    assert!(
        seed004(&[1, 1, 2, 2], false),
        "game.md's example: 004 says 1"
    );
    assert!(!truth.wins(&[1, 1, 2, 2]));
    let mix_up_only = rows
        .iter()
        .filter(|r| seed004(r, true) != truth.wins(r))
        .count();
    // Both of 004's bugs bite on their own: docs/game.md's example comes
    // from the missing `x == l && x > r` branch, not from the left/right
    // mix-up.
    assert!(0 < mix_up_only && mix_up_only < 42, "{mix_up_only}");
    assert!(!seed004(&[1, 1, 2, 2], true));
}

#[test]
fn the_models_are_right_where_their_bug_does_not_bite() {
    // The 32-bit solutions and the correct-word DP agree with the truth on
    // every small row: their bug needs piles beyond 2^31 − 1.
    let mut truth = Exhaustive::new(Variant::TwoEnds);
    for row in all_rows(5, 4) {
        let want = truth.wins(&row);
        assert_eq!(dp_solution::<i64>(&row, false), want, "{row:?}");
        assert_eq!(dp_solution::<i32>(&row, false), want, "{row:?}");
        assert_eq!(dp_solution::<u32>(&row, false), want, "{row:?}");
    }
    // Rows of piles below 2^31 (the original limit 10^9 among them) fit int32.
    let spec = hack(7, 1_000_000_000);
    let (input, answers) = gen_strings(&spec);
    let (rows, truth) = (parse_rows(&input), parse_answers(&answers));
    for (row, want) in rows.iter().zip(&truth) {
        assert_eq!(dp_solution::<i32>(row, false), *want, "{row:?}");
        assert_eq!(dp_solution::<u32>(row, false), *want, "{row:?}");
    }
}

#[test]
fn hack_file_of_50_cases_breaks_every_wrong_solution() {
    for seed in 0..20 {
        let spec = hack(seed, (1 << 32) + 1000);
        let (input, answers) = gen_strings(&spec);
        let (rows, truth) = (parse_rows(&input), parse_answers(&answers));
        assert_eq!(rows.len(), 50);
        for (name, failed) in failures(&rows, &truth) {
            assert!(
                !failed.is_empty(),
                "seed {seed}: `{name}` passes every case of\n{input}"
            );
        }
    }
}

#[test]
fn hack_file_breaks_int32_but_not_uint32_between_2_31_and_2_32() {
    for seed in 0..10 {
        let spec = hack(seed, 3_000_000_000);
        let (input, answers) = gen_strings(&spec);
        let (rows, truth) = (parse_rows(&input), parse_answers(&answers));
        for (name, failed) in failures(&rows, &truth) {
            if name.contains("uint32") {
                assert!(failed.is_empty(), "seed {seed}: `{name}` fails {failed:?}");
            } else {
                assert!(!failed.is_empty(), "seed {seed}: `{name}` passes");
            }
        }
    }
}

#[test]
fn hack_file_within_the_original_limits_breaks_every_non_32_bit_solution() {
    for seed in 0..10 {
        let spec = hack(seed, 1_000_000_000);
        let (input, answers) = gen_strings(&spec);
        let (rows, truth) = (parse_rows(&input), parse_answers(&answers));
        for (name, failed) in failures(&rows, &truth) {
            if !name.contains("32") {
                assert!(!failed.is_empty(), "seed {seed}: `{name}` passes");
            }
        }
    }
}

#[test]
fn hack_answers_agree_with_tables_and_the_exhaustive_solver() {
    let mut exhaustive = Exhaustive::new(Variant::TwoEnds);
    let mut small = 0;
    for (seed, max_a) in [
        (0, (1u64 << 32) + 1000),
        (1, 12),
        (2, 1_000_000_000),
        (3, 6),
    ] {
        let (input, answers) = gen_strings(&hack(seed, max_a));
        let (rows, truth) = (parse_rows(&input), parse_answers(&answers));
        assert_eq!(rows.len(), truth.len());
        for (row, want) in rows.iter().zip(&truth) {
            assert_eq!(
                first_player_wins(&common::valid(row), Variant::TwoEnds),
                *want
            );
            assert_eq!(
                Tables::new(&common::valid(row)).first_player_wins(),
                *want,
                "tables, {row:?}"
            );
            if row.iter().all(|&v| v <= 12) {
                small += 1;
                assert_eq!(exhaustive.wins(row), *want, "exhaustive, {row:?}");
            }
        }
    }
    assert!(small >= 100, "only {small} small rows checked");
}

#[test]
fn random_and_planted_files_let_wrong_solutions_pass_that_hack_catches() {
    // Why the hack family exists: other families leave some bugs unseen.
    for family in [Family::Random, Family::Planted] {
        let spec = GenSpec {
            family,
            ..hack(0, (1 << 32) + 1000)
        };
        let (input, answers) = gen_strings(&spec);
        let (rows, truth) = (parse_rows(&input), parse_answers(&answers));
        let passing: Vec<_> = failures(&rows, &truth)
            .into_iter()
            .filter(|(_, failed)| failed.is_empty())
            .map(|(name, _)| name)
            .collect();
        assert!(passing.len() >= 2, "{family}: only {passing:?} pass");
    }
}
