//! The label values of the metric families, as enums: each is written as
//! the snake_case text the dashboards already know (`EncodeLabelValue`),
//! and a family's label set can hold nothing else.

use std::fmt::{self, Write};

use prometheus_client::encoding::{EncodeLabelValue, LabelValueEncoder};
use tonic::Code;

use crate::core::Variant;

use super::super::tls_failure::HandshakeFailure;
use super::super::web::Protocol;
use super::{Refusal, code_name, variant_label};

/// An enum of label values: the variants, their text, every value in order
/// (`ALL`) and the `EncodeLabelValue` that writes the text.
macro_rules! label_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in label order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The label value.
            pub fn label(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl EncodeLabelValue for $name {
            fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
                encoder.write_str(self.label())
            }
        }
    };
}

/// `EncodeLabelValue` for enums defined elsewhere that already name their
/// label value.
macro_rules! label_value {
    ($($ty:ty => $text:expr),+ $(,)?) => {$(
        impl EncodeLabelValue for $ty {
            fn encode(&self, encoder: &mut LabelValueEncoder) -> fmt::Result {
                let text: fn(&$ty) -> &'static str = $text;
                encoder.write_str(text(self))
            }
        }
    )+};
}

label_enum! {
    /// A `stonegame.v1.StoneGame` method: the `rpc` label (any other path
    /// counts as `other`).
    Rpc {
        Solve => "Solve",
        GetTables => "GetTables",
        SuggestMove => "SuggestMove",
        Check => "Check",
        Generate => "Generate",
        Play => "Play",
        PlayStep => "PlayStep",
        Other => "other",
    }
}

impl Rpc {
    /// The method of a request path (`/stonegame.v1.StoneGame/Solve`).
    pub fn of_path(path: &str) -> Rpc {
        let method = path.rsplit('/').next().unwrap_or("");
        Rpc::ALL
            .iter()
            .copied()
            .find(|rpc| *rpc != Rpc::Other && rpc.label() == method)
            .unwrap_or(Rpc::Other)
    }
}

label_enum! {
    /// Why a StoneGame call was refused UNAUTHENTICATED: the `reason` of
    /// `stonegame_auth_rejected_total`.
    AuthReason {
        Missing => "missing",
        Malformed => "malformed",
        Unknown => "unknown",
    }
}

label_enum! {
    /// How a Play game began: the `how` of `stonegame_play_games_started_total`.
    GameStart {
        Start => "start",
        Resume => "resume",
    }
}

label_enum! {
    /// How a Play game ended: the `reason` of
    /// `stonegame_play_games_ended_total` (`abandoned`: the client went
    /// away or half-closed before the end, or the server shut down).
    PlayEnd {
        NoMoves => "no_moves",
        Resigned => "resigned",
        Timeout => "timeout",
        TooManyIllegalMoves => "too_many_illegal_moves",
        Abandoned => "abandoned",
    }
}

label_enum! {
    /// Why a Play move was rejected: the `reason` of
    /// `stonegame_play_rejected_moves_total`.
    PlayReject {
        NotYourTurn => "not_your_turn",
        StalePly => "stale_ply",
        InvalidSide => "invalid_side",
        TakeZero => "take_zero",
        TakeTooMany => "take_too_many",
    }
}

label_enum! {
    /// Who played a Play move: the `by` of `stonegame_play_moves_total`.
    Mover {
        Client => "client",
        Bot => "bot",
    }
}

label_enum! {
    /// The files re-read when they change: the `what` of
    /// `stonegame_reloads_total`.
    Reloaded {
        Tls => "tls",
        Auth => "auth",
    }
}

label_enum! {
    /// How a re-read went: the `result` of `stonegame_reloads_total`
    /// (`error`: the old files are kept).
    ReloadResult {
        Ok => "ok",
        Error => "error",
    }
}

/// A gRPC status code as the `code` label (`OK`, `INVALID_ARGUMENT`, …).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub struct CodeLabel(pub Code);

label_value! {
    CodeLabel => |c| code_name(c.0),
    Variant => |v| variant_label(*v),
    Refusal => |r| r.as_str(),
    Protocol => |p| p.label(),
    HandshakeFailure => |h| h.label(),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpcs_by_path() {
        assert_eq!(
            Rpc::of_path("/stonegame.v1.StoneGame/SuggestMove"),
            Rpc::SuggestMove
        );
        assert_eq!(
            Rpc::of_path("/stonegame.v1.StoneGame/PlayStep"),
            Rpc::PlayStep
        );
        assert_eq!(Rpc::of_path("/stonegame.v1.StoneGame/Nope"), Rpc::Other);
        assert_eq!(Rpc::of_path("/stonegame.v1.StoneGame/other"), Rpc::Other);
    }
}
