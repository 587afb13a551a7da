//! `stonegame play A1 A2 …`: a game against the bot in a terminal (or
//! through a pipe: it reads one command per line from standard input).
//!
//! The commands and the drawing are [`super::tabletop`]'s (shared with
//! `stonegame client play`); here the referee and the bot are the engine
//! of [`crate::core::game`] in this process. In a lost position the bot
//! takes one stone from the larger end pile ([`WhenLost::Prolong`]), which
//! gives you the most chances to go wrong.

use std::io;
use std::process::ExitCode;
use std::sync::Arc;

use crate::core::game::{Bot, Game, GameRow, WhenLost};
use crate::core::{Move, Never, Side};

use super::fail;
use super::suggest::parse_row;
use super::tabletop::{Answer, Ending, GameArgs, Header, Outcome, Table, View, run_game};

/// Arguments of `stonegame play`.
#[derive(Debug, clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
}

/// Runs the command on standard input and output.
pub fn run(args: PlayArgs) -> ExitCode {
    let stdin = io::stdin();
    let stdout = io::stdout();
    match play(&args.game, stdin.lock(), stdout.lock()) {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The engine as referee and bot.
struct LocalTable {
    game: Game,
    bot: Bot,
    human: u64,
}

impl Table for LocalTable {
    type Error = io::Error;

    fn view(&self) -> View<'_> {
        let (first, last) = self.game.live();
        View {
            piles: self.game.row().piles(),
            variant: self.game.variant(),
            first,
            last,
            left_size: self.game.left_size(),
            right_size: self.game.right_size(),
        }
    }

    fn human_to_move(&self) -> bool {
        self.game.ply() % 2 == self.human
    }

    fn outcome(&self) -> Option<Outcome> {
        self.game.is_over().then(|| Outcome {
            // The last mover took the last pile.
            human_won: (self.game.ply() - 1) % 2 == self.human,
            ending: Ending::LastPile,
        })
    }

    fn winning_moves(&mut self) -> io::Result<Vec<Move>> {
        Ok(self.game.winning_moves())
    }

    fn bot_move(&mut self) -> io::Result<Option<Move>> {
        let Some(m) = self.game.bot_move(&self.bot) else {
            return Ok(None);
        };
        self.game
            .play_move(m)
            .map_err(|e| io::Error::other(format!("the bot's move {m} is illegal: {e}")))?;
        Ok(Some(m))
    }

    fn submit(&mut self, side: Side, take: u64) -> io::Result<Answer> {
        Ok(match self.game.play(side, take) {
            Err(e) => Answer::Refused(e.to_string()),
            Ok(p) => Answer::Played {
                mv: p.mv,
                blunder: p.blunder,
            },
        })
    }

    fn resign(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Plays one game, reading commands from `input` and writing to `out`.
pub fn play(args: &GameArgs, input: impl io::BufRead, out: impl io::Write) -> io::Result<ExitCode> {
    let row = match parse_row(&args.piles) {
        Ok(p) => p,
        Err(e) => return Ok(fail(e)),
    };
    let header = Header {
        piles: row.len(),
        variant: args.variant,
        second: args.second,
        strength: args.strength,
    };
    let Ok(row) = GameRow::new(&row, header.variant, &Never);
    let mut table = LocalTable {
        game: Game::new(Arc::new(row)),
        bot: Bot {
            strength: args.strength,
            seed: args.seed,
            when_lost: WhenLost::Prolong,
        },
        human: u64::from(args.second),
    };
    run_game(&mut table, header, input, out)?;
    Ok(ExitCode::SUCCESS)
}
