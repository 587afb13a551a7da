//! The game core: pure Rust, no I/O, no async.
//!
//! Everything a judge or a bot needs to know about a row of piles lives here:
//!
//! * [`row`] — the validated row type [`ValidRow`] and its typed errors;
//! * [`cancel`] — cancellation checks for long computations;
//! * [`kernel`] — the O(n)-memory, vectorised layer kernel (two-ends verdicts);
//! * [`verdict`] — verdicts and end values for one row or a batch, in parallel;
//! * [`tables`] — the full O(n²) `left`/`right` tables of one row;
//! * [`moves`] — winning moves and the bot's move for both variants;
//! * [`leftmost`] — the leftmost-only variant (docs/game.md §2);
//! * [`game`] — whole games: O(1) amortized moves, analysis and the bot;
//! * [`exhaustive`] — a game-tree solver for small rows, the independent truth;
//! * [`remoteness`] — how long a game lasts under perfect play, the
//!   remoteness of every move, the fastest win and the longest loss;
//! * [`planted`] — making first-player losses on purpose (test data);
//! * [`batch`] — grouping rows into bounded batches for [`solve_valid_batch`].
//!
//! The public functions that solve a row take a [`ValidRow`], built once by
//! validation, so an empty or invalid row cannot reach them.
//!
//! The transport, the file formats and the CLI live outside this module and
//! only call into it.

/// An enum whose values have names: the enum (`Debug, Clone, Copy,
/// PartialEq, Eq, Hash`, and the attributes given), `ALL` (every value, in
/// order), `fn $name` (each value's name) and a `Display` that writes it.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident: fn $name:ident {
            $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $enum {
            $($(#[$vmeta])* $variant),+
        }

        impl $enum {
            /// Every value, in order.
            pub const ALL: [$enum; [$($text),+].len()] = [$($enum::$variant),+];

            /// The value's name.
            pub fn $name(self) -> &'static str {
                match self {
                    $($enum::$variant => $text),+
                }
            }
        }

        impl ::std::fmt::Display for $enum {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.$name())
            }
        }
    };
}
pub(crate) use named_enum;

pub mod batch;
pub mod cancel;
pub mod exhaustive;
pub mod game;
pub mod kernel;
pub mod leftmost;
pub mod moves;
pub mod planted;
pub mod remoteness;
pub mod row;
pub mod tables;
pub mod verdict;

pub use cancel::{Cancel, Cancelled, Never};
pub use moves::{Analysis, IllegalMove, Move, Side, analyze, bot_move, winning_moves};
pub use row::{MAX_PILE, MAX_PILES, RowError, ValidRow, Variant, validate_row};
pub use verdict::{
    EndValues, end_values, end_values_cancellable, first_player_wins, solve_batch,
    solve_valid_batch,
};
