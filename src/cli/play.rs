//! `stonegame play A1 A2 …`: a game against the bot in a terminal (or
//! through a pipe: it reads one command per line from standard input).
//!
//! Commands: `L k` / `R k` (take k stones from the leftmost / rightmost
//! pile), `hint` (the winning moves), `help`, `quit`. The bot plays with the
//! engine of [`crate::core::game`]; in a lost position it takes one stone
//! from the larger end pile ([`WhenLost::Prolong`]), which gives you the
//! most chances to go wrong.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::Arc;

use crate::core::game::{Bot, Game, GameRow, WhenLost};
use crate::core::{Move, Never, Side, Variant};

use super::interact::protocol_move;
use super::suggest::parse_row;
use super::{VariantArg, fail};

/// Arguments of `stonegame play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = VariantArg::TwoEnds)]
    pub variant: VariantArg,
    /// The bot's strength in [0, 1]: with this probability it plays its
    /// best move, otherwise a random legal one.
    #[arg(long, default_value_t = 1.0, value_parser = super::interact::parse_strength)]
    pub strength: f64,
    /// Seed of the bot's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Let the bot move first.
    #[arg(long)]
    pub second: bool,
    /// The pile sizes, left to right.
    #[arg(required = true, allow_hyphen_values = true, value_name = "PILE")]
    pub piles: Vec<String>,
}

const HELP: &str = "Commands: `L k` takes k stones from the leftmost pile, `R k` from the \
                    rightmost one; `hint` shows the winning moves; `quit` ends the game.";

/// Runs the command on standard input and output.
pub fn run(args: PlayArgs) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    match play(&args, stdin.lock(), stdout.lock()) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// A command line.
enum Command {
    Move(Side, u64),
    Hint,
    Help,
    Quit,
    Empty,
}

fn parse_command(line: &str) -> Option<Command> {
    let line = line.trim();
    let lower = line.to_ascii_lowercase();
    match lower.as_str() {
        "" => return Some(Command::Empty),
        "hint" | "h" | "?" => return Some(Command::Hint),
        "help" => return Some(Command::Help),
        "quit" | "q" | "exit" => return Some(Command::Quit),
        _ => {}
    }
    let side = match lower.as_bytes()[0] {
        b'l' => Side::Left,
        b'r' => Side::Right,
        _ => return None,
    };
    let k = lower[1..].trim();
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // A number too large for any pile: more than it holds.
    Some(Command::Move(side, k.parse().unwrap_or(u64::MAX)))
}

/// The live row with its end piles in brackets (the middle cut when long).
fn render(game: &Game) -> String {
    let (first, last) = game.live();
    let piles = game.row().piles();
    let count = last - first + 1;
    let value = |i: usize| {
        if i == first {
            game.left_size()
        } else if i == last {
            game.right_size()
        } else {
            piles[i]
        }
    };
    let shown = |i: usize| {
        let v = value(i).to_string();
        let end = i == first || (i == last && game.variant() == Variant::TwoEnds);
        if end { format!("[{v}]") } else { v }
    };
    let mut parts: Vec<String> = Vec::new();
    if count <= 16 {
        parts.extend((first..=last).map(shown));
    } else {
        parts.extend((first..first + 6).map(shown));
        parts.push(format!("… {} more …", count - 12));
        parts.extend((last - 5..=last).map(shown));
    }
    parts.join(" ")
}

fn describe_move(m: &Move) -> String {
    format!("{} ({m})", protocol_move(m))
}

/// Plays one game, reading commands from `input` and writing to `out`.
pub fn play(args: &PlayArgs, input: impl BufRead, mut out: impl Write) -> io::Result<ExitCode> {
    let piles = match parse_row(&args.piles) {
        Ok(p) => p,
        Err(e) => return Ok(fail(e)),
    };
    let variant: Variant = args.variant.into();
    let Ok(row) = GameRow::new(&piles, variant, &Never);
    let mut game = Game::new(Arc::new(row));
    let bot = Bot {
        strength: args.strength,
        seed: args.seed,
        when_lost: WhenLost::Prolong,
    };
    let human = usize::from(args.second);
    writeln!(
        out,
        "stonegame play: {} piles, {variant} variant; you move {}, the bot plays at strength {}.",
        piles.len(),
        if args.second { "second" } else { "first" },
        args.strength
    )?;
    writeln!(out, "{HELP}")?;
    if variant == Variant::Leftmost {
        writeln!(out, "(Leftmost variant: only `L k` moves.)")?;
    }
    let mut lines = input.lines();
    while !game.is_over() {
        writeln!(out, "piles: {}", render(&game))?;
        if game.ply() % 2 != human as u64 {
            let m = game.bot_move(&bot).expect("not over");
            game.play_move(m).expect("the bot's moves are legal");
            writeln!(out, "bot: {}", describe_move(&m))?;
            continue;
        }
        loop {
            write!(out, "your move> ")?;
            out.flush()?;
            let Some(line) = lines.next().transpose()? else {
                writeln!(out)?;
                writeln!(out, "Input ended: the game is abandoned.")?;
                return Ok(ExitCode::SUCCESS);
            };
            match parse_command(&line) {
                None => writeln!(
                    out,
                    "I did not understand {:?}. Type a move such as `L 3` or `R 2`, or `hint`, \
                     `help` or `quit`.",
                    line.trim()
                )?,
                Some(Command::Empty) => {}
                Some(Command::Help) => writeln!(out, "{HELP}")?,
                Some(Command::Quit) => {
                    writeln!(out, "You quit. The bot wins.")?;
                    return Ok(ExitCode::SUCCESS);
                }
                Some(Command::Hint) => {
                    let moves = game.winning_moves();
                    if moves.is_empty() {
                        writeln!(
                            out,
                            "hint: no move wins here: against perfect play you lose whatever you \
                             do."
                        )?;
                    } else {
                        let list: Vec<String> = moves.iter().map(describe_move).collect();
                        writeln!(out, "hint: winning moves: {}", list.join("; "))?;
                    }
                }
                Some(Command::Move(side, take)) => {
                    let winning = game.winning_moves();
                    match game.play(side, take) {
                        Err(e) => writeln!(out, "That move is not allowed: {e}.")?,
                        Ok(p) => {
                            writeln!(out, "you: {}", describe_move(&p.mv))?;
                            if p.blunder {
                                let list: Vec<String> = winning.iter().map(protocol_move).collect();
                                writeln!(
                                    out,
                                    "(That move gives the win away; {} would have kept it.)",
                                    list.join(" or ")
                                )?;
                            }
                            break;
                        }
                    }
                }
            }
        }
    }
    let human_won = (game.ply() - 1) % 2 == human as u64;
    if human_won {
        writeln!(out, "You took the last pile: you win!")?;
    } else {
        writeln!(out, "The bot took the last pile: the bot wins.")?;
    }
    Ok(ExitCode::SUCCESS)
}
