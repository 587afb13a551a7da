//! End to end over loopback: verdict parity with the offline solver, order
//! and ids with many batches in flight, SuggestMove against the exhaustive
//! solver, tables against the core's `Tables`, health and reflection.

use crate::common;

use std::collections::HashSet;
use std::num::NonZero;

use futures::StreamExt;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::client::Client;
use stonegame::core::exhaustive::{Exhaustive, all_rows};
use stonegame::core::planted::plant_loss;
use stonegame::core::remoteness::best_move;
use stonegame::core::tables::Tables;
use stonegame::core::{MAX_PILE, Move, Variant, analyze, first_player_wins};
use stonegame::service::pb;
use stonegame::wire::{LeWidth, piles_to_le};

use common::case;

/// Random rows, half of them planted losses, some with huge piles.
fn cases(count: usize, seed: u64) -> Vec<(Vec<u64>, Variant)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let n = rng.random_range(1..=80usize);
        let max = match rng.random_range(0..4) {
            0 => 3,
            1 => 30,
            2 => 1_000_000_000,
            _ => MAX_PILE - 1,
        };
        let tail: Vec<u64> = (0..n).map(|_| rng.random_range(1..=max)).collect();
        let variant = if rng.random_range(0..5) == 0 {
            Variant::Leftmost
        } else {
            Variant::TwoEnds
        };
        let row = if rng.random_bool(0.5) {
            match plant_loss(&common::valid(&tail)) {
                Some(row) => row.into_vec(),
                None => continue,
            }
        } else {
            tail
        };
        out.push((row, variant));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solve_matches_offline_solver_in_order_with_many_batches_in_flight() {
    let server = common::server(|_| {}).await;
    let mut client = Client::connect(&server.addr.to_string()).await.unwrap();
    let rows = cases(3000, 1);
    let sent: Vec<pb::Case> = rows
        .iter()
        .enumerate()
        .map(|(i, (row, v))| case(format!("case-{i}"), row.clone(), pb::Variant::from(*v)))
        .collect();
    // Batches of 37: 82 requests, all sent before any answer is read.
    let results = client.solve(sent, 37).await.unwrap();
    assert_eq!(results.len(), rows.len());
    let mut losses = 0;
    for (i, ((row, variant), got)) in rows.iter().zip(&results).enumerate() {
        assert_eq!(got.id, format!("case-{i}"));
        assert!(got.error.is_none(), "{got:?}");
        let want = first_player_wins(&common::valid(row), *variant);
        losses += usize::from(!want);
        assert_eq!(got.first_player_wins, want, "case {i}: {row:?}");
        let best = got
            .best_move
            .as_ref()
            .map(|m| Move::try_from(m).unwrap())
            .unwrap();
        let want_best = analyze(&common::valid(row), *variant).best_move;
        assert_eq!(best, want_best, "case {i}");
    }
    assert!(losses > 1000, "planted losses missing: {losses}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_streams_at_once_keep_their_own_order() {
    let server = common::server(|_| {}).await;
    let tasks = (0..4u64).map(|s| {
        let url = server.addr.to_string();
        tokio::spawn(async move {
            let mut client = Client::connect(&url).await.unwrap();
            let rows = cases(400, 100 + s);
            let sent: Vec<pb::Case> = rows
                .iter()
                .enumerate()
                .map(|(i, (r, v))| case(format!("{s}/{i}"), r.clone(), pb::Variant::from(*v)))
                .collect();
            let results = client.solve(sent, 5).await.unwrap();
            for (i, ((row, v), got)) in rows.iter().zip(results).enumerate() {
                assert_eq!(got.id, format!("{s}/{i}"));
                let want = first_player_wins(&common::valid(row), *v);
                assert_eq!(got.first_player_wins, want);
            }
        })
    });
    for t in futures::future::join_all(tasks).await {
        t.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_of_a_stream_run_in_parallel_but_bounded() {
    let server =
        common::server(|c| c.limits.max_batches_in_flight_per_stream = NonZero::new(2).unwrap())
            .await;
    let mut client = Client::connect(&server.addr.to_string()).await.unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    // A slow first batch, then many quick ones, all sent at once without
    // waiting for answers: the server holds at most 2 of them at a time.
    let mut rows: Vec<Vec<u64>> = vec![(0..30_000).map(|_| rng.random_range(1..=1000)).collect()];
    rows.extend((0..60).map(|_| (0..500).map(|_| rng.random_range(1..=1000)).collect()));
    let sent = rows
        .iter()
        .enumerate()
        .map(|(i, r)| case(i.to_string(), r.clone(), pb::Variant::TwoEnds))
        .collect();
    let results = client.solve(sent, 1).await.unwrap();
    for (i, (row, got)) in rows.iter().zip(&results).enumerate() {
        assert_eq!(got.id, i.to_string());
        assert_eq!(
            got.first_player_wins,
            first_player_wins(&common::valid(row), Variant::TwoEnds)
        );
    }
    let peak = server.metrics.batches_in_flight_peak();
    // The bound holds whatever the timing; that two were in flight at once
    // depends on it, so only "at least one" is certain.
    assert!((1..=2).contains(&peak), "{peak} batches in flight at once");
}

/// Solves `cases` on one stream of the generated client, batches of 50, as
/// given (no packing).
async fn solve_raw(
    server: &stonegame::service::RunningServer,
    cases: Vec<pb::Case>,
) -> Vec<pb::CaseResult> {
    let mut raw = common::client(server).await;
    let batches: Vec<pb::SolveRequest> = cases
        .chunks(50)
        .map(|c| pb::SolveRequest {
            cases: c.to_vec(),
            want_remoteness: false,
        })
        .collect();
    let mut stream = raw
        .solve(futures::stream::iter(batches))
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while let Some(r) = stream.message().await.unwrap() {
        out.extend(r.results);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn piles_and_piles_le_give_the_same_results() {
    let server = common::server(|c| c.limits.max_piles = NonZero::new(100).unwrap()).await;
    let mut rows: Vec<(Vec<u64>, Variant)> = cases(600, 31);
    // Invalid rows too: their errors differ only in the field they name.
    for bad in [vec![3, 0, 9], vec![1, u64::MAX], vec![1; 101], vec![]] {
        rows.push((bad.clone(), Variant::TwoEnds));
        rows.push((bad, Variant::Leftmost));
    }
    let as_piles: Vec<pb::Case> = rows
        .iter()
        .enumerate()
        .map(|(i, (r, v))| case(i.to_string(), r.clone(), pb::Variant::from(*v)))
        .collect();
    // `piles_le` in the narrowest width (what the client sends), in wider
    // widths (each row a different one, up to 8), and in 8-byte words with
    // `piles_le_width` left at 0.
    let as_narrowest: Vec<pb::Case> = rows
        .iter()
        .enumerate()
        .map(|(i, (r, v))| stonegame::client::solve_case(i.to_string(), r, *v))
        .collect();
    let as_wider: Vec<pb::Case> = rows
        .iter()
        .enumerate()
        .map(|(i, (r, v))| {
            let narrowest = LeWidth::narrowest(r).bytes();
            let width = LeWidth::new(narrowest + i % (9 - narrowest)).unwrap();
            pb::Case {
                id: i.to_string(),
                variant: pb::Variant::from(*v) as i32,
                piles_le: piles_to_le(r, width),
                piles_le_width: width.to_pb(),
                ..Default::default()
            }
        })
        .collect();
    let as_full: Vec<pb::Case> = rows
        .iter()
        .enumerate()
        .map(|(i, (r, v))| pb::Case {
            id: i.to_string(),
            variant: pb::Variant::from(*v) as i32,
            piles_le: piles_to_le(r, LeWidth::FULL),
            ..Default::default()
        })
        .collect();
    let widths: HashSet<u32> = as_narrowest
        .iter()
        .chain(&as_wider)
        .map(|c| c.piles_le_width)
        .collect();
    assert_eq!(widths.len(), 8, "every width is sent: {widths:?}");
    let want = solve_raw(&server, as_piles).await;
    assert_eq!(want.len(), rows.len());
    for le in [as_narrowest, as_wider, as_full] {
        assert!(le.iter().all(|c| c.piles.is_empty()));
        let got = solve_raw(&server, le).await;
        assert_eq!(got.len(), rows.len());
        let mut errors = 0;
        for (i, (x, mut y)) in want.iter().zip(got).enumerate() {
            if let (Some(ex), Some(ey)) = (&x.error, y.error.as_mut()) {
                errors += 1;
                // The empty row is reported on `piles` whichever field is empty.
                if ex.code != pb::CaseErrorCode::EmptyRow as i32 {
                    assert_eq!(ey.field, "piles_le", "case {i}");
                    assert_eq!(
                        ey.message.strip_prefix("piles_le: "),
                        ex.message.strip_prefix("piles: ")
                    );
                    ey.field = "piles".into();
                    ey.message = ex.message.clone();
                }
            }
            assert_eq!(x, &y, "case {i}: {:?}", rows[i]);
        }
        assert_eq!(errors, 8);
    }
}

fn moves(ms: &[pb::Move]) -> HashSet<Move> {
    ms.iter().map(|m| Move::try_from(m).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_matches_exhaustive_solver_on_all_small_rows() {
    let server = common::server(|_| {}).await;
    let mut client = Client::connect(&server.addr.to_string()).await.unwrap();
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        let mut truth = Exhaustive::new(variant);
        for row in all_rows(4, 4) {
            let r = client.suggest(row.clone(), variant, None, 0).await.unwrap();
            let wins = truth.wins(&row);
            let winning: HashSet<Move> = truth.winning_moves(&row).into_iter().collect();
            assert_eq!(r.mover_wins, wins, "{variant} {row:?}");
            assert_eq!(moves(&r.winning_moves), winning, "{variant} {row:?}");
            let chosen = r
                .chosen
                .as_ref()
                .map(|m| Move::try_from(m).unwrap())
                .unwrap();
            if wins {
                assert!(winning.contains(&chosen), "{variant} {row:?}: {chosen:?}");
            }
            // The tempo bot's move (a fastest win, or the longest resistance).
            let bot = best_move(&common::valid(&row), variant);
            assert_eq!(chosen, bot, "{variant} {row:?}");
            assert!(!r.explanation.is_empty());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weak_bots_play_legal_moves_reproducibly() {
    let server = common::server(|_| {}).await;
    let mut client = Client::connect(&server.addr.to_string()).await.unwrap();
    let row = vec![5, 2, 7, 3];
    let mut random_moves = HashSet::new();
    for seed in 0..200 {
        let a = client
            .suggest(row.clone(), Variant::TwoEnds, Some(0.0), seed)
            .await
            .unwrap();
        let b = client
            .suggest(row.clone(), Variant::TwoEnds, Some(0.0), seed)
            .await
            .unwrap();
        assert_eq!(a.chosen, b.chosen, "seed {seed}");
        let m = Move::try_from(a.chosen.as_ref().unwrap()).unwrap();
        let legal = stonegame::core::moves::legal_moves(&row, Variant::TwoEnds);
        assert!(legal.contains(&m), "{m:?}");
        random_moves.insert(m);
    }
    // Strength 0 really is random: all 5 + 3 legal moves show up.
    assert_eq!(random_moves.len(), 8, "{random_moves:?}");
    // Strength 1 is the optimal move (with tempo) whatever the seed.
    let best = best_move(&common::valid(&row), Variant::TwoEnds);
    for seed in 0..20 {
        let r = client
            .suggest(row.clone(), Variant::TwoEnds, Some(1.0), seed)
            .await
            .unwrap();
        assert_eq!(Move::try_from(r.chosen.as_ref().unwrap()), Ok(best));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_equal_the_core_tables() {
    let server = common::server(|_| {}).await;
    let mut client = Client::connect(&server.addr.to_string()).await.unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for (n, chunk_rows) in [(1, 0), (2, 1), (7, 3), (300, 0), (301, 7), (1000, 1000)] {
        let piles: Vec<u64> = (0..n).map(|_| rng.random_range(1..=20)).collect();
        let want = Tables::new(&common::valid(&piles));
        let got = client.tables(piles.clone(), chunk_rows).await.unwrap();
        assert_eq!(got.n, n);
        for i in 0..n {
            for j in i..n {
                let k = got.index(i, j);
                assert_eq!(got.left[k], want.left_code(i, j), "n={n} left[{i}][{j}]");
                assert_eq!(got.right[k], want.right_code(i, j), "n={n} right[{i}][{j}]");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_reflection_answer() {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;

    let server = common::server(|_| {}).await;
    let client = Client::connect(&server.addr.to_string()).await.unwrap();
    let serving = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;
    assert_eq!(client.health("").await.unwrap(), serving);
    assert_eq!(
        client.health("stonegame.v1.StoneGame").await.unwrap(),
        serving
    );

    let mut reflection = ServerReflectionClient::new(common::channel(&server).await);
    let req = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = reflection
        .server_reflection_info(futures::stream::iter([req]))
        .await
        .unwrap()
        .into_inner();
    let response = responses.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("unexpected reflection answer {response:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(
        names.contains(&"stonegame.v1.StoneGame".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"grpc.health.v1.Health".to_string()),
        "{names:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_solve_prints_what_offline_solve_prints() {
    let server = common::server(|_| {}).await;
    let url = format!("http://{}", server.addr);
    let mut good = String::from("40\n");
    for (row, _) in cases(40, 21) {
        let text: Vec<String> = row.iter().map(u64::to_string).collect();
        good += &format!("{}\n{}\n", row.len(), text.join(" "));
    }
    let inputs = [
        good.as_str(),
        "1\n4\n3 1 9 4\n",
        "3\n4\n3 1 9 4\n2\n5 3\n3\n1 x 2\n",
        "2\n2\n1 0\n",
        "0\n",
        "1\n2\n1 2 3\n",
        "",
    ];
    for input in inputs {
        for variant in ["two-ends", "leftmost"] {
            let offline = common::run_cli(&["solve", "--variant", variant], input);
            let remote = tokio::task::spawn_blocking({
                let (url, input) = (url.clone(), input.to_string());
                move || {
                    common::run_cli(
                        &[
                            "client",
                            "solve",
                            "--server",
                            &url,
                            "--variant",
                            variant,
                            "--batch-size",
                            "3",
                        ],
                        &input,
                    )
                }
            })
            .await
            .unwrap();
            assert_eq!(remote, offline, "input {input:?} ({variant})");
        }
    }
    // Each stream was read to its end: the server counted none of them
    // CANCELLED (a client that exits before the trailers would be).
    let text = server.state.encode_metrics();
    let cancelled =
        "stonegame_rpc_requests_total{rpc=\"Solve\",code=\"CANCELLED\",protocol=\"grpc\"}";
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with(cancelled) && !l.ends_with(" 0")),
        "{text}"
    );
}
