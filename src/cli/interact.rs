//! `stonegame interact`: the interactor of the game as an interactive
//! problem (testlib and Kattis/DOMjudge conventions; docs/play.md).
//!
//! It plays every game of an OJ-format INPUT against a contestant's program,
//! one line per message:
//!
//! 1. judge: `T`; then per game `n` and the line `a_1 … a_n`;
//! 2. program: `FIRST` or `SECOND`, the seat it takes;
//! 3. whoever is to move writes `L k` or `R k` (take k ≥ 1 stones from the
//!    leftmost or rightmost pile; with one pile left both name it);
//! 4. a game ends when the last pile is taken; the next starts with its `n`.
//!
//! The judge plays perfectly when it can win and otherwise makes a seeded
//! random move that takes at least half of an end pile
//! ([`WhenLost::Shorten`]), so its moves keep a game to O(n log max a)
//! plies. On a line it cannot accept, a losing seat or a lost game it writes
//! `-1` and stops.
//!
//! Two ways to run it: with `-- PROGRAM [ARGS…]` it starts the program with
//! piped standard input and output; without a program it talks on its own
//! standard input (the program's output) and standard output (the program's
//! input), for judge systems that wire the pipes themselves (testlib's
//! `interactor INPUT OUTPUT`, DOMjudge/Kattis's `validator INPUT
//! JUDGE_ANSWER FEEDBACK_DIR < team_output > team_input`).
//!
//! Reading is done by a thread that sends lines over a channel; the judge
//! waits for each with a timeout, so a silent or vanished program never
//! hangs it. Writing is done by another thread, so a program that does not
//! read cannot block it either.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use crate::core::game::{Bot, Game, GameRow, WhenLost};
use crate::core::{Move, Never, Side, ValidRow, Variant};
use crate::judge::check::Verdict;
use crate::ojformat::OjReader;

/// Longest line accepted from the program (a longer one is a presentation
/// error).
pub const MAX_LINE: usize = 4096;

/// Conventions for exit codes and messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Exit 0 accepted, 1 wrong answer, 2 presentation error, 3 judge
    /// failure; the verdict line (`ok …`, `wrong answer …`, …) on stderr.
    #[default]
    Testlib,
    /// Exit 42 accepted, 43 rejected (wrong answer or presentation error), 3
    /// judge failure; the message also in FEEDBACK_DIR/judgemessage.txt.
    Kattis,
}

/// Arguments of `stonegame interact`.
#[derive(Debug, clap::Args)]
pub struct InteractArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The judge's strength in [0, 1]: with this probability it plays its
    /// optimal move, otherwise a random legal one (1: perfect when it can
    /// win).
    #[arg(long, default_value_t = 1.0, value_parser = parse_strength)]
    pub strength: f64,
    /// Seed of the judge's random choices (same seed, same games).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Longest wait for each line of the program, in milliseconds (≥ 1).
    #[arg(long, default_value_t = 10_000, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub move_timeout_ms: u64,
    /// Write every line exchanged (`>` judge to program, `<` program to
    /// judge, `#` notes) to FILE.
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,
    /// Exit codes and message files: testlib or kattis (DOMjudge).
    #[arg(long, value_enum, default_value_t = Format::Testlib)]
    pub format: Format,
    /// The games: OJ format (T, then n and the piles per game).
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
    /// testlib: a file the verdict line is also written to (testlib's
    /// interactor output file); kattis: the judge answer (not read).
    #[arg(value_name = "OUTPUT_OR_ANSWER")]
    pub second: Option<PathBuf>,
    /// kattis: the feedback directory (default: $FEEDBACK_DIR) where
    /// judgemessage.txt is written.
    #[arg(value_name = "FEEDBACK_DIR")]
    pub feedback_dir: Option<PathBuf>,
    /// The contestant's program and its arguments, after `--`. Without it,
    /// the judge talks on its own standard input and output.
    #[arg(last = true, value_name = "PROGRAM")]
    pub program: Vec<OsString>,
}

/// Parses a strength in [0, 1].
pub(crate) fn parse_strength(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a number in [0, 1]")),
    }
}

/// A verdict and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    pub message: String,
}

impl Outcome {
    fn new(verdict: Verdict, message: impl Into<String>) -> Outcome {
        Outcome {
            verdict,
            message: message.into(),
        }
    }
}

/// Runs the command.
pub fn run(args: InteractArgs) -> ExitCode {
    let outcome = interact(&args);
    report(&args, &outcome)
}

/// Prints the verdict line on stderr, writes the message files, and returns
/// the exit code of the format.
fn report(args: &InteractArgs, outcome: &Outcome) -> ExitCode {
    let line = format!("{} {}", outcome.verdict.testlib_name(), outcome.message);
    eprintln!("{line}");
    match args.format {
        Format::Testlib => {
            if let Some(path) = &args.second
                && let Err(e) = std::fs::write(path, format!("{line}\n"))
            {
                eprintln!("stonegame: cannot write {}: {e}", path.display());
            }
            ExitCode::from(outcome.verdict.exit_code())
        }
        Format::Kattis => {
            let dir = args
                .feedback_dir
                .clone()
                .or_else(|| std::env::var_os("FEEDBACK_DIR").map(PathBuf::from));
            if let Some(dir) = dir {
                let name = match outcome.verdict {
                    Verdict::JudgeFailure => "judgeerror.txt",
                    _ => "judgemessage.txt",
                };
                let path = dir.join(name);
                if let Err(e) = std::fs::write(&path, format!("{line}\n")) {
                    eprintln!("stonegame: cannot write {}: {e}", path.display());
                }
            }
            ExitCode::from(match outcome.verdict {
                Verdict::Accepted => 42,
                Verdict::WrongAnswer | Verdict::PresentationError => 43,
                Verdict::JudgeFailure => 3,
            })
        }
    }
}

/// Reads INPUT, runs the games, and cleans up after the program.
pub fn interact(args: &InteractArgs) -> Outcome {
    let fail = |msg: String| Outcome::new(Verdict::JudgeFailure, msg);
    let wired = args.program.is_empty();
    if wired && args.input.as_os_str() == "-" {
        return fail(
            "INPUT cannot be standard input without a PROGRAM (it is the program's output)".into(),
        );
    }
    let rows = match read_rows(&args.input) {
        Ok(rows) => rows,
        Err(msg) => return fail(msg),
    };
    let mut transcript = match Transcript::create(args.transcript.as_deref()) {
        Ok(t) => t,
        Err(msg) => return fail(msg),
    };
    let timeout = Duration::from_millis(args.move_timeout_ms);
    let (mut child, to_program, from_program): (
        Option<Child>,
        Box<dyn Write + Send>,
        Box<dyn Read + Send>,
    ) = if wired {
        (None, Box::new(io::stdout()), Box::new(io::stdin()))
    } else {
        let mut cmd = Command::new(&args.program[0]);
        cmd.args(&args.program[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        match cmd.spawn() {
            Ok(mut c) => {
                let stdin = c.stdin.take().expect("piped");
                let stdout = c.stdout.take().expect("piped");
                (Some(c), Box::new(stdin), Box::new(stdout))
            }
            Err(e) => {
                return fail(format!(
                    "cannot run {}: {e}",
                    Path::new(&args.program[0]).display()
                ));
            }
        }
    };
    let (to, written) = spawn_writer(to_program);
    let mut session = Session {
        to: Some(to),
        from: spawn_reader(from_program),
        timeout,
        transcript: &mut transcript,
        child: child.as_mut(),
        eof: false,
    };
    let bot = |game: usize| Bot {
        strength: args.strength,
        seed: args.seed ^ (game as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        when_lost: WhenLost::Shorten,
    };
    session.transcript.note(&format!(
        "stonegame interact: {} games, {} variant, strength {}, seed {}",
        rows.len(),
        args.variant,
        args.strength,
        args.seed
    ));
    let outcome = play_all(&mut session, &rows, args.variant, &bot);
    session.transcript.note(&format!(
        "verdict: {} {}",
        outcome.verdict.testlib_name(),
        outcome.message
    ));
    let failed = outcome.verdict != Verdict::Accepted;
    let eof = session.eof;
    if failed && !eof {
        session.send("-1");
    }
    // Closing the program's input tells it the games are over.
    drop(session.to.take());
    drop(session);
    let flushed = transcript.finish();
    // Give the writer a moment to deliver the last line.
    let _ = written.recv_timeout(timeout.min(Duration::from_secs(1)));
    let mut outcome = outcome;
    if let Some(mut child) = child {
        let grace = if failed {
            timeout.min(Duration::from_secs(1))
        } else {
            timeout
        };
        match wait_for(&mut child, grace) {
            Some(status) if !status.success() && !failed => {
                outcome
                    .message
                    .push_str(&format!(" (the program then exited with {status})"));
            }
            Some(_) => {}
            None => {
                let _ = child.kill();
                let _ = child.wait();
                if !failed {
                    outcome.message.push_str(
                        " (the program did not exit after the last game and was stopped)",
                    );
                }
            }
        }
    }
    if let Err(msg) = flushed {
        return fail(msg);
    }
    outcome
}

/// Waits up to `grace` for `child` to exit.
fn wait_for(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

/// The rows of INPUT, or the `FAIL` message.
fn read_rows(path: &Path) -> Result<Vec<ValidRow<'static>>, String> {
    let input = super::open_input(Some(path))
        .map_err(|e| format!("cannot open the input {}: {e}", path.display()))?;
    let reader = OjReader::new(input).map_err(|e| format!("bad input: {e}"))?;
    reader
        .map(|case| case.map(|c| c.piles).map_err(|e| format!("bad input: {e}")))
        .collect()
}

/// The transcript file, if asked for.
struct Transcript {
    out: Option<(PathBuf, BufWriter<File>)>,
    error: Option<io::Error>,
}

impl Transcript {
    fn create(path: Option<&Path>) -> Result<Transcript, String> {
        let out =
            match path {
                None => None,
                Some(p) => Some((
                    p.to_path_buf(),
                    BufWriter::new(File::create(p).map_err(|e| {
                        format!("cannot create the transcript {}: {e}", p.display())
                    })?),
                )),
            };
        Ok(Transcript { out, error: None })
    }

    fn line(&mut self, prefix: &str, text: &str) {
        if let Some((_, w)) = &mut self.out
            && self.error.is_none()
            && let Err(e) = writeln!(w, "{prefix} {text}")
        {
            self.error = Some(e);
        }
    }

    fn note(&mut self, text: &str) {
        self.line("#", text);
    }

    fn finish(&mut self) -> Result<(), String> {
        if let Some((path, w)) = &mut self.out {
            if let Some(e) = self.error.take() {
                return Err(format!(
                    "cannot write the transcript {}: {e}",
                    path.display()
                ));
            }
            w.flush()
                .map_err(|e| format!("cannot write the transcript {}: {e}", path.display()))?;
        }
        Ok(())
    }
}

/// What the reader thread saw.
enum Incoming {
    Line(Vec<u8>),
    TooLong,
    Eof,
    Failed(io::Error),
}

/// Reads lines of at most [`MAX_LINE`] bytes (the `\n`, and a `\r` before
/// it, removed) and sends them until the end of the input.
fn spawn_reader(input: Box<dyn Read + Send>) -> Receiver<Incoming> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut r = BufReader::new(input);
        loop {
            let mut buf = Vec::new();
            let got = match r
                .by_ref()
                .take(MAX_LINE as u64 + 2)
                .read_until(b'\n', &mut buf)
            {
                Ok(0) => Incoming::Eof,
                Ok(_) if buf.last() == Some(&b'\n') => {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                    if buf.len() > MAX_LINE {
                        Incoming::TooLong
                    } else {
                        Incoming::Line(buf)
                    }
                }
                Ok(_) if buf.len() > MAX_LINE => Incoming::TooLong,
                // The last line, without its newline.
                Ok(_) => Incoming::Line(buf),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Incoming::Failed(e),
            };
            let last = !matches!(got, Incoming::Line(_));
            if tx.send(got).is_err() || last {
                return;
            }
        }
    });
    rx
}

/// Writes (and flushes) each message it is sent; says when it is done (its
/// sender dropped, or the output closed).
fn spawn_writer(mut out: Box<dyn Write + Send>) -> (Sender<Vec<u8>>, Receiver<()>) {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        for msg in rx {
            if out.write_all(&msg).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
        drop(out);
        let _ = done_tx.send(());
    });
    (tx, done_rx)
}

/// The judge's side of the pipes.
struct Session<'a> {
    to: Option<Sender<Vec<u8>>>,
    from: Receiver<Incoming>,
    timeout: Duration,
    transcript: &'a mut Transcript,
    child: Option<&'a mut Child>,
    /// The program's output has ended.
    eof: bool,
}

/// Why no line came.
enum NoLine {
    Timeout,
    Ended(String),
    Garbage(String),
}

impl Session<'_> {
    fn send(&mut self, line: &str) {
        self.transcript.line(">", line);
        if let Some(to) = &self.to {
            // A closed pipe shows up as the end of the program's output.
            let _ = to.send(format!("{line}\n").into_bytes());
        }
    }

    /// The program's next line, within the timeout.
    fn recv(&mut self) -> Result<String, NoLine> {
        if self.eof {
            return Err(NoLine::Ended(self.exit_note()));
        }
        match self.from.recv_timeout(self.timeout) {
            Ok(Incoming::Line(bytes)) => match String::from_utf8(bytes) {
                Ok(s) => {
                    self.transcript.line("<", &s);
                    Ok(s)
                }
                Err(e) => {
                    let shown = String::from_utf8_lossy(e.as_bytes()).into_owned();
                    self.transcript.line("<", &shown);
                    Err(NoLine::Garbage(format!(
                        "{} (not UTF-8)",
                        shown_line(&shown)
                    )))
                }
            },
            Ok(Incoming::TooLong) => {
                self.eof = true;
                Err(NoLine::Garbage(format!(
                    "a line longer than {MAX_LINE} bytes"
                )))
            }
            Ok(Incoming::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                self.transcript.note("the program's output ended");
                Err(NoLine::Ended(self.exit_note()))
            }
            Ok(Incoming::Failed(e)) => {
                self.eof = true;
                Err(NoLine::Ended(format!(" (reading its output failed: {e})")))
            }
            Err(RecvTimeoutError::Timeout) => Err(NoLine::Timeout),
        }
    }

    /// ` (exit status …)` when the program is ours and has exited.
    fn exit_note(&mut self) -> String {
        match self.child.as_mut() {
            Some(child) => match wait_for(child, Duration::from_millis(200)) {
                Some(status) => format!(" ({status})"),
                None => String::new(),
            },
            None => String::new(),
        }
    }
}

/// A line as messages show it: quoted, cut at 60 characters.
fn shown_line(line: &str) -> String {
    let cut: String = line.chars().take(60).collect();
    if cut.len() < line.len() {
        format!("{cut:?}…")
    } else {
        format!("{cut:?}")
    }
}

/// A move as the protocol writes it.
pub fn protocol_move(m: &Move) -> String {
    let side = match m.side {
        Side::Left => 'L',
        Side::Right => 'R',
    };
    format!("{side} {}", m.take)
}

/// A list of moves in protocol form, or that there were none.
fn winning_list(moves: &[Move]) -> String {
    if moves.is_empty() {
        "none (the position was lost)".into()
    } else {
        moves
            .iter()
            .map(protocol_move)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The live row for messages: all of it when short, else its ends.
pub fn describe(game: &Game) -> String {
    let (first, last) = game.live();
    let n = game.row().piles().len();
    if last - first < 12 {
        let piles: Vec<String> = game.piles_now().iter().map(u64::to_string).collect();
        format!("({})", piles.join(" "))
    } else {
        format!(
            "(piles {}..{} of {n}: {} … {})",
            first + 1,
            last + 1,
            game.left_size(),
            game.right_size()
        )
    }
}

/// A parsed move line: side and take (`None`: more than any pile holds).
fn parse_move(line: &str) -> Option<(Side, Option<u64>)> {
    let mut words = line.split_ascii_whitespace();
    let side = match words.next()? {
        "L" => Side::Left,
        "R" => Side::Right,
        _ => return None,
    };
    let k = words.next()?;
    if words.next().is_some() || k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((side, k.parse().ok()))
}

/// Plays every game; the first failure ends the run.
fn play_all(
    session: &mut Session<'_>,
    rows: &[ValidRow<'static>],
    variant: Variant,
    bot: &dyn Fn(usize) -> Bot,
) -> Outcome {
    session.send(&rows.len().to_string());
    let (mut plies, mut seats) = (0u64, [0usize; 2]);
    for (g, piles) in rows.iter().enumerate() {
        let number = g + 1;
        let Ok(row) = GameRow::new(piles, variant, &Never);
        let mut game = Game::new(Arc::new(row));
        let bot = bot(g);
        let first_wins = game.mover_wins();
        session.transcript.note(&format!(
            "game {number}: n = {}, the first player {}",
            piles.len(),
            if first_wins { "wins" } else { "loses" }
        ));
        session.send(&piles.len().to_string());
        let line: Vec<String> = piles.iter().map(u64::to_string).collect();
        session.send(&line.join(" "));
        let wa = |msg: String| Outcome::new(Verdict::WrongAnswer, msg);
        let pe = |msg: String| Outcome::new(Verdict::PresentationError, msg);
        let no_line = |why: NoLine, what: &str, timeout: Duration| match why {
            NoLine::Timeout => wa(format!(
                "game {number}: no line from the program within {} ms when it was to {what}",
                timeout.as_millis()
            )),
            NoLine::Ended(note) => wa(format!(
                "game {number}: the program's output ended{note} when it was to {what}"
            )),
            NoLine::Garbage(shown) => pe(format!("game {number}: {shown} when it was to {what}")),
        };
        let seat_line = match session.recv() {
            Ok(l) => l,
            Err(why) => return no_line(why, "choose a seat", session.timeout),
        };
        let seat = match seat_line.trim() {
            "FIRST" => 0,
            "SECOND" => 1,
            _ => {
                return pe(format!(
                    "game {number}: expected `FIRST` or `SECOND`, got {}",
                    shown_line(&seat_line)
                ));
            }
        };
        let names = ["FIRST", "SECOND"];
        let winning_seat = if first_wins { 0 } else { 1 };
        if seat != winning_seat {
            return wa(format!(
                "game {number}: the program took the seat {} in {}, which loses against perfect \
                 play; the winning seat was {}",
                names[seat],
                describe(&game),
                names[winning_seat]
            ));
        }
        seats[seat] += 1;
        // The program's last move that threw a win away: (ply, line,
        // position, winning moves there).
        let mut blunder: Option<(u64, String, String, Vec<Move>)> = None;
        while !game.is_over() {
            let ply = game.ply();
            if ply % 2 == seat as u64 {
                let what = format!("move at ply {ply}");
                let line = match session.recv() {
                    Ok(l) => l,
                    Err(why) => return no_line(why, &what, session.timeout),
                };
                let Some((side, take)) = parse_move(&line) else {
                    return pe(format!(
                        "game {number}, ply {ply}: expected a move `L k` or `R k`, got {}",
                        shown_line(&line)
                    ));
                };
                let winning = game.winning_moves();
                let position = describe(&game);
                let result = match take {
                    Some(take) => game.play(side, take).map_err(|e| e.to_string()),
                    None => Err("more stones than the pile holds".to_string()),
                };
                match result {
                    Ok(p) => {
                        if p.blunder {
                            blunder = Some((ply, protocol_move(&p.mv), position, winning));
                        }
                    }
                    Err(why) => {
                        return wa(format!(
                            "game {number}, ply {ply}: illegal move `{}` in {position}: {why}; \
                             the winning moves there were {}",
                            line.split_ascii_whitespace().collect::<Vec<_>>().join(" "),
                            winning_list(&winning)
                        ));
                    }
                }
            } else {
                let m = game.bot_move(&bot).expect("the game is not over");
                game.play_move(m).expect("the bot's moves are legal");
                session.send(&protocol_move(&m));
            }
        }
        plies += game.ply();
        let winner = (game.ply() - 1) % 2;
        if winner != seat as u64 {
            let why = match blunder {
                Some((ply, line, position, winning)) => format!(
                    "its move `{line}` at ply {ply} in {position} threw the win away; the \
                     winning moves there were {}",
                    winning_list(&winning)
                ),
                None => "it never had a winning move".into(),
            };
            return wa(format!(
                "game {number}: lost: the judge took the last pile at ply {}; {why}",
                game.ply() - 1
            ));
        }
        session.transcript.note(&format!(
            "game {number}: won by the program in {} plies",
            game.ply()
        ));
    }
    Outcome::new(
        Verdict::Accepted,
        format!(
            "{} games won ({} as FIRST, {} as SECOND), {plies} plies",
            rows.len(),
            seats[0],
            seats[1]
        ),
    )
}
