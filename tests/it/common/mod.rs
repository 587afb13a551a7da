//! Helpers shared by the integration tests: an in-process server on
//! 127.0.0.1:0 with a generated tonic client (service tests), and
//! generating and parsing OJ-format files (judge tests).

pub mod certs;

use std::future::Future;
use std::time::Duration;

use stonegame::core::ValidRow;
use stonegame::judge::generate::{Family, GenSpec, generate};
use stonegame::ojformat::OjReader;
use stonegame::service::config::Config;
use stonegame::service::pb;
use stonegame::service::pb::stone_game_client::StoneGameClient;
use stonegame::service::{RunningServer, start};
use tonic::transport::Channel;

/// The default configuration on ephemeral loopback ports (gRPC and
/// metrics), two workers,
/// adjusted by `f`.
pub fn config(f: impl FnOnce(&mut Config)) -> Config {
    let mut c = Config::defaults().expect("embedded defaults load");
    c.listen = "127.0.0.1:0".into();
    c.metrics.listen = Some("127.0.0.1:0".into());
    c.workers = 2;
    c.shutdown_grace = std::time::Duration::from_secs(2);
    f(&mut c);
    c
}

/// Starts a server with `config(f)`.
pub async fn server(f: impl FnOnce(&mut Config)) -> RunningServer {
    start(&config(f)).await.expect("server starts")
}

/// A generated client connected to `server`.
pub async fn client(server: &RunningServer) -> StoneGameClient<Channel> {
    let channel = channel(server).await;
    StoneGameClient::new(channel).max_decoding_message_size(64 << 20)
}

/// A fresh connection to `server`.
pub async fn channel(server: &RunningServer) -> Channel {
    tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .expect("valid url")
        .connect()
        .await
        .expect("connects")
}

/// One case.
pub fn case(id: impl Into<String>, piles: Vec<u64>, variant: pb::Variant) -> pb::Case {
    pb::Case {
        id: id.into(),
        piles,
        variant: variant as i32,
        ..Default::default()
    }
}

/// Polls `cond` until it holds. Not a timing assertion: the bound only keeps
/// a broken build from hanging CI forever.
pub async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..12_000 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

/// Like [`eventually`] with an async condition.
pub async fn eventually_async<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    for _ in 0..12_000 {
        if cond().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never happened: {what}");
}

// ---- judge tests ----

/// Generates `spec`'s input and expected answers as strings.
pub fn gen_strings(spec: &GenSpec) -> (String, String) {
    let (mut input, mut answers) = (Vec::new(), Vec::new());
    generate(spec, &mut input, Some(&mut answers)).expect("generate");
    (
        String::from_utf8(input).expect("utf-8 input"),
        String::from_utf8(answers).expect("utf-8 answers"),
    )
}

/// The rows of an OJ-format input (panics on malformed input).
pub fn parse_rows(input: &str) -> Vec<Vec<u64>> {
    OjReader::new(input.as_bytes())
        .expect("header")
        .map(|case| case.expect("valid case").piles.into_vec())
        .collect()
}

/// The 0/1 lines of an answer file.
pub fn parse_answers(answers: &str) -> Vec<bool> {
    answers
        .lines()
        .map(|l| match l {
            "0" => false,
            "1" => true,
            other => panic!("bad answer line {other:?}"),
        })
        .collect()
}

// ---- the built binary ----

/// The built `stonegame` binary started with `args`, its stdin, stdout
/// and stderr piped.
pub fn spawn_piped(args: &[&str]) -> std::process::Child {
    use std::process::{Command, Stdio};
    Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// Runs the built `stonegame` binary with `args`, `stdin` piped in.
pub fn run_binary(args: &[&str], stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = spawn_piped(args);
    let mut input = child.stdin.take().expect("piped stdin");
    input.write_all(stdin).expect("write stdin");
    drop(input);
    child.wait_with_output().expect("the binary exits")
}

/// `stonegame serve ARGS` with `env` (after a `warn` log filter, without
/// `RUST_LOG`): stdin and stdout null, stderr piped, not yet spawned.
pub fn serve_command(args: &[&str], env: &[(&str, &str)]) -> std::process::Command {
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_stonegame"));
    command
        .arg("serve")
        .args(args)
        .env_remove("RUST_LOG")
        .env("STONEGAME_LOG__FILTER", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command
}

/// A `stonegame serve` process ([`serve_command`]) that has printed
/// `listening on ADDR`; a thread reads the rest of its stderr (so the
/// server never blocks on a full pipe). Killed and reaped when dropped.
pub struct ServeProcess {
    pub child: std::process::Child,
    pub addr: String,
    log: Option<std::thread::JoinHandle<String>>,
    /// The log printed after the address so far.
    so_far: std::sync::Arc<std::sync::Mutex<String>>,
}

impl ServeProcess {
    /// Starts `stonegame serve` with `env` and waits for its address.
    pub fn spawn(env: &[(&str, &str)]) -> ServeProcess {
        use std::io::BufRead;
        let mut child = serve_command(&[], env)
            .spawn()
            .expect("stonegame serve starts");
        let mut stderr = std::io::BufReader::new(child.stderr.take().expect("piped stderr"));
        let mut process = ServeProcess {
            child,
            addr: String::new(),
            log: None,
            so_far: Default::default(),
        };
        let mut seen = String::new();
        loop {
            let mut line = String::new();
            let n = stderr.read_line(&mut line).expect("stderr");
            assert_ne!(n, 0, "serve printed no `listening on ADDR`:\n{seen}");
            if let Some(addr) = line.trim_end().strip_prefix("listening on ") {
                process.addr = addr.to_string();
                break;
            }
            seen.push_str(&line);
        }
        let so_far = std::sync::Arc::clone(&process.so_far);
        process.log = Some(std::thread::spawn(move || {
            let mut line = String::new();
            while stderr.read_line(&mut line).is_ok_and(|n| n > 0) {
                so_far.lock().expect("log lock").push_str(&line);
                line.clear();
            }
            so_far.lock().expect("log lock").clone()
        }));
        process
    }

    /// Waits until the server has logged a line containing `needle` (an
    /// event the test waits on, rather than a time); panics with the log
    /// after a minute, a bound only against hangs.
    pub async fn wait_for_log(&self, needle: &str) {
        let started = std::time::Instant::now();
        while !self.so_far.lock().expect("log lock").contains(needle) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the server never logged `{needle}`; log:\n{}",
                self.so_far.lock().expect("log lock")
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// SIGTERM, waits for the exit, and returns the log printed after the
    /// address.
    pub fn stop(mut self) -> String {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().expect("serve exits");
        self.log
            .take()
            .expect("started")
            .join()
            .expect("log reader")
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// [`run_binary`] on text: (exit code, stdout, stderr).
pub fn run_cli(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let out = run_binary(args, input.as_bytes());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A two-ends generator spec.
pub fn spec(family: Family, cases: u64, max_n: u64, max_a: u64, seed: u64) -> GenSpec {
    GenSpec {
        family,
        cases,
        max_n,
        max_a,
        seed,
        variant: stonegame::core::Variant::TwoEnds,
    }
}

/// A valid row of a test (panics if it is not).
pub fn valid(piles: &[u64]) -> ValidRow<'_> {
    ValidRow::new(piles, usize::MAX).expect("a valid test row")
}

/// A `kB` field of `/proc/PID/status` (`VmRSS:`, `VmHWM:`), in KiB.
pub fn proc_status_kb(pid: u32, name: &str) -> u64 {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process is alive");
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("{name} in /proc/PID/status"))
}

/// A random two-ends row of `n` piles (piles of 1–3, of 2–9, or a base
/// below 10^9 plus 0–3), won for the player to move if `won`, on which
/// the bot's tempo move (`core::remoteness::best_move`) is not its O(1)
/// move (`core::analyze`'s: the first winning move, or one stone from the
/// larger end): a bot without tempo fails on it at once. About one such
/// row in 10 to 30.
pub fn tempo_row(rng: &mut rand_chacha::ChaCha8Rng, n: usize, won: bool) -> Vec<u64> {
    use rand::Rng;
    use stonegame::core::Variant;
    loop {
        let row: Vec<u64> = match rng.random_range(0..3) {
            0 => (0..n).map(|_| rng.random_range(1..=3)).collect(),
            1 => (0..n).map(|_| rng.random_range(2..=9)).collect(),
            _ => {
                let base = rng.random_range(1..1_000_000_000u64);
                (0..n).map(|_| base + rng.random_range(0..4)).collect()
            }
        };
        let r = valid(&row);
        let a = stonegame::core::analyze(&r, Variant::TwoEnds);
        if a.first_player_wins == won
            && stonegame::core::remoteness::best_move(&r, Variant::TwoEnds) != a.best_move
        {
            return row;
        }
    }
}

// ---- what a test needs from the machine ----

/// Panics, before anything else happens, with a message saying what the
/// test needs and how to get it, when `program` cannot be started (no
/// test skips itself in silence: docs/tests.md "What the tests need").
/// `why` says what the test uses it for; `install` how to get it.
pub fn require(program: &str, why: &str, install: &str) {
    let found = std::process::Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    assert!(
        found,
        "this test needs `{program}` on PATH ({why}), and it cannot be started here: \
         {install}. The tests that need it and what else they need: docs/tests.md, \
         \"What the tests need from the machine\""
    );
}

/// [`require`] for `python3` (contestant programs, venvs from PyPI).
pub fn require_python3(why: &str) {
    require(
        "python3",
        why,
        "install CPython 3 with venv and pip (Debian: `apt-get install python3 python3-venv`)",
    );
}

/// [`require`] for `g++` (the package's C++ programs).
pub fn require_gxx(why: &str) {
    require(
        "g++",
        why,
        "install a C++17 compiler (Debian: `apt-get install g++`)",
    );
}
