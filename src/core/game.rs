//! Whole games: a referee and a bot that check and answer every move in
//! O(1) amortized time, whatever the row's length (docs/play.md).
//!
//! docs/play.md, "The engine", has the details. A position is `(x, a_p, …,
//! a_q, y)`: the live piles `first ..= last` (0-based), the end ones reduced
//! to `x` and `y`, the interior `[p, q]` untouched. With `(L, R)` of the
//! interior, one step of the recurrence ([`left_step`], [`right_step`])
//! gives the losing end values `t` and `u`: the mover loses exactly when
//! `x = t`, and the winning moves reduce the left pile to `t < x` or the
//! right one to `u < y`. A game walks down the layers one at a time: a
//! [`GameRow`] keeps every `s`-th layer from one O(n²) sweep (shared by
//! every game on the row), and a [`Game`] recomputes the layers below a
//! kept one inside its *cone* when it drops below it (none for rows of at
//! most [`FULL_TABLE_MAX_PILES`] piles; the leftmost variant needs one O(n)
//! pass, docs/game.md §2).
//!
//! A game's whole state is [`GameState`]: five numbers, which with the
//! original row rebuild the game exactly ([`Game::resume`]).

mod cost;
mod layers;

use std::fmt;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::cancel::Cancel;
use super::moves::{Analysis, Move, Side, random_end_move};
use super::remoteness::MoveRange;
use super::row::{ValidRow, Variant};
use super::tables::{left_step, right_step};

pub use cost::{game_cost, row_bytes_estimate};
pub use layers::{DEFAULT_STRIDE, FULL_TABLE_MAX_PILES, GameRow, RowOptions};

/// A move that cannot be played in the current position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The last pile is gone: nobody moves any more.
    #[error("the game is over")]
    GameOver,
    /// A right-side move in the leftmost variant.
    #[error("the leftmost variant takes from the left pile only")]
    InvalidSide,
    /// A move must take at least one stone.
    #[error("a move must take at least 1 stone")]
    TakeZero,
    /// More stones than the pile holds.
    #[error("cannot take {take} from the {side} pile: it holds {pile}")]
    TakeTooMany {
        side: SideName,
        take: u64,
        pile: u64,
    },
}

/// A [`Side`] that prints as `left` / `right` (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideName(pub Side);

impl fmt::Display for SideName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Side::Left => "left",
            Side::Right => "right",
        })
    }
}

/// A [`GameState`] that does not describe a position of the game on the
/// given row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// [`GameState::from_bytes`] got the wrong number of bytes.
    #[error("a game state is {expected} bytes, not {len}")]
    Length { len: usize, expected: usize },
    /// The live piles are not an interval of the row.
    #[error("live piles {first}..={last} are not within the row's {n} piles")]
    Interval { first: u64, last: u64, n: usize },
    /// An end pile is empty or larger than it was in the row.
    #[error("the {side} pile (pile {pile} of the row) cannot hold {size}: it started with {start}")]
    EndSize {
        side: SideName,
        pile: u64,
        size: u64,
        start: u64,
    },
    /// With one pile left both ends are that pile: the sizes must agree.
    #[error("one pile is left, but its sizes differ: {left} and {right}")]
    OnePile { left: u64, right: u64 },
    /// The leftmost variant never touches the right end.
    #[error("the leftmost variant never touches the right end")]
    RightTouched,
    /// The ply cannot have reached this position.
    #[error("ply {ply} cannot reach this position: it takes {min} to {max} moves")]
    Ply { ply: u64, min: u64, max: u128 },
}

/// A game's whole state: with the original row and variant it rebuilds the
/// game ([`Game::resume`]). The live piles are `first ..= last` (0-based
/// indices in the original row), the end ones holding `left_size` and
/// `right_size` stones now (the same pile and size when `first == last`);
/// `ply` moves were played. A finished game has `first == last` and both
/// sizes 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameState {
    pub first: u64,
    pub last: u64,
    pub left_size: u64,
    pub right_size: u64,
    pub ply: u64,
}

impl GameState {
    /// Bytes of [`GameState::to_bytes`].
    pub const BYTES: usize = 40;

    /// The start of a game on `piles`.
    pub fn initial(piles: &ValidRow<'_>) -> GameState {
        GameState {
            first: 0,
            last: piles.len() as u64 - 1,
            left_size: piles[0],
            right_size: piles[piles.len() - 1],
            ply: 0,
        }
    }

    /// Is the game over (the last pile taken)?
    pub fn is_over(&self) -> bool {
        self.left_size == 0
    }

    /// The five numbers, little-endian, in field order.
    pub fn to_bytes(&self) -> [u8; GameState::BYTES] {
        let mut out = [0u8; GameState::BYTES];
        let fields = [
            self.first,
            self.last,
            self.left_size,
            self.right_size,
            self.ply,
        ];
        for (chunk, v) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// The inverse of [`GameState::to_bytes`] (not yet checked against a
    /// row: [`Game::resume`] does that).
    pub fn from_bytes(bytes: &[u8]) -> Result<GameState, StateError> {
        if bytes.len() != GameState::BYTES {
            return Err(StateError::Length {
                len: bytes.len(),
                expected: GameState::BYTES,
            });
        }
        let f = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        Ok(GameState {
            first: f(0),
            last: f(1),
            left_size: f(2),
            right_size: f(3),
            ply: f(4),
        })
    }

    /// Checks that this state is a position reachable on `piles` in
    /// `variant` (every such state is: the players' strategies are free).
    pub fn validate(&self, piles: &ValidRow<'_>, variant: Variant) -> Result<(), StateError> {
        let n = piles.len();
        let (first, last) = (self.first, self.last);
        if first > last || last >= n as u64 {
            return Err(StateError::Interval { first, last, n });
        }
        let (f, l) = (first as usize, last as usize);
        let (x, y) = (self.left_size, self.right_size);
        let end = |side, i: usize, size: u64, allow_zero: bool| {
            if (size == 0 && !allow_zero) || size > piles[i] {
                Err(StateError::EndSize {
                    side: SideName(side),
                    pile: i as u64 + 1,
                    size,
                    start: piles[i],
                })
            } else {
                Ok(())
            }
        };
        if f == l {
            if x != y {
                return Err(StateError::OnePile { left: x, right: y });
            }
            end(Side::Left, f, x, true)?;
        } else {
            end(Side::Left, f, x, false)?;
            end(Side::Right, l, y, false)?;
        }
        if variant == Variant::Leftmost && (l != n - 1 || (f < l && y != piles[l])) {
            return Err(StateError::RightTouched);
        }
        // Moves needed: one per removed pile, one per reduced end pile; at
        // most one per stone taken.
        let removed = f + (n - 1 - l) + usize::from(x == 0);
        let reduced = if f == l {
            u64::from(x != 0 && x < piles[f])
        } else {
            u64::from(x < piles[f]) + u64::from(y < piles[l])
        };
        let min = removed as u64 + reduced;
        let gone = |range: std::ops::Range<usize>| {
            piles[range].iter().map(|&a| u128::from(a)).sum::<u128>()
        };
        let max = gone(0..f)
            + gone(l + 1..n)
            + u128::from(piles[f] - x)
            + if f < l { u128::from(piles[l] - y) } else { 0 };
        if self.ply < min || u128::from(self.ply) > max {
            return Err(StateError::Ply {
                ply: self.ply,
                min,
                max,
            });
        }
        Ok(())
    }
}

/// Positions of at most this many live piles get the bot's exact tempo: at
/// strength 1 it wins by a fastest winning move and, when lost under
/// [`WhenLost::Prolong`], resists longest (by exact remoteness, one O(m²)
/// solve of the live row a move: about 10 ms at 4,096 piles in a release
/// build).
/// Longer positions keep the O(1) choices below. A constant, not a
/// setting: the bot's moves are part of the game, the same on every
/// replica and every resume (docs/play.md, "Tempo").
pub const TEMPO_MAX_PILES: usize = 4096;

/// What the bot does in a lost position (at strength 1; every move loses
/// against perfect play there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WhenLost {
    /// The project's policy ([`moves`](crate::core::moves), docs/game.md
    /// §1): one stone from the larger end pile, the left one on a tie. It
    /// keeps the game as long as possible, which is what a human opponent
    /// or SuggestMove wants, but a game may then last about as many plies
    /// as there are stones.
    #[default]
    Prolong,
    /// A seeded random end pile (left or right, evenly) and a random take
    /// of at least half of it (`⌈x/2⌉ ..= x`, evenly): every move of the
    /// bot at least halves a pile, so the bot makes at most
    /// `n · (log₂ max a + 1)` moves in a game. The interactor's policy.
    Shorten,
}

/// A bot: with probability `strength` it plays the optimal move (a winning
/// move when there is one, else the [`WhenLost`] policy), otherwise a
/// uniformly random legal move, as SuggestMove does. Its random choices at
/// ply `k` come from [`ply_rng`]`(seed, k)`, so a resumed game makes the
/// same choices as the uninterrupted one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bot {
    /// In `[0, 1]`; 1 (or more) is perfect play, 0 plays at random.
    pub strength: f64,
    pub seed: u64,
    pub when_lost: WhenLost,
}

impl Bot {
    /// Strength 1, the project's policy in lost positions.
    pub fn perfect() -> Bot {
        Bot {
            strength: 1.0,
            seed: 0,
            when_lost: WhenLost::Prolong,
        }
    }
}

/// The random stream of a bot's choice at `ply`: ChaCha8 seeded with
/// `seed`, stream `ply`.
pub fn ply_rng(seed: u64, ply: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(ply);
    rng
}

/// An accepted move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The move (with `remaining` filled in).
    pub mv: Move,
    /// The mover had a winning move and this one is not: it loses against
    /// perfect play.
    pub blunder: bool,
    /// The move took the last pile: the mover won.
    pub game_over: bool,
}

/// One game on a row: the position, legality checks, analysis and the bot.
pub struct Game {
    row: Arc<GameRow>,
    first: usize,
    last: usize,
    left: u64,
    right: u64,
    ply: u64,
    /// `(left[p][q], right[p][q])` of the interior (two-ends, ≥ 3 piles live).
    lr: (u64, u64),
    cone: layers::Cone,
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("variant", &self.row.variant)
            .field("n", &self.row.piles.len())
            .field("state", &self.state())
            .finish()
    }
}

/// The position's losing end values: `t` (left) and `u` (right).
enum Ends {
    One,
    Two { t: u64, u: u64 },
}

impl Game {
    /// A game from the start of a prepared row.
    pub fn new(row: Arc<GameRow>) -> Game {
        let state = GameState::initial(&row.piles);
        Game::resume(row, state).expect("the initial state is valid")
    }

    /// Prepares `piles` and starts a game on it; the stop of `cancel` if it
    /// stopped the sweep (see [`GameRow::new`]).
    pub fn start<C: Cancel + ?Sized>(
        piles: &ValidRow<'_>,
        variant: Variant,
        cancel: &C,
    ) -> Result<Game, C::Stop> {
        Ok(Game::new(Arc::new(GameRow::new(piles, variant, cancel)?)))
    }

    /// The game on `row` in `state`, checked against the row: O(n) for the
    /// check, plus O(s²) for the cone.
    pub fn resume(row: Arc<GameRow>, state: GameState) -> Result<Game, StateError> {
        state.validate(&row.piles, row.variant)?;
        let mut game = Game {
            first: state.first as usize,
            last: state.last as usize,
            left: state.left_size,
            right: state.right_size,
            ply: state.ply,
            row,
            lr: (0, 0),
            cone: layers::Cone::default(),
        };
        game.refresh_interior();
        Ok(game)
    }

    /// The state, for [`Game::resume`].
    pub fn state(&self) -> GameState {
        GameState {
            first: self.first as u64,
            last: self.last as u64,
            left_size: self.left,
            right_size: self.right,
            ply: self.ply,
        }
    }

    /// The row this game is played on.
    pub fn row(&self) -> &Arc<GameRow> {
        &self.row
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        self.row.variant
    }

    /// Moves played so far. The first player moves at even plies.
    pub fn ply(&self) -> u64 {
        self.ply
    }

    /// Has the last pile been taken? (Then the player to move has lost.)
    pub fn is_over(&self) -> bool {
        self.left == 0
    }

    /// 0-based indices in the original row of the live end piles.
    pub fn live(&self) -> (usize, usize) {
        (self.first, self.last)
    }

    /// The left end pile's size now (0 once the game is over).
    pub fn left_size(&self) -> u64 {
        self.left
    }

    /// The right end pile's size now (the left one's when one pile is left).
    pub fn right_size(&self) -> u64 {
        self.right
    }

    /// The live row (O(n): for display and tests). Empty when over.
    pub fn piles_now(&self) -> Vec<u64> {
        if self.is_over() {
            return Vec::new();
        }
        let mut out = self.row.piles[self.first..=self.last].to_vec();
        out[0] = self.left;
        let len = out.len();
        out[len - 1] = self.right;
        out
    }

    /// Bytes this game holds on the heap (its cone), not counting the
    /// shared [`GameRow`].
    pub fn heap_bytes(&self) -> usize {
        self.cone.heap_bytes()
    }

    /// Cells of the table this game has computed in its cones so far.
    pub fn cone_cells(&self) -> u64 {
        self.cone.cells
    }

    fn refresh_interior(&mut self) {
        if self.row.variant == Variant::TwoEnds && !self.is_over() && self.last >= self.first + 2 {
            let (p, q) = (self.first + 1, self.last - 1);
            self.row.ensure(&mut self.cone, p, q);
            self.lr = self.row.interior(&self.cone, p, q);
        }
    }

    fn ends(&self) -> Ends {
        debug_assert_eq!(self.row.variant, Variant::TwoEnds);
        let (x, y) = (self.left, self.right);
        if self.first == self.last {
            Ends::One
        } else if self.last == self.first + 1 {
            Ends::Two { t: y, u: x }
        } else {
            let (l, r) = self.lr;
            Ends::Two {
                t: left_step(l, r, y),
                u: right_step(l, r, x),
            }
        }
    }

    /// Does the player to move win with perfect play? (False once over.)
    pub fn mover_wins(&self) -> bool {
        if self.is_over() {
            return false;
        }
        match self.row.variant {
            Variant::Leftmost => self.left > 1 || !self.row.suffix_wins(self.first + 1),
            Variant::TwoEnds => match self.ends() {
                Ends::One => true,
                Ends::Two { t, .. } => self.left != t,
            },
        }
    }

    /// The winning moves of the player to move, left first (none when the
    /// position is lost or the game over). With one pile left the only one
    /// takes it all, reported as a left move (a right move is as good).
    pub fn winning_moves(&self) -> Vec<Move> {
        self.winning().into_iter().flatten().collect()
    }

    /// [`Game::winning_moves`] without allocating: the left one, the right one.
    fn winning(&self) -> [Option<Move>; 2] {
        let mut out = [None, None];
        if self.is_over() {
            return out;
        }
        let x = self.left;
        match self.row.variant {
            Variant::Leftmost => {
                let rest_wins = self.first < self.last && self.row.suffix_wins(self.first + 1);
                if !rest_wins {
                    out[0] = Some(Move::to_remaining(Side::Left, x, 0));
                } else if x > 1 {
                    out[0] = Some(Move::to_remaining(Side::Left, x, 1));
                }
            }
            Variant::TwoEnds => match self.ends() {
                Ends::One => out[0] = Some(Move::to_remaining(Side::Left, x, 0)),
                Ends::Two { t, u } => {
                    if t < x {
                        out[0] = Some(Move::to_remaining(Side::Left, x, t));
                    }
                    if u < self.right {
                        out[1] = Some(Move::to_remaining(Side::Right, self.right, u));
                    }
                }
            },
        }
        out
    }

    fn first_winning(&self) -> Option<Move> {
        let [l, r] = self.winning();
        l.or(r)
    }

    /// Verdict, winning moves and best move (the first winning move, else
    /// the project's policy), as [`analyze`](crate::core::analyze) gives for
    /// the live row; `None` once the game is over. O(1).
    pub fn analysis(&self) -> Option<Analysis> {
        if self.is_over() {
            return None;
        }
        let winning_moves = self.winning_moves();
        let best_move = winning_moves
            .first()
            .copied()
            .unwrap_or_else(|| self.prolong_move());
        Some(Analysis {
            first_player_wins: !winning_moves.is_empty(),
            winning_moves,
            best_move,
        })
    }

    /// Checks a move (`take` stones from the `side` pile) without playing
    /// it: the move with `remaining` filled in, or why it is illegal.
    pub fn check_move(&self, side: Side, take: u64) -> Result<Move, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if side == Side::Right && self.row.variant == Variant::Leftmost {
            return Err(MoveError::InvalidSide);
        }
        if take == 0 {
            return Err(MoveError::TakeZero);
        }
        let pile = match side {
            Side::Left => self.left,
            Side::Right => self.right,
        };
        if take > pile {
            return Err(MoveError::TakeTooMany {
                side: SideName(side),
                take,
                pile,
            });
        }
        Ok(Move::to_remaining(side, pile, pile - take))
    }

    /// Is this legal move a winning one? (One pile: taking it all, from
    /// either side.)
    fn is_winning(&self, mv: Move) -> bool {
        if self.first == self.last {
            return mv.remaining == 0;
        }
        self.winning()
            .iter()
            .flatten()
            .any(|w| w.side == mv.side && w.remaining == mv.remaining)
    }

    /// Would this move throw a win away? True when the player to move has a
    /// winning move and `mv` (its side and take; `remaining` is ignored) is
    /// legal and not one of them.
    pub fn is_blunder(&self, mv: Move) -> bool {
        match self.check_move(mv.side, mv.take) {
            Ok(mv) => self.mover_wins() && !self.is_winning(mv),
            Err(_) => false,
        }
    }

    /// Plays `take` stones from the `side` pile after checking it. O(1)
    /// amortized (O(s²) when the interior drops below the cone).
    pub fn play(&mut self, side: Side, take: u64) -> Result<Played, MoveError> {
        let mv = self.check_move(side, take)?;
        let blunder = self.mover_wins() && !self.is_winning(mv);
        let removed = mv.remaining == 0;
        if self.first == self.last {
            self.left = mv.remaining;
            self.right = mv.remaining;
        } else if side == Side::Left {
            self.left = mv.remaining;
            if removed {
                self.first += 1;
                self.left = if self.first == self.last {
                    self.right
                } else {
                    self.row.piles[self.first]
                };
            }
        } else {
            self.right = mv.remaining;
            if removed {
                self.last -= 1;
                self.right = if self.first == self.last {
                    self.left
                } else {
                    self.row.piles[self.last]
                };
            }
        }
        self.ply += 1;
        if removed {
            self.refresh_interior();
        }
        Ok(Played {
            mv,
            blunder,
            game_over: self.is_over(),
        })
    }

    /// [`Game::play`] of a [`Move`]'s side and take (`remaining` ignored).
    pub fn play_move(&mut self, mv: Move) -> Result<Played, MoveError> {
        self.play(mv.side, mv.take)
    }

    /// The bot's move at this ply; `None` once the game is over.
    pub fn bot_move(&self, bot: &Bot) -> Option<Move> {
        self.bot_move_knowing(bot, None)
    }

    /// Does the bot's move at this ply read the live row's exact
    /// remoteness (its tempo move)? True when the game is not over, at most
    /// [`TEMPO_MAX_PILES`] piles are live, the bot plays its optimal move at
    /// this ply (always at strength ≥ 1, else by its draw from
    /// [`ply_rng`]) and that move has tempo (a won position, or a lost one
    /// under [`WhenLost::Prolong`]). O(1): a caller that must not solve on
    /// its own thread (the Play RPC) solves the live row elsewhere exactly
    /// then and passes its ranges to [`Game::bot_move_knowing`].
    pub fn bot_needs_tempo(&self, bot: &Bot) -> bool {
        if self.is_over() || !self.tempo_applies() {
            return false;
        }
        // The draw of `choose` (none at strength ≥ 1).
        let optimal =
            bot.strength >= 1.0 || ply_rng(bot.seed, self.ply).random::<f64>() < bot.strength;
        optimal && (bot.when_lost == WhenLost::Prolong || self.mover_wins())
    }

    /// [`Game::bot_move`] given the position's move ranges when the caller
    /// has them (`ranges`: the [`Solved::ranges`](crate::core::remoteness::Solved::ranges) of the live row now, as the
    /// Play RPC solves it on its CPU pool): the tempo move is read from them
    /// instead of being solved here (O(m²) on m live piles, only when
    /// [`Game::bot_needs_tempo`]). The same move either way.
    pub fn bot_move_knowing(&self, bot: &Bot, ranges: Option<&[MoveRange]>) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        // No random numbers needed: skip seeding (the same move as below).
        if bot.strength >= 1.0
            && let Some(m) = self.settled_move(bot.when_lost, ranges)
        {
            return Some(m);
        }
        let mut rng = ply_rng(bot.seed, self.ply);
        self.choose(bot.strength, bot.when_lost, &mut rng, ranges)
    }

    /// The bot's move with the caller's random numbers: optimal with
    /// probability `strength` (always when it is ≥ 1, without drawing),
    /// else a uniformly random legal move; `None` once the game is over.
    pub fn bot_move_with(
        &self,
        strength: f64,
        when_lost: WhenLost,
        rng: &mut impl Rng,
    ) -> Option<Move> {
        self.choose(strength, when_lost, rng, None)
    }

    /// [`Game::bot_move_with`], the tempo move from `ranges` when given.
    fn choose(
        &self,
        strength: f64,
        when_lost: WhenLost,
        rng: &mut impl Rng,
        ranges: Option<&[MoveRange]>,
    ) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        let optimal = strength >= 1.0 || rng.random::<f64>() < strength;
        Some(if optimal {
            self.settled_move(when_lost, ranges)
                .unwrap_or_else(|| self.lost_move(when_lost, rng))
        } else {
            random_end_move(self.left, self.right, self.two_sided(), rng)
        })
    }

    /// The optimal move when it needs no random numbers: in a won
    /// position a winning move, in a lost one under [`WhenLost::Prolong`]
    /// its move, each with tempo where [`Game::tempo_move`] has it; `None`
    /// in a lost position under [`WhenLost::Shorten`].
    fn settled_move(&self, when_lost: WhenLost, ranges: Option<&[MoveRange]>) -> Option<Move> {
        match self.first_winning() {
            Some(m) => Some(self.tempo_move(ranges).unwrap_or(m)),
            None if when_lost == WhenLost::Prolong => Some(
                self.tempo_move(ranges)
                    .unwrap_or_else(|| self.prolong_move()),
            ),
            None => None,
        }
    }

    fn two_sided(&self) -> bool {
        self.row.variant == Variant::TwoEnds && self.first < self.last
    }

    /// The move of perfect play with tempo on a position of at most
    /// [`TEMPO_MAX_PILES`] piles: a fastest winning move, or when lost a
    /// longest-resisting one, by exact remoteness
    /// ([`remoteness::best_move`](crate::core::remoteness::best_move) and its
    /// tie-break); `None` on longer positions (O(m²) a move, so the bot
    /// keeps its O(1) moves there: any winning move, or
    /// [`WhenLost::Prolong`]'s). Without `ranges` it solves the live row
    /// here.
    /// With `ranges` (the live row's move ranges), the best of them
    /// ([`remoteness::best_of`](crate::core::remoteness::best_of)), not
    /// solved again.
    fn tempo_move(&self, ranges: Option<&[MoveRange]>) -> Option<Move> {
        if !self.tempo_applies() {
            return None;
        }
        let piles = self.piles_now();
        let row = ValidRow::new(&piles, super::row::MAX_PILES).ok()?;
        Some(match ranges {
            Some(ranges) => super::remoteness::best_of(&row, ranges),
            None => super::remoteness::best_move(&row, self.row.variant),
        })
    }

    /// Is the live position short enough for the tempo move
    /// ([`TEMPO_MAX_PILES`])?
    fn tempo_applies(&self) -> bool {
        self.last - self.first < TEMPO_MAX_PILES
    }

    /// [`WhenLost::Prolong`]'s move (legal in any live position).
    fn prolong_move(&self) -> Move {
        let (x, y) = (self.left, self.right);
        if self.two_sided() && y > x {
            Move::to_remaining(Side::Right, y, y - 1)
        } else {
            Move::to_remaining(Side::Left, x, x - 1)
        }
    }

    /// The [`WhenLost`] move (legal in any live position).
    fn lost_move(&self, when_lost: WhenLost, rng: &mut impl Rng) -> Move {
        match when_lost {
            WhenLost::Prolong => self.prolong_move(),
            WhenLost::Shorten => {
                let right = self.two_sided() && rng.random::<bool>();
                let (side, pile) = if right {
                    (Side::Right, self.right)
                } else {
                    (Side::Left, self.left)
                };
                let take = rng.random_range(pile.div_ceil(2)..=pile);
                Move::to_remaining(side, pile, pile - take)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Never;
    use crate::core::remoteness::{best_move, move_ranges};

    fn start(piles: &[u64], variant: Variant) -> Game {
        let row = ValidRow::new(piles, usize::MAX).expect("a valid row");
        let Ok(game) = Game::start(&row, variant, &Never);
        game
    }

    fn random_row(rng: &mut ChaCha8Rng, n: usize, max: u64) -> Vec<u64> {
        (0..n).map(|_| rng.random_range(1..=max)).collect()
    }

    /// A random two-ends row of `n` piles, won for the mover if `won`,
    /// whose tempo move is not the O(1) move (the analysis's): about one
    /// random row in 10 to 30 of these kinds.
    fn tempo_row(rng: &mut ChaCha8Rng, n: usize, won: bool) -> Vec<u64> {
        loop {
            let piles: Vec<u64> = match rng.random_range(0..3) {
                0 => random_row(rng, n, 3),
                1 => (0..n).map(|_| rng.random_range(2..=9)).collect(),
                _ => {
                    let base = rng.random_range(1..1_000_000_000u64);
                    (0..n).map(|_| base + rng.random_range(0..4)).collect()
                }
            };
            let game = start(&piles, Variant::TwoEnds);
            let row = ValidRow::new(&piles, usize::MAX).unwrap();
            if game.mover_wins() == won
                && best_move(&row, Variant::TwoEnds) != game.analysis().unwrap().best_move
            {
                return piles;
            }
        }
    }

    /// On rows of 300 and 1,000 piles whose tempo move is not the O(1)
    /// one, won and lost, the perfect bot plays the tempo move (it did
    /// not with the old bound of 128).
    #[test]
    fn the_perfect_bot_plays_the_tempo_move_where_it_differs() {
        let mut rng = ChaCha8Rng::seed_from_u64(1_000);
        for n in [300, 1_000] {
            for won in [true, false] {
                let piles = tempo_row(&mut rng, n, won);
                let game = start(&piles, Variant::TwoEnds);
                let row = ValidRow::new(&piles, usize::MAX).unwrap();
                let best = best_move(&row, Variant::TwoEnds);
                assert_ne!(Some(best), game.analysis().map(|a| a.best_move));
                assert!(game.bot_needs_tempo(&Bot::perfect()));
                assert_eq!(game.bot_move(&Bot::perfect()), Some(best), "n = {n}");
            }
        }
    }

    /// On random rows of 300 and 1,000 piles (far above the old bound of
    /// 128), the perfect bot's move is the exact remoteness's best move at
    /// every ply of a few, with the ranges given or solved here, and it
    /// needs them.
    #[test]
    fn the_perfect_bot_has_tempo_on_long_rows() {
        let mut rng = ChaCha8Rng::seed_from_u64(4096);
        for (n, variant) in [
            (300, Variant::TwoEnds),
            (1_000, Variant::TwoEnds),
            (1_000, Variant::Leftmost),
        ] {
            for max in [3, 1_000_000_000] {
                let piles = random_row(&mut rng, n, max);
                let mut game = start(&piles, variant);
                for when_lost in [WhenLost::Prolong, WhenLost::Shorten] {
                    let bot = Bot {
                        when_lost,
                        ..Bot::perfect()
                    };
                    for _ in 0..4 {
                        let now = game.piles_now();
                        let row = ValidRow::new(&now, usize::MAX).unwrap();
                        let what = format!("{variant} n = {n} at ply {}", game.ply());
                        let wins = game.mover_wins();
                        let tempo = wins || when_lost == WhenLost::Prolong;
                        assert_eq!(game.bot_needs_tempo(&bot), tempo, "{what}");
                        let m = game.bot_move(&bot).unwrap();
                        if tempo {
                            assert_eq!(m, best_move(&row, variant), "{what}");
                            let ranges = move_ranges(&row, variant);
                            assert_eq!(game.bot_move_knowing(&bot, Some(&ranges)), Some(m));
                        }
                        game.play_move(m).unwrap();
                    }
                }
            }
        }
    }

    /// `bot_needs_tempo` is exactly when the bot reads the ranges: at
    /// strength 0.6 (some plies draw a random move), both policies, along
    /// whole games, a move that does not need them is the same with
    /// empty (wrong) ranges, and one that does is the tempo move.
    #[test]
    fn bot_needs_tempo_is_when_the_bot_reads_the_ranges() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for variant in [Variant::TwoEnds, Variant::Leftmost] {
            for _ in 0..20 {
                let n = rng.random_range(1..=12);
                let piles = random_row(&mut rng, n, 6);
                for when_lost in [WhenLost::Prolong, WhenLost::Shorten] {
                    let bot = Bot {
                        strength: 0.6,
                        seed: rng.random(),
                        when_lost,
                    };
                    let mut game = start(&piles, variant);
                    let mut needed = 0;
                    while !game.is_over() {
                        let m = game.bot_move(&bot).unwrap();
                        if game.bot_needs_tempo(&bot) {
                            needed += 1;
                            let now = game.piles_now();
                            let row = ValidRow::new(&now, usize::MAX).unwrap();
                            assert_eq!(m, best_move(&row, variant), "{piles:?}");
                        } else {
                            assert_eq!(game.bot_move_knowing(&bot, Some(&[])), Some(m));
                        }
                        game.play_move(m).unwrap();
                    }
                    assert!(needed <= game.ply());
                }
            }
        }
        let over = {
            let mut g = start(&[2], Variant::TwoEnds);
            g.play(Side::Left, 2).unwrap();
            g
        };
        assert!(!over.bot_needs_tempo(&Bot::perfect()));
    }

    /// The bound: at [`TEMPO_MAX_PILES`] live piles the bot needs the
    /// tempo move; one pile more, it plays the O(1) move (the analysis's
    /// best move) without solving.
    #[test]
    fn tempo_stops_above_the_bound() {
        let mut rng = ChaCha8Rng::seed_from_u64(128);
        for variant in [Variant::TwoEnds, Variant::Leftmost] {
            let piles = random_row(&mut rng, TEMPO_MAX_PILES + 1, 1_000);
            let mut game = start(&piles, variant);
            let bot = Bot::perfect();
            assert!(!game.bot_needs_tempo(&bot));
            let a = game.analysis().unwrap();
            assert_eq!(game.bot_move_knowing(&bot, Some(&[])), Some(a.best_move));
            assert_eq!(game.bot_move(&bot), Some(a.best_move));
            // Take the first pile: TEMPO_MAX_PILES live.
            game.play(Side::Left, piles[0]).unwrap();
            assert_eq!(game.live(), (1, TEMPO_MAX_PILES));
            let prolong = Bot {
                when_lost: WhenLost::Prolong,
                ..bot
            };
            assert!(game.bot_needs_tempo(&prolong));
        }
    }
}
