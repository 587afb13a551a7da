//! Unit tests of `config`, in their own file beside it.

use super::*;
use crate::service::config::LogFormat;

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
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:9090"));
    assert_eq!(c.max_connection_age, Duration::ZERO);
    assert_eq!(c.max_connection_age_grace, Duration::ZERO);
    assert_eq!(c.shutdown_grace, Duration::from_secs(10));
    assert_eq!(c.limits.play_move_timeout, Duration::from_secs(300));
    assert_eq!(c.transport.http2_keepalive_timeout, Duration::from_secs(20));
    assert_eq!(c.tls.reload_interval, Duration::from_secs(5));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

/// The default cell budget admits the remoteness of the largest row the
/// default `max_piles` lets in (SuggestMove or a Solve case with
/// `want_remoteness`), alone.
#[test]
fn the_default_budget_holds_the_remoteness_of_the_largest_row() {
    let c = Config::defaults().unwrap();
    let largest = crate::service::config::costs::max_remoteness_piles(
        c.limits.max_cells_in_flight.get(),
        c.limits.remoteness_cell_factor.get(),
    );
    assert!(largest >= c.limits.max_piles.get() as u64, "{largest}");
}

#[test]
fn metrics_and_connection_age_from_every_layer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(
        &path,
        "max_connection_age = \"1m\"\n[metrics]\nlisten = \"0.0.0.0:9090\"\n",
    )
    .unwrap();
    let c = Config::load(Some(&path), env(&[]), &Overrides::default()).unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("0.0.0.0:9090"));
    assert_eq!(c.max_connection_age, Duration::from_secs(60));
    let c = Config::load(
        Some(&path),
        env(&[
            ("STONEGAME_METRICS__LISTEN", "127.0.0.1:9100"),
            ("STONEGAME_MAX_CONNECTION_AGE", "5s"),
            ("STONEGAME_MAX_CONNECTION_AGE_GRACE", "700ms"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:9100"));
    assert_eq!(c.max_connection_age, Duration::from_secs(5));
    assert_eq!(c.max_connection_age_grace, Duration::from_millis(700));
    // Empty turns the listener off, from the environment too.
    let c = Config::load(
        None,
        env(&[("STONEGAME_METRICS__LISTEN", "")]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.metrics.listen, None);
    let c = Config::load(
        None,
        env(&[("STONEGAME_METRICS__LISTEN", "127.0.0.1:9100")]),
        &Overrides {
            metrics_listen: Some("127.0.0.1:0".into()),
            ..Overrides::default()
        },
    )
    .unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:0"));
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
    assert_eq!(c.play.token_key, None);
    let key = "0123456789abcdef0123456789abcdef";
    let c = Config::load(
        None,
        env(&[
            ("STONEGAME_PLAY__TOKEN_KEY", key),
            ("STONEGAME_LIMITS__MAX_PLAY_SESSIONS", "3"),
            ("STONEGAME_LIMITS__PLAY_MOVE_TIMEOUT", "250ms"),
        ]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(c.play.token_key.as_deref(), Some(key));
    assert_eq!(c.limits.max_play_sessions.get(), 3);
    assert_eq!(c.limits.play_move_timeout_ms(), 250);
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
    assert_eq!(c.auth.tokens_file, None);
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
    assert_eq!(c.tls.client_ca_file, Some("/ca.pem".into()));
    assert_eq!(c.auth.tokens_file, Some("/t".into()));
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
            &[("STONEGAME_AUTH__RELOAD_INTERVAL", "99ms")][..],
            "auth.reload_interval",
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
        assert_eq!(from_env.play.token_key.as_deref(), Some(key));
        assert_eq!(from_file.play.token_key, from_env.play.token_key);
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
        "remoteness_cell_factor",
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
        // 1 is fine (a budget of 1 cell holds no remoteness: without it).
        let off = ("STONEGAME_LIMITS__ANALYSIS_REMOTENESS_MAX_PILES", "0");
        Config::load(None, env(&[(&var, "1"), off]), &Overrides::default()).unwrap();
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

/// Loads `toml` as a file over the defaults, with `vars`.
fn load_file(toml: &str, vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, toml).unwrap();
    Config::load(Some(&path), env(vars), &Overrides::default())
}

#[test]
fn durations_are_written_with_their_unit() {
    let c = load_file(
        "shutdown_grace = \"1m 30s\"\n[transport]\nrequest_timeout = \"250ms\"\n",
        &[("STONEGAME_TRANSPORT__TCP_KEEPALIVE", "2h")],
    )
    .unwrap();
    assert_eq!(c.shutdown_grace, Duration::from_secs(90));
    assert_eq!(c.transport.request_timeout, Duration::from_millis(250));
    assert_eq!(c.transport.tcp_keepalive, Duration::from_secs(7200));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    // A number without its unit, a TOML integer, and zero where zero
    // would break the server: each refused, naming the key.
    for (toml, vars, key) in [
        (
            "",
            &[("STONEGAME_SHUTDOWN_GRACE", "10")][..],
            "shutdown_grace",
        ),
        ("shutdown_grace = 10\n", &[][..], "shutdown_grace"),
        (
            "",
            &[("STONEGAME_LIMITS__PLAY_MOVE_TIMEOUT", "0s")][..],
            "play_move_timeout",
        ),
        (
            "[transport]\nhttp2_keepalive_timeout = \"0s\"\n",
            &[][..],
            "http2_keepalive_timeout",
        ),
        (
            "[limits]\nplay_move_timeout = \"50days\"\n",
            &[][..],
            "play_move_timeout",
        ),
        (
            "",
            &[("STONEGAME_TLS__RELOAD_INTERVAL", "10ms")][..],
            "reload_interval",
        ),
    ] {
        let e = load_file(toml, vars).unwrap_err().to_string();
        assert!(e.contains(key), "{toml} {vars:?}: {e}");
    }
    let e = load_file("[limits]\nplay_move_timeout = \"0s\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 0"), "{e}");
}

/// Every key that was milliseconds still reads, from a file (nested
/// tables) and from the environment (dotted keys), as the same
/// configuration as its new key, with a warning naming both.
#[test]
fn deprecated_ms_keys_still_work_with_a_warning() {
    for old in deprecated::MS_KEYS {
        let new = deprecated::replacement(old).unwrap();
        let var = |key: &str| format!("STONEGAME_{}", key.replace('.', "__").to_uppercase());
        let mut expected =
            Config::load(None, env(&[(&var(new), "1234ms")]), &Overrides::default()).unwrap();
        assert!(expected.warnings.is_empty());
        let from_env =
            Config::load(None, env(&[(&var(old), "1234")]), &Overrides::default()).unwrap();
        let (section, leaf) = match old.split_once('.') {
            Some((section, leaf)) => (format!("[{section}]\n"), leaf),
            None => (String::new(), old),
        };
        let from_file = load_file(&format!("{section}{leaf} = 1234\n"), &[]).unwrap();
        for (c, origin, instead) in [
            (&from_env, var(old), var(new)),
            (&from_file, "c.toml".to_string(), format!("`{new}`")),
        ] {
            assert_eq!(c.warnings.len(), 1, "{old}: {:?}", c.warnings);
            let warning = &c.warnings[0];
            assert!(
                warning.contains(&origin) && warning.contains(old) && warning.contains(&instead),
                "{warning}"
            );
        }
        for mut c in [from_env, from_file] {
            c.warnings.clear();
            expected.warnings.clear();
            assert_eq!(c, expected, "{old}");
        }
    }
    // The layers keep their order: the environment's new key beats the
    // file's old one, and the environment's old key the file's new one.
    let c = load_file(
        "shutdown_grace_ms = 2500\n",
        &[("STONEGAME_SHUTDOWN_GRACE", "3s")],
    )
    .unwrap();
    assert_eq!(c.shutdown_grace, Duration::from_secs(3));
    let c = load_file(
        "shutdown_grace = \"3s\"\n",
        &[("STONEGAME_SHUTDOWN_GRACE_MS", "100")],
    )
    .unwrap();
    assert_eq!(c.shutdown_grace, Duration::from_millis(100));
    // Both in one source; an old key that is not milliseconds; an old key
    // whose value breaks the new key's bound: each names the key.
    for (toml, vars, words) in [
        (
            "shutdown_grace_ms = 1\nshutdown_grace = \"1s\"\n",
            &[][..],
            &["given twice", "shutdown_grace_ms", "c.toml"][..],
        ),
        (
            "",
            &[
                ("STONEGAME_TRANSPORT__TCP_KEEPALIVE_MS", "1"),
                ("STONEGAME_TRANSPORT__TCP_KEEPALIVE", "1s"),
            ][..],
            &["given twice", "STONEGAME_TRANSPORT__TCP_KEEPALIVE_MS"][..],
        ),
        (
            "shutdown_grace_ms = \"ten\"\n",
            &[][..],
            &["shutdown_grace_ms", "c.toml", "milliseconds"][..],
        ),
        (
            "",
            &[("STONEGAME_AUTH__RELOAD_INTERVAL_MS", "-5")][..],
            &["auth.reload_interval_ms", "milliseconds"][..],
        ),
        (
            "[limits]\nplay_move_timeout_ms = 0\n",
            &[][..],
            &["play_move_timeout", "more than 0"][..],
        ),
    ] {
        let e = load_file(toml, vars).unwrap_err().to_string();
        for word in words {
            assert!(
                e.contains(word),
                "{toml} {vars:?}: `{word}` missing from {e}"
            );
        }
    }
}

/// The optional settings are unset in the defaults, by an empty value
/// (how a variable or a flag unsets one), and set by a value, from a file
/// and the environment alike.
#[test]
fn optional_settings_are_options() {
    let c = Config::defaults().unwrap();
    assert_eq!(
        (&c.tls.cert_file, &c.tls.key_file, &c.tls.client_ca_file),
        (&None, &None, &None)
    );
    assert_eq!((&c.auth.tokens_file, &c.play.token_key), (&None, &None));
    let unset: Vec<(String, &str)> = keys::OPTIONAL
        .iter()
        .chain(["metrics.listen"].iter())
        .map(|k| {
            (
                format!("STONEGAME_{}", k.replace('.', "__").to_uppercase()),
                "",
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = unset.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let c = Config::load(None, env(&pairs), &Overrides::default()).unwrap();
    assert_eq!(c.metrics.listen, None);
    assert_eq!(c.play.token_key, None);
    assert!(!c.tls.enabled());
    let c = load_file(
        "[tls]\ncert_file = \"/c\"\nkey_file = \"/k\"\nclient_ca_file = \"/ca\"\n\
         [auth]\ntokens_file = \"/t\"\n[play]\ntoken_key = \"0123456789abcdef0123456789abcdef\"\n",
        &[],
    )
    .unwrap();
    assert_eq!(c.tls.cert_file, Some(PathBuf::from("/c")));
    assert_eq!(c.tls.key_file, Some(PathBuf::from("/k")));
    assert_eq!(c.tls.client_ca_file, Some(PathBuf::from("/ca")));
    assert_eq!(c.auth.tokens_file, Some(PathBuf::from("/t")));
    assert!(c.play.token_key.is_some());
    let c = load_file("[tls]\ncert_file = \"\"\nkey_file = \"\"\n", &[]).unwrap();
    assert!(!c.tls.enabled());
}

#[test]
fn the_analysis_remoteness_bound_fits_the_cell_budget() {
    let c = Config::defaults().unwrap();
    assert_eq!(c.limits.analysis_remoteness_max_piles, 4096);
    let key = "STONEGAME_LIMITS__ANALYSIS_REMOTENESS_MAX_PILES";
    let cells = "STONEGAME_LIMITS__MAX_CELLS_IN_FLIGHT";
    // 10^6 cells at a factor of 12: n(n − 1)/2 ≤ 83,333, so n ≤ 408.
    for (bound, fits) in [("408", true), ("409", false), ("1000", false), ("0", true)] {
        let got = Config::load(
            None,
            env(&[(key, bound), (cells, "1000000")]),
            &Overrides::default(),
        );
        match got {
            Ok(c) if fits => {
                assert_eq!(c.limits.analysis_remoteness_max_piles.to_string(), bound);
            }
            Err(e) if !fits => {
                let e = e.to_string();
                assert!(e.contains("limits.analysis_remoteness_max_piles"), "{e}");
                assert!(e.contains("limits.max_cells_in_flight = 1000000"), "{e}");
                assert!(e.contains("at most 408 fits"), "{e}");
            }
            other => panic!("{bound}: {other:?}"),
        }
    }
    // A bound far past any budget is refused, not searched for ever.
    let e = Config::load(
        None,
        env(&[(key, "18446744073709551615")]),
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("at most 208167 fits"), "{e}");
}

/// An ephemeral gRPC port makes the default metrics port ephemeral too;
/// a metrics address set by any layer is kept.
#[test]
fn an_ephemeral_listen_makes_the_default_metrics_port_ephemeral() {
    let zero = Overrides {
        listen: Some("127.0.0.1:0".into()),
        ..Overrides::default()
    };
    let c = Config::load(None, env(&[]), &zero).unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:0"));
    let c = Config::load(
        None,
        env(&[("STONEGAME_LISTEN", "[::1]:0")]),
        &Overrides::default(),
    );
    assert_eq!(c.unwrap().metrics.listen.as_deref(), Some("127.0.0.1:0"));
    // A fixed gRPC port keeps the default.
    let fixed = Overrides {
        listen: Some("127.0.0.1:50052".into()),
        ..Overrides::default()
    };
    let c = Config::load(None, env(&[]), &fixed).unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:9090"));
    // Set by the flag, the environment or the file: kept, even at the default.
    let flag = Overrides {
        metrics_listen: Some("127.0.0.1:9090".into()),
        ..zero.clone()
    };
    let c = Config::load(None, env(&[]), &flag).unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:9090"));
    let c = Config::load(
        None,
        env(&[("STONEGAME_METRICS__LISTEN", "127.0.0.1:9090")]),
        &zero,
    )
    .unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:9090"));
    let c = Config::load(None, env(&[("STONEGAME_METRICS__LISTEN", "")]), &zero).unwrap();
    assert_eq!(c.metrics.listen, None);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.toml");
    std::fs::write(&path, "[metrics]\nlisten = \"127.0.0.1:9090\"\n").unwrap();
    let c = Config::load(Some(&path), env(&[]), &zero).unwrap();
    assert_eq!(c.metrics.listen.as_deref(), Some("127.0.0.1:9090"));
}
