//! The remoteness over real gRPC (issue 31 §2, §3): SuggestMove's
//! `remoteness`, `remoteness_after` and `move_ranges` against the core's
//! game-tree truth on every small row, a row near 2^63 whose remoteness
//! passes 2^64 − 1, Solve's `want_remoteness`, and what admission charges
//! for it; the remoteness of every position and move of Play and PlayStep
//! games with analysis against the same truth, across resumed turns, and
//! none above `limits.analysis_remoteness_max_piles`.

use crate::common;

use std::collections::HashMap;
use std::num::NonZeroU64;

use futures::StreamExt;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::exhaustive::{after, all_rows};
use stonegame::core::game::TEMPO_MAX_PILES;
use stonegame::core::moves::legal_moves;
use stonegame::core::remoteness::{
    ExhaustiveRemoteness, MoveRange, after_move, best_move, remoteness, solve_with,
};
use stonegame::core::{MAX_PILE, Move, Never, Side, Variant};
use stonegame::service::pb;
use stonegame::wire::convert::remoteness_from_wire;
use tonic::Code;

fn plies(r: &Option<pb::Remoteness>) -> u128 {
    remoteness_from_wire(r.as_ref().expect("a remoteness")).expect("a decimal remoteness")
}

fn suggest_request(piles: &[u64], variant: Variant, want: bool) -> pb::SuggestMoveRequest {
    pb::SuggestMoveRequest {
        piles: piles.to_vec(),
        variant: pb::Variant::from(variant) as i32,
        want_remoteness: want,
        ..Default::default()
    }
}

/// Every move a range holds, with the remoteness it leaves.
fn expand(r: &MoveRange) -> impl Iterator<Item = ((Side, u64), u128)> + '_ {
    (r.left_min..=r.left_max).map(move |left| ((r.side, left), r.remoteness_at(left)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_remoteness_matches_the_game_tree_on_all_small_rows() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = ExhaustiveRemoteness::new(variant);
        for row in all_rows(4, 4) {
            let r = client
                .suggest_move(suggest_request(&row, variant, true))
                .await
                .unwrap()
                .into_inner();
            let what = format!("{variant} {row:?}");
            let want = u128::from(truth.remoteness(&row));
            assert_eq!(plies(&r.remoteness), want, "{what}");
            assert_eq!(r.mover_wins, want % 2 == 1, "{what}");
            // Every legal move, exactly once, with the remoteness it leaves.
            let children: HashMap<(Side, u64), u128> = truth
                .children(&row)
                .into_iter()
                .map(|(m, r)| ((m.side, m.remaining), u128::from(r)))
                .collect();
            let ranges: Vec<MoveRange> = r
                .move_ranges
                .iter()
                .map(|m| MoveRange::try_from(m).unwrap())
                .collect();
            let mut seen = HashMap::new();
            for range in &ranges {
                assert!(range.left_min <= range.left_max, "{what}: {range:?}");
                // The DP's slopes (docs/service.md, "Remoteness").
                assert!(matches!(range.slope, 0 | 2), "{what}: {range:?}");
                for (key, plies) in expand(range) {
                    assert_eq!(range.mover_wins, plies % 2 == 0, "{what}: {range:?}");
                    assert!(seen.insert(key, plies).is_none(), "{what}: {key:?} twice");
                }
            }
            assert_eq!(seen, children, "{what}");
            // The order is the core's, best first: the first range holds a
            // fastest win (or a longest loss).
            let Ok(core) = solve_with(&common::valid(&row), variant, &Never);
            assert_eq!(ranges, core.ranges, "{what}");
            let best = ranges[0].best().1;
            let optimal = if r.mover_wins {
                children.values().filter(|r| *r % 2 == 0).min()
            } else {
                children.values().max()
            };
            assert_eq!(Some(&best), optimal, "{what}");
            assert_eq!(best + 1, want, "{what}");
            // The moves listed carry the remoteness they leave.
            let listed = r.winning_moves.iter().chain(r.chosen.as_ref());
            let mut count = 0;
            for m in listed {
                let mv = Move::try_from(m).unwrap();
                assert_eq!(
                    plies(&m.remoteness_after),
                    children[&(mv.side, mv.remaining)],
                    "{what}: {mv}"
                );
                count += 1;
            }
            assert_eq!(count, r.winning_moves.len() + 1, "{what}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_want_remoteness_nothing_is_computed() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let r = client
        .suggest_move(suggest_request(&[3, 1, 9, 4], Variant::TwoEnds, false))
        .await
        .unwrap()
        .into_inner();
    assert!(r.remoteness.is_none() && r.move_ranges.is_empty(), "{r:?}");
    assert!(r.chosen.unwrap().remoteness_after.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remoteness_past_u64_is_exact() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let a = MAX_PILE;
    let row = vec![a, a - 1, a - 2, a - 3, a - 4, a];
    let want = remoteness(&common::valid(&row), Variant::TwoEnds);
    assert!(want > u128::from(u64::MAX), "{want}");
    let r = client
        .suggest_move(suggest_request(&row, Variant::TwoEnds, true))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.remoteness.as_ref().unwrap().plies, want.to_string());
    assert_eq!(r.mover_wins, want % 2 == 1);
    let Ok(core) = solve_with(&common::valid(&row), Variant::TwoEnds, &Never);
    let ranges: Vec<MoveRange> = r
        .move_ranges
        .iter()
        .map(|m| MoveRange::try_from(m).unwrap())
        .collect();
    assert_eq!(ranges, core.ranges);
    assert!(
        ranges
            .iter()
            .any(|m| m.remoteness_at_min > u128::from(u64::MAX))
    );
    assert!(
        ranges.iter().all(|m| matches!(m.slope, 0 | 2)),
        "{ranges:?}"
    );
    assert!(ranges.iter().any(|m| m.slope == 2), "{ranges:?}");
    // The first range's best move leaves one less than the position's.
    assert_eq!(ranges[0].best().1 + 1, want);
    // Solve says the same.
    let cases = vec![common::case("big", row, pb::Variant::TwoEnds)];
    let mut responses = client
        .solve(futures::stream::iter(vec![pb::SolveRequest {
            cases,
            want_remoteness: true,
        }]))
        .await
        .unwrap()
        .into_inner();
    let got = responses.next().await.unwrap().unwrap();
    assert_eq!(
        got.results[0].remoteness.as_ref().unwrap().plies,
        want.to_string()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solve_adds_the_remoteness_when_asked() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let rows: Vec<(Vec<u64>, Variant)> = all_rows(3, 3)
        .into_iter()
        .flat_map(|r| [(r.clone(), Variant::TwoEnds), (r, Variant::Leftmost)])
        .chain([(vec![1_000_000_007; 300], Variant::TwoEnds)])
        .collect();
    let mut cases: Vec<pb::Case> = rows
        .iter()
        .enumerate()
        .map(|(i, (row, v))| common::case(format!("c{i}"), row.clone(), pb::Variant::from(*v)))
        .collect();
    // An invalid case keeps its error and gets no remoteness.
    cases.push(common::case("bad", vec![1, 0], pb::Variant::TwoEnds));
    let batches = vec![
        pb::SolveRequest {
            cases: cases.clone(),
            want_remoteness: true,
        },
        pb::SolveRequest {
            cases,
            want_remoteness: false,
        },
    ];
    let mut responses = client
        .solve(futures::stream::iter(batches))
        .await
        .unwrap()
        .into_inner();
    let with = responses.next().await.unwrap().unwrap();
    let without = responses.next().await.unwrap().unwrap();
    let mut truth = [
        ExhaustiveRemoteness::new(Variant::TwoEnds),
        ExhaustiveRemoteness::new(Variant::Leftmost),
    ];
    for (i, (row, variant)) in rows.iter().enumerate() {
        let got = &with.results[i];
        let want = if row.len() > 3 {
            remoteness(&common::valid(row), *variant)
        } else {
            u128::from(truth[usize::from(*variant == Variant::Leftmost)].remoteness(row))
        };
        assert_eq!(plies(&got.remoteness), want, "{variant} {row:?}");
        assert_eq!(got.first_player_wins, want % 2 == 1, "{variant} {row:?}");
        assert!(without.results[i].remoteness.is_none());
        assert_eq!(without.results[i].first_player_wins, got.first_player_wins);
    }
    let bad = with.results.last().unwrap();
    assert!(bad.error.is_some() && bad.remoteness.is_none(), "{bad:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admission_charges_the_factor_and_refuses_clearly() {
    // A budget of 10^6 cell updates at the default factor of 12: the
    // verdict of a row of 1,000 piles (499,500 cells) fits; its remoteness
    // (5,994,000 more) never does, and the refusal says which row would.
    let server = common::server(|c| {
        c.limits.max_cells_in_flight = NonZeroU64::new(1_000_000).unwrap();
    })
    .await;
    let mut client = common::client(&server).await;
    let row = vec![5u64; 1000];
    client
        .suggest_move(suggest_request(&row, Variant::TwoEnds, false))
        .await
        .unwrap();
    let e = client
        .suggest_move(suggest_request(&row, Variant::TwoEnds, true))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    for words in [
        "want_remoteness",
        "6493500 cell updates",
        "limits.remoteness_cell_factor = 12",
        "limits.max_cells_in_flight",
        "has 392 piles",
    ] {
        assert!(e.message().contains(words), "{words}: {}", e.message());
    }
    // The leftmost remoteness is O(n): it fits.
    client
        .suggest_move(suggest_request(&row, Variant::Leftmost, true))
        .await
        .unwrap();
    // The largest row the refusal names fits; one more pile does not.
    let fits = vec![5u64; 392];
    client
        .suggest_move(suggest_request(&fits, Variant::TwoEnds, true))
        .await
        .unwrap();
    let e = client
        .suggest_move(suggest_request(&[5; 393], Variant::TwoEnds, true))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    // Solve: the same charge per batch.
    let mut responses = client
        .solve(futures::stream::iter(vec![pb::SolveRequest {
            cases: vec![common::case("c", row.clone(), pb::Variant::TwoEnds)],
            want_remoteness: true,
        }]))
        .await
        .unwrap()
        .into_inner();
    let e = responses.next().await.unwrap().unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted, "{e:?}");
    assert!(
        e.message().contains("this batch with want_remoteness"),
        "{}",
        e.message()
    );
    // A smaller factor lets the row in.
    let server = common::server(|c| {
        c.limits.max_cells_in_flight = NonZeroU64::new(1_000_000).unwrap();
        c.limits.remoteness_cell_factor = NonZeroU64::new(1).unwrap();
    })
    .await;
    let mut client = common::client(&server).await;
    let r = client
        .suggest_move(suggest_request(&row, Variant::TwoEnds, true))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        plies(&r.remoteness),
        remoteness(&common::valid(&row), Variant::TwoEnds)
    );
}

/// The remoteness of the largest row (200,000 piles, about ten seconds)
/// is admitted with the default budget, and stops within a layer block
/// when its deadline passes or its stream is dropped: the cells come back
/// and the pool is free for the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_largest_remoteness_is_admitted_and_stops_when_its_client_goes() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let row: Vec<u64> = (0..200_000u64)
        .map(|i| 1 + (i * 7919) % 1_000_003)
        .collect();
    let mut request = tonic::Request::new(suggest_request(&row, Variant::TwoEnds, true));
    request.set_timeout(std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    let e = client.suggest_move(request).await.unwrap_err();
    // Not RESOURCE_EXHAUSTED: admitted, then stopped.
    assert!(
        matches!(e.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{e:?}"
    );
    let budget = std::sync::Arc::clone(&server.state.budget);
    common::eventually("the cells come back", || budget.in_flight() == 0).await;
    // Solve: the stream dropped mid-batch.
    let mut responses = client
        .solve(futures::stream::iter(vec![pb::SolveRequest {
            cases: vec![common::case("long", row, pb::Variant::TwoEnds)],
            want_remoteness: true,
        }]))
        .await
        .unwrap()
        .into_inner();
    common::eventually("the batch is admitted", || budget.in_flight() > 0).await;
    let _ = tokio::time::timeout(std::time::Duration::from_millis(200), responses.next()).await;
    drop(responses);
    common::eventually("the batch's cells come back", || budget.in_flight() == 0).await;
    // Far less than the time either would have taken.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    let r = client
        .suggest_move(suggest_request(&[1, 2], Variant::TwoEnds, true))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(plies(&r.remoteness), 3);
}

fn maybe_plies(r: &Option<pb::Remoteness>) -> Option<u128> {
    r.as_ref()
        .map(|r| remoteness_from_wire(r).expect("a decimal remoteness"))
}

/// The live row of a GameState on `row` (empty once over).
fn live(row: &[u64], s: &pb::GameState) -> Vec<u64> {
    if s.left_size == 0 {
        return Vec::new();
    }
    let mut out = row[s.first_pile as usize..=s.last_pile as usize].to_vec();
    out[0] = s.left_size;
    let len = out.len();
    out[len - 1] = s.right_size;
    out
}

/// Checks the remoteness of a GameState of a game with analysis against
/// the game tree, `prev` being the previous state's (`None`: it had
/// none); returns this state's. Positions of more than `bound` live piles
/// must carry none.
fn check_state(
    truth: &mut ExhaustiveRemoteness,
    row: &[u64],
    s: &pb::GameState,
    prev: Option<u128>,
    bound: usize,
) -> Option<u128> {
    let now = live(row, s);
    let what = format!("{row:?} at ply {} ({now:?})", s.ply);
    let want = u128::from(truth.remoteness(&now));
    // The verdict is there whatever the bound.
    assert_eq!(s.mover_wins, want % 2 == 1, "{what}");
    let got = maybe_plies(&s.remoteness);
    let last = s.last_move.as_ref();
    let last_after = last.map(|l| maybe_plies(&l.r#move.as_ref().unwrap().remoteness_after));
    if now.len() > bound {
        assert_eq!(got, None, "{what}: above the bound");
        assert!(
            s.winning_moves.iter().all(|m| m.remoteness_after.is_none()),
            "{what}"
        );
        assert_eq!(last_after, last.map(|_| None), "{what}");
    } else {
        assert_eq!(got, Some(want), "{what}");
        for m in &s.winning_moves {
            let child = after(&now, Move::try_from(m).unwrap());
            let r = u128::from(truth.remoteness(&child));
            assert_eq!(maybe_plies(&m.remoteness_after), Some(r), "{what}: {m:?}");
            assert_eq!(r % 2, 0, "{what}: a winning move leaves a lost position");
        }
        // The move played left this position.
        assert_eq!(last_after, last.map(|_| Some(want)), "{what}");
    }
    if let Some(last) = last {
        assert_eq!(maybe_plies(&last.remoteness_before), prev, "{what}");
        if let Some(before) = prev {
            // A blunder turns a win (odd) into a win for the opponent (odd).
            let blunder = before % 2 == 1 && want % 2 == 1;
            assert_eq!(last.blunder, blunder, "{what}: {last:?}");
        }
        if last.blunder && got.is_some() {
            assert_eq!(want % 2, 1, "{what}: a blunder's remoteness_after is odd");
        }
    }
    got
}

fn start_game(row: &[u64], variant: Variant, seat: pb::Seat, analysis: bool) -> pb::StartGame {
    pb::StartGame {
        piles: row.to_vec(),
        variant: pb::Variant::from(variant) as i32,
        client_seat: seat as i32,
        analysis,
        ..Default::default()
    }
}

/// The events of one PlayStep call.
async fn step(
    client: &mut stonegame::service::pb::stone_game_client::StoneGameClient<
        tonic::transport::Channel,
    >,
    step: pb::play_step_request::Step,
) -> Vec<pb::play_event::Event> {
    let mut rx = client
        .play_step(pb::PlayStepRequest { step: Some(step) })
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while let Some(event) = rx.message().await.unwrap() {
        out.push(event.event.expect("an event"));
    }
    out
}

/// Plays a game on `row` by PlayStep calls, the client (SEAT_BOTH) making
/// random legal moves from `rng`, every turn resumed from the last token;
/// every GameState checked with [`check_state`].
async fn referee_game_by_steps(
    client: &mut stonegame::service::pb::stone_game_client::StoneGameClient<
        tonic::transport::Channel,
    >,
    truth: &mut ExhaustiveRemoteness,
    row: &[u64],
    variant: Variant,
    rng: &mut ChaCha8Rng,
    bound: usize,
) {
    use pb::play_event::Event;
    let first = step(
        client,
        pb::play_step_request::Step::Start(start_game(row, variant, pb::Seat::Both, true)),
    )
    .await;
    let [Event::State(state)] = &first[..] else {
        panic!("{row:?}: one GameState, got {first:?}");
    };
    let mut state = state.clone();
    let mut prev = check_state(truth, row, &state, None, bound);
    loop {
        let now = live(row, &state);
        let moves = legal_moves(&now, variant);
        let m = moves[rng.random_range(0..moves.len())];
        let events = step(
            client,
            pb::play_step_request::Step::Turn(pb::Turn {
                state_token: state.state_token.clone(),
                piles: row.to_vec(),
                action: Some(pb::turn::Action::Move(pb::SubmitMove {
                    ply: state.ply,
                    r#move: Some(pb::Move {
                        side: pb::Side::from(m.side) as i32,
                        take: m.take,
                        ..Default::default()
                    }),
                })),
                ..Default::default()
            }),
        )
        .await;
        let Some(Event::State(next)) = events.first() else {
            panic!("{row:?}: a GameState first, got {events:?}");
        };
        state = next.clone();
        // Across the resumed turn: the previous call's position.
        prev = check_state(truth, row, &state, prev, bound);
        if state.left_size == 0 {
            assert!(matches!(events.get(1), Some(Event::Over(_))), "{events:?}");
            return;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_analysis_remoteness_matches_the_game_tree() {
    use pb::play_event::Event;
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = ExhaustiveRemoteness::new(variant);
        for row in all_rows(4, 3) {
            // Bot against bot on a Play stream: every state is the truth,
            // and the perfect bot (tempo) plays exactly the remoteness.
            let (tx, rx) = tokio::sync::mpsc::channel(1);
            tx.send(pb::PlayRequest {
                action: Some(pb::play_request::Action::Start(start_game(
                    &row,
                    variant,
                    pb::Seat::None,
                    true,
                ))),
            })
            .await
            .unwrap();
            let mut events = client
                .play(tokio_stream::wrappers::ReceiverStream::new(rx))
                .await
                .unwrap()
                .into_inner();
            let mut prev = None;
            let plies = loop {
                match events.message().await.unwrap().unwrap().event.unwrap() {
                    Event::State(s) => prev = check_state(&mut truth, &row, &s, prev, 128),
                    Event::Over(o) => break o.plies,
                    other => panic!("{other:?}"),
                }
            };
            drop(tx);
            assert_eq!(
                u128::from(plies),
                u128::from(truth.remoteness(&row)),
                "{variant} {row:?}"
            );
            // The client referees random moves by PlayStep turns.
            referee_game_by_steps(&mut client, &mut truth, &row, variant, &mut rng, 128).await;
        }
    }
    // Without analysis: no remoteness anywhere.
    let events = step(
        &mut client,
        pb::play_step_request::Step::Start(start_game(
            &[3, 1, 2],
            Variant::TwoEnds,
            pb::Seat::Second,
            false,
        )),
    )
    .await;
    let mut states = 0;
    for event in events {
        if let Event::State(s) = event {
            states += 1;
            assert_eq!(s.remoteness, None);
            if let Some(last) = s.last_move {
                assert_eq!(last.remoteness_before, None);
                assert_eq!(last.r#move.unwrap().remoteness_after, None);
            }
        }
    }
    assert_eq!(states, 2, "the start and the bot's move");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_above_the_analysis_bound_carry_no_remoteness() {
    let server = common::server(|c| c.limits.analysis_remoteness_max_piles = 2).await;
    let mut client = common::client(&server).await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = ExhaustiveRemoteness::new(variant);
        for row in [vec![3, 1, 2, 3, 1], vec![2, 2, 1, 3], vec![1, 3, 2]] {
            for _ in 0..4 {
                referee_game_by_steps(&mut client, &mut truth, &row, variant, &mut rng, 2).await;
            }
        }
    }
}

/// The remoteness a move of `row` should leave with tempo: in a won
/// position the smallest even child's, else the largest child's.
fn tempo_after(children: &[(Move, u32)], wins: bool) -> u32 {
    let even = children.iter().map(|c| c.1).filter(|r| r % 2 == 0);
    if wins {
        even.min().expect("a won position has a lost child")
    } else {
        children.iter().map(|c| c.1).max().expect("a move")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_chooses_the_tempo_move() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = ExhaustiveRemoteness::new(variant);
        for row in all_rows(4, 4) {
            let children = truth.children(&row);
            let wins = truth.remoteness(&row) % 2 == 1;
            let best = tempo_after(&children, wins);
            for want in [false, true] {
                let r = client
                    .suggest_move(suggest_request(&row, variant, want))
                    .await
                    .unwrap()
                    .into_inner();
                let what = format!("{variant} {row:?} want_remoteness {want}");
                let m = Move::try_from(r.chosen.as_ref().unwrap()).unwrap();
                let left = children.iter().find(|c| c.0 == m).expect("a legal move").1;
                assert_eq!(left, best, "{what}: {m}");
                // The tie-break of the core and of the game bot.
                assert_eq!(m, best_move(&common::valid(&row), variant), "{what}");
                let rule = if wins {
                    "fastest winning move"
                } else {
                    "resists longest"
                };
                assert!(r.explanation.contains(rule), "{what}: {}", r.explanation);
                assert!(
                    r.explanation.contains(&format!(
                        "in {})",
                        stonegame::core::remoteness::Plies(u128::from(left))
                    )),
                    "{what}: {}",
                    r.explanation
                );
                if want {
                    assert_eq!(plies(&r.chosen.unwrap().remoteness_after), u128::from(left));
                }
            }
        }
    }
    // Longer rows: at most TEMPO_MAX_PILES piles without want_remoteness
    // (128, the old bound, and far above it), any length with it; the
    // chosen move leaves the best remoteness of the move ranges.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for (n, want) in [
        (128, false),
        (300, false),
        (1_000, false),
        (TEMPO_MAX_PILES, false),
        (TEMPO_MAX_PILES + 72, true),
    ] {
        let rounds = if n > 1_000 { 2 } else { 3 };
        for _ in 0..rounds {
            let row: Vec<u64> = (0..n).map(|_| rng.random_range(1..=1_000)).collect();
            let r = client
                .suggest_move(suggest_request(&row, Variant::TwoEnds, want))
                .await
                .unwrap()
                .into_inner();
            let Ok(core) = solve_with(&common::valid(&row), Variant::TwoEnds, &Never);
            let m = Move::try_from(r.chosen.as_ref().unwrap()).unwrap();
            assert_eq!(
                m,
                best_move(&common::valid(&row), Variant::TwoEnds),
                "n = {n}"
            );
            let left = after_move(&core.ranges, n, &m).unwrap();
            assert_eq!(left, core.ranges[0].best().1, "n = {n}");
            let wins = core.remoteness % 2 == 1;
            let optimal = core
                .ranges
                .iter()
                .filter(|x| x.mover_wins == wins)
                .flat_map(|x| [x.remoteness_at(x.left_min), x.remoteness_at(x.left_max)]);
            let optimal = if wins { optimal.min() } else { optimal.max() };
            assert_eq!(Some(left), optimal, "n = {n}");
        }
    }
}

/// The chosen move of a SuggestMove at strength 1 without
/// `want_remoteness` on a row of `n` piles.
async fn chosen(
    client: &mut stonegame::service::pb::stone_game_client::StoneGameClient<
        tonic::transport::Channel,
    >,
    row: &[u64],
) -> Move {
    let r = client
        .suggest_move(suggest_request(row, Variant::TwoEnds, false))
        .await
        .unwrap()
        .into_inner();
    Move::try_from(r.chosen.as_ref().unwrap()).unwrap()
}

/// Above TEMPO_MAX_PILES the chosen move is the O(1) one (the first
/// winning move, or one stone from the larger end); on rows of 300 and
/// 1,000 piles whose tempo move differs from it, the tempo move, also when
/// the server's whole cell budget is smaller than its remoteness (charged
/// all of it: the move does not depend on the configuration).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_tempo_bound_is_a_constant() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let mut rng = ChaCha8Rng::seed_from_u64(4097);
    for _ in 0..2 {
        let row: Vec<u64> = (0..=TEMPO_MAX_PILES)
            .map(|_| rng.random_range(1..=1_000))
            .collect();
        let analysis = stonegame::core::analyze(&common::valid(&row), Variant::TwoEnds);
        assert_eq!(chosen(&mut client, &row).await, analysis.best_move);
    }
    // A budget of 6·10^5 cells: the verdict of 1,000 piles (499,500) fits,
    // the remoteness of 300 (44,850 × the factor, 20 by default) does not.
    let tiny = common::server(|c| {
        c.limits.max_cells_in_flight = NonZeroU64::new(600_000).unwrap();
    })
    .await;
    let mut tiny_client = common::client(&tiny).await;
    // Rows whose tempo move is not the O(1) move, won and lost.
    for n in [300, 1_000] {
        for won in [true, false] {
            let row = common::tempo_row(&mut rng, n, won);
            let best = best_move(&common::valid(&row), Variant::TwoEnds);
            assert_eq!(chosen(&mut tiny_client, &row).await, best, "n = {n}");
            assert_eq!(chosen(&mut client, &row).await, best, "n = {n}");
        }
    }
}

/// The perfect bot's moves (two-ends, strength 1) in games on `row` are
/// the core's `best_move` of each position: the first `plies` moves of a
/// bot-against-bot Play stream, then PlayStep calls where the bot moves
/// first and replies to `turns` random moves of the client.
async fn check_bot_tempo(
    server: &stonegame::service::RunningServer,
    client: &mut stonegame::service::pb::stone_game_client::StoneGameClient<
        tonic::transport::Channel,
    >,
    row: &[u64],
    analysis: bool,
    plies: usize,
    turns: usize,
    rng: &mut ChaCha8Rng,
) {
    use pb::play_event::Event;
    let variant = Variant::TwoEnds;
    let what = format!("n = {}, analysis {analysis}", row.len());
    let bot_played = |before: &pb::GameState, after: &pb::GameState| {
        let last = after.last_move.as_ref().expect("a move");
        let m = Move::try_from(last.r#move.as_ref().unwrap()).unwrap();
        let now = live(row, before);
        let best = best_move(&common::valid(&now), variant);
        assert_eq!(m, best, "{what}: the bot at ply {}", before.ply);
    };
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tx.send(pb::PlayRequest {
        action: Some(pb::play_request::Action::Start(start_game(
            row,
            variant,
            pb::Seat::None,
            analysis,
        ))),
    })
    .await
    .unwrap();
    let mut events = client
        .play(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let state = |e: Option<Event>| match e {
        Some(Event::State(s)) => s,
        other => panic!("{what}: a GameState, got {other:?}"),
    };
    let mut prev = state(events.message().await.unwrap().unwrap().event);
    for _ in 0..plies {
        let next = state(events.message().await.unwrap().unwrap().event);
        bot_played(&prev, &next);
        prev = next;
    }
    drop((tx, events));
    // The game goes on until the server sees its client gone (its solves
    // may hold the whole of a small budget): wait for its end.
    common::eventually("the bot-against-bot game ends", || {
        server.metrics.play_sessions() == 0
    })
    .await;
    // PlayStep: the bot (first seat) moves, the client replies at random.
    let first = step(
        client,
        pb::play_step_request::Step::Start(start_game(row, variant, pb::Seat::Second, analysis)),
    )
    .await;
    let [Event::State(s0), Event::State(s1)] = &first[..] else {
        panic!("{what}: the start and the bot's move, got {first:?}");
    };
    bot_played(s0, s1);
    let mut at = s1.clone();
    for _ in 0..turns {
        // A random legal move (piles may be large: not listed).
        let now = live(row, &at);
        let (side, pile) = if now.len() > 1 && rng.random() {
            (Side::Right, now[now.len() - 1])
        } else {
            (Side::Left, now[0])
        };
        let m = Move::to_remaining(side, pile, pile - rng.random_range(1..=pile));
        let events = step(
            client,
            pb::play_step_request::Step::Turn(pb::Turn {
                state_token: at.state_token.clone(),
                piles: row.to_vec(),
                action: Some(pb::turn::Action::Move(pb::SubmitMove {
                    ply: at.ply,
                    r#move: Some(pb::Move {
                        side: pb::Side::from(m.side) as i32,
                        take: m.take,
                        ..Default::default()
                    }),
                })),
                ..Default::default()
            }),
        )
        .await;
        let [Event::State(client_moved), Event::State(bot_moved)] = &events[..] else {
            panic!("{what}: the client's move and the bot's, got {events:?}");
        };
        bot_played(client_moved, bot_moved);
        at = bot_moved.clone();
    }
}

/// Play and PlayStep give the perfect bot its tempo far above the old
/// bound of 128 live piles: on random rows of 300 and 1,000 piles (whose
/// first tempo move is not the O(1) move, won and lost, and of piles up to
/// 10^9) the bot's moves are the core's `best_move`, with
/// analysis (the analysis's solve when the position is within
/// `analysis_remoteness_max_piles`, the bot's own above it) and without,
/// also when the server's whole cell budget is smaller than the solve.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_bot_has_tempo_on_long_rows() {
    let mut rng = ChaCha8Rng::seed_from_u64(300);
    let servers = [
        common::server(|_| {}).await,
        common::server(|c| c.limits.analysis_remoteness_max_piles = 1_000).await,
        // Smaller than the solve of 300 piles (see above).
        common::server(|c| {
            c.limits.max_cells_in_flight = NonZeroU64::new(600_000).unwrap();
        })
        .await,
    ];
    // Rows whose tempo move at the start is not the O(1) move (won and
    // lost), and rows of random piles up to 10^9.
    let mut rows = Vec::new();
    for n in [300, 1_000] {
        rows.push(common::tempo_row(&mut rng, n, true));
        rows.push(common::tempo_row(&mut rng, n, false));
        rows.push(
            (0..n)
                .map(|_| rng.random_range(1..=1_000_000_000))
                .collect(),
        );
    }
    for server in &servers {
        let mut client = common::client(server).await;
        for row in &rows {
            for analysis in [false, true] {
                check_bot_tempo(server, &mut client, row, analysis, 4, 2, &mut rng).await;
            }
        }
    }
}

/// The CPU time of this process so far, in ns (every thread's, from
/// `/proc/self/task/*/schedstat`; `None` off Linux): with other work on
/// the machine, wall-clock times overstate a solve.
fn process_cpu_ns() -> Option<u64> {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(total)
}

/// The per-ply cost of the remoteness of games with analysis (docs/play.md,
/// docs/configuration.md): one exact solve of the live row, timed in the
/// core, then the time per GameState of a bot-against-bot Play game with
/// analysis and without (the first 200 plies, 20 at 4,096, of a row of
/// random piles up to 10^9), at 64, 128, 256, 1,000 and 4,096 piles (the bot solves each
/// position for its tempo either way: with analysis it reads the
/// analysis's solve). Prints a table; asserts nothing about time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "figures, run by hand"]
async fn play_analysis_figures() {
    use pb::play_event::Event;
    use std::time::Instant;
    let server = common::server(|c| c.limits.analysis_remoteness_max_piles = 4_096).await;
    let mut client = common::client(&server).await;
    let mut rng = ChaCha8Rng::seed_from_u64(2009);
    println!(
        "| live piles | one solve (median of 9; mean CPU) | per state, analysis | per state, none |"
    );
    println!("|---|---|---|---|");
    for n in [64usize, 128, 256, 1_000, 4_096] {
        let row: Vec<u64> = (0..n)
            .map(|_| rng.random_range(1..=1_000_000_000))
            .collect();
        let cpu0 = process_cpu_ns();
        let mut solves: Vec<f64> = (0..9)
            .map(|_| {
                let t = Instant::now();
                let Ok(s) = solve_with(&common::valid(&row), Variant::TwoEnds, &Never);
                assert!(s.remoteness > 0);
                t.elapsed().as_secs_f64()
            })
            .collect();
        let cpu = process_cpu_ns()
            .zip(cpu0)
            .map(|(b, a)| (b - a) as f64 / 9e6);
        solves.sort_by(f64::total_cmp);
        let mut per_state = Vec::new();
        for analysis in [true, false] {
            let (tx, rx) = tokio::sync::mpsc::channel(1);
            let start = start_game(&row, Variant::TwoEnds, pb::Seat::None, analysis);
            tx.send(pb::PlayRequest {
                action: Some(pb::play_request::Action::Start(start)),
            })
            .await
            .unwrap();
            let mut events = client
                .play(tokio_stream::wrappers::ReceiverStream::new(rx))
                .await
                .unwrap()
                .into_inner();
            // The first state (the row's sweep) is not timed.
            events.message().await.unwrap().unwrap();
            // Fewer plies at 4,096: a Play stream whose client sends
            // nothing for transport.request_body_timeout (10 s) is cut.
            let plies = if n > 1_000 { 20 } else { 200 };
            let t = Instant::now();
            for _ in 0..plies {
                let Some(Event::State(s)) = events.message().await.unwrap().unwrap().event else {
                    panic!("a state");
                };
                assert_eq!(s.remoteness.is_some(), analysis);
            }
            per_state.push(t.elapsed().as_secs_f64() / f64::from(plies));
            drop(tx);
        }
        println!(
            "| {n} | {:.2} ms ({} CPU) | {:.2} ms | {:.2} ms |",
            solves[4] * 1e3,
            cpu.map_or("?".into(), |c| format!("{c:.2} ms")),
            per_state[0] * 1e3,
            per_state[1] * 1e3
        );
    }
}
