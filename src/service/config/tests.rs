//! Unit tests of `config`, in their own file beside it.

use super::*;

fn env(pairs: &[(&str, &str)]) -> Option<HashMap<String, String>> {
    Some(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// The error of loading a file of `bytes` (no environment).
fn file_error(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, bytes).unwrap();
    Config::load(Some(&path), env(&[]), &Overrides::default())
        .unwrap_err()
        .to_string()
}

/// Found by the `config` fuzz target: the config crate reported
/// `workers = 1_chunwo` as "invalid digit found in string in c.toml",
/// naming no line, column or key.
#[test]
fn syntax_errors_name_line_and_column() {
    let e = file_error(b"workers = 1_chunwo");
    assert!(
        e.contains("c.toml") && e.contains("line 1, column 11"),
        "{e}"
    );
    let e = file_error(b"[limits]\nmax_piles = 12x\n");
    assert!(e.contains("line 2, column 13"), "{e}");
    let e = file_error(b"workers = 1\nlisten = \"a\xc3\x28\"\n");
    assert!(e.contains("not UTF-8 at line 2, column 12"), "{e}");
    // A well-formed file with a wrong value still names the key.
    let e = file_error(b"workers = \"many\"\n");
    assert!(e.contains("workers"), "{e}");
}

#[test]
fn defaults_load() {
    let c = Config::defaults().unwrap();
    assert_eq!(c.listen, "127.0.0.1:50051");
    assert_eq!(c.limits.max_piles.get(), 200_000);
    assert_eq!(c.limits.max_table_piles.get(), 5_000);
    assert_eq!(c.log.format, LogFormat::Human);
    assert_eq!(c.metrics.listen, "127.0.0.1:9090");
    assert_eq!(c.max_connection_age_ms, 0);
    assert_eq!(c.max_connection_age_grace_ms, 0);
}

#[test]
fn metrics_and_connection_age_from_every_layer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(
        &path,
        "max_connection_age_ms = 60000\n[metrics]\nlisten = \"0.0.0.0:9090\"\n",
    )
    .unwrap();
    let c = Config::load(Some(&path), env(&[]), &Overrides::default()).unwrap();
    assert_eq!(c.metrics.listen, "0.0.0.0:9090");
    assert_eq!(c.max_connection_age_ms, 60_000);
    let c = Config::load(
        Some(&path),
        env(&[
            ("STONEGAME_METRICS__LISTEN", "127.0.0.1:9100"),
            ("STONEGAME_MAX_CONNECTION_AGE_MS", "5000"),
            ("STONEGAME_MAX_CONNECTION_AGE_GRACE_MS", "700"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.metrics.listen, "127.0.0.1:9100");
    assert_eq!(c.max_connection_age_ms, 5_000);
    assert_eq!(c.max_connection_age_grace_ms, 700);
    // Empty turns the listener off, from the environment too.
    let c = Config::load(
        None,
        env(&[("STONEGAME_METRICS__LISTEN", "")]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.metrics.listen, "");
    let c = Config::load(
        None,
        env(&[("STONEGAME_METRICS__LISTEN", "127.0.0.1:9100")]),
        &Overrides {
            metrics_listen: Some("127.0.0.1:0".into()),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(c.metrics.listen, "127.0.0.1:0");
}

#[test]
fn layers_override_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(
        &path,
        "listen = \"127.0.0.1:1\"\n[limits]\nmax_piles = 10\nmax_table_piles = 7\n",
    )
    .unwrap();
    let c = Config::load(
        Some(&path),
        env(&[
            ("STONEGAME_LIMITS__MAX_PILES", "20"),
            ("STONEGAME_LOG__FORMAT", "json"),
            ("STONEGAME_LISTEN", "127.0.0.1:2"),
        ]),
        &Overrides {
            listen: Some("127.0.0.1:3".into()),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(c.limits.max_piles.get(), 20);
    assert_eq!(c.limits.max_table_piles.get(), 7);
    assert_eq!(c.log.format, LogFormat::Json);
    assert_eq!(c.listen, "127.0.0.1:3");
    assert_eq!(c.io_threads, 0);
    let c = Config::load(
        None,
        env(&[("STONEGAME_IO_THREADS", "1")]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.io_threads, 1);
}

#[test]
fn play_settings_from_every_layer_and_short_keys_are_errors() {
    let c = Config::defaults().unwrap();
    assert_eq!(c.play.token_key, "");
    let key = "0123456789abcdef0123456789abcdef";
    let c = Config::load(
        None,
        env(&[
            ("STONEGAME_PLAY__TOKEN_KEY", key),
            ("STONEGAME_LIMITS__MAX_PLAY_SESSIONS", "3"),
            ("STONEGAME_LIMITS__PLAY_MOVE_TIMEOUT_MS", "250"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.play.token_key, key);
    assert_eq!(c.limits.max_play_sessions.get(), 3);
    assert_eq!(c.limits.play_move_timeout_ms.get(), 250);
    assert!(!format!("{c:?}").contains(key));
    let e = Config::load(
        None,
        env(&[("STONEGAME_PLAY__TOKEN_KEY", "short-key")]),
        &Overrides::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("play.token_key"), "{e}");
    assert!(!e.to_string().contains("short-key"), "{e}");
    let e = Config::load(
        None,
        env(&[("STONEGAME_PLAY__TOKEN_KEYS", "x")]),
        &Overrides::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("token_keys"), "{e}");
}

#[test]
fn tls_and_auth_keys() {
    let c = Config::defaults().unwrap();
    assert!(!c.tls.enabled());
    assert_eq!(c.auth.tokens_file, "");
    let c = Config::load(
        None,
        env(&[
            ("STONEGAME_TLS__CERT_FILE", "/c.pem"),
            ("STONEGAME_TLS__KEY_FILE", "/k.pem"),
            ("STONEGAME_TLS__CLIENT_CA_FILE", "/ca.pem"),
            ("STONEGAME_AUTH__TOKENS_FILE", "/t"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert!(c.tls.enabled());
    assert_eq!(c.tls.client_ca_file, "/ca.pem");
    assert_eq!(c.auth.tokens_file, "/t");
    for (pairs, key) in [
        (
            &[("STONEGAME_TLS__CERT_FILE", "/c.pem")][..],
            "tls.key_file",
        ),
        (
            &[("STONEGAME_TLS__KEY_FILE", "/k.pem")][..],
            "tls.cert_file",
        ),
        (
            &[("STONEGAME_TLS__CLIENT_CA_FILE", "/ca.pem")][..],
            "tls.client_ca_file",
        ),
        (
            &[("STONEGAME_AUTH__RELOAD_INTERVAL_MS", "0")][..],
            "auth.reload_interval_ms",
        ),
    ] {
        let e = Config::load(None, env(pairs), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains(key), "{key}: {e}");
    }
}

#[test]
fn unknown_keys_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, "[limits]\nmax_pile = 10\n").unwrap();
    let e = Config::load(Some(&path), env(&[]), &Overrides::default()).unwrap_err();
    assert!(e.to_string().contains("max_pile"), "{e}");
    let e = Config::load(
        None,
        env(&[("STONEGAME_LIMITZ__X", "1")]),
        &Overrides::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("limitz"), "{e}");
}

/// Issue #22: a key of digits only was a number from the environment
/// (`try_parsing`: 000123… lost its zeros, 40 digits became a float)
/// and a string from TOML: two different keys. Now the same text.
#[test]
fn token_keys_are_the_same_text_from_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    for key in [
        "00012345678901234567890123456789",
        "1234567890123456789012345678901234567890",
        "12345678901234567890123456789012e3",
        "98765432109876543210987654321098",
        "TRUE5678901234567890123456789012",
    ] {
        let from_env = Config::load(
            None,
            env(&[("STONEGAME_PLAY__TOKEN_KEY", key)]),
            &Overrides::default(),
        )
        .unwrap();
        std::fs::write(&path, format!("[play]\ntoken_key = \"{key}\"\n")).unwrap();
        let from_file = Config::load(Some(&path), env(&[]), &Overrides::default()).unwrap();
        assert_eq!(from_env.play.token_key, key);
        assert_eq!(
            from_file.play.token_key.as_bytes(),
            from_env.play.token_key.as_bytes()
        );
    }
    // A TOML number is refused, naming the key, never showing it.
    for value in ["12345678901234567", "1.5e300", "true"] {
        std::fs::write(&path, format!("[play]\ntoken_key = {value}\n")).unwrap();
        let e = Config::load(Some(&path), env(&[]), &Overrides::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("play.token_key"), "{e}");
        assert!(e.contains("must be a string: quote it"), "{e}");
        assert!(!e.contains(value), "{e}");
    }
    // Other environment values are still read as their key's type.
    let c = Config::load(
        None,
        env(&[
            ("STONEGAME_WORKERS", "3"),
            ("STONEGAME_TRANSPORT__TCP_NODELAY", "false"),
            ("STONEGAME_LIMITS__MAX_CELLS_IN_FLIGHT", "40000000001"),
            ("STONEGAME_LOG__FORMAT", "json"),
            ("STONEGAME_LISTEN", "1234"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.workers, 3);
    assert!(!c.transport.tcp_nodelay);
    assert_eq!(c.limits.max_cells_in_flight.get(), 40_000_000_001);
    assert_eq!(c.log.format, LogFormat::Json);
    assert_eq!(c.listen, "1234");
    let e = Config::load(
        None,
        env(&[("STONEGAME_WORKERS", "many")]),
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("workers"), "{e}");
}

#[test]
fn unknown_keys_name_their_section_and_source() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    let shown = path.display().to_string();
    for (text, key, section) in [
        ("[limits]\nmax_pile = 10\n", "max_pile", "section [limits]"),
        ("listn = \"a\"\n", "listn", "the top level"),
        ("[limitz]\nx = 1\n", "limitz", "the top level"),
    ] {
        std::fs::write(&path, text).unwrap();
        let e = Config::load(Some(&path), env(&[]), &Overrides::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "invalid configuration: {shown}: unknown key `{key}` in {section}; its keys \
                     are "
            )),
            "{e}"
        );
    }
    std::fs::write(&path, "[limits]\nmax_pile = 10\n").unwrap();
    let e = Config::load(Some(&path), env(&[]), &Overrides::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_piles,"), "{e}");
    for (var, key, section) in [
        ("STONEGAME_LIMITS__MAX_PILE", "max_pile", "section [limits]"),
        ("STONEGAME_LIMITZ__X", "limitz", "the top level"),
        ("stonegame_Play__Token_Keys", "token_keys", "section [play]"),
        ("STONEGAME_LISTN", "listn", "the top level"),
    ] {
        let e = Config::load(None, env(&[(var, "1")]), &Overrides::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "invalid configuration: environment variable {var}: unknown key `{key}` in \
                     {section}; its keys are "
            )),
            "{e}"
        );
    }
    let e = Config::load(
        None,
        env(&[("STONEGAME_LISTEN__PORT", "1")]),
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("STONEGAME_LISTEN__PORT") && e.contains("`listen` is a value, not a section"),
        "{e}"
    );
    // Variables without the prefix are not ours.
    Config::load(None, env(&[("STONEGAMES_X", "1")]), &Overrides::default()).unwrap();
}

#[test]
fn invalid_log_filters_are_refused_naming_the_key() {
    let e = Config::load(
        None,
        env(&[("STONEGAME_LOG__FILTER", "info,stonegame=loud")]),
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "invalid configuration: log.filter `info,stonegame=loud` is not a valid filter: "
        ),
        "{e}"
    );
    let c = Config::load(
        None,
        env(&[("STONEGAME_LOG__FILTER", "stonegame=debug,warn")]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.log.filter, "stonegame=debug,warn");
}

#[test]
fn zero_limits_are_errors() {
    // Every limit, from the environment and from a file; the error names
    // the key. (max_piles_in_flight = 0 once refused every request.)
    let keys = [
        "max_piles",
        "max_cases_per_batch",
        "max_message_bytes",
        "max_concurrent_rpcs",
        "max_batches_in_flight_per_stream",
        "max_cells_in_flight",
        "max_piles_in_flight",
        "max_table_piles",
        "max_chunk_rows",
        "max_check_bytes",
        "max_generate_cases",
        "max_generate_piles",
        "max_play_sessions",
        "max_play_sessions_per_client",
        "max_rpcs_per_client",
        "play_max_illegal_moves",
        "play_move_timeout_ms",
    ];
    let dir = tempfile::tempdir().unwrap();
    for key in keys {
        let var = format!("STONEGAME_LIMITS__{}", key.to_uppercase());
        let e = Config::load(None, env(&[(&var, "0")]), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains(key), "{key}: {e}");
        assert!(e.to_string().contains("nonzero"), "{key}: {e}");
        let path = dir.path().join(format!("{key}.toml"));
        std::fs::write(&path, format!("[limits]\n{key} = 0\n")).unwrap();
        let e = Config::load(Some(&path), env(&[]), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains(key), "{key}: {e}");
        // 1 is fine.
        Config::load(None, env(&[(&var, "1")]), &Overrides::default()).unwrap();
    }
    // Zero is still allowed where it means something.
    let c = Config::load(
        None,
        env(&[
            ("STONEGAME_WORKERS", "0"),
            ("STONEGAME_INLINE_MAX_CELLS", "0"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!((c.workers, c.inline_max_cells), (0, 0));
}
