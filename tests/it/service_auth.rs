//! Bearer tokens (`auth.tokens_file`): missing, malformed and unknown
//! tokens refused UNAUTHENTICATED without echoing them and counted by
//! reason, a good token served, health open without one, rotation of the
//! file under a running server, an empty file refused at start-up, the
//! CLI's `--token-file` and `STONEGAME_TOKEN`, and no token in any log line
//! of a server logging at trace level.

use crate::common;

use std::path::Path;
use std::time::Duration;

use stonegame::client::Client;
use stonegame::core::Variant;
use stonegame::service::RunningServer;
use stonegame::service::pb;
use tonic::Code;

const GOOD: &str = "tok-good-7f3a9c";
const OTHER: &str = "tok-unknown-55e1";

fn write(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

async fn auth_server(tokens: &Path) -> RunningServer {
    common::server(|c| {
        c.auth.tokens_file = Some(tokens.to_path_buf());
        c.auth.reload_interval = Duration::from_millis(100);
    })
    .await
}

/// A SuggestMove with `authorization` set to `value` (`None`: absent).
async fn suggest(server: &RunningServer, value: Option<&str>) -> Result<(), tonic::Status> {
    let mut client = common::client(server).await;
    let mut request = tonic::Request::new(pb::SuggestMoveRequest {
        piles: vec![3, 1, 9, 4],
        variant: pb::Variant::TwoEnds as i32,
        strength: None,
        seed: 1,
        want_remoteness: false,
    });
    if let Some(v) = value {
        request
            .metadata_mut()
            .insert("authorization", v.parse().unwrap());
    }
    client.suggest_move(request).await.map(|_| ())
}

fn rejected(server: &RunningServer, reason: &str) -> u64 {
    let want = format!("stonegame_auth_rejected_total{{reason=\"{reason}\"}} ");
    let text = server.state.encode_metrics();
    text.lines()
        .find_map(|l| l.strip_prefix(&want)?.parse().ok())
        .unwrap_or_else(|| panic!("no {want} in {text}"))
}

#[tokio::test]
async fn tokens_are_checked_and_never_echoed() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    write(
        &tokens,
        &format!("# the judges\n\n{GOOD}\n  another-token # ci\n"),
    );
    let server = auth_server(&tokens).await;
    for (value, reason) in [
        (None, "missing"),
        (Some(GOOD.to_string()), "malformed"),
        (Some(format!("Basic {GOOD}")), "malformed"),
        (Some(format!("Bearer {OTHER}")), "unknown"),
    ] {
        let status = suggest(&server, value.as_deref()).await.unwrap_err();
        assert_eq!(status.code(), Code::Unauthenticated, "{value:?}");
        assert!(status.message().contains(reason), "{value:?}: {status:?}");
        assert!(!status.message().contains(GOOD), "{status:?}");
        assert!(!status.message().contains(OTHER), "{status:?}");
    }
    assert_eq!(rejected(&server, "missing"), 1);
    assert_eq!(rejected(&server, "malformed"), 2);
    assert_eq!(rejected(&server, "unknown"), 1);
    // The refused calls are StoneGame RPCs ended UNAUTHENTICATED.
    assert!(
        server
            .state
            .encode_metrics()
            .contains("code=\"UNAUTHENTICATED\"")
    );
    suggest(&server, Some(&format!("Bearer {GOOD}")))
        .await
        .unwrap();
    suggest(&server, Some("bearer another-token"))
        .await
        .unwrap();
    // Streams too, through the Rust client.
    let mut client = Client::builder(&format!("http://{}", server.addr))
        .token(Some(GOOD))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let results = client
        .solve(
            vec![stonegame::client::solve_case(
                "a",
                &[1, 2],
                Variant::TwoEnds,
            )],
            1,
        )
        .await
        .unwrap();
    assert_eq!(results.len(), 1);
    // Health stays open without a token.
    let anonymous = Client::connect(&format!("http://{}", server.addr))
        .await
        .unwrap();
    assert_eq!(anonymous.health("stonegame.v1.StoneGame").await.unwrap(), 1);
    let mut anonymous = anonymous;
    let e = anonymous
        .suggest(vec![1, 2], Variant::TwoEnds, None, 0)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("Unauthenticated"), "{e}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rotation_without_restart() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    write(&tokens, &format!("{GOOD}\n"));
    let server = auth_server(&tokens).await;
    suggest(&server, Some(&format!("Bearer {GOOD}")))
        .await
        .unwrap();
    write(&tokens, &format!("{OTHER}\n"));
    common::eventually_async("the new token is accepted", || async {
        suggest(&server, Some(&format!("Bearer {OTHER}")))
            .await
            .is_ok()
    })
    .await;
    let status = suggest(&server, Some(&format!("Bearer {GOOD}")))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated);
    // An empty file later is refused: the tokens stay.
    write(&tokens, "# nothing\n");
    common::eventually("the bad reload is counted", || {
        server
            .state
            .encode_metrics()
            .contains("stonegame_reloads_total{what=\"auth\",result=\"error\"} 1")
    })
    .await;
    suggest(&server, Some(&format!("Bearer {OTHER}")))
        .await
        .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn empty_or_unreadable_file_is_a_start_up_error() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    write(&empty, "# only a comment\n\n");
    let missing = dir.path().join("missing");
    for (path, want) in [(&empty, "holds no token"), (&missing, "cannot read")] {
        let config = common::config(|c| c.auth.tokens_file = Some(path.clone()));
        let e = stonegame::service::start(&config).await.unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains(want) && e.contains(&path.display().to_string()),
            "{e}"
        );
    }
    // Through the binary: exit code and stderr.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .arg("serve")
        .env("STONEGAME_LISTEN", "127.0.0.1:0")
        .env("STONEGAME_METRICS__LISTEN", "")
        .env("STONEGAME_AUTH__TOKENS_FILE", &empty)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("auth.tokens_file") && err.contains("holds no token"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_token_file_and_environment() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    write(&tokens, &format!("{GOOD}\n"));
    let server = auth_server(&tokens).await;
    let mine = dir.path().join("mine");
    write(&mine, &format!("# my token\n{GOOD}\n"));
    let url = format!("http://{}", server.addr);
    let run = |args: Vec<String>, token: Option<&'static str>| {
        tokio::task::spawn_blocking(move || {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_stonegame"));
            cmd.args(&args).env_remove("STONEGAME_TOKEN");
            if let Some(t) = token {
                cmd.env("STONEGAME_TOKEN", t);
            }
            let out = cmd.output().unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
    };
    let suggest = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["client", "suggest", "--server", &url]
            .map(String::from)
            .to_vec();
        v.extend(extra.iter().map(|s| s.to_string()));
        v.extend(["1", "2"].map(String::from));
        v
    };
    let (code, _, err) = run(suggest(&[]), None).await.unwrap();
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("missing bearer token"), "{err}");
    let (code, _, err) = run(suggest(&[]), Some(OTHER)).await.unwrap();
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("unknown bearer token") && !err.contains(OTHER),
        "{err}"
    );
    let (code, _, err) = run(suggest(&[]), Some(GOOD)).await.unwrap();
    assert_eq!(code, Some(0), "{err}");
    let file = mine.display().to_string();
    let (code, _, err) = run(suggest(&["--token-file", &file]), Some(OTHER))
        .await
        .unwrap();
    assert_eq!(
        code,
        Some(0),
        "--token-file wins over the environment: {err}"
    );
    // Health needs no token.
    let args: Vec<String> = ["client", "health", "--server", &url]
        .map(String::from)
        .to_vec();
    let (code, out, err) = run(args, None).await.unwrap();
    assert_eq!((code, out.as_str()), (Some(0), "SERVING\n"), "{err}");
    server.shutdown().await.unwrap();
}

/// The server's log at trace level (every crate: tonic, h2, hyper too)
/// through good, unknown and malformed tokens, a rotation, and a tokens
/// file that turns bad: the log names the file and the reason, never a
/// token, not even a refused one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_log_line_holds_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    const ROTATED: &str = "tok-rotated-0b9d21";
    const BAD_LINE: &str = "tok-in-a-bad-file-c4e8";
    const MALFORMED: &str = "tok-sent-as-basic-9a1f";
    write(&tokens, &format!("{GOOD}\n"));
    let server = common::ServeProcess::spawn(&[
        ("STONEGAME_LISTEN", "127.0.0.1:0"),
        ("STONEGAME_METRICS__LISTEN", ""),
        ("STONEGAME_LOG__FILTER", "trace"),
        ("STONEGAME_AUTH__TOKENS_FILE", tokens.to_str().unwrap()),
        ("STONEGAME_AUTH__RELOAD_INTERVAL", "100ms"),
    ]);
    let addr = &server.addr;
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let call = |value: String| {
        let mut client = pb::stone_game_client::StoneGameClient::new(channel.clone());
        async move {
            let mut request = tonic::Request::new(pb::SuggestMoveRequest {
                piles: vec![3, 1, 9, 4],
                variant: pb::Variant::TwoEnds as i32,
                strength: None,
                seed: 1,
                want_remoteness: false,
            });
            request
                .metadata_mut()
                .insert("authorization", value.parse().unwrap());
            client.suggest_move(request).await.map(|_| ())
        }
    };
    call(format!("Bearer {GOOD}")).await.unwrap();
    assert_eq!(
        call(format!("Bearer {OTHER}")).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    assert_eq!(
        call(format!("Basic {MALFORMED}")).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    write(&tokens, &format!("{ROTATED}\n"));
    common::eventually_async("the rotated token is served", || {
        let call = call(format!("Bearer {ROTATED}"));
        async move { call.await.is_ok() }
    })
    .await;
    assert_eq!(
        call(format!("Bearer {GOOD}")).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    // A file that turns bad is refused (the old tokens stay) and logged.
    write(&tokens, &format!("{BAD_LINE} with spaces\n"));
    server.wait_for_log("printable ASCII without spaces").await;
    call(format!("Bearer {ROTATED}")).await.unwrap();
    drop(channel);
    let log = server.stop();
    assert!(
        log.contains("auth.tokens_file") && log.contains("printable ASCII without spaces"),
        "the bad file is not logged with its reason; log:\n{log}"
    );
    assert!(
        log.contains("h2::"),
        "not a trace-level log of every crate:\n{log}"
    );
    for token in [GOOD, OTHER, ROTATED, BAD_LINE, MALFORMED] {
        let lines: Vec<&str> = log.lines().filter(|l| l.contains(token)).collect();
        assert!(lines.is_empty(), "{token} logged:\n{}", lines.join("\n"));
    }
}
