//! Decoding and validating a SuggestMove request and answering it:
//! `pb::SuggestMoveRequest` decoded by prost from arbitrary bytes, converted
//! with the server's `TryFrom` (`service::convert::SuggestMove`), analysed,
//! and answered with `service::suggest::respond`.
//!
//! Input: byte 0 picks the pile limit, the rest is the encoded request.
//!
//! Holds: no panic; the request is refused exactly when the rules say
//! (unknown variant, strength outside [0, 1] or NaN, empty row, too many
//! piles, a zero or too large pile), with the field first in the message
//! (`variant:`, `strength:`, `piles:`) and the 1-based pile named for a bad
//! pile; an accepted request's answer has the reference verdict, only
//! legal moves, the exhaustive solver's winning moves on tiny rows, and a
//! random move (strength < 1) that is legal; with `want_remoteness` (rows
//! of at most 64 piles, or leftmost), the core's remoteness, of the verdict's
//! parity, and the chosen move's remoteness after it, the chosen move of
//! an optimal draw being the core's `best_move` (tempo).
#![no_main]

use std::num::NonZeroUsize;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prost::Message;
use stonegame::core::remoteness::{best_move, solve_with};
use stonegame::core::{MAX_PILE, Move, Never, Side, Variant};
use stonegame::service::rpc::convert::SuggestMove;
use stonegame::service::rpc::suggest::{BotDraw, respond};
use stonegame::service::{Config, Limits, pb};
use stonegame::wire::convert::remoteness_from_wire;
use stonegame_fuzz::{assert_solved_right, is_legal};

const MAX_PILES: [usize; 4] = [1, 2, 8, 4096];

fn limits(max_piles: usize) -> Limits {
    static DEFAULTS: OnceLock<Limits> = OnceLock::new();
    let mut limits = DEFAULTS
        .get_or_init(|| Config::defaults().unwrap().limits)
        .clone();
    limits.max_piles = NonZeroUsize::new(max_piles).unwrap();
    limits
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let Ok(req) = pb::SuggestMoveRequest::decode(bytes) else {
        return;
    };
    let max_piles = MAX_PILES[usize::from(mode & 3)];
    let strength = req.strength.unwrap_or(1.0);
    let bad_pile = req.piles.iter().position(|&p| p == 0 || p > MAX_PILE);
    let want_field = if !(0..=2).contains(&req.variant) {
        Some("variant")
    } else if !(0.0..=1.0).contains(&strength) {
        Some("strength")
    } else if req.piles.is_empty() || req.piles.len() > max_piles || bad_pile.is_some() {
        Some("piles")
    } else {
        None
    };
    let piles = req.piles.clone();
    match SuggestMove::try_from((req, &limits(max_piles))) {
        Err(e) => {
            let field = want_field.unwrap_or_else(|| panic!("refused a good request: {e}"));
            let message = e.to_string();
            assert!(message.starts_with(&format!("{field}: ")), "{message}");
            if let (Some(i), "piles") = (bad_pile, field) {
                if piles.len() <= max_piles {
                    assert!(message.contains(&format!("pile {} ", i + 1)), "{message}");
                }
            }
        }
        Ok(ok) => {
            assert_eq!(want_field, None, "accepted a bad request");
            assert_eq!(&ok.row[..], &piles[..]);
            let analysis = assert_solved_right(&ok.row, ok.variant);
            let wins = analysis.first_player_wins;
            // The remoteness when asked, on rows where it is quick (the
            // two-ends DP is O(n²) with a large constant).
            let solved = (ok.want_remoteness
                && (ok.variant == Variant::Leftmost || ok.row.len() <= 64))
                .then(|| {
                    let Ok(solved) = solve_with(&ok.row, ok.variant, &Never);
                    solved
                });
            let plies = solved.as_ref().map(|s| s.remoteness);
            let bot = BotDraw::new(ok.strength, ok.seed);
            let tempo = (bot.optimal && plies.is_some()).then(|| best_move(&ok.row, ok.variant));
            let want = solved.is_some();
            let resp = respond(&ok.row, ok.variant, bot, analysis, solved, want)
                .expect("every move listed is in a range");
            assert_eq!(resp.mover_wins, wins);
            if let Some(plies) = plies {
                let got = remoteness_from_wire(resp.remoteness.as_ref().expect("a remoteness"));
                assert_eq!(got, Ok(plies));
                assert_eq!(plies % 2 == 1, wins, "parity is the verdict");
                let after = resp
                    .chosen
                    .as_ref()
                    .and_then(|m| m.remoteness_after.as_ref());
                assert!(after.is_some(), "the chosen move's remoteness");
                assert!(!resp.move_ranges.is_empty());
            } else {
                assert!(resp.remoteness.is_none() && resp.move_ranges.is_empty());
            }
            let chosen = resp.chosen.expect("a chosen move");
            let side = if chosen.side == pb::Side::Left as i32 {
                Side::Left
            } else {
                Side::Right
            };
            let chosen = Move {
                side,
                take: chosen.take,
                remaining: chosen.remaining,
            };
            let (first, last) = (ok.row[0], ok.row[ok.row.len() - 1]);
            let pile = if side == Side::Left { first } else { last };
            assert!(chosen.take >= 1 && chosen.take <= pile, "{chosen:?}");
            assert_eq!(chosen.take.checked_add(chosen.remaining), Some(pile));
            assert!(is_legal(&ok.row, ok.variant, chosen), "{chosen:?}");
            if let Some(tempo) = tempo {
                assert_eq!(chosen, tempo, "the tempo move");
            }
        }
    }
});
