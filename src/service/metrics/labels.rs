//! The label values of the metric families, as enums: each is written as
//! the snake_case text the dashboards already know (`EncodeLabelValue`),
//! and a family's label set can hold nothing else. Each also knows its
//! label's name, so a one-label family is keyed by the value itself
//! (`EncodeLabelSet`: `reason="busy_cells"`).

use tonic::Code;

use crate::core::Variant;

use super::code_name;

/// The label encoding of a type: `EncodeLabelValue` writes its text, and
/// `EncodeLabelSet` the one label `key="text"`.
macro_rules! label_value {
    ($($ty:ty as $key:literal => $text:expr),+ $(,)?) => {$(
        impl ::prometheus_client::encoding::EncodeLabelValue for $ty {
            fn encode(
                &self,
                encoder: &mut ::prometheus_client::encoding::LabelValueEncoder,
            ) -> ::std::fmt::Result {
                let text: fn(&$ty) -> &'static str = $text;
                ::std::fmt::Write::write_str(encoder, text(self))
            }
        }

        impl ::prometheus_client::encoding::EncodeLabelSet for $ty {
            fn encode(
                &self,
                encoder: &mut ::prometheus_client::encoding::LabelSetEncoder,
            ) -> ::std::fmt::Result {
                ::prometheus_client::encoding::EncodeLabelSet::encode(&[($key, *self)], encoder)
            }
        }
    )+};
}
pub(crate) use label_value;

/// An enum of label values ([`named_enum`](crate::core::named_enum): the
/// variants, `ALL`, their text by `label()`) and its label encoding
/// ([`label_value`]) under `key`.
macro_rules! label_enum {
    ($(#[$meta:meta])* $name:ident as $key:literal { $($body:tt)* }) => {
        $crate::core::named_enum! { $(#[$meta])* pub enum $name: fn label { $($body)* } }
        $crate::service::metrics::labels::label_value!($name as $key => |v| v.label());
    };
}
pub(crate) use label_enum;

label_enum! {
    /// A `stonegame.v1.StoneGame` method: the `rpc` label (any other path
    /// counts as `other`).
    Rpc as "rpc" {
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
    AuthReason as "reason" {
        Missing => "missing",
        Malformed => "malformed",
        Unknown => "unknown",
    }
}

label_enum! {
    /// How a Play game began: the `how` of `stonegame_play_games_started_total`.
    GameStart as "how" {
        Start => "start",
        Resume => "resume",
    }
}

label_enum! {
    /// How a Play game ended: the `reason` of
    /// `stonegame_play_games_ended_total` (`abandoned`: the client went
    /// away or half-closed before the end, or the server shut down).
    PlayEnd as "reason" {
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
    PlayReject as "reason" {
        NotYourTurn => "not_your_turn",
        StalePly => "stale_ply",
        InvalidSide => "invalid_side",
        TakeZero => "take_zero",
        TakeTooMany => "take_too_many",
    }
}

label_enum! {
    /// Who played a Play move: the `by` of `stonegame_play_moves_total`.
    Mover as "by" {
        Client => "client",
        Bot => "bot",
    }
}

label_enum! {
    /// The files re-read when they change: the `what` of
    /// `stonegame_reloads_total`.
    Reloaded as "what" {
        Tls => "tls",
        Auth => "auth",
    }
}

label_enum! {
    /// How a re-read went: the `result` of `stonegame_reloads_total`
    /// (`error`: the old files are kept).
    ReloadResult as "result" {
        Ok => "ok",
        Error => "error",
    }
}

/// A gRPC status code as the `code` label (`OK`, `INVALID_ARGUMENT`, …).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub struct CodeLabel(pub Code);

label_value! {
    CodeLabel as "code" => |c| code_name(c.0),
    Variant as "variant" => |v| match v {
        Variant::TwoEnds => "two_ends",
        Variant::Leftmost => "leftmost",
    },
}

label_enum! {
    /// Why a TLS handshake failed: the `reason` label of
    /// `stonegame_tls_handshake_failures_total` (read from rustls' error by
    /// the edge's `tls_failure`).
    HandshakeFailure as "reason" {
        /// mTLS: the client sent no certificate.
        NoClientCertificate => "no_client_certificate",
        /// The client's certificate is not signed by `tls.client_ca_file`.
        UnknownCa => "unknown_ca",
        /// The client's certificate has expired (or is not yet valid).
        Expired => "expired",
        /// The client's certificate cannot be used (malformed, X.509 v1, wrong
        /// key usage, revoked, …).
        BadCertificate => "bad_certificate",
        /// The client did not speak TLS (plaintext HTTP/2 or HTTP/1.1 on the
        /// TLS port).
        Plaintext => "plaintext",
        /// The handshake did not finish in time.
        Timeout => "timeout",
        /// Anything else (the client hung up, a protocol mismatch, …).
        Other => "other",
    }
}

label_enum! {
    /// The protocol a call came in: the `protocol` label (told by the
    /// edge's web layers).
    Protocol as "protocol" {
        /// gRPC over HTTP/2.
        Grpc => "grpc",
        /// gRPC-Web (`application/grpc-web…`), over HTTP/1.1 or HTTP/2.
        GrpcWeb => "grpc_web",
        /// The Connect protocol's unary JSON form.
        Connect => "connect",
    }
}

label_enum! {
    /// Why an accepted connection was closed at once: the `reason` label of
    /// `stonegame_connections_refused_total`.
    ConnRefusal as "reason" {
        /// `transport.max_connections` connections were open.
        MaxConnections => "max_connections",
        /// Its address had `transport.max_connections_per_ip` open.
        MaxConnectionsPerIp => "max_connections_per_ip",
    }
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
