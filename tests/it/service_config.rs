//! The configuration as `stonegame serve` reads it (issue #22): a
//! `play.token_key` of digits is the same key from the environment as from
//! a TOML file; an unknown key names its section and its source; an
//! invalid `log.filter` (or `RUST_LOG`) and a `listen` address in use stop
//! the server with a message naming the key; a deprecated `*_ms` key is a
//! warning at start-up.

use crate::common;

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use stonegame::service::start;

/// Runs `stonegame serve ARGS` with `env`, which must fail at start-up:
/// its stderr (killed after a minute if it serves instead).
fn start_up_error(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut child = common::serve_command(args, env).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("serve did not stop: {}", reader.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stderr = reader.join().unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(!stderr.contains("listening on"), "{stderr}");
    stderr
}

/// The lines `stonegame serve ARGS` with `env` logs at start-up (at
/// `info`), up to `listening on`; then it is stopped.
fn start_up_log(args: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let mut env = env.to_vec();
    env.push(("STONEGAME_LOG__FILTER", "info"));
    let mut child = common::serve_command(args, &env).spawn().unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        let listening = line.starts_with("listening on ");
        seen.push(line);
        if listening {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    seen
}

/// The id of the Play token key a `stonegame serve` with `args` and `env`
/// logs at start-up (`key_id=…`), read before `listening on`.
fn token_key_id(args: &[&str], env: &[(&str, &str)]) -> String {
    let seen = start_up_log(args, env);
    seen.iter()
        .find_map(|line| {
            Some(
                line.split_once("key_id=")?
                    .1
                    .split_whitespace()
                    .next()?
                    .to_string(),
            )
        })
        .unwrap_or_else(|| panic!("no key_id logged: {seen:?}"))
}

const QUIET: [&str; 4] = ["--listen", "127.0.0.1:0", "--metrics-listen", ""];

/// The key of digits only: from the environment it was a number (its
/// leading zeros lost, or a float past 2^63), from TOML a string.
#[test]
fn a_token_key_of_digits_is_the_same_key_from_the_environment_and_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for key in [
        "00012345678901234567890123456789",
        "1234567890123456789012345678901234567890",
    ] {
        let path = dir.path().join("c.toml");
        std::fs::write(&path, format!("[play]\ntoken_key = \"{key}\"\n")).unwrap();
        let mut args = QUIET.to_vec();
        let from_env = token_key_id(&args, &[("STONEGAME_PLAY__TOKEN_KEY", key)]);
        args.extend(["--config", path.to_str().unwrap()]);
        let from_file = token_key_id(&args, &[]);
        assert_eq!(from_env, from_file, "{key}");
        // And another key gives another id (the id is the key's).
        let other = token_key_id(
            &QUIET,
            &[("STONEGAME_PLAY__TOKEN_KEY", &key.replace('1', "2"))],
        );
        assert_ne!(from_env, other);
    }
}

#[test]
fn unknown_keys_name_their_section_and_source() {
    let e = start_up_error(&QUIET, &[("STONEGAME_LIMITS__MAX_PILE", "10")]);
    assert!(
        e.contains(
            "invalid configuration: environment variable STONEGAME_LIMITS__MAX_PILE: unknown key \
             `max_pile` in section [limits]; its keys are "
        ),
        "{e}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.toml");
    std::fs::write(&path, "[transport]\ntcp_no_delay = true\n").unwrap();
    let mut args = QUIET.to_vec();
    args.extend(["--config", path.to_str().unwrap()]);
    let e = start_up_error(&args, &[]);
    assert!(
        e.contains(&format!(
            "invalid configuration: {}: unknown key `tcp_no_delay` in section [transport]; its \
             keys are ",
            path.display()
        )),
        "{e}"
    );
    assert!(e.contains("tcp_nodelay"), "{e}");
}

#[test]
fn invalid_log_filters_are_start_up_errors() {
    let e = start_up_error(&QUIET, &[("STONEGAME_LOG__FILTER", "info,stonegame=loud")]);
    assert!(
        e.contains("invalid configuration: log.filter `info,stonegame=loud` is not a valid filter"),
        "{e}"
    );
    let e = start_up_error(&QUIET, &[("RUST_LOG", "stonegame=verbose")]);
    assert!(
        e.contains("RUST_LOG: `stonegame=verbose` is not a valid filter"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_address_in_use_names_the_listen_key() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let e = start(&common::config(|c| c.listen = addr.clone()))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("cannot listen on {addr}: ")), "{e}");
    assert!(e.contains("set listen (STONEGAME_LISTEN, --listen)"), "{e}");
    let e = start(&common::config(|c| c.listen = "nowhere".into()))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("listen address `nowhere`") && e.contains("set listen (STONEGAME_LISTEN"),
        "{e}"
    );
    let e = start_up_error(&["--listen", &addr, "--metrics-listen", ""], &[]);
    assert!(
        e.contains(&format!("cannot listen on {addr}: ")) && e.contains("set listen"),
        "{e}"
    );
}

/// A key that was milliseconds before durations were durations still
/// applies, and the server says at start-up what to write instead;
/// `--print-config` shows the duration it became.
#[test]
fn deprecated_ms_keys_apply_with_a_warning_at_start_up() {
    let env = [("STONEGAME_SHUTDOWN_GRACE_MS", "1500")];
    let seen = start_up_log(&QUIET, &env);
    let warning = seen
        .iter()
        .find(|line| line.contains("WARN") && line.contains("STONEGAME_SHUTDOWN_GRACE_MS"))
        .unwrap_or_else(|| panic!("no deprecation warning: {seen:?}"));
    assert!(
        warning.contains("deprecated") && warning.contains("write STONEGAME_SHUTDOWN_GRACE as"),
        "{warning}"
    );
    let mut args = QUIET.to_vec();
    args.push("--print-config");
    let out = common::serve_command(&args, &env)
        .stdout(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("shutdown_grace: 1.5s"), "{printed}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: environment variable STONEGAME_SHUTDOWN_GRACE_MS"),
        "{stderr}"
    );
}
