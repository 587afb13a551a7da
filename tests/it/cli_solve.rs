//! `stonegame solve` and `stonegame suggest` as a user runs them: the real
//! binary, real files and pipes, exit codes and messages.

use crate::common;

use std::process::Output;

fn stonegame(args: &[&str], stdin: &[u8]) -> Output {
    common::run_binary(args, stdin)
}

fn solve(input: &str) -> (i32, String, String) {
    let out = stonegame(&["solve"], input.as_bytes());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn sample_from_stdin_and_file() {
    assert_eq!(solve("1\n4\n3 1 9 4\n"), (0, "0\n".into(), String::new()));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.txt");
    std::fs::write(&path, "2\n4\n3 1 9 4\n1\n5\n").unwrap();
    let out = stonegame(&["solve", path.to_str().unwrap()], b"");
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0\n1\n");
}

#[test]
fn any_whitespace_is_fine() {
    let input = "3\r\n4\t3 1\r\n 9\n\n4\r\n2\n1 1 \t\n\n1\n 7";
    assert_eq!(solve(input), (0, "0\n0\n1\n".into(), String::new()));
}

#[test]
fn leftmost_variant() {
    let out = stonegame(
        &["solve", "--variant", "leftmost"],
        b"3\n2\n1 1\n2\n1 5\n3\n1 1 1\n",
    );
    assert!(out.status.success());
    // (1 1): forced, second player takes the last → first loses.
    // (1 5): forced 1, then opponent faces (5) and wins → first loses.
    // (1 1 1): three forced moves → first wins.
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0\n0\n1\n");
}

/// Malformed input: the verdicts before the error are printed, then a message
/// naming the case, line and column, exit code 1.
#[test]
fn malformed_inputs() {
    let cases: &[(&str, &str, &[&str])] = &[
        // (input, verdicts printed before the error, words the message must hold)
        (
            "",
            "",
            &["line 1, column 1", "number of cases T", "end of input"],
        ),
        ("x\n", "", &["line 1, column 1", "`x`", "not a number"]),
        ("0\n", "", &["T is 0"]),
        (
            "2\n2\n1 1\n",
            "0\n",
            &[
                "case 2",
                "line 4",
                "end of input",
                "number of piles n of case 2 of 2",
            ],
        ),
        (
            "2\n2\n1 1\n3\n1 2\n",
            "0\n",
            &["case 2", "line 6, column 1", "end of input", "pile 3 of 3"],
        ),
        (
            "1\n2\n1 1 5\n",
            "0\n",
            &["line 3, column 5", "`5`", "after the last of the 1 cases"],
        ),
        (
            "2\n1\n5\n2\n3 abc\n",
            "1\n",
            &["case 2", "line 5, column 3", "`abc`", "not a number"],
        ),
        (
            "2\n1\n5\n2\n3 0\n",
            "1\n",
            &["case 2", "line 5, column 3", "pile 2 is 0"],
        ),
        (
            "1\n2\n3 -4\n",
            "",
            &["case 1", "line 3, column 3", "`-4`", "negative"],
        ),
        (
            "1\n2\n3 9223372036854775808\n",
            "",
            &[
                "case 1",
                "line 3, column 3",
                "larger than 9223372036854775807",
            ],
        ),
        (
            "1\n2\n3 99999999999999999999999\n",
            "",
            &["case 1", "larger than"],
        ),
        ("1\n0\n", "", &["case 1", "line 2, column 1", "n = 0"]),
        (
            "1\n200001\n1\n",
            "",
            &[
                "case 1",
                "line 2, column 1",
                "200001 piles",
                "limit of 200000",
            ],
        ),
        (
            "3\n1\n1\n2\n1 1\n",
            "1\n0\n",
            &["case 3", "end of input", "case 3 of 3"],
        ),
    ];
    for (input, printed, words) in cases {
        let (code, out, err) = solve(input);
        assert_eq!(code, 1, "exit code for {input:?}; stderr {err}");
        assert_eq!(&out, printed, "verdicts before the error for {input:?}");
        for w in *words {
            assert!(err.contains(w), "message for {input:?} lacks {w:?}: {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn missing_file_is_a_clear_error() {
    let out = stonegame(&["solve", "/nonexistent/stonegame-input.txt"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "stonegame: error: cannot read `/nonexistent/stonegame-input.txt`: No such file or \
         directory (os error 2)\n"
    );
}

/// A directory (or a file that cannot be read) is named as such: no line
/// and column of an input that was never read.
#[test]
fn a_directory_is_named_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let name = dir.path().to_str().unwrap();
    for args in [
        vec!["solve", name],
        vec!["suggest", "--file", name],
        vec!["client", "solve", "--server", "http://127.0.0.1:1", name],
    ] {
        let out = stonegame(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err,
            format!("stonegame: error: cannot read `{name}`: Is a directory\n"),
            "{args:?}"
        );
    }
    let out = stonegame(&["suggest", "--file", "/nonexistent/row.txt"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("stonegame: error: cannot read `/nonexistent/row.txt`: No such file"),
        "{err}"
    );
}

#[test]
fn many_cases_stream_in_order() {
    // 20,000 two-pile cases: lost exactly when the piles are equal.
    let mut input = String::from("20000\n");
    let mut want = String::new();
    for i in 0..20_000u64 {
        let (a, b) = (i % 7 + 1, i % 5 + 1);
        input.push_str(&format!("2\n{a} {b}\n"));
        want.push_str(if a == b { "0\n" } else { "1\n" });
    }
    let (code, out, err) = solve(&input);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(out, want);
}

#[test]
fn suggest_prints_verdict_and_moves() {
    // Without the remoteness, the lost side's move is the prolonging one.
    let out = stonegame(
        &["suggest", "--remoteness", "never", "3", "1", "9", "4"],
        b"",
    );
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("verdict: 0"), "{text}");
    assert!(
        text.contains(
            "bot move: take 1 from the right pile, leaving 3 (no move wins; the bot prolongs \
             the game)"
        ),
        "{text}"
    );

    let out = stonegame(&["suggest", "1", "2"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("verdict: 1"), "{text}");
    // (1, 2): leave equal piles: right pile 2 -> 1 (left pile 1 -> 2 impossible).
    assert!(
        text.contains("winning move: take 1 from the right pile, leaving 1"),
        "{text}"
    );

    let out = stonegame(&["suggest", "--variant", "leftmost", "3", "1"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("winning move: take 2 from the left pile, leaving 1"),
        "{text}"
    );
}

/// With two winning moves of different lengths, `suggest` names the
/// faster as the bot's move (the game tree's shortest win).
#[test]
fn suggest_names_the_fastest_win() {
    use stonegame::core::Variant;
    use stonegame::core::remoteness::ExhaustiveRemoteness;
    let mut truth = ExhaustiveRemoteness::new(Variant::TwoEnds);
    let mut checked = 0;
    for row in [
        vec![1u64, 5, 5],
        vec![3, 3, 1],
        vec![2, 4, 4],
        vec![4, 4, 1],
        vec![1, 2, 3, 4],
    ] {
        let wins: Vec<u32> = truth
            .children(&row)
            .into_iter()
            .map(|(_, r)| r)
            .filter(|r| r % 2 == 0)
            .collect();
        if wins.len() < 2 || wins.iter().min() == wins.iter().max() {
            continue;
        }
        let fastest = wins.iter().min().unwrap();
        let args: Vec<String> = row.iter().map(u64::to_string).collect();
        let mut argv = vec!["suggest"];
        argv.extend(args.iter().map(String::as_str));
        let out = stonegame(&argv, b"");
        let text = String::from_utf8(out.stdout).unwrap();
        let bot = text
            .lines()
            .find(|l| l.starts_with("bot move: "))
            .unwrap_or_else(|| panic!("{row:?}: {text}"));
        let line = text
            .lines()
            .find(|l| {
                l.starts_with("winning move: ")
                    && l.contains(&format!("(remoteness after it: {fastest} plies)"))
            })
            .unwrap_or_else(|| panic!("{row:?}: {text}"));
        let chosen = bot
            .trim_start_matches("bot move: ")
            .split(" (")
            .next()
            .unwrap();
        assert!(line.contains(chosen), "{row:?}: {text}");
        assert!(bot.ends_with("(the fastest win)"), "{bot}");
        checked += 1;
    }
    assert!(
        checked > 0,
        "no row with two winning moves of different lengths"
    );
}

#[test]
fn suggest_prints_the_remoteness() {
    use stonegame::core::Variant;
    use stonegame::core::remoteness::ExhaustiveRemoteness;
    let out = stonegame(&["suggest", "1", "2"], b"");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "variant: two-ends\npiles: 2\nverdict: 1 (the player to move wins)\n\
         remoteness: the player to move wins in 3 plies\n\
         winning move: take 1 from the right pile, leaving 1 (remoteness after it: 2 plies)\n"
    );
    // A lost position: how long the loser holds out, and the bot's move,
    // one that resists longest.
    let mut truth = ExhaustiveRemoteness::new(Variant::TwoEnds);
    let lost = truth.remoteness(&[3, 1, 9, 4]);
    let after = truth
        .children(&[3, 1, 9, 4])
        .into_iter()
        .map(|(_, r)| r)
        .max()
        .unwrap();
    assert_eq!(lost, after + 1);
    let out = stonegame(&["suggest", "3", "1", "9", "4"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "remoteness: the player to move loses in {lost} plies\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "(no move wins; the bot resists longest; remoteness after it: {after} plies)"
        )),
        "{text}"
    );
    // Leftmost, every winning move with its remoteness.
    let out = stonegame(&["suggest", "--variant", "leftmost", "3", "1"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("the player to move wins in 3 plies"),
        "{text}"
    );
    assert!(
        text.contains(
            "winning move: take 2 from the left pile, leaving 1 (remoteness after it: 2 plies)"
        ),
        "{text}"
    );
    // Never, and auto on a two-ends row too long for it.
    let out = stonegame(&["suggest", "--remoteness", "never", "1", "2"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("remoteness"), "{text}");
    let many: Vec<String> = std::iter::once("suggest".to_string())
        .chain((0..20_001).map(|i| (i % 7 + 1).to_string()))
        .collect();
    let args: Vec<&str> = many.iter().map(String::as_str).collect();
    let out = stonegame(&args, b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("remoteness: not computed for a two-ends row of more than 20000 piles"),
        "{text}"
    );
    assert!(!text.contains("after it"), "{text}");
}

#[test]
fn solve_prints_the_remoteness_when_asked() {
    use stonegame::core::Variant;
    use stonegame::core::exhaustive::all_rows;
    use stonegame::core::remoteness::ExhaustiveRemoteness;
    for (flag, variant) in [
        ("two-ends", Variant::TwoEnds),
        ("leftmost", Variant::Leftmost),
    ] {
        let rows = all_rows(4, 3);
        let mut input = format!("{}\n", rows.len());
        let (mut plain, mut with) = (String::new(), String::new());
        let mut truth = ExhaustiveRemoteness::new(variant);
        for row in &rows {
            let text: Vec<String> = row.iter().map(u64::to_string).collect();
            input.push_str(&format!("{}\n{}\n", row.len(), text.join(" ")));
            let r = truth.remoteness(row);
            plain.push_str(&format!("{}\n", r % 2));
            with.push_str(&format!("{} {r}\n", r % 2));
        }
        let out = stonegame(
            &["solve", "--variant", flag, "--remoteness"],
            input.as_bytes(),
        );
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8(out.stdout).unwrap(), with, "{flag}");
        // Without the flag, the OJ output is unchanged.
        let out = stonegame(&["solve", "--variant", flag], input.as_bytes());
        assert_eq!(String::from_utf8(out.stdout).unwrap(), plain, "{flag}");
    }
    // Past 2^64 − 1, exactly.
    let a = 9223372036854775807u64;
    let row = [a, a - 1, a - 2, a - 3, a - 4, a];
    let want = stonegame::core::remoteness::remoteness(
        &stonegame::core::ValidRow::new(&row[..], 10).unwrap(),
        Variant::TwoEnds,
    );
    let input = format!("1\n6\n{a} {} {} {} {} {a}\n", a - 1, a - 2, a - 3, a - 4);
    let out = stonegame(&["solve", "--remoteness"], input.as_bytes());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{} {want}\n", want % 2)
    );
}

#[test]
fn suggest_rejects_bad_piles_by_index() {
    for (args, words) in [
        (vec!["suggest", "3", "0"], "pile 2 is 0"),
        (
            vec!["suggest", "3", "x"],
            "pile 2 is `x`, which is not a number",
        ),
        (vec!["suggest", "-3"], "pile 1 is `-3`, which is negative"),
        (
            vec!["suggest", "1", "9223372036854775808"],
            "pile 2 is 9223372036854775808, larger than",
        ),
    ] {
        let out = stonegame(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(words), "{args:?}: {err}");
    }
}

#[test]
fn bench_prints_remoteness_beside_the_verdict() {
    let out = stonegame(&["bench", "--remoteness", "--quick"], b"");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| 300 |") || l.starts_with("| 1000 |"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in rows {
        // n, verdict, remoteness, ratio, the remoteness itself, pieces.
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let plies: u128 = cells[5].parse().expect("a remoteness");
        assert!(plies > 0, "{row}");
        assert!(
            cells[2].ends_with(" ms") && cells[3].ends_with(" s"),
            "{row}"
        );
    }
}

/// `suggest -` reads the row from standard input and `suggest --file PATH`
/// from a file: the same output as the arguments, the same messages
/// naming the bad pile, and a row of 200,000 piles.
#[test]
fn suggest_reads_the_row_from_stdin_or_a_file() {
    let text = |out: Output| {
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("row.txt");
    let file = path.to_str().unwrap();
    for (args, input) in [
        (vec!["3", "1", "9", "4"], "3 1\r\n9\t4\n"),
        (vec!["1", "5", "5"], "  1\n5\n\n5"),
        (vec!["--variant", "leftmost", "3", "1"], "3 1"),
    ] {
        let mut argv = vec!["suggest"];
        argv.extend(&args);
        let want = text(stonegame(&argv, b""));
        assert_eq!(want.0, Some(0), "{want:?}");
        let (flags, piles) = args.split_at(args.len() - input.split_whitespace().count());
        assert!(!piles.is_empty());
        let mut dash = vec!["suggest"];
        dash.extend(flags);
        dash.push("-");
        assert_eq!(text(stonegame(&dash, input.as_bytes())), want, "{dash:?}");
        std::fs::write(&path, input).unwrap();
        let mut from_file = vec!["suggest"];
        from_file.extend(flags);
        from_file.extend(["--file", file]);
        assert_eq!(text(stonegame(&from_file, b"")), want, "{from_file:?}");
    }
    // Bad piles, named by index as on the command line.
    for (input, message) in [
        ("3 0", "pile 2 is 0: every pile needs at least 1 stone"),
        ("1\n2 -3", "pile 3 is `-3`, which is negative"),
        ("1 x", "pile 2 is `x`, which is not a number"),
        (
            "1 9223372036854775808",
            "pile 2 is 9223372036854775808, larger than the maximum of 9223372036854775807 (2^63-1)",
        ),
        ("  \n", "the row is empty: a case needs at least one pile"),
    ] {
        let want = (
            Some(1),
            String::new(),
            format!("stonegame: error: {message}\n"),
        );
        assert_eq!(
            text(stonegame(&["suggest", "-"], input.as_bytes())),
            want,
            "{input:?}"
        );
        std::fs::write(&path, input).unwrap();
        assert_eq!(
            text(stonegame(&["suggest", "--file", file], b"")),
            want,
            "{input:?}"
        );
    }
    // `-` is the whole row, and --file takes no PILE.
    let (code, _, err) = text(stonegame(&["suggest", "1", "-"], b"1"));
    assert_eq!(code, Some(1));
    assert!(err.contains("must be the only PILE"), "{err}");
    let (code, _, _) = text(stonegame(&["suggest", "--file", file, "1"], b""));
    assert_eq!(code, Some(2));
    // 200,000 piles (past the argument list's limits) and one too many.
    let max = stonegame::core::MAX_PILES;
    let row: Vec<String> = (0..max).map(|i| ((i % 7) + 1).to_string()).collect();
    std::fs::write(&path, row.join(" ")).unwrap();
    let (code, out, err) = text(stonegame(&["suggest", "--file", file], b""));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&format!("piles: {max}\n")), "{out}");
    assert!(out.contains("remoteness: not computed"), "{out}");
    let (code, out, err) = text(stonegame(
        &["suggest", "-"],
        format!("{} 1", row.join("\n")).as_bytes(),
    ));
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        err,
        format!(
            "stonegame: error: the row has {} piles, more than the limit of {max}\n",
            max + 1
        )
    );
}

/// One ply is "1 ply": the remoteness of one pile, and every message
/// that counts plies.
#[test]
fn one_ply_is_singular() {
    let out = stonegame(&["suggest", "5"], b"");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "variant: two-ends\n\
         piles: 1\n\
         verdict: 1 (the player to move wins)\n\
         remoteness: the player to move wins in 1 ply\n\
         winning move: take all 5 from the left pile (remoteness after it: 0 plies)\n"
    );
    // Every move of (1 1) leaves (1), one ply from the end.
    let out = stonegame(&["suggest", "1", "1"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("remoteness after it: 1 ply)"), "{text}");
    assert!(!text.contains("1 plies"), "{text}");
}
