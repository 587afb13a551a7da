//! The game core: pure Rust, no I/O, no async.
//!
//! Everything a judge or a bot needs to know about a row of piles lives here:
//!
//! * [`row`] — the validated input type and its typed errors;
//! * [`kernel`] — the O(n)-memory, vectorised layer kernel (two-ends verdicts);
//! * [`verdict`] — verdicts and end values for one row or a batch, in parallel;
//! * [`tables`] — the full O(n²) `left`/`right` tables of one row;
//! * [`moves`] — winning moves and the bot's move for both variants;
//! * [`leftmost`] — the leftmost-only variant (SPEC §2);
//! * [`game`] — whole games: O(1) amortized moves, analysis and the bot;
//! * [`exhaustive`] — a game-tree solver for small rows, the independent truth;
//! * [`planted`] — making first-player losses on purpose (test data);
//! * [`batch`] — grouping rows into bounded batches for [`solve_batch`].
//!
//! The transport, the file formats and the CLI live outside this module and
//! only call into it.

pub mod batch;
pub mod exhaustive;
pub mod game;
pub mod kernel;
pub mod leftmost;
pub mod moves;
pub mod planted;
pub mod row;
pub mod tables;
pub mod verdict;

pub use moves::{Analysis, Move, Side, analyze, bot_move, winning_moves};
pub use row::{MAX_PILE, MAX_PILES, RowError, Variant, validate_row};
pub use verdict::{EndValues, end_values_cancellable, first_player_wins, solve_batch};
