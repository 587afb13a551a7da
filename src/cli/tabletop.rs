//! The terminal game shared by `stonegame play` (the engine in this
//! process) and `stonegame client play` (the server's referee and bot over
//! the Play RPC): the arguments both take, the command lines, the drawing
//! of the row and the one game loop ([`run_game`]) over a [`Table`], which
//! is what differs between the two.
//!
//! Commands: `L k` / `R k` (take k stones from the leftmost / rightmost
//! pile), `hint` (the winning moves), `help`, `quit`.

use std::fmt;
use std::io::{self, BufRead, Write};

use crate::core::{Move, Side, Variant};
use crate::judge::interact::protocol_move;

/// The arguments of a game, the same for `play` and `client play`.
#[derive(Debug, Clone, clap::Args)]
pub struct GameArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
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

pub const HELP: &str = "Commands: `L k` takes k stones from the leftmost pile, `R k` from the \
                        rightmost one; `hint` shows the winning moves; `quit` ends the game.";

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

/// A position as drawn: the original row, the live piles `first ..= last`
/// (0-based), the end ones holding `left_size` and `right_size` now.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    pub piles: &'a [u64],
    pub variant: Variant,
    pub first: usize,
    pub last: usize,
    pub left_size: u64,
    pub right_size: u64,
}

/// The live row with its end piles in brackets (the middle cut when long).
pub fn render(view: &View<'_>) -> String {
    let (first, last) = (view.first, view.last);
    let count = last - first + 1;
    // The end piles a move may take from are in brackets.
    let shown = |i: usize| match i {
        _ if i == first => format!("[{}]", view.left_size),
        _ if i == last && view.variant == Variant::TwoEnds => format!("[{}]", view.right_size),
        _ if i == last => view.right_size.to_string(),
        _ => view.piles[i].to_string(),
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

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The last pile was taken.
    LastPile,
    /// A side resigned.
    Resigned,
    /// A side was silent past its move timeout.
    Timeout,
    /// A side made too many illegal moves.
    IllegalMoves,
}

/// The end of a game, from the player's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub human_won: bool,
    pub ending: Ending,
}

/// What became of the player's move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Played (`remaining` filled in); `blunder`: it gave a win away.
    Played { mv: Move, blunder: bool },
    /// Refused, for this reason; the position is unchanged.
    Refused(String),
    /// The game ended before the move counted (see [`Table::outcome`]).
    Over,
}

/// The game behind the terminal: the referee and the bot.
pub trait Table {
    /// Why the game cannot go on (an I/O error at least).
    type Error: From<io::Error>;

    /// The position now.
    fn view(&self) -> View<'_>;
    /// Is it the player's turn?
    fn human_to_move(&self) -> bool;
    /// The end of the game, once it is over.
    fn outcome(&self) -> Option<Outcome>;
    /// The winning moves of the position now.
    fn winning_moves(&mut self) -> Result<Vec<Move>, Self::Error>;
    /// The bot's move (played); `None` when the game ended instead.
    fn bot_move(&mut self) -> Result<Option<Move>, Self::Error>;
    /// Plays the player's move.
    fn submit(&mut self, side: Side, take: u64) -> Result<Answer, Self::Error>;
    /// The player gives up.
    fn resign(&mut self) -> Result<(), Self::Error>;
    /// A line to print under the row, if any.
    fn remark(&self) -> Option<String> {
        None
    }
}

/// What the header line says.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    pub piles: usize,
    pub variant: Variant,
    pub second: bool,
    pub strength: f64,
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stonegame play: {} piles, {} variant; you move {}, the bot plays at strength {}.",
            self.piles,
            self.variant,
            if self.second { "second" } else { "first" },
            self.strength
        )
    }
}

/// The line that ends a game.
fn ending_line(outcome: Outcome) -> &'static str {
    match (outcome.ending, outcome.human_won) {
        (Ending::LastPile, true) => "You took the last pile: you win!",
        (Ending::LastPile, false) => "The bot took the last pile: the bot wins.",
        (Ending::Resigned, true) => "The bot resigned: you win!",
        (Ending::Resigned, false) => "You resigned. The bot wins.",
        (Ending::Timeout, true) => "The bot ran out of time: you win!",
        (Ending::Timeout, false) => "You ran out of time: the bot wins.",
        (Ending::IllegalMoves, true) => "The bot made too many illegal moves: you win!",
        (Ending::IllegalMoves, false) => "Too many illegal moves: the bot wins.",
    }
}

/// Plays one game on `table`, reading commands from `input` and writing
/// to `out`.
pub fn run_game<T: Table>(
    table: &mut T,
    header: Header,
    input: impl BufRead,
    mut out: impl Write,
) -> Result<(), T::Error> {
    writeln!(out, "{header}")?;
    writeln!(out, "{HELP}")?;
    if header.variant == Variant::Leftmost {
        writeln!(out, "(Leftmost variant: only `L k` moves.)")?;
    }
    let mut lines = input.lines();
    'game: while table.outcome().is_none() {
        writeln!(out, "piles: {}", render(&table.view()))?;
        if let Some(remark) = table.remark() {
            writeln!(out, "{remark}")?;
        }
        if !table.human_to_move() {
            if let Some(m) = table.bot_move()? {
                writeln!(out, "bot: {}", describe_move(&m))?;
            }
            continue;
        }
        loop {
            write!(out, "your move> ")?;
            out.flush()?;
            let Some(line) = lines.next().transpose()? else {
                writeln!(out)?;
                writeln!(out, "Input ended: the game is abandoned.")?;
                return Ok(());
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
                    table.resign()?;
                    writeln!(out, "You quit. The bot wins.")?;
                    return Ok(());
                }
                Some(Command::Hint) => {
                    let moves = table.winning_moves()?;
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
                    let winning = table.winning_moves()?;
                    match table.submit(side, take)? {
                        Answer::Refused(why) => writeln!(out, "That move is not allowed: {why}.")?,
                        Answer::Over => continue 'game,
                        Answer::Played { mv, blunder } => {
                            writeln!(out, "you: {}", describe_move(&mv))?;
                            if blunder {
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
    if let Some(outcome) = table.outcome() {
        writeln!(out, "{}", ending_line(outcome))?;
    }
    Ok(())
}
