//! `stonegame suggest A1 A2 …`: the verdict and the winning move(s) of one
//! position, or the move a bot plays when it is lost; with the remoteness
//! (docs/game.md §5) of the position and after each move printed, for rows
//! where it is cheap (see [`RemotenessMode`]). The row comes from the
//! arguments, standard input (`-`) or `--file PATH` ([`RowArgs`]).
//!
//! The lines are [`Suggestion::lines`], which `client suggest` prints too
//! from the server's answer: the same row gives the same bytes.

use std::process::ExitCode;

use crate::core::remoteness::{MoveRange, Plies, after_move, best_of, solve_with};
use crate::core::{Move, Never, ValidRow, Variant, analyze, bot_move};

use super::fail;
use super::row_input::RowArgs;

pub(crate) use super::row_input::{parse_piles, parse_row};

/// Arguments of `stonegame suggest`.
#[derive(Debug, clap::Args)]
pub struct SuggestArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The remoteness: how many plies the game lasts under perfect play.
    /// Its help is [`remoteness_help`] (built from [`AUTO_MAX_PILES`]).
    #[arg(long, value_enum, default_value_t = RemotenessMode::Auto,
          help = remoteness_help(), long_help = remoteness_help())]
    pub remoteness: RemotenessMode,
    #[command(flatten)]
    pub row: RowArgs,
}

/// The help of `--remoteness`, with the limit of `auto` from its constant.
pub fn remoteness_help() -> String {
    format!(
        "The remoteness (how many plies the game lasts under perfect play): `auto` computes it \
         for two-ends rows of at most {} piles (it is O(n²) there; docs/benchmarks.md has the \
         figures) and for every leftmost row (O(n)), `always` for any row, `never` not at all",
        thousands(AUTO_MAX_PILES)
    )
}

/// `n` with a comma every three digits (20,000).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// When `suggest` computes the remoteness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemotenessMode {
    /// Leftmost rows and two-ends rows of at most [`AUTO_MAX_PILES`] piles.
    Auto,
    /// Every row.
    Always,
    /// No row.
    Never,
}

impl clap::ValueEnum for RemotenessMode {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            RemotenessMode::Auto,
            RemotenessMode::Always,
            RemotenessMode::Never,
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        use clap::builder::PossibleValue;
        Some(match self {
            RemotenessMode::Auto => PossibleValue::new("auto").help(format!(
                "Leftmost rows and two-ends rows of at most {} piles",
                thousands(AUTO_MAX_PILES)
            )),
            RemotenessMode::Always => PossibleValue::new("always").help("Every row"),
            RemotenessMode::Never => PossibleValue::new("never").help("No row"),
        })
    }
}

impl RemotenessMode {
    /// Is the remoteness of a row of `n` piles computed in this mode?
    pub fn wants(self, variant: Variant, n: usize) -> bool {
        match self {
            RemotenessMode::Always => true,
            RemotenessMode::Never => false,
            RemotenessMode::Auto => variant == Variant::Leftmost || n <= AUTO_MAX_PILES,
        }
    }
}

/// The most piles of a two-ends row whose remoteness `--remoteness auto`
/// computes (docs/game.md §5).
pub const AUTO_MAX_PILES: usize = 20_000;

/// What `suggest` prints about a position, wherever it was computed.
pub struct Suggestion<'a> {
    /// The row.
    pub row: &'a ValidRow<'a>,
    /// The game played on it.
    pub variant: Variant,
    /// The mode asked for (for the `not computed` line).
    pub mode: RemotenessMode,
    /// Does the player to move win?
    pub mover_wins: bool,
    /// Every winning move, left first.
    pub winning_moves: Vec<Move>,
    /// The remoteness and every move as ranges, when computed.
    pub solved: Option<(u128, Vec<MoveRange>)>,
}

impl Suggestion<'_> {
    /// The lines printed, without their newlines.
    pub fn lines(&self) -> Vec<String> {
        let row = self.row;
        let solved = self.solved.as_ref();
        // The remoteness a move leaves, as printed after it.
        let after = |m: &Move| {
            let (_, ranges) = solved?;
            after_move(ranges, row.len(), m).map(|r| format!("remoteness after it: {}", Plies(r)))
        };
        let mut out = vec![
            format!("variant: {}", self.variant),
            format!("piles: {}", row.len()),
        ];
        out.push(if self.mover_wins {
            "verdict: 1 (the player to move wins)".into()
        } else {
            "verdict: 0 (the player to move loses against perfect play)".into()
        });
        match solved {
            Some((r, _)) => out.push(format!(
                "remoteness: the player to move {} in {}",
                if self.mover_wins { "wins" } else { "loses" },
                Plies(*r)
            )),
            None if self.mode == RemotenessMode::Auto => out.push(format!(
                "remoteness: not computed for a two-ends row of more than {AUTO_MAX_PILES} \
                 piles (--remoteness always computes it, in O(n²) time)"
            )),
            None => {}
        }
        // The perfect bot's move: with the remoteness, the tempo bot's (the
        // fastest win, or the longest resistance), as Play and SuggestMove
        // play it; without, a winning move or the prolonging one.
        let tempo = solved.map(|(_, ranges)| best_of(row, ranges));
        if self.mover_wins {
            for m in &self.winning_moves {
                out.push(match after(m) {
                    Some(after) => format!("winning move: {m} ({after})"),
                    None => format!("winning move: {m}"),
                });
            }
            if let Some(m) = tempo
                && self.winning_moves.len() > 1
            {
                out.push(format!("bot move: {m} (the fastest win)"));
            }
        } else {
            out.push(match tempo {
                Some(m) => format!(
                    "bot move: {m} (no move wins; the bot resists longest; {})",
                    after(&m).unwrap_or_default()
                ),
                None => format!(
                    "bot move: {} (no move wins; the bot prolongs the game)",
                    bot_move(row, self.variant)
                ),
            });
        }
        out
    }
}

/// Runs the command.
pub fn run(args: SuggestArgs) -> ExitCode {
    let row = match args.row.row() {
        Ok(row) => row,
        Err(e) => return fail(e),
    };
    let variant: Variant = args.variant;
    let a = analyze(&row, variant);
    let solved = args.remoteness.wants(variant, row.len()).then(|| {
        let Ok(solved) = solve_with(&row, variant, &Never);
        (solved.remoteness, solved.ranges)
    });
    let suggestion = Suggestion {
        row: &row,
        variant,
        mode: args.remoteness,
        mover_wins: a.first_player_wins,
        winning_moves: a.winning_moves,
        solved,
    };
    for line in suggestion.lines() {
        println!("{line}");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(5), "5");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(20_000), "20,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
