//! The fast solvers against the exhaustive game-tree solver on every small row.

use stonegame::core::exhaustive::{Exhaustive, all_rows};
use stonegame::core::tables::Tables;
use stonegame::core::{Variant, analyze, first_player_wins, winning_moves};

#[test]
fn verdicts_match_exhaustive_up_to_6_piles_of_1_to_5() {
    let mut truth = Exhaustive::new(Variant::TwoEnds);
    let rows = all_rows(6, 5);
    assert_eq!(rows.len(), 19_530);
    let mut losses = 0;
    for row in &rows {
        let want = truth.wins(row);
        losses += usize::from(!want);
        assert_eq!(
            first_player_wins(row, Variant::TwoEnds).unwrap(),
            want,
            "row {row:?}"
        );
        assert_eq!(
            Tables::new(row, 10).unwrap().first_player_wins(),
            want,
            "tables, row {row:?}"
        );
    }
    // The set is not degenerate: it has both wins and losses.
    assert!(losses > 100, "only {losses} losses");
}

#[test]
fn winning_moves_match_exhaustive_up_to_5_piles_of_1_to_4() {
    let mut truth = Exhaustive::new(Variant::TwoEnds);
    for row in all_rows(5, 4) {
        let mut want = truth.winning_moves(&row);
        let mut got = winning_moves(&row, Variant::TwoEnds).unwrap();
        want.sort();
        got.sort();
        assert_eq!(got, want, "row {row:?}");
        let a = analyze(&row, Variant::TwoEnds).unwrap();
        assert_eq!(a.first_player_wins, !want.is_empty());
        // best_move is legal and, when the row is won, winning.
        let after = a.best_move.apply(&row);
        assert_eq!(
            after.iter().sum::<u64>() + a.best_move.take,
            row.iter().sum::<u64>()
        );
        if a.first_player_wins {
            assert!(
                !truth.wins(&after),
                "best move {:?} of {row:?} does not win",
                a.best_move
            );
        }
    }
}

#[test]
fn leftmost_matches_exhaustive_up_to_7_piles_of_1_to_3() {
    let mut truth = Exhaustive::new(Variant::Leftmost);
    for row in all_rows(7, 3) {
        let want = truth.wins(&row);
        assert_eq!(
            first_player_wins(&row, Variant::Leftmost).unwrap(),
            want,
            "row {row:?}"
        );
        let mut want_moves = truth.winning_moves(&row);
        let mut got = winning_moves(&row, Variant::Leftmost).unwrap();
        want_moves.sort();
        got.sort();
        assert_eq!(got, want_moves, "row {row:?}");
    }
}
