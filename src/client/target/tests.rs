//! Unit tests of `target`, in their own file beside it.

use super::*;

fn dns(host: &str, port: u16) -> Source {
    Source::Dns {
        host: host.into(),
        port,
    }
}

#[test]
fn the_three_forms() {
    assert_eq!(
        Target::parse("http://127.0.0.1:50051"),
        Ok(Target::Single("http://127.0.0.1:50051".into()))
    );
    // A bare HOST:PORT gets http://, as before; a trailing slash goes.
    assert_eq!(
        Target::parse("localhost:7"),
        Ok(Target::Single("http://localhost:7".into()))
    );
    assert_eq!(
        Target::parse(" HTTP://[::1]:9/ "),
        Ok(Target::Single("http://[::1]:9".into()))
    );
    assert_eq!(
        Target::parse("dns:///stonegame-headless.ns.svc.cluster.local:50051"),
        Ok(Target::Balanced(vec![dns(
            "stonegame-headless.ns.svc.cluster.local",
            50051
        )]))
    );
    assert_eq!(
        Target::parse("dns:///[::1]:50051"),
        Ok(Target::Balanced(vec![dns("::1", 50051)]))
    );
    let list =
        Target::parse("http://127.0.0.1:7001, 127.0.0.1:7002,dns:///localhost:7003").unwrap();
    assert_eq!(
        list,
        Target::Balanced(vec![
            Source::Url("http://127.0.0.1:7001".into()),
            Source::Url("http://127.0.0.1:7002".into()),
            dns("localhost", 7003),
        ])
    );
    assert!(list.is_balanced() && list.has_dns());
    assert_eq!(
        list.to_string(),
        "http://127.0.0.1:7001,http://127.0.0.1:7002,dns:///localhost:7003"
    );
    assert_eq!(dns("::1", 5).to_string(), "dns:///[::1]:5");
}

#[test]
fn malformed_values_say_which_part_and_why() {
    let cases: &[(&str, Option<usize>, &str)] = &[
        ("", None, "it is empty"),
        ("  ", None, "it is empty"),
        ("dns:///", None, "the host and port are missing"),
        (
            "dns:///host",
            None,
            "the port is missing (dns:///host:PORT)",
        ),
        ("dns:///:50051", None, "the host is missing"),
        (
            "dns:///host:0",
            None,
            "the port \"0\" is not a number from 1 to 65535",
        ),
        ("dns:///host:99999", None, "is not a number from 1 to 65535"),
        (
            "dns:///host:http",
            None,
            "the port \"http\" is not a number",
        ),
        (
            "dns://8.8.8.8/host:53",
            None,
            "dns://8.8.8.8/ names a DNS server",
        ),
        ("dns:host:1", None, "three slashes"),
        ("dns:///[::1:5", None, "is not closed"),
        ("dns:///a b:5", None, "the host \"a b\" is malformed"),
        ("https://h:1/x", None, "no path or query"),
        ("ftp://h:1", None, "the scheme ftp:// is not supported"),
        ("http://h:x", None, "the port \"x\" is not a number"),
        ("http://h:70000", None, "not a number from 1 to 65535"),
        ("http://:5", None, "the host is missing"),
        ("http://h:1/stonegame", None, "no path or query"),
        ("http://u@h:1", None, "user information"),
        ("http://a:1,", Some(2), "it is empty (a stray comma?)"),
        ("http://a:1,,http://b:2", Some(2), "it is empty"),
        (
            "http://a:1,http://b:x",
            Some(2),
            "the port \"x\" is not a number",
        ),
        ("http://a:1,a:1", Some(2), "it repeats entry 1"),
        ("http://a:1,dns:///b", Some(2), "the port is missing"),
    ];
    for &(input, entry, want) in cases {
        let e = Target::parse(input).expect_err(input);
        assert_eq!(e.input, input);
        assert_eq!(e.entry.as_ref().map(|(i, _)| *i), entry, "{input}: {e}");
        let message = e.to_string();
        assert!(message.contains(want), "{input}: {message}");
        assert!(
            message.starts_with(&format!("invalid server address {input:?}: ")),
            "{message}"
        );
    }
    let e = Target::parse("http://a:1,http://b:x").unwrap_err();
    assert!(
        e.to_string().starts_with(
            "invalid server address \"http://a:1,http://b:x\": entry 2 (\"http://b:x\"): "
        ),
        "{e}"
    );
}
