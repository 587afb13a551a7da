//! The game engine (`core::game`) against the exhaustive game-tree solver
//! on every small row and every position reachable on it, and against the
//! O(n²) tables on long rows played with a small stride (so that the cone
//! is recomputed hundreds of times per game); the bot, blunder flags,
//! legality errors, resume and state validation.
//!
//! `per_move_figures` (ignored) measures the figures of docs/play.md.

use std::collections::HashSet;
use std::sync::Arc;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::exhaustive::{Exhaustive, after, all_rows};
use stonegame::core::game::{
    Bot, Game, GameRow, GameState, MoveError, RowOptions, StateError, WhenLost,
};
use stonegame::core::moves::{Move, Side, legal_moves};
use stonegame::core::tables::{Tables, left_step, right_step};
use stonegame::core::{Cancelled, Never, ValidRow, Variant, analyze};

/// A valid row (panics on an invalid one).
fn vr(piles: &[u64]) -> ValidRow<'_> {
    ValidRow::new(piles, usize::MAX).expect("a valid row")
}

fn row(piles: &[u64], variant: Variant, opts: RowOptions) -> Arc<GameRow> {
    let Ok(row) = GameRow::with_options(&vr(piles), variant, opts, &Never);
    Arc::new(row)
}

/// The options tried on small rows: the default (one full table per game)
/// and kept layers every 1, 2 and 3 layers (cones of up to 3 layers).
fn small_options() -> Vec<RowOptions> {
    let strided = |stride| RowOptions {
        stride,
        full_table_max_piles: 0,
        kernel: None,
    };
    vec![RowOptions::default(), strided(1), strided(2), strided(3)]
}

/// Everything the engine says about the position of `game` equals the
/// game tree's: verdict, winning moves, blunder flag of every legal move,
/// the perfect bot's move, and the analysis.
fn check_position(game: &Game, ex: &mut Exhaustive) {
    let piles = game.piles_now();
    let variant = game.variant();
    let wins = ex.wins(&piles);
    let what = || format!("{variant} {:?} at {:?}", game.row().piles(), game.state());
    assert_eq!(game.mover_wins(), wins, "verdict of {piles:?}: {}", what());
    assert_eq!(
        game.winning_moves(),
        ex.winning_moves(&piles),
        "winning moves of {piles:?}: {}",
        what()
    );
    for m in legal_moves(&piles, variant) {
        let blunder = wins && ex.wins(&after(&piles, m));
        assert_eq!(game.is_blunder(m), blunder, "{m} in {piles:?}: {}", what());
    }
    if variant == Variant::TwoEnds && piles.len() == 1 {
        // Both ends name the one pile: taking it all from the right wins too.
        let right = Move::to_remaining(Side::Right, piles[0], 0);
        assert!(!game.is_blunder(right));
    }
    let a = game.analysis().expect("not over");
    assert_eq!(a.first_player_wins, wins);
    let bot = game.bot_move(&Bot::perfect()).expect("not over");
    if wins {
        assert!(!ex.wins(&after(&piles, bot)), "bot {bot} in {piles:?}");
    }
    // The bot plays with tempo (a fastest win, the longest resistance) on
    // short positions, the analysis's move on longer ones.
    if piles.len() <= stonegame::core::game::TEMPO_MAX_PILES {
        assert_eq!(
            bot,
            stonegame::core::remoteness::best_move(&vr(&piles), variant),
            "{piles:?}"
        );
    } else {
        assert_eq!(bot, a.best_move);
    }
    // The analysis is the core's analysis of the live row.
    assert_eq!(a, analyze(&vr(&piles), variant), "{}", what());
}

/// Visits every position reachable on `piles` (each state once), checks it,
/// plays every legal move from it (on a game resumed from its state, so
/// resume is exercised everywhere) and checks the resulting position.
fn visit_all(piles: &[u64], variant: Variant, opts: RowOptions, ex: &mut Exhaustive) -> usize {
    let row = row(piles, variant, opts);
    let mut seen = HashSet::new();
    let mut stack = vec![GameState::initial(&vr(piles))];
    while let Some(state) = stack.pop() {
        if !seen.insert(state) {
            continue;
        }
        let game = Game::resume(Arc::clone(&row), state).expect("reachable state");
        assert_eq!(game.state(), state);
        if game.is_over() {
            assert!(!game.mover_wins() && game.winning_moves().is_empty());
            assert_eq!(game.analysis(), None);
            continue;
        }
        check_position(&game, ex);
        let now = game.piles_now();
        for m in legal_moves(&now, variant) {
            let mut next = Game::resume(Arc::clone(&row), state).unwrap();
            let played = next.play(m.side, m.take).expect("legal");
            assert_eq!(played.mv, m);
            assert_eq!(next.piles_now(), after(&now, m));
            assert_eq!(next.ply(), state.ply + 1);
            assert_eq!(played.game_over, next.is_over());
            assert_eq!(played.blunder, game.is_blunder(m));
            stack.push(next.state());
        }
    }
    seen.len()
}

#[test]
fn every_position_of_every_small_two_ends_row_equals_the_game_tree() {
    let mut ex = Exhaustive::new(Variant::TwoEnds);
    let mut positions = 0;
    for piles in all_rows(4, 3) {
        for opts in small_options() {
            positions += visit_all(&piles, Variant::TwoEnds, opts, &mut ex);
        }
    }
    // Longer rows of 1–2 stones: interiors of up to 4 piles.
    for piles in all_rows(6, 2).into_iter().filter(|r| r.len() >= 5) {
        for opts in small_options() {
            positions += visit_all(&piles, Variant::TwoEnds, opts, &mut ex);
        }
    }
    println!("{positions} positions");
}

#[test]
fn every_position_of_every_small_leftmost_row_equals_the_game_tree() {
    let mut ex = Exhaustive::new(Variant::Leftmost);
    for piles in all_rows(6, 3) {
        visit_all(&piles, Variant::Leftmost, RowOptions::default(), &mut ex);
    }
}

/// The perfect bot never lets a won position go: whatever the opponent
/// plays, every position the bot moves in is won (two-ends rows of up to 4
/// piles of up to 4 stones, leftmost rows of up to 6 piles of up to 3).
#[test]
fn the_perfect_bot_never_loses_a_won_position() {
    for (variant, rows) in [
        (Variant::TwoEnds, all_rows(4, 4)),
        (Variant::Leftmost, all_rows(6, 3)),
    ] {
        let mut ex = Exhaustive::new(variant);
        for piles in rows {
            if !ex.wins(&piles) {
                continue;
            }
            let row = row(&piles, variant, RowOptions::default());
            let bot = Bot {
                strength: 1.0,
                seed: 5,
                when_lost: WhenLost::Shorten,
            };
            // Bot to move in every state on the stack.
            let mut stack = vec![GameState::initial(&vr(&piles))];
            let mut seen = HashSet::new();
            while let Some(state) = stack.pop() {
                if !seen.insert(state) {
                    continue;
                }
                let mut game = Game::resume(Arc::clone(&row), state).unwrap();
                assert!(ex.wins(&game.piles_now()), "{piles:?} {state:?}");
                let m = game.bot_move(&bot).unwrap();
                let played = game.play_move(m).unwrap();
                assert!(!played.blunder);
                if played.game_over {
                    continue;
                }
                let now = game.piles_now();
                for reply in legal_moves(&now, variant) {
                    let mut g = Game::resume(Arc::clone(&row), game.state()).unwrap();
                    if !g.play_move(reply).unwrap().game_over {
                        stack.push(g.state());
                    }
                }
            }
        }
    }
}

/// A player of a random game: the bot at some strength and policy
/// ([`WhenLost::Prolong`] only if `prolong`: with large piles it makes
/// games as long as the piles are large).
fn random_bot(rng: &mut ChaCha8Rng, prolong: bool) -> Bot {
    Bot {
        strength: [0.0, 0.5, 0.9, 1.0][rng.random_range(0..4)],
        seed: rng.random(),
        when_lost: if !prolong || rng.random() {
            WhenLost::Shorten
        } else {
            WhenLost::Prolong
        },
    }
}

/// The bot's move as it was before its tempo bound went from 128 to
/// `TEMPO_MAX_PILES` live piles: on longer positions, where the bot now
/// solves the live row (O(m²) a move: whole games of thousands of piles
/// would take minutes), the analysis's O(1) move, the bot's move above the
/// bound. For the tests of the engine along long games; the tempo has its
/// own tests.
fn quick_move(game: &Game, bot: &Bot) -> Move {
    let (first, last) = game.live();
    if last - first + 1 > 128 && game.bot_needs_tempo(bot) {
        game.analysis().expect("not over").best_move
    } else {
        game.bot_move(bot).expect("not over")
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random games on random small rows, played incrementally on one game
    /// (the cone reused from move to move), equal the game tree at every
    /// ply, for every option set.
    #[test]
    fn random_games_equal_the_game_tree(
        piles in prop::collection::vec(1u64..=5, 1..=9),
        leftmost in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let variant = if leftmost { Variant::Leftmost } else { Variant::TwoEnds };
        let mut ex = Exhaustive::new(variant);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for opts in small_options() {
            let mut game = Game::new(row(&piles, variant, opts));
            let bots = [random_bot(&mut rng, true), random_bot(&mut rng, true)];
            while !game.is_over() {
                check_position(&game, &mut ex);
                let m = game.bot_move(&bots[(game.ply() % 2) as usize]).unwrap();
                game.play_move(m).unwrap();
            }
        }
    }
}

/// Checks `game`'s position against the O(n²) tables of the original row
/// (an independent implementation of the recurrence).
fn check_against_tables(game: &Game, t: &Tables) {
    let (first, last) = game.live();
    let (x, y) = (game.left_size(), game.right_size());
    let (lose_left, lose_right) = if first == last {
        (0, 0)
    } else if last == first + 1 {
        (y, x)
    } else {
        let (p, q) = (first + 1, last - 1);
        let (l, r) = (t.left(p, q), t.right(p, q));
        (left_step(l, r, y), right_step(l, r, x))
    };
    let wins = first == last || x != lose_left;
    assert_eq!(game.mover_wins(), wins, "{:?}", game.state());
    let mut want = Vec::new();
    if first == last {
        want.push(Move::to_remaining(Side::Left, x, 0));
    } else {
        if lose_left < x {
            want.push(Move::to_remaining(Side::Left, x, lose_left));
        }
        if lose_right < y {
            want.push(Move::to_remaining(Side::Right, y, lose_right));
        }
    }
    assert_eq!(game.winning_moves(), want, "{:?}", game.state());
}

/// Rows of 2,000 to 5,000 piles from families with many ties.
fn long_row(rng: &mut ChaCha8Rng, n: usize) -> Vec<u64> {
    match rng.random_range(0..3) {
        0 => (0..n).map(|_| rng.random_range(1..=5)).collect(),
        1 => {
            let base = rng.random_range(1..1_000_000_000u64);
            (0..n).map(|_| base + rng.random_range(0..4)).collect()
        }
        _ => (0..n)
            .map(|_| rng.random_range(1..=1_000_000_000))
            .collect(),
    }
}

/// Long rows with strides of 7 to 300 (cones recomputed every 7 to 300
/// removals), whole games of bots of every kind, every ply against the
/// tables of the original row, the live row against the kernel now and
/// then, and the cone's cost within its bound.
#[test]
fn long_games_with_small_strides_equal_the_tables() {
    let mut rng = ChaCha8Rng::seed_from_u64(20_261_123);
    for (n, stride) in [(2_000, 7), (3_000, 64), (5_000, 300), (2_500, 1)] {
        let piles = long_row(&mut rng, n);
        let t = Tables::new(&vr(&piles));
        let opts = RowOptions {
            stride,
            full_table_max_piles: 0,
            kernel: None,
        };
        let row = row(&piles, Variant::TwoEnds, opts);
        assert_eq!(row.stride(), Some(stride));
        for _ in 0..3 {
            let mut game = Game::new(Arc::clone(&row));
            let bots = [random_bot(&mut rng, false), random_bot(&mut rng, false)];
            let mut removals = 0;
            while !game.is_over() {
                check_against_tables(&game, &t);
                if rng.random_range(0..400) == 0 {
                    let now = game.piles_now();
                    let a = analyze(&vr(&now), Variant::TwoEnds);
                    assert_eq!(game.analysis().unwrap(), a);
                }
                let before = game.live();
                let m = quick_move(&game, &bots[(game.ply() % 2) as usize]);
                game.play_move(m).unwrap();
                removals += usize::from(game.live() != before);
            }
            assert!(removals >= n - 2);
            // One cone of at most (s + 1)(s + 2)/2 cells per s removals.
            let s = stride as u64;
            let bound = (n as u64 / s + 2) * (s + 1) * (s + 2) / 2;
            assert!(
                game.cone_cells() <= bound,
                "{} > {bound}",
                game.cone_cells()
            );
        }
    }
}

/// A game resumed from its state (through its bytes, on a freshly
/// prepared row) plays exactly the moves of the uninterrupted one.
#[test]
fn resume_equals_the_uninterrupted_game() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for round in 0..24 {
        let variant = if round % 3 == 2 {
            Variant::Leftmost
        } else {
            Variant::TwoEnds
        };
        let n = rng.random_range(1..=2_500);
        let mut piles = long_row(&mut rng, n.max(2_000));
        piles.truncate(n);
        let opts = RowOptions {
            stride: [1, 5, 50, 1024][round % 4],
            full_table_max_piles: [0, 1024][round % 2],
            kernel: None,
        };
        let bots = [random_bot(&mut rng, false), random_bot(&mut rng, false)];
        let mut game = Game::new(row(&piles, variant, opts));
        let stop_at = rng.random_range(0..2 * n as u64 + 2);
        let mut moves = Vec::new();
        while !game.is_over() && game.ply() < stop_at {
            let m = quick_move(&game, &bots[(game.ply() % 2) as usize]);
            moves.push(game.play_move(m).unwrap());
        }
        let bytes = game.state().to_bytes();
        let state = GameState::from_bytes(&bytes).unwrap();
        assert_eq!(state, game.state());
        let mut resumed = Game::resume(row(&piles, variant, opts), state).unwrap();
        // The perfect bot's tempo move (solved, at up to 2,500 live piles)
        // is the same on the resumed game.
        assert_eq!(
            resumed.bot_move(&Bot::perfect()),
            game.bot_move(&Bot::perfect())
        );
        while !game.is_over() {
            assert_eq!(resumed.state(), game.state());
            assert_eq!(resumed.analysis(), game.analysis());
            let m = quick_move(&game, &bots[(game.ply() % 2) as usize]);
            let r = quick_move(&resumed, &bots[(resumed.ply() % 2) as usize]);
            assert_eq!(r, m);
            assert_eq!(resumed.play_move(r).unwrap(), game.play_move(m).unwrap());
        }
        assert!(resumed.is_over());
        assert_eq!(resumed.state(), game.state());
    }
}

#[test]
fn illegal_moves_are_typed_errors_and_change_nothing() {
    let Ok(mut game) = Game::start(&vr(&[3, 1, 9, 4]), Variant::TwoEnds, &Never);
    assert!(!game.mover_wins());
    let state = game.state();
    assert_eq!(game.play(Side::Left, 0), Err(MoveError::TakeZero));
    let err = game.play(Side::Right, 5).unwrap_err();
    assert!(matches!(
        err,
        MoveError::TakeTooMany {
            take: 5,
            pile: 4,
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "cannot take 5 from the right pile: it holds 4"
    );
    assert_eq!(game.state(), state);
    // Any move from a lost position is no blunder.
    assert!(!game.play(Side::Right, 1).unwrap().blunder);
    // (3 1 9 3) is won; taking the 3 on the left is not the win.
    assert!(game.mover_wins());
    let p = game.play(Side::Left, 3).unwrap();
    assert!(p.blunder && !p.game_over);
    for (side, take) in [(Side::Left, 1), (Side::Right, 3), (Side::Right, 9)] {
        game.play(side, take).unwrap();
    }
    assert!(game.is_over());
    assert_eq!(game.play(Side::Left, 1), Err(MoveError::GameOver));
    assert_eq!(game.bot_move(&Bot::perfect()), None);
    assert_eq!(game.state().left_size, 0);

    let Ok(mut left) = Game::start(&vr(&[2, 1]), Variant::Leftmost, &Never);
    assert_eq!(left.play(Side::Right, 1), Err(MoveError::InvalidSide));
    // (1) alone wins, so the win leaves one stone on the 2.
    assert_eq!(
        left.winning_moves(),
        vec![Move::to_remaining(Side::Left, 2, 1)]
    );
    left.play(Side::Left, 2).unwrap();
    // One pile left: in the two-ends variant both sides name it.
    let Ok(mut one) = Game::start(&vr(&[2, 5]), Variant::TwoEnds, &Never);
    one.play(Side::Left, 2).unwrap();
    assert_eq!((one.left_size(), one.right_size()), (5, 5));
    assert!(one.play(Side::Right, 2).is_ok());
    assert_eq!((one.left_size(), one.right_size()), (3, 3));
    assert!(one.play(Side::Left, 3).unwrap().game_over);
}

/// The RPC keeps a row's layers in an `Arc` shared between games, and
/// games on whatever thread serves their stream.
#[test]
fn rows_are_shared_and_games_move_between_threads() {
    fn shared<T: Send + Sync>() {}
    fn movable<T: Send>() {}
    shared::<GameRow>();
    movable::<Game>();
}

#[test]
fn bad_states_are_typed_errors() {
    let piles = [3, 1, 9, 4];
    let row2 = row(&piles, Variant::TwoEnds, RowOptions::default());
    let rowl = row(&piles, Variant::Leftmost, RowOptions::default());
    let st = |first, last, left_size, right_size, ply| GameState {
        first,
        last,
        left_size,
        right_size,
        ply,
    };
    let resume = |row: &Arc<GameRow>, s| Game::resume(Arc::clone(row), s).map(|_| ());
    assert_eq!(resume(&row2, st(0, 3, 3, 4, 0)), Ok(()));
    assert_eq!(resume(&row2, st(1, 2, 1, 2, 7)), Ok(()));
    assert_eq!(resume(&row2, st(2, 2, 0, 0, 17)), Ok(()));
    assert!(matches!(
        resume(&row2, st(2, 4, 9, 4, 1)),
        Err(StateError::Interval { n: 4, .. })
    ));
    assert!(matches!(
        resume(&row2, st(3, 2, 9, 4, 1)),
        Err(StateError::Interval { .. })
    ));
    let e = resume(&row2, st(1, 3, 2, 4, 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the left pile (pile 2 of the row) cannot hold 2: it started with 1"
    );
    assert!(matches!(
        resume(&row2, st(0, 3, 3, 0, 1)),
        Err(StateError::EndSize { .. })
    ));
    assert!(matches!(
        resume(&row2, st(2, 2, 4, 5, 9)),
        Err(StateError::OnePile { left: 4, right: 5 })
    ));
    // Two piles gone and the right end reduced need at least 3 moves; the
    // 8 stones taken allow at most 8.
    assert_eq!(
        resume(&row2, st(1, 2, 1, 8, 2)),
        Err(StateError::Ply {
            ply: 2,
            min: 3,
            max: 8
        })
    );
    assert!(matches!(
        resume(&row2, st(0, 3, 3, 4, 1)),
        Err(StateError::Ply { min: 0, max: 0, .. })
    ));
    assert!(matches!(
        resume(&row2, st(2, 2, 0, 0, 18)),
        Err(StateError::Ply { max: 17, .. })
    ));
    assert_eq!(
        resume(&rowl, st(0, 2, 3, 9, 0)),
        Err(StateError::RightTouched)
    );
    assert_eq!(
        resume(&rowl, st(1, 3, 1, 3, 3)),
        Err(StateError::RightTouched)
    );
    assert_eq!(resume(&rowl, st(1, 3, 1, 4, 3)), Ok(()));
    assert_eq!(
        GameState::from_bytes(&[0; 39]),
        Err(StateError::Length {
            len: 39,
            expected: 40
        })
    );
}

/// The interactor's policy keeps the bot's moves in lost positions to at
/// most n · (log₂ max a + 1): each halves a pile at least.
#[test]
fn shorten_policy_halves_piles() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..20 {
        let n = rng.random_range(2..60);
        let piles: Vec<u64> = (0..n).map(|_| rng.random_range(1..=1u64 << 62)).collect();
        let Ok(mut game) = Game::start(&vr(&piles), Variant::TwoEnds, &Never);
        let bot = Bot {
            strength: 1.0,
            seed: rng.random(),
            when_lost: WhenLost::Shorten,
        };
        let mut lost_moves = 0;
        while !game.is_over() {
            let lost = !game.mover_wins();
            let m = game.bot_move(&bot).unwrap();
            if lost {
                let pile = match m.side {
                    Side::Left => game.left_size(),
                    Side::Right => game.right_size(),
                };
                assert!(m.take >= pile.div_ceil(2), "{m} of {pile}");
                lost_moves += 1;
            }
            game.play_move(m).unwrap();
        }
        assert!(lost_moves <= n * 63, "{lost_moves}");
    }
}

#[test]
fn cancelling_the_sweep() {
    let piles: Vec<u64> = (1..=3_000).collect();
    let opts = RowOptions {
        stride: 64,
        full_table_max_piles: 0,
        kernel: None,
    };
    let stop = || true;
    let cancelled = GameRow::with_options(&vr(&piles), Variant::TwoEnds, opts, &stop);
    assert_eq!(cancelled.err(), Some(Cancelled));
    // Nothing to sweep: never polled.
    assert!(GameRow::new(&vr(&piles[..500]), Variant::TwoEnds, &stop).is_ok());
}

/// CPU time this thread has run, from Linux's schedstat (`None`
/// elsewhere): unlike wall time, it leaves out the time the thread waited
/// for a core on a busy machine.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Figures for docs/play.md: start-up (the sweep and the first cone) and
/// the time per move after it, for several row lengths and strides, with
/// the kernel's verdict of the same row for comparison.
/// `STRIDES=256,1024 SIZES=1000,200000 cargo test --release --test
/// core_game per_move_figures -- --ignored --nocapture`.
#[test]
#[ignore]
fn per_move_figures() {
    use std::time::{Duration, Instant};
    let list = |var: &str, default: Vec<usize>| -> Vec<usize> {
        std::env::var(var)
            .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
            .unwrap_or(default)
    };
    let strides = list("STRIDES", vec![stonegame::core::game::DEFAULT_STRIDE]);
    let sizes = list("SIZES", vec![1_000, 200_000]);
    for &n in &sizes {
        let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
        let piles: Vec<u64> = (0..n)
            .map(|_| rng.random_range(1..=1_000_000_000))
            .collect();
        let t = Instant::now();
        let _ = stonegame::core::first_player_wins(&vr(&piles), Variant::TwoEnds);
        println!("n={n} kernel verdict {:.3}s", t.elapsed().as_secs_f64());
        for &stride in &strides {
            let opts = RowOptions {
                stride,
                ..RowOptions::default()
            };
            let t0 = Instant::now();
            let Ok(row) = GameRow::with_options(&vr(&piles), Variant::TwoEnds, opts, &Never);
            let row = Arc::new(row);
            let sweep = t0.elapsed();
            // Enough games for at least 600,000 moves (one at n = 200,000),
            // all started before the clock runs: the first cone is start-up.
            let games = (600_000 / (3 * n)).max(1);
            let t1 = Instant::now();
            let mut all: Vec<Game> = (0..games).map(|_| Game::new(Arc::clone(&row))).collect();
            let first_cone = t1.elapsed() / games as u32;
            // Both players: the bot at strength 0.5 (half its best moves,
            // half random ones), the interactor's policy when lost. Each
            // move: the analysis, the bot's choice, the move.
            let mut times: Vec<Duration> = Vec::new();
            let cpu0 = thread_cpu_ns();
            let t2 = Instant::now();
            for (g, game) in all.iter_mut().enumerate() {
                let bot = Bot {
                    strength: 0.5,
                    seed: g as u64,
                    when_lost: WhenLost::Shorten,
                };
                while !game.is_over() {
                    let t = Instant::now();
                    let _ = game.analysis();
                    let m = quick_move(game, &bot);
                    game.play_move(m).unwrap();
                    times.push(t.elapsed());
                }
            }
            let play = t2.elapsed();
            let cpu = cpu0.zip(thread_cpu_ns()).map(|(a, b)| b - a);
            let cone_cells: u64 = all.iter().map(Game::cone_cells).sum();
            times.sort();
            let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e6;
            println!(
                "n={n} stride={stride} kept_stride={:?} row_MB={:.2} game_KB={:.0} sweep={:.3}s \
                 first_cone={:.3}ms games={games} moves={} mean={:.0}ns cpu_mean={:.0}ns \
                 p50={:.2}us p99={:.2}us p99.9={:.2}us max={:.2}us cone_cells/removal={:.0}",
                row.stride(),
                row.heap_bytes() as f64 / 1e6,
                all[0].heap_bytes() as f64 / 1e3,
                sweep.as_secs_f64(),
                first_cone.as_secs_f64() * 1e3,
                times.len(),
                play.as_secs_f64() * 1e9 / times.len() as f64,
                cpu.map_or(f64::NAN, |c| c as f64 / times.len() as f64),
                pct(0.5),
                pct(0.99),
                pct(0.999),
                pct(1.0),
                cone_cells as f64 / (games * (n - 2)) as f64,
            );
        }
    }
}

/// The perfect bot plays with tempo: against itself, on every row of up to
/// 5 piles of up to 5 stones (both variants), the game lasts exactly the
/// row's remoteness (the game-tree truth): the winner wins as fast as it
/// can and the loser holds out as long as it can.
#[test]
fn the_perfect_bot_against_itself_plays_the_remoteness() {
    use stonegame::core::remoteness::ExhaustiveRemoteness;
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = ExhaustiveRemoteness::new(variant);
        for piles in all_rows(5, 5) {
            let mut game = Game::new(row(&piles, variant, RowOptions::default()));
            let bot = Bot::perfect();
            while let Some(m) = game.bot_move(&bot) {
                game.play_move(m).expect("a legal move");
            }
            assert_eq!(
                u64::from(truth.remoteness(&piles)),
                game.ply(),
                "{variant:?} {piles:?}"
            );
        }
    }
}

/// The bot given the position's move ranges (as the Play RPC's analysis
/// has them) plays the move it plays without them, at every strength and
/// in both lost-position policies, along whole games.
#[test]
fn the_bot_reading_known_ranges_plays_the_same_moves() {
    use stonegame::core::game::WhenLost;
    use stonegame::core::remoteness::move_ranges;
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        for piles in all_rows(4, 4) {
            for (strength, when_lost) in [
                (1.0, WhenLost::Prolong),
                (1.0, WhenLost::Shorten),
                (0.6, WhenLost::Prolong),
                (0.6, WhenLost::Shorten),
            ] {
                let bot = Bot {
                    strength,
                    seed: 5,
                    when_lost,
                };
                let mut game = Game::new(row(&piles, variant, RowOptions::default()));
                while !game.is_over() {
                    let now = game.piles_now();
                    let ranges = move_ranges(&ValidRow::new(&now, 64).unwrap(), variant);
                    let m = game.bot_move(&bot).unwrap();
                    assert_eq!(
                        game.bot_move_knowing(&bot, Some(&ranges)),
                        Some(m),
                        "{variant:?} {piles:?} at {now:?}"
                    );
                    game.play_move(m).unwrap();
                }
            }
        }
    }
}
