//! TLS and mTLS on the gRPC port (`tls.*`), with certificates made here:
//! a round trip over TLS (Solve, SuggestMove, health), a plaintext client
//! refused while the server keeps serving, mTLS with good, missing and
//! wrongly signed client certificates, rotation of the files under a
//! running server (new connections see the new certificate, an open one
//! keeps working, a bad file keeps the old one), start-up errors naming
//! the file (through `stonegame serve`), and the CLI's TLS flags.

use crate::common::{self, certs};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use certs::{Ca, Leaf, write};
use stonegame::client::{Client, TlsOptions, solve_case};
use stonegame::core::Variant;
use stonegame::service::RunningServer;

const BIN: &str = env!("CARGO_BIN_EXE_stonegame");

/// The files of a TLS server in `dir`.
struct Files {
    cert: PathBuf,
    key: PathBuf,
    client_ca: Option<PathBuf>,
}

fn write_server(dir: &Path, leaf: &Leaf, client_ca: Option<&Ca>) -> Files {
    Files {
        cert: write(dir, "tls.crt", &leaf.cert),
        key: write(dir, "tls.key", &leaf.key),
        client_ca: client_ca.map(|ca| write(dir, "ca.crt", &ca.pem)),
    }
}

async fn tls_server(files: &Files) -> RunningServer {
    common::server(|c| {
        c.tls.cert_file = Some(files.cert.clone());
        c.tls.key_file = Some(files.key.clone());
        c.tls.client_ca_file = files.client_ca.clone();
        c.tls.reload_interval = Duration::from_millis(100);
    })
    .await
}

fn options(ca: &Ca, identity: Option<&Leaf>) -> TlsOptions {
    TlsOptions {
        ca_pem: Some(ca.pem.clone().into_bytes()),
        identity: identity.map(|l| (l.cert.clone().into_bytes(), l.key.clone().into_bytes())),
        ..TlsOptions::default()
    }
}

async fn connect(server: &RunningServer, tls: TlsOptions) -> Result<Client, String> {
    Client::builder(&format!("https://{}", server.addr))
        .tls(tls)
        .connect()
        .await
        .map_err(|e| e.to_string())
}

/// Connects and answers one SuggestMove: the outcome of a client.
async fn suggest_over(server: &RunningServer, tls: TlsOptions) -> Result<(), String> {
    let mut client = connect(server, tls).await?;
    suggest_on(&mut client).await
}

async fn suggest_on(client: &mut Client) -> Result<(), String> {
    let r = client
        .suggest(vec![3, 1, 9, 4], Variant::TwoEnds, None, 1)
        .await
        .map_err(|e| e.to_string())?;
    let offline =
        stonegame::core::first_player_wins(&common::valid(&[3, 1, 9, 4]), Variant::TwoEnds);
    assert_eq!(r.mover_wins, offline);
    Ok(())
}

/// A normal Solve over TLS, checked against the offline answer.
async fn solve_works(server: &RunningServer, ca: &Ca, identity: Option<&Leaf>) {
    let mut client = connect(server, options(ca, identity)).await.unwrap();
    let cases = vec![
        solve_case("a", &[3, 1, 9, 4], Variant::TwoEnds),
        solve_case("b", &[1, 1], Variant::TwoEnds),
    ];
    let results = client.solve(cases, 1).await.unwrap();
    assert!(results.iter().all(|r| r.error.is_none()), "{results:?}");
    let wins: Vec<bool> = results.iter().map(|r| r.first_player_wins).collect();
    let offline: Vec<bool> = [&[3u64, 1, 9, 4][..], &[1, 1]]
        .iter()
        .map(|row| stonegame::core::first_player_wins(&common::valid(row), Variant::TwoEnds))
        .collect();
    assert_eq!(wins, offline);
}

/// Failed handshakes of every reason.
fn handshake_failures(server: &RunningServer) -> u64 {
    let text = server.state.encode_metrics();
    text.lines()
        .filter(|l| l.starts_with("stonegame_tls_handshake_failures_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}

/// Failed handshakes of one reason.
fn handshake_failures_for(server: &RunningServer, reason: &str) -> u64 {
    let want = format!("stonegame_tls_handshake_failures_total{{reason=\"{reason}\"}} ");
    let text = server.state.encode_metrics();
    text.lines()
        .find_map(|l| l.strip_prefix(&want)?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn round_trip_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("server ca");
    let files = write_server(dir.path(), &ca.server(), None);
    let server = tls_server(&files).await;
    solve_works(&server, &ca, None).await;
    let client = connect(&server, options(&ca, None)).await.unwrap();
    assert_eq!(client.health("").await.unwrap(), 1);
    assert_eq!(client.health("stonegame.v1.StoneGame").await.unwrap(), 1);
    suggest_over(&server, options(&ca, None)).await.unwrap();
    // The connection is counted like a plaintext one.
    let text = server.state.encode_metrics();
    assert!(
        !text.contains("stonegame_connections_accepted_total 0"),
        "{text}"
    );
    // A client that trusts another CA is refused.
    let other = Ca::new("other ca");
    assert!(suggest_over(&server, options(&other, None)).await.is_err());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn plaintext_client_is_refused_and_the_server_serves_on() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("server ca");
    let files = write_server(dir.path(), &ca.server(), None);
    let server = tls_server(&files).await;
    let plain = async {
        let mut client = Client::connect(&format!("http://{}", server.addr))
            .await
            .map_err(|e| e.to_string())?;
        suggest_on(&mut client).await
    };
    let outcome = tokio::time::timeout(Duration::from_secs(20), plain)
        .await
        .expect("a plaintext client is answered (refused), not left hanging");
    assert!(outcome.is_err(), "a plaintext client got an answer");
    common::eventually("the failed handshake is counted as plaintext", || {
        handshake_failures_for(&server, "plaintext") >= 1
    })
    .await;
    // Raw garbage too.
    {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await;
        let mut buf = [0u8; 64];
        let _ = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await;
    }
    solve_works(&server, &ca, None).await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn mtls_good_missing_and_wrongly_signed_client_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let server_ca = Ca::new("server ca");
    let client_ca = Ca::new("client ca");
    let files = write_server(dir.path(), &server_ca.server(), Some(&client_ca));
    let server = tls_server(&files).await;
    let good = client_ca.client();
    suggest_over(&server, options(&server_ca, Some(&good)))
        .await
        .unwrap();
    // No certificate.
    let e = suggest_over(&server, options(&server_ca, None))
        .await
        .unwrap_err();
    assert!(!e.is_empty());
    // A certificate signed by a CA the server does not trust.
    let rogue = Ca::new("client ca").client();
    suggest_over(&server, options(&server_ca, Some(&rogue)))
        .await
        .unwrap_err();
    // The server's own certificate is not a client certificate of the
    // client CA either.
    let wrong = server_ca.client();
    suggest_over(&server, options(&server_ca, Some(&wrong)))
        .await
        .unwrap_err();
    assert!(handshake_failures(&server) >= 3);
    // Counted by reason: no certificate; the rogue (a CA of the same name,
    // its signature does not verify); the server CA's (an unknown issuer).
    common::eventually("the failures are counted by reason", || {
        handshake_failures_for(&server, "no_client_certificate") >= 1
            && handshake_failures_for(&server, "bad_certificate") >= 1
            && handshake_failures_for(&server, "unknown_ca") >= 1
    })
    .await;
    // Unharmed.
    solve_works(&server, &server_ca, Some(&good)).await;
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rotation_serves_the_new_certificate_and_keeps_open_connections() {
    let dir = tempfile::tempdir().unwrap();
    let old_ca = Ca::new("old ca");
    let new_ca = Ca::new("new ca");
    let files = write_server(dir.path(), &old_ca.server(), None);
    let server = tls_server(&files).await;
    let mut open = connect(&server, options(&old_ca, None)).await.unwrap();
    suggest_on(&mut open).await.unwrap();
    // A Secret update: both files replaced.
    let leaf = new_ca.server();
    write(dir.path(), "tls.key", &leaf.key);
    write(dir.path(), "tls.crt", &leaf.cert);
    common::eventually_async("a client trusting only the new CA connects", || async {
        suggest_over(&server, options(&new_ca, None)).await.is_ok()
    })
    .await;
    // New connections no longer see the old certificate…
    suggest_over(&server, options(&old_ca, None))
        .await
        .unwrap_err();
    // …while the connection opened before keeps working.
    suggest_on(&mut open).await.unwrap();
    // A bad file keeps the certificate served now.
    write(dir.path(), "tls.crt", "not a certificate\n");
    common::eventually("the bad reload is counted", || {
        server
            .state
            .encode_metrics()
            .contains("stonegame_reloads_total{what=\"tls\",result=\"error\"} 1")
    })
    .await;
    suggest_over(&server, options(&new_ca, None)).await.unwrap();
    // An expired certificate is refused at reload as well.
    let expired = new_ca.leaf_with(&["127.0.0.1"], |p| {
        p.not_before = rcgen::date_time_ymd(2000, 1, 1);
        p.not_after = rcgen::date_time_ymd(2001, 1, 1);
    });
    write(dir.path(), "tls.key", &expired.key);
    write(dir.path(), "tls.crt", &expired.cert);
    common::eventually("the expired reload is counted", || {
        server
            .state
            .encode_metrics()
            .contains("stonegame_reloads_total{what=\"tls\",result=\"error\"} 2")
    })
    .await;
    solve_works(&server, &new_ca, None).await;
    server.shutdown().await.unwrap();
}

/// Runs `stonegame serve` with `env`; it must fail: (exit code, stderr).
fn serve_fails(env: &[(&str, &Path)]) -> (Option<i32>, String) {
    let mut cmd = Command::new(BIN);
    cmd.arg("serve")
        .env("STONEGAME_LISTEN", "127.0.0.1:0")
        .env("STONEGAME_METRICS__LISTEN", "")
        .env_remove("STONEGAME_TLS__CERT_FILE")
        .env_remove("STONEGAME_TLS__KEY_FILE")
        .env_remove("STONEGAME_TLS__CLIENT_CA_FILE")
        .env_remove("STONEGAME_AUTH__TOKENS_FILE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A server that started would run forever: give it a bound.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code(), err);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("stonegame serve started with bad TLS files");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn start_up_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("ca");
    let a = ca.server();
    let b = ca.server();
    let cert = write(dir.path(), "a.crt", &a.cert);
    let key = write(dir.path(), "a.key", &a.key);
    let other_key = write(dir.path(), "b.key", &b.key);
    let missing = dir.path().join("missing.crt");
    let empty = write(dir.path(), "empty.pem", "");
    let expired = ca.leaf_with(&["127.0.0.1"], |p| {
        p.not_before = rcgen::date_time_ymd(2000, 1, 1);
        p.not_after = rcgen::date_time_ymd(2001, 1, 1);
    });
    let expired_cert = write(dir.path(), "expired.crt", &expired.cert);
    let expired_key = write(dir.path(), "expired.key", &expired.key);
    let future = ca.leaf_with(&["127.0.0.1"], |p| {
        p.not_before = rcgen::date_time_ymd(4000, 1, 1);
    });
    let future_cert = write(dir.path(), "future.crt", &future.cert);
    let future_key = write(dir.path(), "future.key", &future.key);
    let c = "STONEGAME_TLS__CERT_FILE";
    let k = "STONEGAME_TLS__KEY_FILE";
    type Case<'a> = (Vec<(&'a str, &'a Path)>, &'a Path, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![(c, &cert), (k, &other_key)],
            &other_key,
            "does not match",
        ),
        (
            vec![(c, &expired_cert), (k, &expired_key)],
            &expired_cert,
            "has expired",
        ),
        (
            vec![(c, &future_cert), (k, &future_key)],
            &future_cert,
            "not valid yet",
        ),
        (
            vec![(c, &missing), (k, &key)],
            &missing,
            "cannot read tls.cert_file",
        ),
        (
            vec![(c, &cert), (k, &missing)],
            &missing,
            "cannot read tls.key_file",
        ),
        (
            vec![(c, &empty), (k, &key)],
            &empty,
            "holds no PEM certificate",
        ),
        (
            vec![(c, &cert), (k, &empty)],
            &empty,
            "holds no PEM private key",
        ),
        (
            vec![
                (c, &cert),
                (k, &key),
                ("STONEGAME_TLS__CLIENT_CA_FILE", &missing),
            ],
            &missing,
            "cannot read tls.client_ca_file",
        ),
    ];
    for (env, file, want) in cases {
        let (code, err) = serve_fails(&env);
        assert_ne!(code, Some(0), "{env:?}: {err}");
        assert!(err.contains(&file.display().to_string()), "{env:?}: {err}");
        assert!(err.contains(want), "{env:?}: want {want:?} in {err}");
    }
    // Half a pair, and a client CA without TLS: configuration errors.
    let (code, err) = serve_fails(&[(c, &cert)]);
    assert_ne!(code, Some(0));
    assert!(err.contains("tls.key_file"), "{err}");
    let (code, err) = serve_fails(&[("STONEGAME_TLS__CLIENT_CA_FILE", &cert)]);
    assert_ne!(code, Some(0));
    assert!(err.contains("tls.client_ca_file"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_commands_speak_tls_and_mtls() {
    let dir = tempfile::tempdir().unwrap();
    let server_ca = Ca::new("server ca");
    let client_ca = Ca::new("client ca");
    let files = write_server(dir.path(), &server_ca.server(), Some(&client_ca));
    let server = tls_server(&files).await;
    let ca_file = write(dir.path(), "server-ca.pem", &server_ca.pem);
    let me = client_ca.client();
    let my_cert = write(dir.path(), "me.crt", &me.cert);
    let my_key = write(dir.path(), "me.key", &me.key);
    let url = format!("https://{}", server.addr);
    let ca = ca_file.display().to_string();
    let (cert, key) = (my_cert.display().to_string(), my_key.display().to_string());
    let run = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            // No stdin: a command refused before reading it cannot race a
            // write into a closed pipe.
            let out = Command::new(BIN)
                .args(&args)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
    };
    let tls = |cmd: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = cmd[..2].iter().map(|s| s.to_string()).collect();
        v.extend(
            [
                "--server",
                &url,
                "--tls-ca",
                &ca,
                "--tls-cert",
                &cert,
                "--tls-key",
                &key,
            ]
            .map(String::from),
        );
        v.extend(cmd[2..].iter().map(|s| s.to_string()));
        v
    };
    let (code, out, err) = run(tls(&["client", "suggest", "3", "1", "9", "4"]))
        .await
        .unwrap();
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.is_empty());
    let input = write(dir.path(), "input.txt", "1\n4\n3 1 9 4\n");
    let input = input.display().to_string();
    let (code, out, err) = run(tls(&["client", "solve", &input])).await.unwrap();
    // The offline answer of 3 1 9 4 (two ends): the first player loses.
    assert_eq!((code, out.as_str()), (Some(0), "0\n"), "{err}");
    let (code, out, err) = run(tls(&["client", "health"])).await.unwrap();
    assert_eq!((code, out.as_str()), (Some(0), "SERVING\n"), "{err}");
    // An IP URL with http:// and a --tls-* flag is TLS too; the server name
    // may be given.
    let mut args = tls(&["client", "health"]);
    args[3] = format!("{}", server.addr);
    args.extend(["--tls-server-name".into(), "localhost".into()]);
    let (code, _, err) = run(args).await.unwrap();
    assert_eq!(code, Some(0), "{err}");
    // Without the client certificate: refused (exit 1, an error on stderr).
    let args: Vec<String> = ["client", "health", "--server", &url, "--tls-ca", &ca]
        .map(String::from)
        .to_vec();
    let (code, _, err) = run(args).await.unwrap();
    assert_eq!(code, Some(1), "{err}");
    // The alert itself, or (TLS 1.3, when the request was written first)
    // the connection closed under it: either way the fix is named.
    assert!(
        err.contains("client certificate") && err.contains("--tls-cert/--tls-key"),
        "{err}"
    );
    // Plaintext to the TLS port: said so, with the fix.
    let plain = format!("http://{}", server.addr);
    let args: Vec<String> = ["client", "health", "--server", &plain]
        .map(String::from)
        .to_vec();
    let (code, _, err) = run(args).await.unwrap();
    assert_eq!(code, Some(1), "{err}");
    // The TLS alert read as a frame, or (when the request was written
    // first) the connection closed under it: either way the fix is named.
    assert!(err.contains("https://"), "{err}");
    // --tls-cert without --tls-key is a usage error.
    let args: Vec<String> = ["client", "health", "--server", &url, "--tls-cert", &cert]
        .map(String::from)
        .to_vec();
    let (code, _, err) = run(args).await.unwrap();
    assert_eq!(code, Some(2), "{err}");
    server.shutdown().await.unwrap();
}

/// The client says why it could not connect, in words a person can act on:
/// nobody listening, or TLS to a plaintext port.
#[tokio::test]
async fn connection_failures_are_explained() {
    let cli = |url: String| {
        tokio::task::spawn_blocking(move || {
            let out = Command::new(BIN)
                .args(["client", "health", "--server", &url])
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
    };
    // A port nobody listens on (bound, then let go).
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = free.local_addr().unwrap();
    drop(free);
    let (code, err) = cli(format!("http://{addr}")).await.unwrap();
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "connection refused at {addr}: is `stonegame serve` running?"
        )),
        "{err}"
    );
    // TLS to a plaintext server.
    let server = common::server(|_| {}).await;
    let (code, err) = cli(format!("https://{}", server.addr)).await.unwrap();
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("TLS to a plaintext port") && err.contains("(use http://)"),
        "{err}"
    );
    server.shutdown().await.unwrap();
}

/// A browser's or curl's HTTP/1.1 over TLS (ALPN `http/1.1`): the page and
/// a Connect JSON call are answered; a gRPC client still gets h2.
#[tokio::test]
async fn http1_over_tls_for_browsers_and_curl() {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, ServerName};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("server ca");
    let files = write_server(dir.path(), &ca.server(), None);
    let server = tls_server(&files).await;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_slice(ca.pem.as_bytes()).unwrap())
        .unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    for (request, expect) in [
        (
            "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".to_string(),
            "content-security-policy",
        ),
        (
            "POST /stonegame.v1.StoneGame/SuggestMove HTTP/1.1\r\nHost: localhost\r\n\
             Content-Type: application/json\r\nContent-Length: 14\r\nConnection: close\r\n\r\n\
             {\"piles\":[1]}\n"
                .to_string(),
            "\"moverWins\":true",
        ),
    ] {
        let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        let mut tls = connector
            .connect(name, tcp)
            .await
            .expect("TLS with http/1.1");
        assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
        tls.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let _ = tls.read_to_end(&mut answer).await;
        let answer = String::from_utf8_lossy(&answer).to_lowercase();
        assert!(answer.starts_with("http/1.1 200"), "{answer}");
        assert!(answer.contains(&expect.to_lowercase()), "{answer}");
    }
    // gRPC over the same port still negotiates h2.
    suggest_over(&server, options(&ca, None)).await.unwrap();
    server.shutdown().await.unwrap();
}
