//! `stonegame client` over several replicas, with real processes on
//! loopback: `client solve` over three `stonegame serve` replicas survives
//! one killed with SIGKILL and one stopped with SIGTERM mid-run, and prints
//! exactly what the offline `stonegame solve` prints; `dns:///localhost`
//! balances over the name's addresses; malformed `--server` values and
//! names that do not resolve are clear errors (exit 1); a run with no
//! replica left names them and how far it got.
//!
//! Nothing here leaves 127.0.0.1: `localhost` comes from /etc/hosts, and
//! the unresolvable name has a label longer than 63 bytes, which the
//! system resolver refuses without sending a query.
//!
//! The survivor's own count of the cases it solved comes from its metrics
//! endpoint (`--metrics-listen`, `/metrics`, `stonegame_cases_total`) when
//! the binary has one; the client's `--stats` counts are checked either way.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_stonegame");

/// A `stonegame serve` process on 127.0.0.1, any free port.
struct Replica {
    child: Child,
    addr: String,
    /// Its metrics listener, when the binary has one.
    metrics: Option<String>,
    log: Option<JoinHandle<Vec<String>>>,
}

/// Whether `stonegame serve` has a metrics endpoint (`--metrics-listen`).
fn serve_has_metrics() -> bool {
    let help = run(&["serve", "--help"]);
    text(&help.stdout).contains("--metrics-listen")
}

impl Replica {
    /// Starts one with `env` over the defaults and waits for its address
    /// (and its metrics address: a free port, so replicas never collide).
    fn start(env: &[(&str, &str)]) -> Replica {
        let metrics = serve_has_metrics();
        let mut command = Command::new(BIN);
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env_remove("RUST_LOG")
            .env("STONEGAME_LOG__FILTER", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if metrics {
            command.args(["--metrics-listen", "127.0.0.1:0"]);
        }
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("stonegame serve starts");
        let stderr = child.stderr.take().unwrap();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let log = std::thread::spawn(move || {
            let mut log = Vec::new();
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                for (prefix, which) in [("listening on ", 0), ("metrics on ", 1)] {
                    if let Some(addr) = line.strip_prefix(prefix) {
                        let _ = addr_tx.send((which, addr.trim().to_string()));
                    }
                }
                log.push(line);
            }
            log
        });
        let mut addrs = [None, None];
        while addrs[0].is_none() || (metrics && addrs[1].is_none()) {
            let (which, addr) = addr_rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the replica prints `listening on ADDR` (and `metrics on ADDR`)");
            addrs[which] = Some(addr);
        }
        let [addr, metrics] = addrs;
        Replica {
            child,
            addr: addr.unwrap(),
            metrics,
            log: Some(log),
        }
    }

    /// The sum of its `stonegame_cases_total` series, if it has metrics.
    fn cases_solved(&self) -> Option<f64> {
        let addr = self.metrics.as_ref()?;
        let mut stream = TcpStream::connect(addr).expect("metrics listener");
        // HTTP/1.0: the body ends with the connection, never chunked.
        write!(stream, "GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
        assert!(
            head.starts_with("HTTP/1.") && head.contains(" 200 "),
            "{head}"
        );
        let series: Vec<f64> = body
            .lines()
            .filter(|l| l.starts_with("stonegame_cases_total"))
            .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(!series.is_empty(), "no stonegame_cases_total in\n{body}");
        Some(series.iter().sum())
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn signal(&self, signal: &str) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args([signal, &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill {signal} {pid}");
    }

    /// Waits for the process to exit (a bound only against hanging CI).
    fn wait(&mut self) -> ExitStatus {
        let until = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < until, "replica {} never exited", self.addr);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Its stderr so far (the process must have exited).
    fn log(&mut self) -> Vec<String> {
        self.log
            .take()
            .map(|h| h.join().unwrap_or_default())
            .unwrap_or_default()
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs the binary to completion.
fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The lines `client solve --stats` prints: (replica URL, batches, cases,
/// failed streams).
fn stats(stderr: &str) -> Vec<(String, u64, u64, u64)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("stonegame: replica "))
        .map(|l| {
            // "URL: B batches, C cases answered; F failed streams…"
            let (url, rest) = l.split_once(": ").expect("url: …");
            let numbers: Vec<u64> = rest
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .take(3)
                .map(|s| s.parse().unwrap())
                .collect();
            (url.to_string(), numbers[0], numbers[1], numbers[2])
        })
        .collect()
}

/// A loopback port where connections are refused for as long as the
/// socket lives: bound but not listening, so no other process can take the
/// port and answer (a port merely released could be).
fn closed_port() -> (tokio::net::TcpSocket, u16) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

/// Generates OJ input with `stonegame gen` into `path`; its case count.
fn generate(path: &Path, args: &[&str]) -> usize {
    let mut all = vec!["gen"];
    all.extend_from_slice(args);
    let out = run(&all);
    assert!(out.status.success(), "gen: {}", text(&out.stderr));
    std::fs::write(path, &out.stdout).unwrap();
    text(&out.stdout)
        .lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .expect("T on the first line")
}

#[test]
fn solve_survives_a_killed_and_a_drained_replica_and_prints_every_verdict_once() {
    // At least 10 s of solving on this 2-core machine: 250 rows of up to
    // 30,000 piles, n²/2 cell updates each; `stonegame solve` of the test
    // build (overflow checks on) takes 11–12 s of CPU time on it (a
    // release build 3.7 s), `client solve` over the replicas about 11 s.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    let cases = generate(
        &input,
        &[
            "--family", "random", "--cases", "250", "--max-n", "30000", "--max-a", "3", "--seed",
            "13",
        ],
    );
    let input = input.to_str().unwrap();

    // A is killed, B is stopped (1 s of grace for its streams), C stays.
    let mut a = Replica::start(&[]);
    let mut b = Replica::start(&[("STONEGAME_SHUTDOWN_GRACE", "1s")]);
    let c = Replica::start(&[]);
    let server = format!("{},{},{}", a.url(), b.url(), c.url());

    let started = Instant::now();
    let mut client = Command::new(BIN)
        .args([
            "client",
            "solve",
            "--stats",
            "--batch-size",
            "2",
            "--server",
            &server,
            input,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Verdict lines as they come.
    let printed = Arc::new(AtomicUsize::new(0));
    let stdout_bytes = Arc::new(Mutex::new(Vec::new()));
    let reader = {
        let (printed, bytes) = (Arc::clone(&printed), Arc::clone(&stdout_bytes));
        let mut stdout = client.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let lines = buf[..n].iter().filter(|&&b| b == b'\n').count();
                        bytes.lock().unwrap().extend_from_slice(&buf[..n]);
                        printed.fetch_add(lines, Ordering::SeqCst);
                    }
                }
            }
        })
    };
    let mut stderr = client.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let wait_for = |lines: usize| {
        let until = Instant::now() + Duration::from_secs(300);
        while printed.load(Ordering::SeqCst) < lines {
            assert!(Instant::now() < until, "never printed {lines} lines");
            std::thread::sleep(Duration::from_millis(5));
        }
    };

    // At 15 % of the verdicts, SIGKILL A; at 40 %, SIGTERM B.
    wait_for(cases * 15 / 100);
    a.child.kill().unwrap();
    let at_kill = printed.load(Ordering::SeqCst);
    wait_for(cases * 40 / 100);
    b.signal("-TERM");
    let at_term = printed.load(Ordering::SeqCst);
    // Both happened mid-run.
    assert!(at_term < cases, "the run ended before the SIGTERM");
    assert!(client.try_wait().unwrap().is_none());
    // B drains and exits 0 within its grace.
    let b_status = b.wait();
    assert!(b_status.success(), "SIGTERM'd replica: {b_status:?}");
    let b_log = b.log();

    let status = client.wait().unwrap();
    let remote_time = started.elapsed();
    reader.join().unwrap();
    let stderr = errors.join().unwrap();
    assert!(status.success(), "client solve: {status:?}\n{stderr}");

    let started = Instant::now();
    let offline = run(&["solve", input]);
    let offline_time = started.elapsed();
    assert!(offline.status.success());
    let remote = stdout_bytes.lock().unwrap().clone();
    assert_eq!(offline.stdout.len(), cases * 2);
    assert!(
        remote == offline.stdout,
        "client solve differs from solve ({} and {} bytes)",
        remote.len(),
        offline.stdout.len()
    );
    eprintln!(
        "{cases} cases: client solve over 3 replicas {:.1} s (A killed after {at_kill} verdicts, \
         B stopped after {at_term}), offline solve {:.1} s\n{stderr}",
        remote_time.as_secs_f64(),
        offline_time.as_secs_f64()
    );

    // Every case was answered once, by someone; A's stream failure resent
    // its batches; B was seen draining (its health turned NOT_SERVING).
    let stats = stats(&stderr);
    let by = |r: &Replica| {
        stats
            .iter()
            .find(|s| s.0 == r.url())
            .unwrap_or_else(|| panic!("no stats line for {}:\n{stderr}", r.url()))
            .clone()
    };
    let (sa, sb, sc) = (by(&a), by(&b), by(&c));
    assert_eq!(sa.2 + sb.2 + sc.2, cases as u64, "{stderr}");
    assert!(sa.3 >= 1, "A failed: {stderr}");
    assert!(
        stderr.contains(&format!("{}: ", a.url())) && stderr.contains("unanswered batch"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{} is shutting down", b.url())),
        "{stderr}\nB's log: {b_log:?}"
    );
    // The survivor took the rest: everything A and B did not answer, with
    // no failure of its own. (A and B answered only what they finished
    // before their end: at most what was printed by then, plus what was
    // held unprinted: the reorder buffer's 2 rounds × 4 batches × 3
    // replicas, 4 batches on their way to stdout and 4 in flight, of 2
    // cases each.)
    assert_eq!(sc.3, 0, "{stderr}");
    let slack = 2 * (2 * 4 * 3 + 4 + 4);
    assert!(sa.2 <= (at_kill + slack) as u64, "{sa:?} {at_kill}");
    assert!(sb.2 <= (at_term + slack) as u64, "{sb:?} {at_term}");
    assert!(
        sc.2 >= (cases - at_term - slack) as u64,
        "{sc:?}: the survivor answered too little"
    );
    // Its own count agrees: it solved exactly the cases the client took
    // from it (it never failed, so nothing it solved was thrown away).
    match c.cases_solved() {
        Some(solved) => assert_eq!(solved, sc.2 as f64, "the survivor's metrics"),
        None => eprintln!(
            "note: this stonegame serve has no metrics endpoint; the survivor's share is \
             checked from the client's --stats only"
        ),
    }
    // And it is still serving.
    let out = run(&[
        "client",
        "suggest",
        "--server",
        &c.url(),
        "3",
        "1",
        "9",
        "4",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("verdict: 0"));
}

#[test]
fn dns_names_balance_over_their_addresses() {
    let replica = Replica::start(&[]);
    let port = replica.addr.rsplit_once(':').unwrap().1.to_string();
    let server = format!("dns:///localhost:{port}");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    generate(
        &input,
        &[
            "--family", "planted", "--cases", "300", "--max-n", "60", "--seed", "5",
        ],
    );
    let input = input.to_str().unwrap();
    let offline = run(&["solve", input]);
    let remote = run(&[
        "client",
        "solve",
        "--stats",
        "--batch-size",
        "7",
        "--server",
        &server,
        input,
    ]);
    assert!(remote.status.success(), "{}", text(&remote.stderr));
    assert_eq!(remote.stdout, offline.stdout);
    // localhost is 127.0.0.1 (/etc/hosts): one replica, every case.
    let stats = stats(&text(&remote.stderr));
    assert_eq!(stats, [(replica.url(), 43, 300, 0)]);
    // Every command takes the form.
    let out = run(&["client", "suggest", "--server", &server, "3", "1", "9", "4"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("verdict: 0"));
    let out = run(&["client", "tables", "--server", &server, "3", "1", "9"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // A list naming the same server twice through different forms is two
    // entries that resolve to one address: still one replica.
    let both = format!("{},{}", replica.url(), server);
    let out = run(&["client", "solve", "--stats", "--server", &both, input]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(out.stdout, offline.stdout);
    assert_eq!(stats_count(&text(&out.stderr)), 1);
}

fn stats_count(stderr: &str) -> usize {
    stats(stderr).len()
}

#[test]
fn malformed_and_unresolvable_servers_are_clear_errors() {
    let long = format!("dns:///{}.invalid:50051", "x".repeat(70));
    let cases: &[(&str, &str)] = &[
        (
            "dns:///localhost",
            "invalid server address \"dns:///localhost\": the port is missing (dns:///localhost:PORT)",
        ),
        (
            "http://127.0.0.1:7001,,http://127.0.0.1:7002",
            "entry 2 (\"\"): it is empty (a stray comma?)",
        ),
        (
            "http://127.0.0.1:7001,http://127.0.0.1:x",
            "entry 2 (\"http://127.0.0.1:x\"): the port \"x\" is not a number from 1 to 65535",
        ),
        ("ftp://127.0.0.1:7001", "the scheme ftp:// is not supported"),
        (
            "dns://10.0.0.1/svc:53",
            "names a DNS server, which is not supported",
        ),
        (
            &long,
            &format!("cannot resolve {long}: failed to lookup address information"),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    std::fs::write(&input, "1\n4\n3 1 9 4\n").unwrap();
    let input = input.to_str().unwrap();
    for &(server, want) in cases {
        let commands: [&[&str]; 5] = [
            &["client", "solve", "--server", server, input],
            &["client", "suggest", "--server", server, "3", "1"],
            &["client", "tables", "--server", server, "3", "1"],
            &[
                "client", "gen", "--server", server, "--family", "tiny", "--seed", "1",
            ],
            &["client", "loadtest", "--server", server, "--requests", "1"],
        ];
        for args in commands {
            let out = run(args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
            assert!(
                stderr.starts_with("stonegame: error: "),
                "{args:?}: {stderr}"
            );
            assert!(stderr.contains(want), "{args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
    // client check: a malformed value is bad usage (exit 1); a name that
    // does not resolve is a server that cannot be reached (FAIL, exit 3).
    let out = run(&["client", "check", "--server", "dns:///x", input, input]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = run(&["client", "check", "--server", &long, input, input]);
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stdout).starts_with(&format!("FAIL cannot resolve {long}")));
}

#[test]
fn a_run_with_no_replica_left_names_them_and_how_far_it_got() {
    let ((_p, p), (_q, q)) = (closed_port(), closed_port());
    let server = format!("http://127.0.0.1:{p},http://127.0.0.1:{q}");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    std::fs::write(&input, "2\n4\n3 1 9 4\n1\n5\n").unwrap();
    let out = run(&[
        "client",
        "solve",
        "--server",
        &server,
        input.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    let last = stderr.lines().last().unwrap();
    assert!(
        last.starts_with("stonegame: error: no replica left to send to: tried http://127.0.0.1:"),
        "{stderr}"
    );
    // Both replicas (listed by URL), each with its record.
    for port in [p, q] {
        assert!(
            last.contains(&format!(
                "http://127.0.0.1:{port} (0 batches answered, 6 failures, last: Unavailable: tcp \
                 connect error"
            )),
            "{last}"
        );
        // Its give-up was announced.
        assert!(
            stderr.contains(&format!("warning: http://127.0.0.1:{port}: ")),
            "{stderr}"
        );
    }
    assert!(last.ends_with("; 0 cases were answered"), "{last}");
    assert!(stderr.contains("no longer used"), "{stderr}");
}
