//! `stonegame client suggest` against a real server (`stonegame serve` on
//! 127.0.0.1 port 0): the same bytes as the offline `stonegame suggest`
//! for the same row and `--remoteness`, the row from standard input or a
//! file too, and the server's explanation counting "1 ply".

use crate::common;

/// `stonegame serve` on loopback port 0 (its metrics port too, as port 0
/// alone gives): the URL, and the process, killed when dropped.
fn serve() -> (common::ServeProcess, String) {
    let server = common::ServeProcess::spawn(&[("STONEGAME_LISTEN", "127.0.0.1:0")]);
    let url = format!("http://{}", server.addr);
    (server, url)
}

#[test]
fn the_same_lines_as_offline_suggest() {
    let (_server, url) = serve();
    let rows: &[&[&str]] = &[
        &["5"],
        &["1", "1"],
        &["1", "2"],
        &["3", "1", "9", "4"],
        &["1", "5", "5"],
        &["2", "7", "1", "8", "2", "8"],
        &[
            "9223372036854775807",
            "9223372036854775806",
            "9223372036854775807",
        ],
    ];
    for row in rows {
        for flags in [
            &[][..],
            &["--remoteness", "never"][..],
            &["--remoteness", "always"][..],
            &["--variant", "leftmost"][..],
            &["--variant", "leftmost", "--remoteness", "never"][..],
        ] {
            let mut offline = vec!["suggest"];
            offline.extend(flags);
            offline.extend(*row);
            let mut remote = vec!["client", "suggest", "--server", &url];
            remote.extend(flags);
            remote.extend(*row);
            let want = common::run_cli(&offline, "");
            assert_eq!(want.0, Some(0), "{offline:?}: {want:?}");
            assert_eq!(common::run_cli(&remote, ""), want, "{remote:?}");
        }
    }
    // Past the `auto` limit: not computed, on both sides.
    let many: Vec<String> = (0..20_001).map(|i| (i % 7 + 1).to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("row.txt");
    std::fs::write(&path, many.join(" ")).unwrap();
    let file = path.to_str().unwrap();
    let want = common::run_cli(&["suggest", "--file", file], "");
    assert!(want.1.contains("remoteness: not computed"), "{want:?}");
    assert_eq!(
        common::run_cli(&["client", "suggest", "--server", &url, "--file", file], ""),
        want
    );
    let want = common::run_cli(&["suggest", "-"], "3 1 9 4");
    assert_eq!(
        common::run_cli(&["client", "suggest", "--server", &url, "-"], "3 1 9 4"),
        want
    );
    // Bad rows: the offline messages, before any request.
    for row in ["3 0", "x"] {
        let want = common::run_cli(&["suggest", "-"], row);
        assert_eq!(want.0, Some(1));
        assert_eq!(
            common::run_cli(&["client", "suggest", "--server", &url, "-"], row),
            want
        );
    }
}

/// With `--strength`, the bot's chosen move and the server's explanation
/// follow; a remoteness of one ply is "1 ply" there too.
#[test]
fn the_explanation_counts_one_ply() {
    let (_server, url) = serve();
    let (code, out, err) = common::run_cli(
        &[
            "client",
            "suggest",
            "--server",
            &url,
            "--strength",
            "1",
            "1",
            "1",
        ],
        "",
    );
    assert_eq!(code, Some(0), "{err}");
    let offline = common::run_cli(&["suggest", "1", "1"], "").1;
    assert!(out.starts_with(&offline), "{out}");
    assert_eq!(
        &out[offline.len()..],
        "chosen move: take all 1 from the left pile\n\
         explanation: the position is lost against perfect play; the bot resists longest (the \
         opponent then wins in 1 ply): take all 1 from the left pile\n"
    );
}
