//! Check and Generate over loopback against an in-process server: the same
//! reports and bytes as the library's `check` and `generate`, whatever the
//! chunking and interleaving; limits, bad parameters, cancellation; and the
//! `client check` / `client gen` commands printing what the offline ones
//! print.

use crate::common;

use std::num::NonZero;
use std::process::{Command, Stdio};

use stonegame::client::Client;
use stonegame::core::Variant;
use stonegame::judge::check::{CheckReport, Verdict, check};
use stonegame::judge::generate::{Family, GenSpec};
use stonegame::service::pb;
use stonegame::service::pb::check_request::Part;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use tonic::Code;
use tonic::transport::Channel;

use common::{gen_strings, spec};

/// How the two files are interleaved on the stream.
#[derive(Debug, Clone, Copy)]
enum Order {
    /// The whole answer, then the whole input.
    AnswerFirst,
    /// The whole input, then the whole answer.
    InputFirst,
    /// One chunk of each in turn.
    Alternating,
    /// Chunks of the answer in proportion to the input's.
    Proportional,
}

const ORDERS: [Order; 4] = [
    Order::AnswerFirst,
    Order::InputFirst,
    Order::Alternating,
    Order::Proportional,
];

fn chunk_msgs(data: &[u8], size: usize, input: bool) -> Vec<pb::CheckRequest> {
    data.chunks(size.max(1))
        .map(|c| pb::CheckRequest {
            part: Some(if input {
                Part::InputChunk(c.to_vec())
            } else {
                Part::AnswerChunk(c.to_vec())
            }),
            variant: 0,
        })
        .collect()
}

/// The messages of one Check stream; only the first names the variant.
fn messages(
    input: &[u8],
    answer: &[u8],
    order: Order,
    chunk: usize,
    variant: pb::Variant,
) -> Vec<pb::CheckRequest> {
    let answer_chunk = match order {
        Order::Proportional => (chunk * answer.len()).div_ceil(input.len().max(1)).max(1),
        _ => chunk,
    };
    let ins = chunk_msgs(input, chunk, true);
    let ans = chunk_msgs(answer, answer_chunk, false);
    let mut out = match order {
        Order::AnswerFirst => ans.into_iter().chain(ins).collect(),
        Order::InputFirst => ins.into_iter().chain(ans).collect(),
        Order::Alternating | Order::Proportional => {
            let (mut a, mut b) = (ins.into_iter(), ans.into_iter());
            let mut out = Vec::new();
            loop {
                match (a.next(), b.next()) {
                    (None, None) => break,
                    (x, y) => out.extend(x.into_iter().chain(y)),
                }
            }
            out
        }
    };
    match out.first_mut() {
        Some(first) => first.variant = variant as i32,
        None => out.push(pb::CheckRequest {
            part: None,
            variant: variant as i32,
        }),
    }
    out
}

async fn check_rpc(
    client: &mut StoneGameClient<Channel>,
    msgs: Vec<pb::CheckRequest>,
) -> Result<CheckReport, tonic::Status> {
    let response = client.check(futures::stream::iter(msgs)).await?;
    Ok(CheckReport::try_from(response.into_inner()).expect("a valid response"))
}

fn pb_variant(v: Variant) -> pb::Variant {
    match v {
        Variant::TwoEnds => pb::Variant::TwoEnds,
        Variant::Leftmost => pb::Variant::Leftmost,
    }
}

/// Flips the answers of the given 0-based cases.
fn flip(answers: &str, cases: &[usize]) -> String {
    answers
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let l = if cases.contains(&i) {
                if l == "0" { "1" } else { "0" }
            } else {
                l
            };
            format!("{l}\n")
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_reports_what_the_library_reports_in_every_interleaving() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let (input, answers) = gen_strings(&spec(Family::Planted, 300, 12, 50, 5));
    let (left_input, left_answers) = gen_strings(&GenSpec {
        variant: Variant::Leftmost,
        ..spec(Family::Planted, 200, 8, 20, 6)
    });
    let mut crlf = answers.replace('\n', "\r\n");
    crlf.push_str("\n\n");
    let cases: Vec<(&str, String, String, Variant, Verdict)> = vec![
        (
            "accepted",
            input.clone(),
            answers.clone(),
            Variant::TwoEnds,
            Verdict::Accepted,
        ),
        (
            "accepted crlf",
            input.clone(),
            crlf,
            Variant::TwoEnds,
            Verdict::Accepted,
        ),
        (
            "accepted leftmost",
            left_input.clone(),
            left_answers.clone(),
            Variant::Leftmost,
            Verdict::Accepted,
        ),
        (
            "two-ends answers judged as leftmost",
            input.clone(),
            answers.clone(),
            Variant::Leftmost,
            Verdict::WrongAnswer,
        ),
        (
            "wrong answer",
            input.clone(),
            flip(&answers, &[6, 17, 299]),
            Variant::TwoEnds,
            Verdict::WrongAnswer,
        ),
        (
            "missing line",
            input.clone(),
            answers.lines().skip(1).map(|l| format!("{l}\n")).collect(),
            Variant::TwoEnds,
            Verdict::PresentationError,
        ),
        (
            "extra line",
            input.clone(),
            format!("{answers}1\n"),
            Variant::TwoEnds,
            Verdict::PresentationError,
        ),
        (
            "blank in the middle",
            input.clone(),
            answers.replacen('\n', "\n\n", 3),
            Variant::TwoEnds,
            Verdict::PresentationError,
        ),
        (
            "malformed input",
            input.replacen("\n", "\n0\n", 1),
            answers.clone(),
            Variant::TwoEnds,
            Verdict::JudgeFailure,
        ),
        (
            "bad pile",
            "2\n2\n1 2\n3\n1 x 2\n".into(),
            "1\n1\n".into(),
            Variant::TwoEnds,
            Verdict::JudgeFailure,
        ),
        (
            "empty answer",
            "1\n4\n3 1 9 4\n".into(),
            String::new(),
            Variant::TwoEnds,
            Verdict::PresentationError,
        ),
        (
            "both empty",
            String::new(),
            String::new(),
            Variant::TwoEnds,
            Verdict::JudgeFailure,
        ),
    ];
    for (name, input, answer, variant, verdict) in &cases {
        let expected = check(input.as_bytes(), answer.as_bytes(), *variant);
        assert_eq!(expected.verdict, *verdict, "{name}: {expected:?}");
        for order in ORDERS {
            for chunk in [1, 7, 1000, 65_537] {
                if chunk == 1 && input.len() > 2_000 {
                    continue;
                }
                let msgs = messages(
                    input.as_bytes(),
                    answer.as_bytes(),
                    order,
                    chunk,
                    pb_variant(*variant),
                );
                let got = check_rpc(&mut client, msgs).await.unwrap();
                assert_eq!(got, expected, "{name}, {order:?}, chunks of {chunk}");
            }
        }
    }
    // Byte-sized chunks on the large planted file, once.
    let msgs = messages(
        input.as_bytes(),
        answers.as_bytes(),
        Order::Alternating,
        1,
        pb::Variant::TwoEnds,
    );
    let got = check_rpc(&mut client, msgs).await.unwrap();
    assert_eq!(got.verdict, Verdict::Accepted, "{got:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_judges_a_large_file_in_every_order() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let (input, answers) = gen_strings(&spec(Family::Random, 20_000, 30, 1_000_000, 9));
    let wrong = flip(&answers, &[0, 4_095, 4_096, 19_999]);
    let expected = check(input.as_bytes(), wrong.as_bytes(), Variant::TwoEnds);
    assert_eq!(expected.verdict, Verdict::WrongAnswer);
    assert_eq!(expected.wrong_cases, 4);
    assert_eq!(expected.first_mismatch.map(|m| m.case), Some(1));
    for order in ORDERS {
        for chunk in [4_093, 65_521] {
            let msgs = messages(
                input.as_bytes(),
                wrong.as_bytes(),
                order,
                chunk,
                pb::Variant::TwoEnds,
            );
            let got = check_rpc(&mut client, msgs).await.unwrap();
            assert_eq!(got, expected, "{order:?}, chunks of {chunk}");
        }
    }
    // The library client (files read alternately in 64 KiB chunks).
    let mut lib = Client::connect(&server.addr.to_string()).await.unwrap();
    let got = lib
        .check(
            std::io::Cursor::new(input.clone().into_bytes()),
            std::io::Cursor::new(wrong.into_bytes()),
            Variant::TwoEnds,
        )
        .await
        .unwrap();
    assert_eq!(got, expected);
    let got = lib
        .check(
            std::io::Cursor::new(input.into_bytes()),
            std::io::Cursor::new(answers.into_bytes()),
            Variant::TwoEnds,
        )
        .await
        .unwrap();
    assert_eq!(got.verdict, Verdict::Accepted);
    assert_eq!(got.cases, 20_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_beyond_the_byte_limit_is_resource_exhausted_then_serves() {
    let server =
        common::server(|c| c.limits.max_check_bytes = NonZero::new(256 << 10).unwrap()).await;
    let mut client = common::client(&server).await;
    let (input, answers) = gen_strings(&spec(Family::Random, 12_000, 40, 1_000_000_000, 4));
    assert!(input.len() > 2 << 20, "{}", input.len());
    // The whole input before the answer: held whole, over the limit.
    let msgs = messages(
        input.as_bytes(),
        answers.as_bytes(),
        Order::InputFirst,
        16 << 10,
        pb::Variant::TwoEnds,
    );
    let status = check_rpc(&mut client, msgs).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("262144"), "{status:?}");
    assert!(status.message().contains("interleaved"), "{status:?}");
    // The same files interleaved in proportion: well under the limit.
    let msgs = messages(
        input.as_bytes(),
        answers.as_bytes(),
        Order::Proportional,
        16 << 10,
        pb::Variant::TwoEnds,
    );
    let got = check_rpc(&mut client, msgs).await.unwrap();
    assert_eq!(got.verdict, Verdict::Accepted, "{got:?}");
    assert_eq!(got.cases, 12_000);
    // One chunk larger than the limit.
    let big = vec![b'1'; 300 << 10];
    let msgs = vec![pb::CheckRequest {
        part: Some(Part::AnswerChunk(big)),
        variant: 0,
    }];
    let status = check_rpc(&mut client, msgs).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    // And a normal check afterwards.
    let msgs = messages(
        b"1\n4\n3 1 9 4\n",
        b"0\n",
        Order::Alternating,
        3,
        pb::Variant::TwoEnds,
    );
    let got = check_rpc(&mut client, msgs).await.unwrap();
    assert_eq!(got.message, "ok 1 case");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_variant_errors_are_invalid_argument() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    let msg = |part: Option<Part>, variant: i32| pb::CheckRequest { part, variant };
    let s = check_rpc(&mut client, vec![msg(None, 9)])
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
    assert!(s.message().starts_with("variant:"), "{s:?}");
    let msgs = vec![
        msg(
            Some(Part::InputChunk(b"1\n2\n1 1\n".to_vec())),
            pb::Variant::Leftmost as i32,
        ),
        msg(Some(Part::AnswerChunk(b"0\n".to_vec())), 0),
        msg(None, pb::Variant::Leftmost as i32),
        msg(None, pb::Variant::TwoEnds as i32),
    ];
    let s = check_rpc(&mut client, msgs.clone()).await.unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
    assert!(s.message().contains("VARIANT_TWO_ENDS"), "{s:?}");
    // Unspecified or repeated later: fine, judged as leftmost ((1, 1) is lost).
    let got = check_rpc(&mut client, msgs[..3].to_vec()).await.unwrap();
    assert_eq!(got.message, "ok 1 case");
    let got = check_rpc(&mut client, vec![]).await.unwrap();
    assert_eq!(got, check(&b""[..], &b""[..], Variant::TwoEnds));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_and_generate_stop_when_the_client_goes_away() {
    let server = common::server(|c| c.limits.max_concurrent_rpcs = NonZero::new(1).unwrap()).await;
    let url = server.addr.to_string();
    // A Check whose client vanishes mid-stream.
    {
        let mut client = common::client(&server).await;
        let (tx, rx) = tokio::sync::mpsc::channel(1);
        tx.send(pb::CheckRequest {
            part: Some(Part::InputChunk(b"3\n1\n5\n".to_vec())),
            variant: 0,
        })
        .await
        .unwrap();
        let call = tokio::spawn(async move {
            client
                .check(tokio_stream::wrappers::ReceiverStream::new(rx))
                .await
        });
        // The RPC is admitted (holds the only slot) before it is dropped.
        let mut other = Client::connect(&url).await.unwrap();
        common::eventually_async("the check holds the only RPC slot", || {
            let mut other = other.clone();
            async move {
                matches!(
                    other.suggest(vec![1], Variant::TwoEnds, None, 0).await,
                    Err(stonegame::client::ClientError::Status(s)) if s.code() == Code::ResourceExhausted
                )
            }
        })
        .await;
        call.abort();
        drop(tx);
        // The checker's job holds the slot until it returns: released, it
        // stopped waiting for the rest of the input.
        common::eventually_async("the check's slot is released", || {
            let mut other = other.clone();
            async move {
                other
                    .suggest(vec![1], Variant::TwoEnds, None, 0)
                    .await
                    .is_ok()
            }
        })
        .await;
        let _ = &mut other;
    }
    // A Generate far larger than what is read.
    {
        let mut client = common::client(&server).await;
        let request = pb::GenerateRequest {
            family: "random".into(),
            cases: 1_000_000,
            max_n: 100,
            max_a: 1_000_000_000,
            seed: 1,
            variant: 0,
        };
        let metrics = &server.metrics;
        let started_before = metrics.cases_started();
        let completed_before = metrics.cases_completed();
        let mut stream = client.generate(request).await.unwrap().into_inner();
        let first = stream.message().await.unwrap().unwrap();
        assert!(!first.input_chunk.is_empty());
        // Read on until the generator solves its first batch of answers.
        let reader = tokio::spawn(async move { while let Ok(Some(_)) = stream.message().await {} });
        common::eventually("the generator solves its first batch", || {
            metrics.cases_started() > started_before
        })
        .await;
        reader.abort();
        let _ = reader.await;
        drop(client);
        let mut other = Client::connect(&url).await.unwrap();
        common::eventually_async("the generator stops and releases its slot", || {
            let mut other = other.clone();
            async move {
                other
                    .suggest(vec![1], Variant::TwoEnds, None, 0)
                    .await
                    .is_ok()
            }
        })
        .await;
        // The slot is released when the generator returns: it stopped far
        // short of its million cases (one ignoring the closed stream would
        // have solved them all before returning).
        let solved = metrics.cases_completed() - completed_before;
        assert!(solved < 500_000, "{solved} cases solved");
        assert_eq!(server.state.budget.in_flight(), 0);
        let r = other
            .suggest(vec![3, 1, 9, 4], Variant::TwoEnds, None, 0)
            .await
            .unwrap();
        assert!(!r.mover_wins);
    }
}

/// Collects a Generate stream: (input, answers); checks every chunk holds
/// exactly one file's bytes, at most 64 KiB.
async fn generate_rpc(
    client: &mut StoneGameClient<Channel>,
    request: pb::GenerateRequest,
) -> Result<(String, String), tonic::Status> {
    let mut stream = client.generate(request).await?.into_inner();
    let (mut input, mut answers) = (Vec::new(), Vec::new());
    while let Some(chunk) = stream.message().await? {
        assert!(
            chunk.input_chunk.is_empty() != chunk.answer_chunk.is_empty(),
            "a chunk carries exactly one file"
        );
        assert!(chunk.input_chunk.len() <= 64 << 10 && chunk.answer_chunk.len() <= 64 << 10);
        input.extend(chunk.input_chunk);
        answers.extend(chunk.answer_chunk);
    }
    Ok((
        String::from_utf8(input).unwrap(),
        String::from_utf8(answers).unwrap(),
    ))
}

fn gen_request(spec: &GenSpec) -> pb::GenerateRequest {
    stonegame::client::generate_request(spec)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_returns_the_library_bytes_for_every_family() {
    let server = common::server(|_| {}).await;
    let mut client = common::client(&server).await;
    for family in Family::ALL {
        for variant in [Variant::TwoEnds, Variant::Leftmost] {
            let s = match family {
                Family::Exhaustive => spec(family, 1_000, 4, 3, 0),
                Family::Hack => spec(family, 600, 8, 1 << 33, 11),
                _ => spec(family, 3_000, 40, 1_000, 7),
            };
            let s = GenSpec { variant, ..s };
            let expected = gen_strings(&s);
            let got = generate_rpc(&mut client, gen_request(&s)).await.unwrap();
            assert_eq!(got.0, expected.0, "{family} {variant}: input");
            assert_eq!(got.1, expected.1, "{family} {variant}: answers");
        }
    }
    // A file of many chunks.
    let s = spec(Family::Random, 20_000, 60, u64::MAX >> 1, 3);
    let expected = gen_strings(&s);
    assert!(expected.0.len() > 1 << 20);
    let got = generate_rpc(&mut client, gen_request(&s)).await.unwrap();
    assert!(got == expected, "a 20,000-case file differs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_bad_parameters_are_refused_naming_the_problem() {
    let server = common::server(|c| {
        c.limits.max_generate_cases = NonZero::new(5_000).unwrap();
        c.limits.max_generate_piles = NonZero::new(100_000).unwrap();
    })
    .await;
    let mut client = common::client(&server).await;
    let good = gen_request(&spec(Family::Random, 10, 10, 10, 1));
    let cases: Vec<(pb::GenerateRequest, Code, &str)> = vec![
        (
            pb::GenerateRequest {
                family: "rnd".into(),
                ..good.clone()
            },
            Code::InvalidArgument,
            "family: unknown family `rnd`",
        ),
        (
            pb::GenerateRequest {
                cases: 0,
                ..good.clone()
            },
            Code::InvalidArgument,
            "cases: the number of cases",
        ),
        (
            pb::GenerateRequest {
                max_n: 0,
                ..good.clone()
            },
            Code::InvalidArgument,
            "max_n: max-n must be at least 1",
        ),
        (
            pb::GenerateRequest {
                max_a: 0,
                ..good.clone()
            },
            Code::InvalidArgument,
            "max_a: max-a must be at least 1",
        ),
        (
            pb::GenerateRequest {
                max_a: u64::MAX,
                ..good.clone()
            },
            Code::InvalidArgument,
            "max_a: max-a 18446744073709551615",
        ),
        (
            pb::GenerateRequest {
                family: "planted".into(),
                max_n: 1,
                ..good.clone()
            },
            Code::InvalidArgument,
            "max_n: family `planted` needs max-n of at least 2",
        ),
        (
            pb::GenerateRequest {
                family: "exhaustive".into(),
                max_n: 3,
                max_a: 3,
                ..good.clone()
            },
            Code::InvalidArgument,
            "cases: family `exhaustive` with max-n 3 and max-a 3 has 39 rows",
        ),
        (
            pb::GenerateRequest {
                variant: 7,
                ..good.clone()
            },
            Code::InvalidArgument,
            "variant:",
        ),
        (
            pb::GenerateRequest {
                cases: 5_001,
                ..good.clone()
            },
            Code::ResourceExhausted,
            "cases: the request makes 5001 cases, more than the limit of 5000",
        ),
        (
            pb::GenerateRequest {
                cases: 5_000,
                max_n: 21,
                ..good.clone()
            },
            Code::ResourceExhausted,
            "max_n:",
        ),
    ];
    for (request, code, text) in cases {
        let s = generate_rpc(&mut client, request.clone())
            .await
            .unwrap_err();
        assert_eq!(s.code(), code, "{request:?}: {s:?}");
        assert!(s.message().contains(text), "{request:?}: {s:?}");
    }
    let got = generate_rpc(&mut client, good).await.unwrap();
    assert_eq!(got, gen_strings(&spec(Family::Random, 10, 10, 10, 1)));
}

/// Runs the built binary: (exit code, stdout, stderr).
fn run_cli(args: &[&str]) -> (Option<i32>, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn run_cli_async(args: Vec<String>) -> (Option<i32>, Vec<u8>, String) {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_cli(&args)
    })
    .await
    .unwrap()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_check_and_gen_print_what_offline_check_and_gen_print() {
    let server = common::server(|_| {}).await;
    let url = format!("http://{}", server.addr);
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();

    // gen: the same stdout, answers file, errors and exit codes.
    let gens: [&[&str]; 5] = [
        &[
            "--family", "planted", "--cases", "500", "--max-n", "30", "--seed", "2",
        ],
        &[
            "--family",
            "hack",
            "--cases",
            "100",
            "--max-n",
            "6",
            "--max-a",
            "9000000000",
            "--seed",
            "5",
            "--variant",
            "leftmost",
        ],
        &[
            "--family",
            "exhaustive",
            "--cases",
            "100",
            "--max-n",
            "3",
            "--max-a",
            "3",
            "--seed",
            "0",
        ],
        &[
            "--family",
            "exhaustive",
            "--cases",
            "10",
            "--max-n",
            "3",
            "--max-a",
            "3",
            "--seed",
            "0",
        ],
        &["--family", "planted", "--max-n", "1", "--seed", "0"],
    ];
    for (i, args) in gens.iter().enumerate() {
        let (off_answers, rem_answers) =
            (path(&format!("off{i}.ans")), path(&format!("rem{i}.ans")));
        let mut offline = strings(&["gen"]);
        offline.extend(strings(args));
        offline.extend(strings(&["--answers", &off_answers]));
        let mut remote = strings(&["client", "gen", "--server", &url]);
        remote.extend(strings(args));
        remote.extend(strings(&["--answers", &rem_answers]));
        let off = run_cli_async(offline).await;
        let rem = run_cli_async(remote).await;
        assert_eq!(rem, off, "gen {args:?}");
        assert_eq!(
            std::fs::read(&rem_answers).ok(),
            std::fs::read(&off_answers).ok(),
            "answers of gen {args:?}"
        );
    }

    // check: the same verdict line and exit code.
    let (input, answers) = gen_strings(&spec(Family::Planted, 400, 20, 100, 8));
    let files = [
        ("in", input.clone()),
        ("ok", answers.clone()),
        ("wa", flip(&answers, &[3, 9])),
        ("pe", format!("{answers}0\n")),
        ("bad", input.replacen("\n", "\n0\n", 1)),
    ];
    for (name, text) in &files {
        std::fs::write(path(name), text).unwrap();
    }
    let pairs = [
        ("in", "ok", "two-ends", 0),
        ("in", "ok", "leftmost", 1),
        ("in", "wa", "two-ends", 1),
        ("in", "pe", "two-ends", 2),
        ("bad", "ok", "two-ends", 3),
        ("in", "missing", "two-ends", 3),
        ("missing", "ok", "two-ends", 3),
    ];
    for (input, answer, variant, code) in pairs {
        let args = ["--variant", variant, &path(input), &path(answer)];
        let mut offline = strings(&["check"]);
        offline.extend(strings(&args));
        let mut remote = strings(&["client", "check", "--server", &url]);
        remote.extend(strings(&args));
        let off = run_cli_async(offline).await;
        let rem = run_cli_async(remote).await;
        assert_eq!(off.0, Some(code), "{input} {answer} {variant}: {off:?}");
        assert_eq!(rem, off, "check {input} {answer} {variant}");
    }
    let (code, out, _) = run_cli_async(strings(&["check", "-", "-"])).await;
    let remote = run_cli_async(strings(&["client", "check", "--server", &url, "-", "-"])).await;
    assert_eq!((remote.0, remote.1), (code, out));

    // No server: FAIL, exit 3.
    let (code, out, _) = run_cli_async(strings(&[
        "client",
        "check",
        "--server",
        "http://127.0.0.1:1",
        &path("in"),
        &path("ok"),
    ]))
    .await;
    assert_eq!(code, Some(3));
    assert!(String::from_utf8_lossy(&out).starts_with("FAIL cannot connect"));
}
