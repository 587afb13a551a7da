//! The remoteness over real gRPC (issue 31 §2): SuggestMove's
//! `remoteness`, `remoteness_after` and `move_ranges` against the core's
//! game-tree truth on every small row, a row near 2^63 whose remoteness
//! passes 2^64 − 1, Solve's `want_remoteness`, and what admission charges
//! for it.

use crate::common;

use std::collections::HashMap;
use std::num::NonZeroU64;

use futures::StreamExt;
use stonegame::core::exhaustive::all_rows;
use stonegame::core::remoteness::{ExhaustiveRemoteness, MoveRange, remoteness, solve_with};
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
    // A budget of 10^6 cell updates at the default factor of 3,000: the
    // verdict of a row of 1,000 piles (499,500 cells) fits; its remoteness
    // (1,499,000,000 more) never does, and the refusal says which row
    // would.
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
        "1498999500 cell updates",
        "limits.remoteness_cell_factor = 3000",
        "limits.max_cells_in_flight",
        "has 26 piles",
    ] {
        assert!(e.message().contains(words), "{words}: {}", e.message());
    }
    // The leftmost remoteness is O(n): it fits.
    client
        .suggest_move(suggest_request(&row, Variant::Leftmost, true))
        .await
        .unwrap();
    // The largest row the refusal names fits; one more pile does not.
    let fits = vec![5u64; 26];
    client
        .suggest_move(suggest_request(&fits, Variant::TwoEnds, true))
        .await
        .unwrap();
    let e = client
        .suggest_move(suggest_request(&[5; 27], Variant::TwoEnds, true))
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

/// A remoteness of about a minute (n = 20,000) stops within a layer of the
/// DP when its deadline passes or its stream is dropped: the cells come back
/// and the pool is free for the next request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_remoteness_stops_when_its_client_goes() {
    let server = common::server(|c| {
        c.limits.remoteness_cell_factor = NonZeroU64::new(1).unwrap();
    })
    .await;
    let mut client = common::client(&server).await;
    let row: Vec<u64> = (0..20_000u64).map(|i| 1 + (i * 7919) % 1_000_003).collect();
    let mut request = tonic::Request::new(suggest_request(&row, Variant::TwoEnds, true));
    request.set_timeout(std::time::Duration::from_millis(300));
    let started = std::time::Instant::now();
    let e = client.suggest_move(request).await.unwrap_err();
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
    // Far less than the minute either would have taken.
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    let r = client
        .suggest_move(suggest_request(&[1, 2], Variant::TwoEnds, true))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(plies(&r.remoteness), 3);
}
