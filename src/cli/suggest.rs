//! `stonegame suggest A1 A2 …`: the verdict and the winning move(s) of one
//! position, or the move a bot plays when it is lost; with the remoteness
//! (docs/game.md §5) of the position and after each move printed, for rows
//! where it is cheap (see [`SuggestArgs::remoteness`]).

use std::process::ExitCode;

use crate::core::remoteness::{after_move, best_of, solve_with};
use crate::core::{MAX_PILE, MAX_PILES, Move, Never, RowError, ValidRow, Variant, analyze};

use super::fail;

/// Arguments of `stonegame suggest`.
#[derive(Debug, clap::Args)]
pub struct SuggestArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The remoteness (how many plies the game lasts under perfect play):
    /// `auto` computes it for rows of at most 20,000 piles in the two-ends
    /// game (under a second: it is O(n²), about 1 ms at n = 1,000, 0.15 s
    /// at n = 20,000) and for every leftmost row (O(n)),
    /// `always` for any row, `never` not at all.
    #[arg(long, value_enum, default_value_t = RemotenessMode::Auto)]
    pub remoteness: RemotenessMode,
    /// The pile sizes, left to right.
    #[arg(required = true, allow_hyphen_values = true, value_name = "PILE")]
    pub piles: Vec<String>,
}

/// When `suggest` computes the remoteness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RemotenessMode {
    /// Leftmost rows and two-ends rows of at most [`AUTO_MAX_PILES`] piles.
    Auto,
    /// Every row.
    Always,
    /// No row.
    Never,
}

/// The most piles of a two-ends row whose remoteness `--remoteness auto`
/// computes (under a second on one core: docs/game.md §5).
pub const AUTO_MAX_PILES: usize = 20_000;

/// Parses the piles of a row given on the command line (1-based indices
/// in messages), without checking the row as a whole.
pub(crate) fn parse_piles(texts: &[String]) -> Result<Vec<u64>, String> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| parse_pile(i + 1, t))
        .collect()
}

/// Parses and validates a row given on the command line.
pub(crate) fn parse_row(texts: &[String]) -> Result<ValidRow<'static>, String> {
    ValidRow::new(parse_piles(texts)?, MAX_PILES).map_err(|e| e.to_string())
}

/// Parses pile `index` (1-based) from the command line.
pub(crate) fn parse_pile(index: usize, text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err(RowError::ZeroPile { pile: index }.to_string()),
        Ok(v) if v > MAX_PILE => Err(RowError::PileTooLarge {
            pile: index,
            value: v,
        }
        .to_string()),
        Ok(v) => Ok(v),
        Err(_) if text.starts_with('-') => {
            Err(format!("pile {index} is `{text}`, which is negative"))
        }
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => Err(format!(
            "pile {index} is {text}, larger than the maximum of {MAX_PILE} (2^63-1)"
        )),
        Err(_) => Err(format!("pile {index} is `{text}`, which is not a number")),
    }
}

/// Runs the command.
pub fn run(args: SuggestArgs) -> ExitCode {
    let row = match parse_row(&args.piles) {
        Ok(row) => row,
        Err(e) => return fail(e),
    };
    let variant: Variant = args.variant;
    let a = analyze(&row, variant);
    let wanted = match args.remoteness {
        RemotenessMode::Always => true,
        RemotenessMode::Never => false,
        RemotenessMode::Auto => variant == Variant::Leftmost || row.len() <= AUTO_MAX_PILES,
    };
    let solved = wanted.then(|| {
        let Ok(solved) = solve_with(&row, variant, &Never);
        solved
    });
    // The remoteness a move leaves, as printed after it.
    let after = |m: &Move| {
        let s = solved.as_ref()?;
        after_move(&s.ranges, row.len(), m).map(|r| format!("remoteness after it: {r} plies"))
    };
    println!("variant: {variant}");
    println!("piles: {}", row.len());
    if a.first_player_wins {
        println!("verdict: 1 (the player to move wins)");
    } else {
        println!("verdict: 0 (the player to move loses against perfect play)");
    }
    match &solved {
        Some(s) => println!(
            "remoteness: the player to move {} in {} plies",
            if a.first_player_wins { "wins" } else { "loses" },
            s.remoteness
        ),
        None if args.remoteness == RemotenessMode::Auto => println!(
            "remoteness: not computed for a two-ends row of more than {AUTO_MAX_PILES} piles \
             (--remoteness always computes it: O(n²), about 11 s at n = 200,000)"
        ),
        None => {}
    }
    // The perfect bot's move: with the remoteness, the tempo bot's (the
    // fastest win, or the longest resistance), as Play and SuggestMove
    // play it; without, a winning move or the prolonging one.
    let tempo = solved.as_ref().map(|s| best_of(&row, &s.ranges));
    if a.first_player_wins {
        for m in &a.winning_moves {
            match after(m) {
                Some(after) => println!("winning move: {m} ({after})"),
                None => println!("winning move: {m}"),
            }
        }
        if let Some(m) = tempo
            && a.winning_moves.len() > 1
        {
            println!("bot move: {m} (the fastest win)");
        }
    } else {
        match tempo {
            Some(m) => println!(
                "bot move: {m} (no move wins; the bot resists longest; {})",
                after(&m).unwrap_or_default()
            ),
            None => println!(
                "bot move: {} (no move wins; the bot prolongs the game)",
                a.best_move
            ),
        }
    }
    ExitCode::SUCCESS
}
