//! `stonegame suggest A1 A2 …`: the verdict and the winning move(s) of one
//! position, or the move a bot plays when it is lost.

use std::process::ExitCode;

use crate::core::{MAX_PILE, MAX_PILES, RowError, ValidRow, Variant, analyze};

use super::fail;

/// Arguments of `stonegame suggest`.
#[derive(Debug, clap::Args)]
pub struct SuggestArgs {
    /// Which game is played.
    #[arg(long, value_enum, default_value_t = Variant::TwoEnds)]
    pub variant: Variant,
    /// The pile sizes, left to right.
    #[arg(required = true, allow_hyphen_values = true, value_name = "PILE")]
    pub piles: Vec<String>,
}

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
    println!("variant: {variant}");
    println!("piles: {}", row.len());
    if a.first_player_wins {
        println!("verdict: 1 (the player to move wins)");
        for m in &a.winning_moves {
            println!("winning move: {m}");
        }
    } else {
        println!("verdict: 0 (the player to move loses against perfect play)");
        println!(
            "bot move: {} (no move wins; the bot prolongs the game)",
            a.best_move
        );
    }
    ExitCode::SUCCESS
}
