//! `stonegame client play` against real servers (`stonegame serve` on
//! 127.0.0.1 port 0): the same output as the offline `stonegame play` for
//! the same input and seed (the same bot, the same moves, the same
//! messages for bad lines and refused moves), a game won by typing the
//! hinted moves, `quit` resigning, a bad row or an unreachable server, and
//! a game resumed on the other replica when its replica is killed.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The key both replicas share, so either resumes the other's games.
const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A `stonegame serve` process on loopback ports, killed when dropped.
struct Serve {
    child: Child,
    url: String,
    metrics: String,
}

impl Serve {
    fn start() -> Serve {
        let mut child = common::serve_command(
            &["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"],
            &[("STONEGAME_PLAY__TOKEN_KEY", KEY)],
        )
        .spawn()
        .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let (mut url, mut metrics) = (None, None);
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(a) = line.strip_prefix("listening on ") {
                url = Some(format!("http://{a}"));
            }
            if let Some(a) = line.strip_prefix("metrics on ") {
                metrics = Some(a.to_string());
            }
            if url.is_some() && metrics.is_some() {
                break;
            }
        }
        // Keep its stderr drained.
        std::thread::spawn(move || lines.for_each(drop));
        Serve {
            child,
            url: url.expect("listening on ADDR"),
            metrics: metrics.expect("metrics on ADDR"),
        }
    }

    /// Its `stonegame_play_sessions` gauge.
    fn play_sessions(&self) -> u64 {
        let mut s = TcpStream::connect(&self.metrics).unwrap();
        write!(
            s,
            "GET /metrics HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.metrics
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text.lines()
            .find_map(|l| l.strip_prefix("stonegame_play_sessions "))
            .map(|v| v.trim().parse().unwrap())
            .unwrap_or(0)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `stonegame ARGS` with `input` on stdin: (exit code, stdout, stderr).
fn run(args: &[&str], input: &str) -> (i32, String, String) {
    let (code, out, err) = common::run_cli(args, input);
    (code.unwrap_or(-1), out, err)
}

fn assert_has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "output lacks `{p}`:\n{text}");
    }
}

/// `play ARGS` offline and `client play --server URL ARGS`: both outputs.
fn both(url: &str, args: &[&str], input: &str) -> (String, String) {
    let offline: Vec<&str> = ["play"].into_iter().chain(args.iter().copied()).collect();
    let remote: Vec<&str> = ["client", "play", "--server", url]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let (code, local, err) = run(&offline, input);
    assert_eq!(code, 0, "{err}");
    let (code, remote, err) = run(&remote, input);
    assert_eq!(code, 0, "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
    (local, remote)
}

#[test]
fn the_same_game_as_offline_play() {
    let server = Serve::start();
    let url = server.url.as_str();
    // Hints, bad lines, refused moves, help and quit.
    let (local, remote) = both(
        url,
        &["3", "1", "9", "4"],
        "hint\nR 1\nfoo\n\nL 9\nL 0\nhelp\nquit\n",
    );
    assert_eq!(remote, local);
    assert_has(
        &remote,
        &[
            "stonegame play: 4 piles, two-ends variant; you move first, the bot plays at strength 1.",
            "hint: no move wins here",
            "you: R 1 (take 1 from the right pile, leaving 3)",
            "bot: L 1 (take 1 from the left pile, leaving 2)",
            "I did not understand \"foo\".",
            "That move is not allowed: cannot take 9 from the left pile: it holds 2.",
            "That move is not allowed: a move must take at least 1 stone.",
            "You quit. The bot wins.",
        ],
    );
    // Whole games: seats, variants, a random bot, a blunder, input ending.
    let moves = "R 1\nl1\nL 1\nhint\nL 1\nR 1\nL 2\nR 1\n".to_string() + &"L 1\n".repeat(30);
    for args in [
        &["--second", "2", "2"][..],
        &["--variant", "leftmost", "1", "1", "1"],
        &[
            "--strength",
            "0.3",
            "--seed",
            "5",
            "5",
            "8",
            "2",
            "7",
            "1",
            "9",
        ],
        &[
            "--second",
            "--strength",
            "0.5",
            "--seed",
            "9",
            "4",
            "4",
            "4",
            "4",
        ],
        &["3", "1", "9", "3"],
    ] {
        let (local, remote) = both(url, args, &moves);
        assert_eq!(remote, local, "{args:?}");
        assert!(
            remote.contains("wins") || remote.contains("you win!"),
            "{remote}"
        );
    }
    let (_, remote) = both(url, &["--variant", "leftmost", "2", "1"], "R 1\nquit\n");
    assert_has(
        &remote,
        &["That move is not allowed: the leftmost variant takes from the left pile only."],
    );
    let (_, remote) = both(url, &["3", "1", "9", "3"], "R 1\n");
    assert_has(
        &remote,
        &[
            "(That move gives the win away; L 1 would have kept it.)",
            "Input ended: the game is abandoned.",
        ],
    );
}

/// A `client play` process driven line by line.
struct Player {
    child: Child,
    stdin: ChildStdin,
    chunks: mpsc::Receiver<String>,
    out: String,
    err: mpsc::Receiver<String>,
}

impl Player {
    fn start(args: &[&str]) -> Player {
        let mut child = common::spawn_piped(&[&["client", "play"], args].concat());
        let (tx, chunks) = mpsc::channel();
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                if tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
                {
                    break;
                }
            }
        });
        let (etx, err) = mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = etx.send(line);
            }
        });
        let stdin = child.stdin.take().unwrap();
        Player {
            child,
            stdin,
            chunks,
            out: String::new(),
            err,
        }
    }

    /// Waits until the output shows `pattern` `count` times, or the game
    /// is over (not a timing assertion: the bound only stops a hang).
    fn wait_for(&mut self, pattern: &str, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while self.out.matches(pattern).count() < count && !self.over() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.out.push_str(&chunk),
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(200));
                    let err: Vec<String> = self.err.try_iter().collect();
                    panic!("no {pattern:?} #{count} in:\n{}\nstderr: {err:?}", self.out)
                }
            }
        }
    }

    fn over(&self) -> bool {
        self.out.contains("you win!") || self.out.contains("the bot wins.")
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Waits for the prompt of the player's `turn`-th move (1-based; every
    /// turn here takes two prompts: one for `hint`, one for the move).
    fn wait_for_turn(&mut self, turn: usize) {
        self.wait_for("your move> ", 2 * turn - 1);
    }

    /// At the player's `turn`-th move: asks for a hint and plays its first
    /// move.
    fn play_hinted(&mut self, turn: usize) {
        self.wait_for_turn(turn);
        self.send("hint");
        self.wait_for("hint: winning moves: ", turn);
        let hint = self.out.rsplit("hint: winning moves: ").next().unwrap();
        let mv: Vec<&str> = hint.split_whitespace().take(2).collect();
        self.send(&mv.join(" "));
    }

    /// Plays hinted moves until the game is over; (stdout, stderr lines).
    fn finish(mut self, mut turn: usize) -> (String, Vec<String>) {
        while !self.over() {
            self.play_hinted(turn);
            turn += 1;
            self.wait_for_turn(turn);
        }
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        while let Ok(chunk) = self.chunks.recv() {
            self.out.push_str(&chunk);
        }
        let err: Vec<String> = self.err.iter().collect();
        assert!(status.success(), "{err:?}");
        (self.out, err)
    }
}

#[test]
fn typing_the_hinted_moves_wins() {
    let server = Serve::start();
    for row in [
        &["2", "3", "1", "4", "5"][..],
        &["5"],
        &["7", "7", "2"],
        // Lost for the first mover: the bot moves first and loses.
        &["--second", "3", "1", "9", "4"],
        &["--variant", "leftmost", "--second", "1", "2", "1", "3"],
    ] {
        let mut args = vec!["--server", server.url.as_str()];
        args.extend_from_slice(row);
        let (out, err) = Player::start(&args).finish(1);
        assert_has(&out, &["You took the last pile: you win!"]);
        assert!(!out.contains("gives the win away"), "{out}");
        assert!(err.is_empty(), "{err:?}");
    }
}

#[test]
fn bad_rows_and_unreachable_servers_are_errors() {
    let (code, _, err) = run(&["client", "play", "3", "0"], "");
    assert_eq!(code, 1);
    assert_has(&err, &["pile 2 is 0"]);
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", free.local_addr().unwrap());
    drop(free);
    let (code, _, err) = run(&["client", "play", "--server", &url, "3", "1"], "");
    assert_eq!(code, 1);
    assert_has(&err, &["cannot connect to"]);
    let (code, _, _) = run(&["client", "play", "--strength", "2", "3"], "");
    assert_eq!(code, 2);
}

/// The replica holding the game dies mid-game: the game goes on on the
/// other one from the last state token, with the same moves as offline.
#[test]
fn a_game_resumes_on_the_other_replica() {
    let replicas = [Serve::start(), Serve::start()];
    let list = format!("{},{}", replicas[0].url, replicas[1].url);
    let row = ["2", "3", "1", "4", "5", "6", "2", "8", "3", "9", "4"];
    let mut args = vec!["--server", list.as_str()];
    args.extend_from_slice(&row);
    let mut player = Player::start(&args);
    player.play_hinted(1);
    player.wait_for_turn(2);
    // Which replica holds it.
    let holder = (0..100)
        .find_map(|_| {
            let found = replicas.iter().position(|r| r.play_sessions() == 1);
            if found.is_none() {
                std::thread::sleep(Duration::from_millis(50));
            }
            found
        })
        .expect("one replica holds the game");
    let [a, b] = replicas;
    let survivor = if holder == 0 {
        drop(a);
        b
    } else {
        drop(b);
        a
    };
    let (out, err) = player.finish(2);
    assert_has(&out, &["You took the last pile: you win!"]);
    assert!(
        err.iter().any(|l| l.contains("resuming the game at ply 2")),
        "{err:?}"
    );
    // The same game as offline, with the moves it played.
    let typed: Vec<String> = out
        .lines()
        .filter_map(|l| l.split("you: ").nth(1))
        .map(|m| m.split(" (").next().unwrap().to_string())
        .collect();
    let input = typed.join("\n") + "\n";
    let mut offline = vec!["play"];
    offline.extend_from_slice(&row);
    let (_, local, _) = run(&offline, &input);
    let strip = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.contains("hint: "))
            .collect::<Vec<_>>()
            .join("\n")
            .replace("your move> ", "")
    };
    assert_eq!(strip(&out), strip(&local));
    drop(survivor);
}
