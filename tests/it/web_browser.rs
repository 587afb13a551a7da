//! The page (`GET /` of `stonegame serve`, docs/web.md) played in a real
//! browser: headless Chromium driven by Selenium from
//! `tests/web/play_page.py`, against the built binary on 127.0.0.1 port 0.
//!
//! - `page_plays_whole_games`: a game won by playing the page's hints
//!   (`#status` classes `end won`, "you took the last stone"), a game lost
//!   after a blunder (shown as `li.blunder`; `end lost`), an illegal move
//!   refused without changing anything and the inline resign confirmation
//!   (no, then yes: "you resigned"), a game reloaded mid-way and finished,
//!   a game from a lost seat on the hints' longest resistance (remoteness),
//!   a game played with the keyboard only (Tab, typing, Enter), the two-tap
//!   move (a first tap on a stone only selects it: the take box shows the
//!   amount, nothing is sent; Escape, a hint or an edit clears it; a second
//!   tap moves; ↓ and Enter on a focused end pile), a row of 40
//!   piles (`.elided` says how many it hides and opens; no count clipped),
//!   the phone viewport 390 × 844 (the take controls on one line in order,
//!   controls and piles ≥ 44 px high, no sideways scrolling, the board in
//!   view at Start and after the bot's move), axe-core 4.14.1 (its
//!   `axe.min.js` injected into the page and `axe.run` with its default
//!   rules; no serious or critical violation in any state, nor a scrolling
//!   region the keyboard cannot reach, at 1280 × 1100 and at 390 × 844:
//!   loaded, the analysis board with and without a game, errors, a game
//!   mid-way, selected, lost, and won with a move list long enough to
//!   scroll), the analysis board (its address, its variant named, the
//!   verdict and every move grouped, best first; a click, back, bad
//!   addresses, no "Back to the game" without a game, a game's link and
//!   back to it) and bot against bot on it step by step. "1 ply", never
//!   "1 plies", anywhere on the page. After
//!   every move the script checks the piles, the move list, the hints, the
//!   bot's last move (`.last-move`, "bot took 2 from the right — your
//!   move") and `#status` against its own solver, remoteness included (an
//!   exhaustive game-tree solver, docs/game.md §5: the hints, and the
//!   status's "perfect play: …" and the move list's "win in 7 → lose in 12"
//!   from the game's analysis, which must be shown). A screenshot of a game
//!   in progress goes to a temporary directory, or to the path named by the
//!   `WEB_SCREENSHOT` environment variable (e.g.
//!   `WEB_SCREENSHOT=docs/web-page.png`, relative to the repository).
//! - `page_reports_a_stopped_server`: the page is loaded, the server is
//!   stopped (SIGTERM, waited for), and starting a game shows an error
//!   (axe-core finds no serious or critical violation in it).
//!
//! Needs: Debian's `chromium` and `chromium-driver`, a venv with selenium
//! (`target/web-venv`) and axe-core from the npm registry
//! (`target/web-axe`, passed to the script as `--axe PATH`), which
//! `tests/web_install` installs when missing (apt-get as root, then PyPI
//! and npm; the Python pins are in `tests/web/requirements.txt`, axe-core's
//! version in `tests/web_install`). Every step has a time bound after which
//! its processes are killed, so a broken page fails instead of hanging;
//! nothing asserts on time.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// The state-token key of the servers (any 32 bytes or more).
const TOKEN_KEY: &str = "web-browser-test-key-0123456789abcdef0123456789abcdef";

/// Bounds of the steps (a fresh machine installs Chromium first).
const INSTALL: Duration = Duration::from_secs(900);
const SERVER_START: Duration = Duration::from_secs(60);
const SERVER_STOP: Duration = Duration::from_secs(60);
const SCRIPT: Duration = Duration::from_secs(900);
const PAGE_LOAD: Duration = Duration::from_secs(120);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Kills a process group (the script and the chromedriver and Chromium it
/// started); no error when it is gone.
fn kill_group(pgid: u32) {
    unsafe { libc::kill(-(pgid as i32), libc::SIGKILL) };
}

/// The lines a child writes to one pipe, sent as they come by a thread
/// (so a child never blocks on a full pipe).
fn lines_of(pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Everything received before `deadline` or until the sender is gone.
fn drain(rx: &Receiver<String>, deadline: Instant) -> Vec<String> {
    let mut out = Vec::new();
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        out.push(line);
    }
    out
}

/// Waits for `child` to exit within `limit`; kills its process group and
/// panics naming `what` when it does not.
fn wait_or_kill(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() >= deadline {
            kill_group(child.id());
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {limit:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A command in its own process group, stdin null, stdout and stderr piped.
fn grouped(mut command: Command) -> Command {
    command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs `command` to its end within `limit`: (status, stdout, stderr).
fn run(
    command: Command,
    limit: Duration,
    what: &str,
) -> (std::process::ExitStatus, String, String) {
    let mut child = grouped(command)
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let out = lines_of(child.stdout.take().unwrap());
    let err = lines_of(child.stderr.take().unwrap());
    let status = wait_or_kill(&mut child, limit, what);
    // What the child left behind (a browser) would hold the pipes open.
    kill_group(child.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    (
        status,
        drain(&out, deadline).join("\n"),
        drain(&err, deadline).join("\n"),
    )
}

/// What `tests/web_install` installed: the venv's python and axe-core's
/// `axe.min.js`.
struct Installed {
    python: PathBuf,
    axe: PathBuf,
}

/// `tests/web_install` once per test process.
fn installed() -> &'static Installed {
    static INSTALLED: OnceLock<Installed> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let venv = repo().join("target").join("web-venv");
        let mut command = Command::new(repo().join("tests").join("web_install"));
        command.arg(&venv);
        let (status, out, err) = run(command, INSTALL, "tests/web_install");
        assert!(
            status.success(),
            "tests/web_install failed ({status}):\n{out}\n{err}"
        );
        let printed = |key: &str| {
            let prefix = format!("{key}=");
            out.lines()
                .find_map(|l| l.strip_prefix(prefix.as_str()))
                .map(PathBuf::from)
                .unwrap_or_else(|| panic!("tests/web_install printed no {key}=PATH:\n{out}"))
        };
        Installed {
            python: printed("python"),
            axe: printed("axe"),
        }
    })
}

/// A `stonegame serve` on loopback ports; killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_stonegame"));
        command
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--metrics-listen",
                "127.0.0.1:0",
            ])
            .env_remove("RUST_LOG")
            .env("STONEGAME_LOG__FILTER", "warn")
            .env("STONEGAME_PLAY__TOKEN_KEY", TOKEN_KEY);
        let mut child = grouped(command)
            .stdout(Stdio::null())
            .spawn()
            .expect("stonegame serve starts");
        let err = lines_of(child.stderr.take().unwrap());
        let deadline = Instant::now() + SERVER_START;
        let mut seen = Vec::new();
        let addr = loop {
            let Ok(line) = err.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            else {
                let _ = child.kill();
                let _ = child.wait();
                panic!("serve printed no `listening on ADDR`:\n{}", seen.join("\n"));
            };
            if let Some(addr) = line.strip_prefix("listening on ") {
                break addr.to_string();
            }
            seen.push(line);
        };
        // The rest of its log is read and dropped.
        std::thread::spawn(move || err.iter().for_each(drop));
        Server {
            child,
            url: format!("http://{addr}/"),
        }
    }

    /// SIGTERM and waits for the exit.
    fn stop(mut self) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let status = wait_or_kill(
            &mut self.child,
            SERVER_STOP,
            "stonegame serve after SIGTERM",
        );
        assert!(
            status.success(),
            "stonegame serve exited with {status} after SIGTERM"
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The script's command with `args`.
fn script(args: &[&str]) -> Command {
    let installed = installed();
    let mut command = Command::new(&installed.python);
    command
        .arg(repo().join("tests").join("web").join("play_page.py"))
        .arg("--axe")
        .arg(&installed.axe)
        .args(args)
        .current_dir(repo())
        .env("PYTHONUNBUFFERED", "1");
    command
}

/// The script's closing line must be `N passed, 0 failed`.
fn assert_passed(status: std::process::ExitStatus, out: &str, err: &str, n: usize) {
    let last = out.lines().last().unwrap_or("");
    assert!(
        status.success() && last == format!("{n} passed, 0 failed"),
        "play_page.py exited with {status}, last line {last:?}\n--- stdout\n{out}\n--- stderr\n{err}"
    );
}

#[test]
fn page_plays_whole_games() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let screenshot = match std::env::var_os("WEB_SCREENSHOT") {
        Some(path) => repo().join(path),
        None => tmp.path().join("web-page.png"),
    };
    let _ = std::fs::remove_file(&screenshot);
    let server = Server::start();
    let (status, out, err) = run(
        script(&[
            "--url",
            &server.url,
            "--screenshot",
            screenshot.to_str().expect("utf-8 path"),
            // The server fills a game's remoteness (issue 31 §3): the
            // status and the move list must show it.
            "--require-game-remoteness",
        ]),
        SCRIPT,
        "play_page.py",
    );
    eprintln!("{out}");
    assert_passed(status, &out, &err, 12);
    let png = std::fs::read(&screenshot).expect("the screenshot was written");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "the screenshot is not a PNG"
    );
    server.stop();
}

#[test]
fn page_reports_a_stopped_server() {
    let server = Server::start();
    let mut command = grouped(script(&["--url", &server.url, "--expect-down"]));
    command.stdin(Stdio::piped());
    let mut child = command.spawn().expect("play_page.py starts");
    let pgid = child.id();
    let out = lines_of(child.stdout.take().unwrap());
    let err = lines_of(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    let deadline = Instant::now() + PAGE_LOAD;
    loop {
        match out.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line == "READY-TO-STOP" => break,
            Ok(line) => seen.push(line),
            Err(_) => {
                kill_group(pgid);
                let _ = child.wait();
                let err = drain(&err, Instant::now() + Duration::from_secs(5));
                panic!(
                    "play_page.py never loaded the page:\n{}\n{}",
                    seen.join("\n"),
                    err.join("\n")
                );
            }
        }
    }
    server.stop();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"go\n")
        .expect("tell the script to go on");
    let status = wait_or_kill(&mut child, SCRIPT, "play_page.py --expect-down");
    kill_group(pgid);
    let deadline = Instant::now() + Duration::from_secs(10);
    seen.extend(drain(&out, deadline));
    let out = seen.join("\n");
    let err = drain(&err, deadline).join("\n");
    eprintln!("{out}");
    assert_passed(status, &out, &err, 1);
}
