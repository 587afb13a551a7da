//! The Play RPC's state tokens: everything needed to continue a game on any
//! replica that shares `play.token_key`, signed with HMAC-SHA256.
//!
//! The layout is in docs/play.md, "State tokens and resuming": 116 bytes,
//! little-endian: a version ([`VERSION`]), a key id, the [`GameState`], the
//! game's settings (variant, seat, strength, seed, analysis, move timeout),
//! the first 16 bytes of the row's SHA-256 ([`row_digest`]), and the
//! HMAC-SHA256 of all the bytes before it.
//!
//! The tag is checked (in constant time, ring's `hmac::verify`) before any field is
//! read, so a forged or altered token is refused as a whole.

use ring::{digest, hmac};

use crate::core::Variant;
use crate::core::game::GameState;

/// The token layout's version.
pub const VERSION: u8 = 1;
/// Bytes of the row digest kept in a token.
pub const DIGEST_BYTES: usize = 16;
/// Bytes of the HMAC tag.
pub const TAG_BYTES: usize = 32;
pub use crate::service::config::MIN_KEY_BYTES;

/// Bytes of a token.
pub const TOKEN_BYTES: usize =
    1 + 4 + GameState::BYTES + 1 + 1 + 8 + 8 + 1 + 4 + DIGEST_BYTES + TAG_BYTES;

const _: () = assert!(
    TOKEN_BYTES <= 128,
    "the issue's contract: at most 128 bytes"
);

/// The SHA-256 of a row: its piles as 8-byte little-endian words.
pub fn row_digest(piles: &[u64]) -> [u8; 32] {
    let mut hasher = digest::Context::new(&digest::SHA256);
    // In blocks, so a long row is not copied whole.
    let mut block = [0u8; 8 * 512];
    for chunk in piles.chunks(512) {
        for (out, p) in block.chunks_exact_mut(8).zip(chunk) {
            out.copy_from_slice(&p.to_le_bytes());
        }
        hasher.update(&block[..8 * chunk.len()]);
    }
    hasher
        .finish()
        .as_ref()
        .try_into()
        .expect("a SHA-256 is 32 bytes")
}

/// What a token carries besides the position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenGame {
    /// The position.
    pub state: GameState,
    /// The game.
    pub variant: Variant,
    /// The client's seat, as the wire's `Seat` number (1 to 4).
    pub seat: i32,
    /// The bot's strength.
    pub strength: f64,
    /// The bot's seed.
    pub seed: u64,
    /// Analysis in the GameStates.
    pub analysis: bool,
    /// The move timeout in ms.
    pub move_timeout_ms: u32,
    /// The first [`DIGEST_BYTES`] of the row's digest.
    pub row_digest: [u8; DIGEST_BYTES],
}

/// Why a token is refused (INVALID_ARGUMENT).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not the length of a token.
    #[error("state_token: {0} bytes is not a state token (they are {TOKEN_BYTES} bytes)")]
    Length(usize),
    /// A layout this server does not know.
    #[error("state_token: version {0} is not one this server knows (it knows {VERSION})")]
    Version(u8),
    /// The tag does not match: forged, altered, or signed with another key.
    #[error(
        "state_token: the signature does not match: the token was altered, forged, or \
         signed with another play.token_key than this server's"
    )]
    Signature,
    /// A signed token with a field out of range (a bug, or a future layout).
    #[error("state_token: the {0} field is out of range")]
    Field(&'static str),
}

/// `play.token_key` is unset and the operating system gave no random key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "play.token_key is unset and no random key could be read from the operating system \
     ({0}); set play.token_key (STONEGAME_PLAY__TOKEN_KEY)"
)]
pub struct RandomKeyError(String);

/// The key tokens are signed with.
#[derive(Clone)]
pub struct TokenKey {
    key: Vec<u8>,
    id: [u8; 4],
    random: bool,
}

impl std::fmt::Debug for TokenKey {
    /// Never prints the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenKey")
            .field("id", &format_args!("{:02x?}", self.id))
            .field("random", &self.random)
            .finish_non_exhaustive()
    }
}

impl TokenKey {
    /// The key of `play.token_key` (its UTF-8 bytes, at least
    /// [`MIN_KEY_BYTES`]; the configuration checks that), or a random one
    /// when it is unset.
    pub fn from_config(key: Option<&str>) -> Result<TokenKey, RandomKeyError> {
        match key {
            Some(key) => Ok(TokenKey::new(key.as_bytes().to_vec(), false)),
            None => TokenKey::random(),
        }
    }

    /// A random 32-byte key from the operating system's generator; an error
    /// (never a panic) where it cannot be read (a sandbox without
    /// `getrandom` or `/dev/urandom`).
    pub fn random() -> Result<TokenKey, RandomKeyError> {
        use rand::TryRngCore;
        let mut key = vec![0u8; 32];
        rand::rngs::OsRng
            .try_fill_bytes(&mut key)
            .map_err(|e| RandomKeyError(e.to_string()))?;
        Ok(TokenKey::new(key, true))
    }

    fn new(key: Vec<u8>, random: bool) -> TokenKey {
        let mut h = digest::Context::new(&digest::SHA256);
        h.update(b"stonegame play token key id\0");
        h.update(&key);
        let d = h.finish();
        let d = d.as_ref();
        TokenKey {
            id: [d[0], d[1], d[2], d[3]],
            key,
            random,
        }
    }

    /// Was the key drawn at random (no `play.token_key`)?
    pub fn is_random(&self) -> bool {
        self.random
    }

    /// The key's id as hex (safe to log: a truncated hash).
    pub fn id_hex(&self) -> String {
        self.id.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn mac(&self) -> hmac::Key {
        hmac::Key::new(hmac::HMAC_SHA256, &self.key)
    }

    /// The signed token of `game`.
    pub fn sign(&self, game: &TokenGame) -> Vec<u8> {
        let mut out = Vec::with_capacity(TOKEN_BYTES);
        out.push(VERSION);
        out.extend_from_slice(&self.id);
        out.extend_from_slice(&game.state.to_bytes());
        out.push(match game.variant {
            Variant::TwoEnds => 1,
            Variant::Leftmost => 2,
        });
        out.push(game.seat as u8);
        out.extend_from_slice(&game.strength.to_bits().to_le_bytes());
        out.extend_from_slice(&game.seed.to_le_bytes());
        out.push(u8::from(game.analysis));
        out.extend_from_slice(&game.move_timeout_ms.to_le_bytes());
        out.extend_from_slice(&game.row_digest);
        let tag = hmac::sign(&self.mac(), &out);
        out.extend_from_slice(tag.as_ref());
        debug_assert_eq!(out.len(), TOKEN_BYTES);
        out
    }

    /// Checks a token's signature, then reads it.
    pub fn open(&self, token: &[u8]) -> Result<TokenGame, TokenError> {
        if token.len() != TOKEN_BYTES {
            return Err(TokenError::Length(token.len()));
        }
        let (body, tag) = token.split_at(TOKEN_BYTES - TAG_BYTES);
        hmac::verify(&self.mac(), body, tag).map_err(|_| TokenError::Signature)?;
        if body[0] != VERSION {
            return Err(TokenError::Version(body[0]));
        }
        let mut at = 5;
        let mut take = |len: usize| {
            let s = &body[at..at + len];
            at += len;
            s
        };
        let state = GameState::from_bytes(take(GameState::BYTES))
            .map_err(|_| TokenError::Field("state"))?;
        let variant = match take(1)[0] {
            1 => Variant::TwoEnds,
            2 => Variant::Leftmost,
            _ => return Err(TokenError::Field("variant")),
        };
        let seat = i32::from(take(1)[0]);
        if !(1..=4).contains(&seat) {
            return Err(TokenError::Field("seat"));
        }
        let u64_of = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
        let strength = f64::from_bits(u64_of(take(8)));
        if !(0.0..=1.0).contains(&strength) {
            return Err(TokenError::Field("strength"));
        }
        let seed = u64_of(take(8));
        let analysis = match take(1)[0] {
            0 => false,
            1 => true,
            _ => return Err(TokenError::Field("analysis")),
        };
        let move_timeout_ms = u32::from_le_bytes(take(4).try_into().expect("4 bytes"));
        let row_digest = take(DIGEST_BYTES).try_into().expect("DIGEST_BYTES bytes");
        Ok(TokenGame {
            state,
            variant,
            seat,
            strength,
            seed,
            analysis,
            move_timeout_ms,
            row_digest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> TokenGame {
        TokenGame {
            state: GameState {
                first: 1,
                last: 5,
                left_size: 3,
                right_size: 7,
                ply: 4,
            },
            variant: Variant::TwoEnds,
            seat: 2,
            strength: 0.75,
            seed: 99,
            analysis: true,
            move_timeout_ms: 1234,
            row_digest: [7; DIGEST_BYTES],
        }
    }

    #[test]
    fn tokens_round_trip_and_refuse_every_altered_byte() {
        let key = TokenKey::from_config(Some(&"k".repeat(40))).unwrap();
        let token = key.sign(&game());
        assert_eq!(token.len(), TOKEN_BYTES);
        assert!(token.len() <= 128);
        assert_eq!(key.open(&token), Ok(game()));
        for i in 0..token.len() {
            let mut bad = token.clone();
            bad[i] ^= 1;
            assert_eq!(key.open(&bad), Err(TokenError::Signature), "byte {i}");
        }
        assert_eq!(
            key.open(&token[1..]),
            Err(TokenError::Length(TOKEN_BYTES - 1))
        );
        let other = TokenKey::from_config(Some(&"j".repeat(40))).unwrap();
        assert_eq!(other.open(&token), Err(TokenError::Signature));
        assert_ne!(other.id_hex(), key.id_hex());
        // The same key string gives the same key: any replica can open it.
        assert_eq!(
            TokenKey::from_config(Some(&"k".repeat(40)))
                .unwrap()
                .open(&token),
            Ok(game())
        );
        // Random keys differ.
        let (a, b) = (TokenKey::random().unwrap(), TokenKey::random().unwrap());
        assert!(a.is_random());
        assert_eq!(b.open(&a.sign(&game())), Err(TokenError::Signature));
        assert!(!format!("{a:?}").contains(&format!("{:?}", a.key)));
    }

    #[test]
    fn digests_depend_on_every_pile() {
        let a = row_digest(&[1, 2, 3]);
        assert_ne!(a, row_digest(&[1, 2, 4]));
        assert_ne!(a, row_digest(&[1, 2, 3, 1]));
        let long: Vec<u64> = (1..=2000).collect();
        let mut other = long.clone();
        other[1999] = 1;
        assert_ne!(row_digest(&long), row_digest(&other));
        // Blocks do not change the digest: the SHA-256 of the LE bytes.
        let bytes: Vec<u8> = long.iter().flat_map(|p| p.to_le_bytes()).collect();
        let mut want = [0u8; 32];
        want.copy_from_slice(digest::digest(&digest::SHA256, &bytes).as_ref());
        assert_eq!(row_digest(&long), want);
    }
}
