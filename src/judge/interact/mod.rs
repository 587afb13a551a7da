//! The interactor: the judge of the game as an interactive problem (testlib
//! and Kattis/DOMjudge conventions; docs/play.md). `stonegame interact` is
//! its command line.
//!
//! It plays every game of an OJ-format input against a contestant's program,
//! one line per message, as docs/play.md ("`stonegame interact`") specifies:
//! `T`, then per game `n` and the piles; the program answers `FIRST` or
//! `SECOND`, then whoever is to move writes `L k` or `R k`. The judge plays
//! perfectly when it can win, else [`WhenLost::Shorten`] (games of
//! O(n log max a) plies). On a line it cannot accept, a losing seat or a
//! lost game it writes `-1` and stops; the [`Outcome`] is a testlib
//! [`Verdict`] and its message, a judge failure an [`InteractError`].
//!
//! With [`Settings::tempo`] the program must also win fast: within the
//! remoteness of the game's row (docs/game.md §5), the judge resisting
//! longest when it loses ([`WhenLost::Prolong`] with the bot's tempo); a
//! game won in more plies is a wrong answer ("won, but too slowly").
//!
//! The caller connects the program ([`Program`]: its standard input and
//! output, and its process when the caller started it) and reads the games
//! ([`read_games`]); [`interact`] plays them, optionally writing a
//! [`Transcript`]. Reading is done by a thread that sends lines over a
//! channel; the judge waits for each with a timeout, so a silent or vanished
//! program never hangs it. Writing is done by another thread, so a program
//! that does not read cannot block it either.

use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;
use std::process::Child;
use std::sync::Arc;
use std::time::Duration;

use crate::core::game::{Bot, Game, GameRow, WhenLost};
use crate::core::remoteness::{Plies, remoteness};
use crate::core::{Move, Never, Side, ValidRow, Variant};
use crate::judge::check::Verdict;
use crate::ojformat::{OjError, OjReader};

mod session;
mod transcript;

use session::{NoLine, Session, spawn_reader, spawn_writer, wait_for};
pub use transcript::Transcript;

/// Longest line accepted from the program (a longer one is a presentation
/// error).
pub const MAX_LINE: usize = 4096;

/// How the judge plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Which game is played.
    pub variant: Variant,
    /// In [0, 1]: with this probability the judge plays its optimal move,
    /// otherwise a random legal one (1: perfect when it can win).
    pub strength: f64,
    /// Seed of the judge's random choices (same seed, same games).
    pub seed: u64,
    /// Longest wait for each line of the program.
    pub move_timeout: Duration,
    /// The program must win each game within the remoteness of its row
    /// (perfect play with tempo), the judge resisting longest; else the
    /// verdict is a wrong answer. Off: any win is accepted.
    pub tempo: bool,
}

/// The contestant's program as the judge talks to it.
pub struct Program {
    /// Where the judge's lines go (the program's standard input). Dropped,
    /// and so closed, after the last game.
    pub input: Box<dyn Write + Send>,
    /// Where the program's lines come from (its standard output).
    pub output: Box<dyn Read + Send>,
    /// The program's process when the caller started it: its exit status is
    /// named when its output ends; after the games the judge waits for it
    /// to exit (up to the move timeout, at most 1 s after a failure) and
    /// stops it if it does not.
    pub child: Option<Child>,
}

/// A verdict on the program and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// [`Verdict::Accepted`], [`Verdict::WrongAnswer`] or
    /// [`Verdict::PresentationError`].
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

/// A judge failure: no verdict on the program.
#[derive(Debug, thiserror::Error)]
pub enum InteractError {
    /// The input is not OJ format.
    #[error("bad input: {0}")]
    BadInput(#[from] OjError),
    #[error("cannot create the transcript {}: {source}", path.display())]
    CreateTranscript {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A write to the transcript (or its final flush) failed; the games
    /// were played to the end all the same.
    #[error("cannot write the transcript {}: {source}", path.display())]
    WriteTranscript {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The games of an OJ-format input (`T`, then `n` and the piles per game).
pub fn read_games(input: impl BufRead) -> Result<Vec<ValidRow<'static>>, InteractError> {
    OjReader::new(input)?
        .map(|case| case.map(|c| c.piles).map_err(InteractError::from))
        .collect()
}

/// Plays `games` against `program`, then closes its input and waits for it
/// ([`Program::child`]); its verdict, or a judge failure.
pub fn interact(
    games: &[ValidRow<'static>],
    settings: &Settings,
    program: Program,
    mut transcript: Transcript,
) -> Result<Outcome, InteractError> {
    let Program {
        input,
        output,
        mut child,
    } = program;
    let timeout = settings.move_timeout;
    let (to, written) = spawn_writer(input);
    let mut session = Session {
        to: Some(to),
        from: spawn_reader(output),
        timeout,
        transcript: &mut transcript,
        child: child.as_mut(),
        eof: false,
    };
    // With tempo the judge resists longest, so that a slow win shows.
    let when_lost = if settings.tempo {
        WhenLost::Prolong
    } else {
        WhenLost::Shorten
    };
    let bot = |game: usize| Bot {
        strength: settings.strength,
        seed: settings.seed ^ (game as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        when_lost,
    };
    session.transcript.note(&format!(
        "stonegame interact: {} games, {} variant, strength {}, seed {}{}",
        games.len(),
        settings.variant,
        settings.strength,
        settings.seed,
        if settings.tempo { ", tempo" } else { "" }
    ));
    let outcome = play_all(&mut session, games, settings, &bot);
    session.transcript.note(&format!(
        "verdict: {} {}",
        outcome.verdict.testlib_name(),
        outcome.message
    ));
    let failed = outcome.verdict != Verdict::Accepted;
    if failed && !session.eof {
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
    flushed?;
    Ok(outcome)
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
        let list: Vec<String> = moves.iter().map(protocol_move).collect();
        list.join(", ")
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
    settings: &Settings,
    bot: &dyn Fn(usize) -> Bot,
) -> Outcome {
    let variant = settings.variant;
    session.send(&rows.len().to_string());
    let (mut plies, mut seats) = (0u64, [0usize; 2]);
    for (g, piles) in rows.iter().enumerate() {
        let number = g + 1;
        let Ok(row) = GameRow::new(piles, variant, &Never);
        let mut game = Game::new(Arc::new(row));
        let bot = bot(g);
        let first_wins = game.mover_wins();
        // The most plies a win may take with tempo: the row's remoteness.
        let limit = settings.tempo.then(|| remoteness(piles, variant));
        session.transcript.note(&format!(
            "game {number}: n = {}, the first player {}{}",
            piles.len(),
            if first_wins { "wins" } else { "loses" },
            match limit {
                Some(r) => format!(", perfect play takes {}", Plies(r)),
                None => String::new(),
            }
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
                    Ok(p) if p.blunder => {
                        blunder = Some((ply, protocol_move(&p.mv), position, winning));
                    }
                    Ok(_) => {}
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
        if let Some(limit) = limit
            && u128::from(game.ply()) > limit
        {
            return wa(format!(
                "game {number}: won, but too slowly: took {}, perfect play takes {limit} \
                 (--tempo: the winner must win within the remoteness of the row)",
                Plies::from(game.ply())
            ));
        }
        session.transcript.note(&format!(
            "game {number}: won by the program in {}",
            Plies::from(game.ply())
        ));
    }
    Outcome::new(
        Verdict::Accepted,
        format!(
            "{} games won ({} as FIRST, {} as SECOND), {}{}",
            rows.len(),
            seats[0],
            seats[1],
            Plies::from(plies),
            if settings.tempo {
                ", each within its remoteness"
            } else {
                ""
            }
        ),
    )
}

#[cfg(test)]
mod tests;
