use super::exhaustive::ExhaustiveRemoteness;
use super::reference;
use crate::core::exhaustive::all_rows;
use crate::core::moves::Side;
use crate::core::row::Variant;

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
