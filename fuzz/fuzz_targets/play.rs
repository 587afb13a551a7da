//! The Play RPC's door: a `pb::PlayRequest` decoded by prost from arbitrary
//! bytes and converted as the server converts a stream's first message
//! (`PlayStart::try_from`, `TokenKey::open`), and the state tokens signed
//! by `TokenKey::sign` for fuzzer-chosen games.
//!
//! Input: byte 0 picks the pile limit and which tokens are built, the rest
//! is the encoded request.
//!
//! Holds: no panic; a StartGame is refused exactly when the rules say (a
//! seat outside 0..=4, a strength outside [0, 1] or NaN, a bad row), with
//! the field first in the message (`client_seat:`, `strength:`, `piles`,
//! `variant`); an accepted one keeps its seed and analysis flag and a move
//! timeout within the server's limit; no token the fuzzer makes up opens,
//! and a ResumeGame's token bytes never open under this key; a signed token
//! is at most 128 bytes, opens to exactly the game signed, and with any one
//! byte altered is refused; a signed position resumes on a small row
//! exactly when it is a reachable position of that row, and a resumed game
//! then plays to its end with legal bot moves.
#![no_main]

use std::num::NonZeroUsize;
use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use prost::Message;
use stonegame::core::cancel::Never;
use stonegame::core::game::{Bot, Game, GameRow, GameState, WhenLost};
use stonegame::core::{ValidRow, Variant};
use stonegame::service::pb::play_request::Action;
use stonegame::service::rpc::convert::PlayStart;
use stonegame::service::state::play_token::{DIGEST_BYTES, TokenError, TokenGame, TokenKey};
use stonegame::service::{Config, Limits, pb};
use stonegame_fuzz::is_legal;

const MAX_PILES: [usize; 4] = [1, 2, 8, 4096];

fn limits(max_piles: usize) -> Limits {
    static DEFAULTS: OnceLock<Limits> = OnceLock::new();
    let mut limits = DEFAULTS
        .get_or_init(|| Config::defaults().unwrap().limits)
        .clone();
    limits.max_piles = NonZeroUsize::new(max_piles).unwrap();
    limits
}

fn key() -> &'static TokenKey {
    static KEY: OnceLock<TokenKey> = OnceLock::new();
    KEY.get_or_init(|| {
        TokenKey::from_config(Some("a fuzzing key of at least thirty-two bytes")).unwrap()
    })
}

/// A game built from the request's fields (whatever it holds), for the
/// signing round trip.
fn game_of(bytes: &[u8], mode: u8) -> TokenGame {
    let word = |i: usize| -> u64 {
        let mut w = [0u8; 8];
        for (k, b) in w.iter_mut().enumerate() {
            *b = bytes.get(i * 8 + k).copied().unwrap_or(k as u8);
        }
        u64::from_le_bytes(w)
    };
    let mut digest = [0u8; DIGEST_BYTES];
    for (k, d) in digest.iter_mut().enumerate() {
        *d = bytes.get(k * 3).copied().unwrap_or(0);
    }
    TokenGame {
        state: GameState {
            first: word(0) % 6,
            last: word(1) % 6,
            left_size: word(2) % 5,
            right_size: word(3) % 5,
            ply: word(4),
        },
        variant: if mode & 4 == 0 {
            Variant::TwoEnds
        } else {
            Variant::Leftmost
        },
        seat: 1 + (mode >> 3 & 3) as i32,
        strength: (word(5) % 1001) as f64 / 1000.0,
        seed: word(6),
        analysis: mode & 32 != 0,
        move_timeout_ms: word(7) as u32,
        row_digest: digest,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };

    // Signing: any game round-trips, any altered byte is refused.
    let game = game_of(bytes, mode);
    let token = key().sign(&game);
    assert!(token.len() <= 128, "a token of {} bytes", token.len());
    assert_eq!(key().open(&token), Ok(game));
    if let Some(&b) = bytes.first() {
        let mut bad = token.clone();
        let at = usize::from(b) % bad.len();
        bad[at] ^= 1 | (mode & 0xfe);
        assert_eq!(key().open(&bad), Err(TokenError::Signature), "byte {at}");
    }

    // The signed position on a small row: resumes exactly when reachable,
    // then plays to its end.
    let piles: Vec<u64> = bytes
        .iter()
        .take(6)
        .map(|&b| u64::from(b % 4) + 1)
        .collect();
    if let Ok(row) = ValidRow::try_from(piles) {
        let variant = game.variant;
        let reachable = game.state.validate(&row, variant).is_ok();
        let shared = Arc::new(GameRow::new(&row, variant, &Never).expect("never cancelled"));
        match Game::resume(shared, game.state) {
            Ok(mut g) => {
                assert!(reachable, "resumed an unreachable {:?}", game.state);
                let bot = Bot {
                    strength: game.strength,
                    seed: game.seed,
                    when_lost: WhenLost::Prolong,
                };
                let mut plies = 0u64;
                while let Some(mv) = g.bot_move(&bot) {
                    let now = g.piles_now();
                    assert!(is_legal(&now, variant, mv), "{mv:?} on {now:?}");
                    g.play_move(mv).expect("a legal bot move is accepted");
                    plies += 1;
                    assert!(plies <= 6 * 4, "a game of 6 piles of ≤ 4 stones is over");
                }
                assert!(g.is_over());
            }
            Err(e) => assert!(!reachable, "refused a reachable {:?}: {e}", game.state),
        }
    }

    // The door.
    let Ok(req) = pb::PlayRequest::decode(bytes) else {
        return;
    };
    let max_piles = MAX_PILES[usize::from(mode & 3)];
    let limits = limits(max_piles);
    match req.action {
        Some(Action::Start(start)) => {
            let strength = start.strength.unwrap_or(1.0);
            let (seed, analysis, asked) = (start.seed, start.analysis, start.move_timeout_ms);
            let want_field = if !(0..=4).contains(&start.client_seat) {
                Some("client_seat")
            } else if !(0.0..=1.0).contains(&strength) {
                Some("strength")
            } else {
                None
            };
            match PlayStart::try_from((start, &limits)) {
                Ok(ok) => {
                    assert_eq!(want_field, None, "accepted a bad {want_field:?}");
                    assert_eq!((ok.seed, ok.analysis), (seed, analysis));
                    let max = limits.play_move_timeout_ms();
                    assert!(ok.move_timeout_ms >= 1 && ok.move_timeout_ms <= max);
                    assert!(asked == 0 || ok.move_timeout_ms == asked.min(max));
                    assert!(ok.row.len() <= max_piles);
                    assert_ne!(ok.seat, pb::Seat::Unspecified);
                }
                Err(e) => {
                    let message = e.to_string();
                    match want_field {
                        Some(field) => assert!(
                            message.starts_with(&format!("{field}:")),
                            "{field}: {message}"
                        ),
                        None => assert!(
                            message.starts_with("piles") || message.starts_with("variant"),
                            "a row error names its field: {message}"
                        ),
                    }
                }
            }
        }
        Some(Action::Resume(resume)) => {
            assert!(key().open(&resume.state_token).is_err());
        }
        Some(Action::Move(_)) | Some(Action::Resign(_)) | None => {}
    }
});
