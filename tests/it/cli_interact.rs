//! `stonegame interact` against contestant programs written here (Python 3
//! scripts in a temporary directory): a perfect one, a wrong seat, a
//! blunder, garbage, an illegal move, a silent one, one that exits early,
//! one that floods; testlib and Kattis exit codes and messages, the
//! transcript, and the judge systems that wire the pipes themselves;
//! `--tempo`: a contestant with tempo accepted, one that wins slowly
//! rejected.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const STONEGAME: &str = env!("CARGO_BIN_EXE_stonegame");

/// The contestant: `player.py MODE [VARIANT]`. It computes its moves with
/// the O(n²) recurrence of docs/game.md (its own code), takes the winning
/// seat and plays winning moves, except as MODE says: `wrong-seat`,
/// `blunder` (its second move is not a winning one), `garbage` (its second
/// move is not a move), `illegal` (its second move takes too many),
/// `silent` (says nothing after its seat), `exit-early` (exits after its
/// seat), `flood` (a 10,000-byte line instead of a seat), `deaf` (never
/// reads, never writes), `tempo` (a fastest winning move by the game tree's
/// remoteness, its own memoised search: small rows only). It exits on `-1`.
const PLAYER: &str = r#"
import sys, time

def step_left(l, r, x):
    if x == r: return 0
    if x < r and x < l: return x
    if x < r and x >= l: return x + 1
    if x > r and x > l: return x
    return x - 1

def step_right(l, r, x):
    if x == l: return 0
    if x < l and x < r: return x
    if x < l and x >= r: return x + 1
    if x > l and x > r: return x
    return x - 1

def winning(a, variant):
    n = len(a)
    if variant == "leftmost":
        wins = False
        for v in reversed(a[1:]):
            wins = v > 1 or not wins
        if not wins:
            return ("L", a[0])
        return ("L", a[0] - 1) if a[0] > 1 else None
    if n == 1:
        return ("L", a[0])
    L = [[0] * n for _ in range(n)]
    R = [[0] * n for _ in range(n)]
    for i in range(n):
        L[i][i] = R[i][i] = a[i]
    for ln in range(2, n + 1):
        for i in range(n - ln + 1):
            j = i + ln - 1
            L[i][j] = step_left(L[i][j - 1], R[i][j - 1], a[j])
            R[i][j] = step_right(L[i + 1][j], R[i + 1][j], a[i])
    t, u = L[1][n - 1], R[0][n - 2]
    if t < a[0]:
        return ("L", a[0] - t)
    if u < a[-1]:
        return ("R", a[-1] - u)
    return None

memo = {}

def children(a, variant):
    sides = ["L"] if variant == "leftmost" or len(a) == 1 else ["L", "R"]
    for side in sides:
        i = 0 if side == "L" else len(a) - 1
        for k in range(1, a[i] + 1):
            b = list(a)
            apply(b, side, k)
            yield (side, k), tuple(b)

def remoteness(a, variant):
    if not a:
        return 0
    if a not in memo:
        rs = [remoteness(b, variant) for _, b in children(a, variant)]
        lost = [r for r in rs if r % 2 == 0]
        memo[a] = 1 + (min(lost) if lost else max(rs))
    return memo[a]

def tempo(a, variant):
    moves = [(remoteness(b, variant), m) for m, b in children(tuple(a), variant)]
    return min(r_m for r_m in moves if r_m[0] % 2 == 0)[1]

def apply(a, side, k):
    i = 0 if side == "L" else len(a) - 1
    a[i] -= k
    if a[i] == 0:
        a.pop(i)

def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()

def hear():
    line = sys.stdin.readline()
    if line.strip() == "-1":
        sys.exit(0)
    return line

mode = sys.argv[1]
variant = sys.argv[2] if len(sys.argv) > 2 else "two-ends"
if mode == "deaf":
    time.sleep(60)
games = int(hear())
for g in range(games):
    n = int(hear())
    a = list(map(int, hear().split()))
    assert len(a) == n
    first = winning(a, variant) is not None
    if mode == "wrong-seat":
        first = not first
    if mode == "flood":
        say("F" * 10000)
        time.sleep(60)
    say("FIRST" if first else "SECOND")
    if mode == "exit-early":
        sys.exit(0)
    if mode == "silent":
        time.sleep(60)
    mine, moves = first, 0
    while a:
        if mine:
            w = winning(a, variant) or ("L", 1)
            if mode == "tempo":
                w = tempo(a, variant)
            if mode == "blunder" and moves == 1:
                w = ("L", 1) if w != ("L", 1) else (("L", 2) if a[0] >= 2 else ("R", 1))
            if mode == "garbage" and moves == 1:
                say("take two please")
                time.sleep(60)
            if mode == "illegal" and moves == 1:
                w = ("L", a[0] + 1)
            say("%s %d" % w)
            moves += 1
        else:
            words = hear().split()
            w = (words[0], int(words[1]))
        apply(a, *w)
        mine = not mine
assert sys.stdin.read() == ""
"#;

/// Three games: a lost row (the program sits SECOND), a won one, one pile.
const INPUT: &str = "3\n4\n3 1 9 4\n5\n2 3 1 4 5\n1\n7\n";

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(input: &str) -> Setup {
        crate::common::require_python3("the contestant programs of these tests are Python");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("player.py"), PLAYER).unwrap();
        std::fs::write(dir.path().join("in.txt"), input).unwrap();
        Setup { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn s(&self, name: &str) -> String {
        self.path(name).to_str().unwrap().to_string()
    }

    /// `stonegame interact OPTIONS in.txt -- python3 player.py MODE…`.
    fn run(&self, options: &[&str], player: &[&str]) -> (i32, String) {
        let mut args: Vec<String> = vec!["interact".into()];
        args.extend(options.iter().map(|s| s.to_string()));
        args.push(self.s("in.txt"));
        args.push("--".into());
        args.push("python3".into());
        args.push(self.s("player.py"));
        args.extend(player.iter().map(|s| s.to_string()));
        let out = Command::new(STONEGAME)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        code_and_stderr(out)
    }
}

fn code_and_stderr(out: Output) -> (i32, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "`{text}` lacks `{p}`");
    }
}

/// Generous: Python may take a second to start on a busy machine.
const TIMEOUT: &str = "--move-timeout-ms=20000";

#[test]
fn a_perfect_program_wins_every_game_and_the_transcript_has_every_line() {
    let s = Setup::new(INPUT);
    let t = s.s("t.txt");
    let (code, err) = s.run(&[TIMEOUT, "--transcript", &t], &["perfect"]);
    assert_eq!(code, 0, "{err}");
    assert_has(&err, &["ok 3 games won (2 as FIRST, 1 as SECOND)"]);
    let transcript = std::fs::read_to_string(s.path("t.txt")).unwrap();
    let lines: Vec<&str> = transcript.lines().collect();
    assert!(lines[0].starts_with("# stonegame interact: 3 games, two-ends variant"));
    assert_eq!(
        &lines[1..5],
        [
            "> 3",
            "# game 1: n = 4, the first player loses",
            "> 4",
            "> 3 1 9 4"
        ]
    );
    assert_eq!(lines[5], "< SECOND");
    assert!(lines.contains(&"< FIRST"));
    assert!(lines.contains(&"> 7"));
    assert!(lines.contains(&"< L 7"));
    assert!(
        lines
            .iter()
            .filter(|l| l.starts_with("> L ") || l.starts_with("> R "))
            .count()
            >= 3
    );
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("# verdict: ok 3 games won")
    );
    // A weaker, differently seeded judge and the leftmost variant.
    let (code, err) = s.run(&[TIMEOUT, "--strength", "0.5", "--seed", "7"], &["perfect"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = s.run(
        &[TIMEOUT, "--variant", "leftmost"],
        &["perfect", "leftmost"],
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_wrong_seat_is_a_wrong_answer() {
    let s = Setup::new(INPUT);
    let t = s.s("t.txt");
    let (code, err) = s.run(&[TIMEOUT, "--transcript", &t], &["wrong-seat"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &[
            "wrong answer game 1: the program took the seat FIRST in (3 1 9 4)",
            "loses against perfect play; the winning seat was SECOND",
        ],
    );
    let transcript = std::fs::read_to_string(s.path("t.txt")).unwrap();
    assert!(
        transcript.contains("< FIRST\n# verdict: wrong answer"),
        "{transcript}"
    );
    assert!(transcript.ends_with("> -1\n"), "{transcript}");
}

#[test]
fn a_blunder_loses_and_the_message_names_it() {
    let s = Setup::new(INPUT);
    let (code, err) = s.run(&[TIMEOUT], &["blunder"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &[
            "wrong answer game 1: lost: the judge took the last pile at ply ",
            "; its move `L 1` at ply 3 in (",
            ") threw the win away; the winning moves there were ",
        ],
    );
}

#[test]
fn garbage_is_a_presentation_error() {
    let s = Setup::new(INPUT);
    let (code, err) = s.run(&[TIMEOUT], &["garbage"]);
    assert_eq!(code, 2, "{err}");
    assert_has(
        &err,
        &[
            "wrong output format game 1, ply 3: expected a move `L k` or `R k`, got \"take two please\"",
        ],
    );
    let (code, err) = s.run(&[TIMEOUT], &["flood"]);
    assert_eq!(code, 2, "{err}");
    assert_has(
        &err,
        &["game 1: a line longer than 4096 bytes when it was to choose a seat"],
    );
}

#[test]
fn an_illegal_move_is_a_wrong_answer() {
    let s = Setup::new(INPUT);
    let (code, err) = s.run(&[TIMEOUT], &["illegal"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &[
            "wrong answer game 1, ply 3: illegal move `L ",
            "from the left pile: it holds ",
            "the winning moves there were ",
        ],
    );
}

#[test]
fn a_silent_program_times_out_and_nothing_hangs() {
    let s = Setup::new(INPUT);
    let started = Instant::now();
    let (code, err) = s.run(&["--move-timeout-ms", "3000"], &["silent"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &[
            "wrong answer game 1: no line from the program within 3000 ms when it was to move at ply 1",
        ],
    );
    // The sleeping program was stopped: the run took the timeout and a
    // grace second, not the program's minute.
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
}

/// A program that neither reads nor writes, with a row far larger than a
/// pipe's buffer: the judge's writes cannot block it.
#[test]
fn a_deaf_program_cannot_block_the_judge() {
    let piles: Vec<String> = (0..30_000).map(|i| (1 + i % 1000).to_string()).collect();
    let s = Setup::new(&format!("1\n30000\n{}\n", piles.join(" ")));
    let started = Instant::now();
    let (code, err) = s.run(&["--move-timeout-ms", "3000"], &["deaf"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &["game 1: no line from the program within 3000 ms when it was to choose a seat"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_program_that_ends_early_is_a_wrong_answer() {
    let s = Setup::new(INPUT);
    let (code, err) = s.run(&[TIMEOUT], &["exit-early"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &[
            "wrong answer game 1: the program's output ended (exit status: 0) when it was to move at ply 1",
        ],
    );
}

#[test]
fn judge_failures() {
    let s = Setup::new("2\n3\n1 2\n");
    let (code, err) = s.run(&[], &["perfect"]);
    assert_eq!(code, 3, "{err}");
    assert_has(
        &err,
        &["FAIL bad input: case 1: line 4, column 1: expected pile 3 of 3"],
    );
    let s = Setup::new(INPUT);
    let out = Command::new(STONEGAME)
        .args(["interact", &s.s("in.txt"), "--", "/nonexistent/program"])
        .output()
        .unwrap();
    let (code, err) = code_and_stderr(out);
    assert_eq!(code, 3, "{err}");
    assert_has(&err, &["FAIL cannot run /nonexistent/program"]);
    for bad in ["--strength=2", "--move-timeout-ms=0"] {
        let out = Command::new(STONEGAME)
            .args(["interact", bad, &s.s("in.txt")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn kattis_exit_codes_and_judgemessage() {
    let s = Setup::new(INPUT);
    let feedback = s.path("feedback");
    std::fs::create_dir(&feedback).unwrap();
    let run = |mode: &str| {
        let out = Command::new(STONEGAME)
            .args([
                "interact",
                "--format",
                "kattis",
                TIMEOUT,
                &s.s("in.txt"),
                "--",
                "python3",
            ])
            .arg(s.path("player.py"))
            .arg(mode)
            .env("FEEDBACK_DIR", &feedback)
            .output()
            .unwrap();
        let msg = std::fs::read_to_string(feedback.join("judgemessage.txt")).unwrap();
        (out.status.code(), msg)
    };
    let (code, msg) = run("perfect");
    assert_eq!(code, Some(42), "{msg}");
    assert_has(&msg, &["ok 3 games won"]);
    let (code, msg) = run("garbage");
    assert_eq!(code, Some(43), "{msg}");
    assert_has(&msg, &["wrong output format game 1, ply 3"]);
    let (code, msg) = run("wrong-seat");
    assert_eq!(code, Some(43), "{msg}");
    assert_has(&msg, &["the winning seat was SECOND"]);
}

/// DOMjudge / Kattis output-validator style: the judge system starts the
/// team's program and the validator and wires them itself: `validator
/// input judge_answer feedback_dir < team_output > team_input`.
#[test]
fn a_judge_system_that_wires_the_pipes() {
    let s = Setup::new(INPUT);
    let feedback = s.path("feedback");
    std::fs::create_dir(&feedback).unwrap();
    std::fs::write(s.path("answer.txt"), "").unwrap();
    for (mode, want, words) in [
        ("perfect", 42, "ok 3 games won"),
        ("blunder", 43, "threw the win away"),
    ] {
        let mut team = Command::new("python3")
            .arg(s.path("player.py"))
            .arg(mode)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let validator = Command::new(STONEGAME)
            .args(["interact", "--format", "kattis", TIMEOUT])
            .arg(s.path("in.txt"))
            .arg(s.path("answer.txt"))
            .arg(&feedback)
            .stdin(Stdio::from(team.stdout.take().unwrap()))
            .stdout(Stdio::from(team.stdin.take().unwrap()))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let _ = team.kill();
        team.wait().unwrap();
        let msg = std::fs::read_to_string(feedback.join("judgemessage.txt")).unwrap();
        assert_eq!(validator.status.code(), Some(want), "{msg}");
        assert_has(&msg, &[words]);
    }
}

/// The same through a shell and a FIFO, testlib style (`interactor INPUT
/// OUTPUT` on standard input and output): the verdict line goes to OUTPUT.
#[cfg(unix)]
#[test]
fn a_shell_pipeline_with_a_fifo() {
    let s = Setup::new(INPUT);
    let fifo = s.s("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let script = format!(
        "python3 {player} perfect < {fifo} | {sg} interact {TIMEOUT} {input} {out} > {fifo}",
        player = s.s("player.py"),
        sg = STONEGAME,
        input = s.s("in.txt"),
        out = s.s("out.txt"),
    );
    let status = Command::new("sh").arg("-c").arg(&script).status().unwrap();
    assert_eq!(status.code(), Some(0));
    let out = std::fs::read_to_string(s.path("out.txt")).unwrap();
    assert!(out.starts_with("ok 3 games won"), "{out}");
    // Without a program, INPUT cannot be standard input.
    let out = Command::new(STONEGAME)
        .args(["interact", "-"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (code, err) = code_and_stderr(out);
    assert_eq!(code, 3, "{err}");
}

/// A won row whose first winning move (`L 1`, leaving (5 5): 11 plies
/// against the longest resistance) is slower than its fastest (`R 4`,
/// leaving (1 5 1): 5 plies), then the lost (3 1 9 4) and a single pile.
const TEMPO_INPUT: &str = "3\n3\n1 5 5\n4\n3 1 9 4\n1\n7\n";

#[test]
fn tempo_accepts_fast_wins_only() {
    let s = Setup::new(TEMPO_INPUT);
    // Off: any win is accepted, today's verdict.
    let (code, err) = s.run(&[TIMEOUT], &["perfect"]);
    assert_eq!(code, 0, "{err}");
    assert_has(&err, &["ok 3 games won (2 as FIRST, 1 as SECOND), "]);
    assert!(!err.contains("remoteness"), "{err}");
    // On: the program with tempo wins each game within its remoteness
    // (5, 10 and 1 plies: the judge resists longest in the lost one).
    let t = s.s("t.txt");
    let (code, err) = s.run(&[TIMEOUT, "--tempo", "--transcript", &t], &["tempo"]);
    assert_eq!(code, 0, "{err}");
    assert_has(
        &err,
        &["ok 3 games won (2 as FIRST, 1 as SECOND), 16 plies, each within its remoteness"],
    );
    let transcript = std::fs::read_to_string(s.path("t.txt")).unwrap();
    assert_has(
        &transcript,
        &[
            "# game 1: n = 3, the first player wins, perfect play takes 5 plies\n",
            "# game 1: won by the program in 5 plies\n",
            "# game 2: n = 4, the first player loses, perfect play takes 10 plies\n",
            "# game 2: won by the program in 10 plies\n",
        ],
    );
    // The first winning move wins too, but slowly.
    let (code, err) = s.run(&[TIMEOUT, "--tempo"], &["perfect"]);
    assert_eq!(code, 1, "{err}");
    assert_has(
        &err,
        &["wrong answer game 1: won, but too slowly: took 11 plies, perfect play takes 5"],
    );
    // Kattis: a wrong answer too.
    let feedback = s.path("feedback");
    std::fs::create_dir(&feedback).unwrap();
    let out = Command::new(STONEGAME)
        .args(["interact", "--format", "kattis", "--tempo", TIMEOUT])
        .arg(s.path("in.txt"))
        .arg(s.path("answer"))
        .arg(&feedback)
        .args(["--", "python3"])
        .arg(s.path("player.py"))
        .arg("perfect")
        .output()
        .unwrap();
    let msg = std::fs::read_to_string(feedback.join("judgemessage.txt")).unwrap();
    assert_eq!(out.status.code(), Some(43), "{msg}");
    assert_has(&msg, &["won, but too slowly: took 11 plies"]);
    // The leftmost variant: every win there is a fastest one.
    let (code, err) = s.run(
        &[TIMEOUT, "--tempo", "--variant", "leftmost"],
        &["perfect", "leftmost"],
    );
    assert_eq!(code, 0, "{err}");
}
