//! The fast solvers against the exhaustive game-tree solver on every small row.

use stonegame::core::exhaustive::{Exhaustive, after, all_rows};
use stonegame::core::tables::Tables;
use stonegame::core::{ValidRow, Variant, analyze, bot_move, first_player_wins, winning_moves};

fn valid(piles: &[u64]) -> ValidRow<'_> {
    ValidRow::new(piles, usize::MAX).unwrap()
}

#[test]
fn verdicts_match_exhaustive_up_to_6_piles_of_1_to_5() {
    let mut truth = Exhaustive::new(Variant::TwoEnds);
    let rows = all_rows(6, 5);
    assert_eq!(rows.len(), 19_530);
    let mut losses = 0;
    for row in &rows {
        let want = truth.wins(row);
        losses += usize::from(!want);
        let row = valid(row);
        assert_eq!(
            first_player_wins(&row, Variant::TwoEnds),
            want,
            "row {row:?}"
        );
        assert_eq!(
            Tables::new(&row).first_player_wins(),
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
    for piles in all_rows(5, 4) {
        let row = valid(&piles);
        let mut want = truth.winning_moves(&piles);
        let mut got = winning_moves(&row, Variant::TwoEnds);
        want.sort();
        got.sort();
        assert_eq!(got, want, "row {row:?}");
        let a = analyze(&row, Variant::TwoEnds);
        assert_eq!(a.first_player_wins, !want.is_empty());
        // best_move is legal and, when the row is won, winning; otherwise
        // it is the bot's move.
        let next = a.best_move.apply(&row).expect("a legal move");
        let next = next.as_deref().unwrap_or(&[]);
        assert_eq!(next, &after(&piles, a.best_move)[..]);
        assert_eq!(
            next.iter().sum::<u64>() + a.best_move.take,
            row.iter().sum::<u64>()
        );
        if a.first_player_wins {
            assert!(
                !truth.wins(next),
                "best move {:?} of {row:?} does not win",
                a.best_move
            );
        } else {
            assert_eq!(a.best_move, bot_move(&row, Variant::TwoEnds));
        }
    }
}

#[test]
fn leftmost_matches_exhaustive_up_to_7_piles_of_1_to_3() {
    let mut truth = Exhaustive::new(Variant::Leftmost);
    for piles in all_rows(7, 3) {
        let want = truth.wins(&piles);
        let row = valid(&piles);
        assert_eq!(
            first_player_wins(&row, Variant::Leftmost),
            want,
            "row {row:?}"
        );
        let mut want_moves = truth.winning_moves(&piles);
        let mut got = winning_moves(&row, Variant::Leftmost);
        want_moves.sort();
        got.sort();
        assert_eq!(got, want_moves, "row {row:?}");
    }
}
