//! What the fuzz targets share: the reference verdicts the fast solvers are
//! held to, a `BufRead` that hands its bytes out in fuzzer-chosen pieces,
//! and the checks that an error names its place.

use std::io::{self, BufRead, Read};

use stonegame::core::exhaustive::Exhaustive;
use stonegame::core::moves::legal_moves;
use stonegame::core::tables::Tables;
use stonegame::core::{Analysis, Move, Side, ValidRow, Variant, analyze, first_player_wins};

/// Rows the exhaustive game-tree solver handles in well under a millisecond.
pub fn exhaustive_sized(piles: &[u64]) -> bool {
    piles.len() <= 6 && piles.iter().all(|&p| p <= 5)
}

/// Largest two-ends row checked against the O(n²) tables.
pub const TABLES_MAX: usize = 256;

/// The verdict of an independent solver, when the row is small enough for
/// one: the exhaustive game tree for tiny rows, else the O(n²) tables
/// (two-ends only).
pub fn reference_wins(row: &ValidRow<'_>, variant: Variant) -> Option<bool> {
    if exhaustive_sized(row) {
        return Some(Exhaustive::new(variant).wins(row));
    }
    (variant == Variant::TwoEnds && row.len() <= TABLES_MAX)
        .then(|| Tables::new(row).first_player_wins())
}

/// Holds the fast solvers to the reference on `row`: the verdict, the
/// analysis (its winning moves are legal, each leaves a lost position for
/// the reference where it can tell, best move legal) and, for tiny rows,
/// the exhaustive solver's set of winning moves. Returns the analysis.
pub fn assert_solved_right(row: &ValidRow<'_>, variant: Variant) -> Analysis {
    let fast = first_player_wins(row, variant);
    let analysis = analyze(row, variant);
    assert_eq!(
        analysis.first_player_wins, fast,
        "analyze vs first_player_wins on {row:?}"
    );
    if let Some(truth) = reference_wins(row, variant) {
        assert_eq!(fast, truth, "{variant} verdict of {:?}", &row[..]);
    }
    assert_eq!(
        analysis.winning_moves.is_empty(),
        !fast,
        "winning moves exist exactly in a won position"
    );
    assert!(
        is_legal(row, variant, analysis.best_move),
        "best move {:?} illegal",
        analysis.best_move
    );
    for &m in &analysis.winning_moves {
        assert!(is_legal(row, variant, m), "winning move {m:?} illegal");
    }
    if exhaustive_sized(row) {
        let mut ex = Exhaustive::new(variant);
        let mut want = ex.winning_moves(row);
        let mut got = analysis.winning_moves.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{variant} winning moves of {:?}", &row[..]);
    }
    analysis
}

/// Is `m` a legal move on `row` (`core::moves::legal_moves`' rule, without
/// listing every move of a large pile)?
pub fn is_legal(row: &[u64], variant: Variant, m: Move) -> bool {
    let pile = match m.side {
        Side::Left => row[0],
        Side::Right if variant == Variant::TwoEnds && row.len() >= 2 => row[row.len() - 1],
        Side::Right => return false,
    };
    let legal = m.take >= 1 && m.take <= pile && m.take.checked_add(m.remaining) == Some(pile);
    if row.iter().map(|&p| p as u128).sum::<u128>() <= 64 {
        assert_eq!(
            legal,
            legal_moves(row, variant).contains(&m),
            "{m:?} on {row:?}"
        );
    }
    legal
}

/// A `BufRead` over `data` that hands out at most `sizes[k]` bytes on its
/// k-th fill (cycling; 0 counts as 1), so a reader sees tokens and lines
/// cut at every place the fuzzer picks, as a network stream would cut them.
pub struct Pieces<'a> {
    data: &'a [u8],
    pos: usize,
    sizes: Vec<usize>,
    fill: usize,
    /// End of the current piece.
    end: usize,
}

impl<'a> Pieces<'a> {
    pub fn new(data: &'a [u8], sizes: &[u8]) -> Pieces<'a> {
        let sizes = if sizes.is_empty() {
            vec![usize::MAX]
        } else {
            sizes.iter().map(|&s| usize::from(s).max(1)).collect()
        };
        Pieces {
            data,
            pos: 0,
            sizes,
            fill: 0,
            end: 0,
        }
    }
}

impl BufRead for Pieces<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end {
            let size = self.sizes[self.fill % self.sizes.len()];
            self.fill += 1;
            self.end = self.pos.saturating_add(size).min(self.data.len());
        }
        Ok(&self.data[self.pos..self.end])
    }

    fn consume(&mut self, amount: usize) {
        self.pos = (self.pos + amount).min(self.end);
    }
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Number of lines of `data` (1 + its `\n`s) and the longest line's length
/// + 1, in bytes: every line/column an error names must be within them.
pub fn extent(data: &[u8]) -> (u64, u64) {
    let lines = 1 + data.iter().filter(|&&b| b == b'\n').count() as u64;
    let longest = data
        .split(|&b| b == b'\n')
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0) as u64;
    (lines, longest + 1)
}

/// The `(line, column)` of the first `line L, column C` in `message`.
pub fn named_position(message: &str) -> Option<(u64, u64)> {
    let at = message.find("line ")?;
    let rest = &message[at + 5..];
    let (line, rest) = rest.split_once(", column ")?;
    let column: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// The answer file a correct solution prints for `verdicts`.
pub fn answer_text(verdicts: &[bool]) -> String {
    verdicts
        .iter()
        .map(|&w| if w { "1\n" } else { "0\n" })
        .collect()
}
