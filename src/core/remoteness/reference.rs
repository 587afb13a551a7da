//! A slow, plain reference for the two-ends remoteness: the curve
//! recursion of docs/game.md §5 with every function stored as an array of
//! values over the pile sizes, O(n² · A) time and memory for piles ≤ A.
//! Test code: it shares no code with the piecewise-linear algorithm.

use std::collections::HashMap;

use super::super::tables::{left_step, right_step};

/// `f` of an interior with end values `(l, r)`: the left pile that makes
/// `(f(y), I, y)` lost.
pub fn curve(l: u64, r: u64, y: u64) -> u64 {
    if y == 0 {
        l
    } else if y == r {
        0
    } else if l < r && l <= y && y < r {
        y + 1
    } else if l > r && r < y && y <= l {
        y - 1
    } else {
        y
    }
}

/// The inverse of [`curve`].
pub fn curve_inv(l: u64, r: u64, x: u64) -> u64 {
    if x == 0 {
        r
    } else if x == l {
        0
    } else if l < r && l < x && x <= r {
        x - 1
    } else if l > r && r <= x && x < l {
        x + 1
    } else {
        x
    }
}

/// Remoteness of the row `piles` (two-ends, n ≥ 1, piles ≥ 1), the
/// remoteness of every left move's child (`p[x]`, x < a_1) and of every
/// right move's child (`q[y]`, y < a_n).
pub fn remoteness_arrays(piles: &[u64]) -> (u128, Vec<u128>, Vec<u128>) {
    let n = piles.len();
    let a = |k: usize| piles[k];
    let big = piles.iter().copied().max().unwrap_or(1) as usize + 2 * n + 8;
    let dom = |len: usize| big - 2 * len; // domain 0..=dom of a segment of `len` piles
    // (i, j) → (P, Q): P[x] = rem(x, a_{i+1..=j}), Q[y] = rem(a_{i..j}, y).
    let mut seg: HashMap<(usize, usize), (Vec<u128>, Vec<u128>)> = HashMap::new();
    let mut lr: HashMap<(usize, usize), (u64, u64)> = HashMap::new();
    for i in 0..n {
        let one: Vec<u128> = (0..=dom(1)).map(|x| u128::from(x >= 1)).collect();
        seg.insert((i, i), (one.clone(), one));
        lr.insert((i, i), (a(i), a(i)));
    }
    for len in 2..=n {
        for i in 0..=n - len {
            let j = i + len - 1;
            let (l0, r0) = lr[&(i, j - 1)];
            let (l1, r1) = lr[&(i + 1, j)];
            lr.insert((i, j), (left_step(l0, r0, a(j)), right_step(l1, r1, a(i))));
            // The curve of the interior I = a_{i+1..j-1}.
            let d = dom(len) + 1;
            let c: Vec<u128> = if len == 2 {
                (0..=d as u128).map(|y| 2 * y).collect()
            } else {
                let (l, r) = lr[&(i + 1, j - 1)];
                let pl = &seg[&(i, j - 1)].0; // rem(x, I)
                let qr = &seg[&(i + 1, j)].1; // rem(I, y)
                let mut c = vec![0u128; d + 1];
                c[0] = pl[l as usize];
                let mut prefix: Option<u128> = None; // max of c[1..y]
                for y in 1..=d {
                    let yy = y as u64;
                    c[y] = if yy == r {
                        qr[y]
                    } else {
                        let fy = curve(l, r, yy);
                        let mut m = qr[y].max(pl[fy as usize]);
                        if let Some(p) = prefix {
                            m = m.max(p + 1);
                        }
                        if 1 <= l && l < fy {
                            m = m.max(c[0] + 1);
                        }
                        1 + m
                    };
                    prefix = Some(prefix.map_or(c[y], |p| p.max(c[y])));
                }
                c
            };
            let (l, r) = if len == 2 {
                (0, 0)
            } else {
                lr[&(i + 1, j - 1)]
            };
            let won = |x: u64, y: u64| -> u128 {
                // (x, I, y) with x, y ≥ 1.
                if curve(l, r, y) == x {
                    return c[y as usize];
                }
                let mut best = u128::MAX;
                if curve(l, r, y) < x {
                    best = best.min(c[y as usize]);
                }
                let yi = curve_inv(l, r, x);
                if yi < y {
                    best = best.min(c[yi as usize]);
                }
                1 + best
            };
            let p0 = seg[&(i + 1, j)].1[a(j) as usize];
            let q0 = seg[&(i, j - 1)].0[a(i) as usize];
            let p: Vec<u128> = (0..=dom(len) as u64)
                .map(|x| if x == 0 { p0 } else { won(x, a(j)) })
                .collect();
            let q: Vec<u128> = (0..=dom(len) as u64)
                .map(|y| if y == 0 { q0 } else { won(a(i), y) })
                .collect();
            seg.insert((i, j), (p, q));
        }
    }
    let (p, q) = &seg[&(0, n - 1)];
    let rem = p[a(0) as usize];
    let left = p[..a(0) as usize].to_vec();
    let right = if n >= 2 {
        q[..a(n - 1) as usize].to_vec()
    } else {
        Vec::new()
    };
    (rem, left, right)
}
