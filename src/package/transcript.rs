//! The sample's `.interaction` file of an interactive package: the
//! transcript of `submissions/accepted/perfect.cpp` against
//! `output_validator/interactor.cpp` (`<` judge to program, `>` program to
//! judge), as BAPCtools records it for the statement. It is a port of the
//! two C++ programs' move choices, bot randomness included (the same
//! splitmix64 stream), so `bt generate` rewrites it byte for byte
//! (tests/it/package_bapctools.rs checks that). With tempo
//! ([`tempo_interaction`]), `submissions/accepted/tempo.cpp` against
//! `output_validator/interactor.cpp` written from `interactor-tempo.cpp`:
//! both play [`best_move`], so the port is the core's.

use std::fmt::Write as _;

use crate::core::remoteness::best_move;
use crate::core::{MAX_PILES, Side, ValidRow, Variant};

fn lose_beside(l: u64, r: u64, x: u64) -> u64 {
    if x == r {
        0
    } else if x < r {
        if x < l { x } else { x + 1 }
    } else if x > l {
        x
    } else {
        x - 1
    }
}

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One game, as `Game` in interactor.cpp: the live piles `a[lo..=hi]` with
/// end piles `x` (left) and `y` (right).
struct Game {
    a: Vec<u64>,
    n: usize,
    lo: usize,
    /// `hi + 1`, so that an empty row is `lo == end`.
    end: usize,
    x: u64,
    y: u64,
    leftmost: bool,
    left: Vec<u64>,
    right: Vec<u64>,
    win: Vec<bool>,
}

impl Game {
    fn new(a: &[u64], leftmost: bool) -> Game {
        let n = a.len();
        let mut g = Game {
            a: a.to_vec(),
            n,
            lo: 0,
            end: n,
            x: a[0],
            y: a[n - 1],
            leftmost,
            left: vec![0; n * n],
            right: vec![0; n * n],
            win: vec![false; n + 1],
        };
        for i in (0..n).rev() {
            g.win[i] = a[i] > 1 || !g.win[i + 1];
        }
        for (i, &v) in a.iter().enumerate() {
            g.left[i * n + i] = v;
            g.right[i * n + i] = v;
        }
        for len in 2..=n {
            for i in 0..=n - len {
                let j = i + len - 1;
                g.left[i * n + j] =
                    lose_beside(g.left[i * n + j - 1], g.right[i * n + j - 1], a[j]);
                g.right[i * n + j] =
                    lose_beside(g.right[(i + 1) * n + j], g.left[(i + 1) * n + j], a[i]);
            }
        }
        g
    }

    fn over(&self) -> bool {
        self.lo >= self.end
    }

    fn winning_move(&self) -> Option<(char, u64)> {
        let (lo, hi, x, y) = (self.lo, self.end - 1, self.x, self.y);
        if lo == hi {
            return Some(('L', x));
        }
        if self.leftmost {
            return if !self.win[lo + 1] {
                Some(('L', x))
            } else if x > 1 {
                Some(('L', x - 1))
            } else {
                None
            };
        }
        let (l, r) = if lo + 1 < hi {
            let at = (lo + 1) * self.n + hi - 1;
            (self.left[at], self.right[at])
        } else {
            (0, 0)
        };
        let fx = lose_beside(l, r, y);
        if x > fx {
            return Some(('L', x - fx));
        }
        let gy = lose_beside(r, l, x);
        if y > gy {
            return Some(('R', y - gy));
        }
        None
    }

    fn apply(&mut self, side: char, k: u64) {
        let hi = self.end - 1;
        if self.lo == hi {
            self.x -= k;
            self.y = self.x;
            if self.x == 0 {
                self.lo += 1;
            }
        } else if side == 'L' {
            self.x -= k;
            if self.x == 0 {
                self.lo += 1;
                self.x = if self.lo == hi {
                    self.y
                } else {
                    self.a[self.lo]
                };
            }
        } else {
            self.y -= k;
            if self.y == 0 {
                self.end -= 1;
                let hi = self.end - 1;
                self.y = if self.lo == hi { self.x } else { self.a[hi] };
            }
        }
    }
}

/// The transcript of the perfect player on `rows` against the interactor
/// seeded with `seed`.
pub fn interaction(rows: &[Vec<u64>], variant: Variant, seed: u64) -> String {
    let leftmost = variant == Variant::Leftmost;
    let mut out = String::new();
    let _ = writeln!(out, "<{}", rows.len());
    for (index, row) in rows.iter().enumerate() {
        let game_no = index as u64 + 1;
        let piles: Vec<String> = row.iter().map(u64::to_string).collect();
        let _ = writeln!(out, "<{}\n<{}", row.len(), piles.join(" "));
        let mut g = Game::new(row, leftmost);
        let mut rng = seed ^ game_no.wrapping_mul(0xd134_2543_de82_ef95);
        let mut program = g.winning_move().is_some();
        let _ = writeln!(out, ">{}", if program { "FIRST" } else { "SECOND" });
        while !g.over() {
            let (side, k) = match g.winning_move() {
                Some(m) => m,
                None if program => ('L', 1),
                None => {
                    let side =
                        if leftmost || g.lo == g.end - 1 || splitmix(&mut rng).is_multiple_of(2) {
                            'L'
                        } else {
                            'R'
                        };
                    let pile = if side == 'L' { g.x } else { g.y };
                    let least = pile.div_ceil(2);
                    (side, least + splitmix(&mut rng) % (pile - least + 1))
                }
            };
            let _ = writeln!(out, "{}{side} {k}", if program { '>' } else { '<' });
            g.apply(side, k);
            program = !program;
        }
    }
    out
}

/// The transcript of the tempo player on `rows` against the tempo
/// interactor (two ends): both sides play perfect play with tempo, the
/// core's [`best_move`] (the C++ programs' tie-break: the left pile, then
/// more stones left), so each game lasts exactly its row's remoteness.
pub fn tempo_interaction(rows: &[Vec<u64>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "<{}", rows.len());
    for row in rows {
        let piles: Vec<String> = row.iter().map(u64::to_string).collect();
        let _ = writeln!(out, "<{}\n<{}", row.len(), piles.join(" "));
        let mut live = row.clone();
        let first = Game::new(row, false).winning_move().is_some();
        let _ = writeln!(out, ">{}", if first { "FIRST" } else { "SECOND" });
        let mut program = first;
        while !live.is_empty() {
            let valid = ValidRow::new(&live[..], MAX_PILES).expect("a valid row");
            let m = best_move(&valid, Variant::TwoEnds);
            let side = if live.len() == 1 || m.side == Side::Left {
                'L'
            } else {
                'R'
            };
            let _ = writeln!(out, "{}{side} {}", if program { '>' } else { '<' }, m.take);
            let at = if side == 'L' { 0 } else { live.len() - 1 };
            live[at] -= m.take;
            if live[at] == 0 {
                live.remove(at);
            }
            program = !program;
        }
    }
    out
}
