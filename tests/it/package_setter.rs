//! `stonegame package` as a setter ships it (issue 29 §3): the short name
//! held to the package format's rule (refused with the rule, nothing
//! written), credits only as given, a title for each kind, the statement in
//! the order task, input, output, examples with limits like `10^9`, a
//! solution write-up, checkers that count the cases they accepted, the C++
//! generator equal to `stonegame gen` byte for byte, and one direction
//! convention for `testing_tool.py` and the `.interaction` sample. That
//! BAPCtools accepts all of it is `package_bapctools`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use stonegame::core::Variant;
use stonegame::judge::generate::{Family, GenSpec, generate};
use stonegame::package::{PackageSpec, is_short_name};

use super::package_bapctools::{compile, package, play_cpp, run_ok, stonegame, text};

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The six kinds of package: flags and a short name.
const KINDS: [(&[&str], &str); 6] = [
    (&[], "twoends"),
    (&["--variant", "leftmost"], "leftmost"),
    (&["--interactive"], "interactive"),
    (
        &["--interactive", "--variant", "leftmost"],
        "interactiveleftmost",
    ),
    (&["--task", "remoteness"], "remoteness"),
    (&["--interactive", "--tempo"], "interactivetempo"),
];

/// Small limits, so that writing a package is quick.
const SMALL: [&str; 6] = ["--cases", "10", "--max-n", "12", "--max-a", "20"];

#[test]
fn short_names_are_held_to_the_format_rule() {
    // The rule itself: [a-z0-9]{1,255}.
    for ok in ["stonegame", "a", "0", "stones2009", &"z".repeat(255)] {
        assert!(is_short_name(ok), "{ok}");
    }
    for bad in [
        "",
        "Stone-Game",
        "stone-game",
        "stone_game",
        "Stones",
        "stone game",
        "stones.v2",
        "caf\u{e9}",
        &"z".repeat(256),
    ] {
        assert!(!is_short_name(bad), "{bad:?}");
    }
    let root = tempfile::tempdir().unwrap();
    // Refused, with the rule and the name in the message, exit 1, nothing
    // written: by --name, and by DIR's last component.
    let cases: &[(&[&str], Option<&str>, &str)] = &[
        (&["--name", "Stone-Game"], None, "--name \"Stone-Game\""),
        (&["--name", "stone_game"], None, "--name \"stone_game\""),
        (&["--name", ""], None, "--name \"\""),
        (&[], Some("Stone-Game"), "DIR \"Stone-Game\""),
        (&[], Some("stone-game"), "DIR \"stone-game\""),
        (
            &["--task", "remoteness"],
            Some("How.Long"),
            "DIR \"How.Long\"",
        ),
    ];
    for (args, dir, needle) in cases {
        let mut cmd = stonegame();
        cmd.current_dir(root.path()).arg("package").args(*args);
        if let Some(dir) = dir {
            cmd.arg(root.path().join(dir));
        }
        let out = cmd.output().unwrap();
        let msg = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?} {dir:?}: {msg}");
        assert!(msg.starts_with("stonegame: error:"), "{msg}");
        assert!(msg.contains(needle), "`{needle}` not in {msg}");
        assert!(
            msg.contains("[a-z0-9]{1,255}") && msg.contains("lowercase letters a-z and digits 0-9"),
            "the rule is not in {msg}"
        );
        assert_eq!(
            msg.contains("(the problem's title is --title)"),
            dir.is_none(),
            "{msg}"
        );
        assert!(names(root.path()).is_empty(), "{args:?} wrote something");
    }
    // --name alone writes ./NAME; with DIR, DIR must be named NAME.
    run_ok(
        stonegame()
            .current_dir(root.path())
            .args(["package", "--name", "stones"])
            .args(SMALL),
    );
    assert!(root.path().join("stones/problem.yaml").is_file());
    let out = stonegame()
        .args(["package", "--name", "pebbles"])
        .arg(root.path().join("rocks"))
        .output()
        .unwrap();
    let msg = text(&out);
    assert_eq!(out.status.code(), Some(1), "{msg}");
    assert!(msg.contains("not named \"pebbles\""), "{msg}");
    assert_eq!(names(root.path()), ["stones"]);
    run_ok(
        stonegame()
            .args(["package", "--name", "pebbles"])
            .arg(root.path().join("pebbles"))
            .args(SMALL),
    );
    assert_eq!(names(root.path()), ["pebbles", "stones"]);
}

#[test]
fn credits_are_written_as_given_and_omitted_when_missing() {
    let root = tempfile::tempdir().unwrap();
    // None given: none written, nothing made up.
    let bare = root.path().join("bare");
    package(&bare, &SMALL);
    let yaml = read(&bare.join("problem.yaml"));
    for key in [
        "credits:",
        "authors:",
        "source:",
        "rights_owner:",
        "license:",
    ] {
        assert!(
            !yaml.lines().any(|l| l.trim_start().starts_with(key)),
            "{key} written without a flag:\n{yaml}"
        );
    }
    assert!(!yaml.contains("stonegame authors") && !yaml.contains("generated by"));
    // Given: written as given (YAML strings, so any text is safe).
    let full = root.path().join("full");
    let mut args = SMALL.to_vec();
    args.extend([
        "--author",
        "Ada Lovelace <ada@example.org>",
        "--author",
        "Alan \"Bombe\" Turing",
        "--source",
        "NWERC 2026: a test",
        "--rights-owner",
        "The Jury",
        "--license",
        "cc by-sa",
    ]);
    package(&full, &args);
    let yaml = read(&full.join("problem.yaml"));
    assert!(
        yaml.contains(
            "credits:\n  authors:\n    - \"Ada Lovelace <ada@example.org>\"\n    \
             - \"Alan \\\"Bombe\\\" Turing\"\nsource: \"NWERC 2026: a test\"\n\
             license: cc by-sa\nrights_owner: \"The Jury\"\n"
        ),
        "{yaml}"
    );
    // The regenerating command line in the header keeps them.
    assert!(
        yaml.contains(
            "--author 'Ada Lovelace <ada@example.org>' --author 'Alan \"Bombe\" Turing' \
             --source 'NWERC 2026: a test' --rights-owner 'The Jury' --license 'cc by-sa' DIR"
        ),
        "{yaml}"
    );
    // Each alone, the others still omitted.
    let only = root.path().join("only");
    let mut args = SMALL.to_vec();
    args.extend(["--source", "ZJOI 2009"]);
    package(&only, &args);
    let yaml = read(&only.join("problem.yaml"));
    assert!(yaml.contains("\nsource: \"ZJOI 2009\"\n"), "{yaml}");
    assert!(!yaml.contains("credits:") && !yaml.contains("rights_owner:"));
    // The format's rules on licenses: refused before anything is written.
    let refused: &[(&[&str], &str)] = &[
        (&["--license", "cc by"], "--license needs --rights-owner"),
        (
            &["--license", "public domain", "--rights-owner", "X"],
            "cannot have --rights-owner",
        ),
        (&["--author", ""], "--author must be one line"),
        (&["--source", "a\nb"], "--source must be one line"),
        (&["--rights-owner", " "], "--rights-owner must be one line"),
        (&["--title", ""], "--title must be one line"),
    ];
    for (args, needle) in refused {
        let out = stonegame()
            .arg("package")
            .args(*args)
            .arg(root.path().join("no"))
            .output()
            .unwrap();
        let msg = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {msg}");
        assert!(msg.contains(needle), "{args:?}: `{needle}` not in {msg}");
    }
    assert_eq!(names(root.path()), ["bare", "full", "only"]);
}

#[test]
fn titles_differ_by_kind() {
    let root = tempfile::tempdir().unwrap();
    let mut titles = Vec::new();
    for (flags, name) in KINDS {
        let dir = root.path().join(name);
        let mut args = flags.to_vec();
        args.extend(SMALL);
        package(&dir, &args);
        let yaml = read(&dir.join("problem.yaml"));
        let title = yaml
            .lines()
            .find_map(|l| l.strip_prefix("name: "))
            .unwrap_or_else(|| panic!("no name in {yaml}"))
            .trim_matches('"')
            .to_string();
        let tex = read(&dir.join("statement/problem.en.tex"));
        assert!(
            tex.contains(&format!("\\problemname{{{title}}}")),
            "{name}: {title} not the statement's title"
        );
        titles.push(title);
    }
    let mut distinct = titles.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), titles.len(), "{titles:?}");
    assert_eq!(titles[0], "Stones at Both Ends");
    assert_eq!(titles[4], "How Long at Both Ends");
    assert_eq!(titles[5], "Beat the Judge Fast at Both Ends");
    // --title replaces it.
    let own = root.path().join("own");
    let mut args = SMALL.to_vec();
    args.extend(["--interactive", "--title", "Stone Duel"]);
    package(&own, &args);
    assert!(read(&own.join("problem.yaml")).contains("name: \"Stone Duel\"\n"));
}

/// Where `needle` is in `tex`, which must hold it once.
fn at(tex: &str, needle: &str, what: &str) -> usize {
    assert_eq!(
        tex.matches(needle).count(),
        1,
        "{what}: `{needle}` in\n{tex}"
    );
    tex.find(needle).unwrap()
}

#[test]
fn the_statement_reads_task_input_output_examples() {
    let root = tempfile::tempdir().unwrap();
    for (flags, name) in KINDS {
        let dir = root.path().join(name);
        // The default limits: the sample holds the rows the notes are about.
        package(&dir, flags);
        let tex = read(&dir.join("statement/problem.en.tex"));
        let interactive = flags.contains(&"--interactive");
        let remoteness = flags.contains(&"remoteness");
        let task = if interactive {
            "You play the games against the judge"
        } else if remoteness {
            "compute its remoteness"
        } else {
            "decide whether the player who"
        };
        let (output, end) = if interactive {
            ("\\begin{Interaction}", "\\end{Interaction}")
        } else {
            ("\\begin{Output}", "\\end{Output}")
        };
        let examples = if remoteness {
            "The row \\texttt{3 1 2 3}"
        } else {
            "In the sample, the row \\texttt{3 1 9 4}"
        };
        let order = [
            at(&tex, "\\problemname{", name),
            at(&tex, "Two players sit at a row", name),
            at(&tex, task, name),
            at(&tex, "\\begin{Input}", name),
            at(&tex, "\\end{Input}", name),
            at(&tex, output, name),
            at(&tex, end, name),
            at(&tex, examples, name),
        ];
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "{name}: not task, input, output, examples: {order:?}\n{tex}"
        );
        assert!(!tex.contains("\\section*{Interaction}"), "{tex}");
        assert!(balanced(&tex), "{name}: unbalanced braces or $");
        // Limits as powers, never a long run of digits.
        let tempo = flags.contains(&"--tempo");
        let a = if remoteness {
            "$1 \\le a_i \\le 2^{63}-1$"
        } else if tempo {
            "$1 \\le a_i \\le 20$"
        } else {
            "$1 \\le a_i \\le 10^9$"
        };
        assert!(tex.contains(a), "{name}: no `{a}` in\n{tex}");
        assert!(tex.contains("$1 \\le T \\le 10$"), "{tex}");
        let n = if remoteness {
            "100"
        } else if tempo {
            "20"
        } else {
            "1000"
        };
        assert!(tex.contains(&format!("$1 \\le n \\le {n}$")), "{tex}");
        assert!(!tex.contains("1000000000") && !tex.contains("9223372036854775807"));
    }
    // Other limits: 2·10^5, 10^{12}, 2^{32}, 2^{31}-1, plain digits below 10^4.
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--max-n", "200000", "--max-a", "1000000000000"],
            &["n \\le 2 \\cdot 10^5$", "a_i \\le 10^{12}$"],
        ),
        (
            &[
                "--max-n",
                "30000",
                "--max-a",
                "4294967296",
                "--cases",
                "100000",
            ],
            &["n \\le 3 \\cdot 10^4$", "a_i \\le 2^{32}$", "T \\le 10^5$"],
        ),
        (
            &["--max-n", "9999", "--max-a", "2147483647"],
            &["n \\le 9999$", "a_i \\le 2^{31}-1$"],
        ),
        (
            &["--max-n", "7", "--max-a", "123456"],
            &["a_i \\le 123456$"],
        ),
    ];
    for (args, needles) in cases {
        let spec = spec_of(args);
        let tex = spec.statement();
        for needle in *needles {
            assert!(tex.contains(needle), "{args:?}: no `{needle}` in\n{tex}");
        }
    }
}

/// A package spec with the limits of `args` (pairs of flag and value).
fn spec_of(args: &[&str]) -> PackageSpec {
    let mut spec = PackageSpec::default();
    for pair in args.chunks(2) {
        let v: u64 = pair[1].parse().unwrap();
        match pair[0] {
            "--max-n" => spec.max_n = v,
            "--max-a" => spec.max_a = v,
            "--cases" => spec.cases = v,
            flag => panic!("{flag}"),
        }
    }
    spec
}

/// Whether the braces of `tex` pair up and its `$` come in pairs
/// (escaped ones and `%` comments aside): what LaTeX would stumble on
/// first, checked without a LaTeX installation.
fn balanced(tex: &str) -> bool {
    let (mut depth, mut dollars) = (0i64, 0usize);
    for line in tex.lines() {
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '%' => break,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                '$' => dollars += 1,
                _ => {}
            }
        }
    }
    depth == 0 && dollars.is_multiple_of(2)
}

#[test]
fn the_solution_write_up_gives_the_recurrence_and_why() {
    let root = tempfile::tempdir().unwrap();
    for (flags, name) in KINDS {
        let dir = root.path().join(name);
        let mut args = flags.to_vec();
        args.extend(SMALL);
        package(&dir, &args);
        assert_eq!(names(&dir.join("solution")), ["solution.en.tex"], "{name}");
        let tex = read(&dir.join("solution/solution.en.tex"));
        // BAPCtools' solution slides: beamer frames, balanced, titled.
        let frames = tex.matches("\\begin{frame}").count();
        assert!(frames >= 2, "{name}: {frames} frames");
        assert_eq!(frames, tex.matches("\\end{frame}").count(), "{name}");
        assert!(tex.contains("\\frametitle{\\problemtitle}"), "{name}");
        assert!(balanced(&tex), "{name}: unbalanced braces or $");
        assert!(!balanced("{") && !balanced("$x") && balanced("\\{ $x$ % {"));
        for env in ["itemize", "cases"] {
            assert_eq!(
                tex.matches(&format!("\\begin{{{env}}}")).count(),
                tex.matches(&format!("\\end{{{env}}}")).count(),
                "{name}: {env}"
            );
        }
        let needed: &[&str] = match name {
            "twoends" | "interactive" | "interactivetempo" => &[
                // The five cases, the verdict, and the proof.
                "X + 1 & X < R,\\ X \\ge L",
                "X - 1 & X > R,\\ X \\le L",
                "0 & X = R",
                "$a_1 = \\mathit{left}[2][n]$",
                "Why the recurrence holds",
                "\\textbf{Unique}",
                "\\textbf{Exists}",
                "$O(n^2)$",
            ],
            "leftmost" | "interactiveleftmost" => &[
                "$g(i) = \\lnot g(i + 1)$",
                "$g(n + 1) = \\text{false}$",
                "leave exactly one stone",
                "$O(n)$ time",
            ],
            _ => &[
                "\\textbf{Parity is the verdict}",
                "$\\mathrm{rem}(a, a) = 2a$",
                "C(y) = \\max\\bigl(2 + \\max_{1 \\le y' < y} C(y')",
                "128-bit",
                "not proven",
            ],
        };
        for needle in needed {
            assert!(tex.contains(needle), "{name}: no `{needle}` in\n{tex}");
        }
        assert_eq!(
            tex.contains("\\frametitle{Playing it}"),
            name.starts_with("interactive"),
            "{name}"
        );
        assert_eq!(
            tex.contains("\\frametitle{Winning fast}"),
            name.ends_with("tempo"),
            "{name}"
        );
    }
}

#[test]
fn the_checkers_say_how_many_cases_they_accepted() {
    let root = tempfile::tempdir().unwrap();
    for (flags, name, cases) in [
        (&[][..], "verdict", "10"),
        (&[][..], "verdictseven", "7"),
        (&["--task", "remoteness"][..], "remoteness", "10"),
        (&["--task", "remoteness"][..], "remotenessthree", "3"),
    ] {
        let dir = root.path().join(name);
        let mut args = flags.to_vec();
        args.extend(["--cases", cases, "--max-n", "12", "--max-a", "20"]);
        package(&dir, &args);
        let checker = root.path().join(format!("{name}-checker"));
        compile(&dir.join("output_validator/checker.cpp"), &checker);
        // 02-tiny holds T = --cases rows.
        let input = dir.join("data/secret/02-tiny.in");
        let answer = dir.join("data/secret/02-tiny.ans");
        assert!(read(&input).starts_with(&format!("{cases}\n")));
        let feedback = root.path().join(format!("{name}-feedback"));
        fs::create_dir(&feedback).unwrap();
        let out = Command::new(&checker)
            .arg(&input)
            .arg(&answer)
            .arg(&feedback)
            .stdin(fs::File::open(&answer).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(42), "{name}: {}", text(&out));
        assert_eq!(
            read(&feedback.join("judgemessage.txt")),
            format!("ok: {cases} cases\n"),
            "{name}"
        );
    }
    // The interactor, on a file the accepted player wins.
    let dir = root.path().join("interactive");
    package(
        &dir,
        &[
            "--interactive",
            "--cases",
            "10",
            "--max-n",
            "12",
            "--max-a",
            "20",
        ],
    );
    let (interactor, perfect) = (root.path().join("interactor"), root.path().join("perfect"));
    compile(&dir.join("output_validator/interactor.cpp"), &interactor);
    compile(&dir.join("submissions/accepted/perfect.cpp"), &perfect);
    let feedback = root.path().join("interactive-feedback");
    fs::create_dir(&feedback).unwrap();
    let input = dir.join("data/secret/02-tiny.in");
    let code = play_cpp(&interactor, &input, &feedback, &[perfect.to_str().unwrap()]);
    let message = read(&feedback.join("judgemessage.txt"));
    assert_eq!(code, 42, "{message}");
    assert!(
        message.starts_with("ok: 10 cases, every game won ("),
        "{message}"
    );
}

#[test]
fn testing_tool_and_interaction_sample_share_the_formats_direction() {
    // The format (2025-09, "Interactive problems"): `<` starts what the
    // judge (output validator) writes, `>` what the submission writes.
    let root = tempfile::tempdir().unwrap();
    for variant in ["two-ends", "leftmost"] {
        let dir = root.path().join(variant.replace('-', ""));
        package(&dir, &["--interactive", "--variant", variant]);
        let interaction = read(&dir.join("data/sample/001-sample.interaction"));
        let sample = read(&dir.join("data/sample/001-sample.in"));
        let judge_lines: Vec<&str> = sample.lines().collect();
        // The sample's own transcript: the games from the judge, the seats
        // and (alternately) moves from the program.
        let lines: Vec<&str> = interaction.lines().collect();
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with('<') || l.starts_with('>')),
            "{interaction}"
        );
        assert_eq!(lines[0], format!("<{}", judge_lines[0]), "{interaction}");
        assert_eq!(lines[1], format!("<{}", judge_lines[1]), "{interaction}");
        assert_eq!(lines[2], format!("<{}", judge_lines[2]), "{interaction}");
        assert!(
            lines[3] == ">FIRST" || lines[3] == ">SECOND",
            "{interaction}"
        );
        // The testing tool, playing the accepted program, echoes the lines
        // the same way.
        let perfect = root.path().join(format!("perfect-{variant}"));
        compile(&dir.join("submissions/accepted/perfect.cpp"), &perfect);
        crate::common::require_python3("the package's testing tool is Python");
        let out = run_ok(
            Command::new("python3")
                .arg(dir.join("attachments/testing_tool.py"))
                .arg(dir.join("data/sample/001-sample.in"))
                .arg("--")
                .arg(&perfect),
        );
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        let echoed: Vec<&str> = log.lines().filter(|l| !l.starts_with("OK:")).collect();
        assert!(
            echoed
                .iter()
                .all(|l| l.starts_with('<') || l.starts_with('>')),
            "{log}"
        );
        // Up to the judge's first move (where the bots' coins differ), the
        // testing tool's log is the sample's transcript, line for line.
        let first_judge_move = |v: &[&str]| {
            v.iter()
                .position(|l| l.starts_with("<L ") || l.starts_with("<R "))
                .unwrap_or(v.len())
        };
        let k = first_judge_move(&lines).min(first_judge_move(&echoed));
        assert!(k >= 4, "{interaction}");
        assert_eq!(
            lines[..k],
            echoed[..k],
            "testing tool:\n{log}\nsample:\n{interaction}"
        );
        // Every program line (seats, moves) is `>`, every judge line `<`.
        for l in &echoed {
            let body = &l[1..];
            let from_program = body == "FIRST"
                || body == "SECOND"
                || (l.starts_with('>') && (body.starts_with("L ") || body.starts_with("R ")));
            let from_judge = body.bytes().all(|b| b.is_ascii_digit() || b == b' ')
                || (l.starts_with('<') && (body.starts_with("L ") || body.starts_with("R ")));
            assert!(
                (l.starts_with('>') && from_program) || (l.starts_with('<') && from_judge),
                "{l}: wrong direction\n{log}"
            );
        }
    }
}

// ---- the C++ generator against `stonegame gen` ----

/// `stonegame gen`'s input for `spec` (the library's generator), or `None`
/// when it refuses the spec.
fn rust_input(spec: &GenSpec) -> Option<Vec<u8>> {
    let mut input = Vec::new();
    generate(spec, &mut input, None).ok()?;
    Some(input)
}

#[test]
fn the_cpp_generator_writes_what_stonegame_gen_writes() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("pkg");
    package(&dir, &SMALL);
    let gen_bin = root.path().join("gen");
    compile(&dir.join("generators/gen.cpp"), &gen_bin);
    let yaml = read(&dir.join("generators/generators.yaml"));
    assert!(!yaml.contains("stonegame_gen") && yaml.contains(": gen.cpp --family"));
    // Limits: small rows, tiny piles, one pile, piles near 2^63, piles past
    // 2^32 (the hack family's wrap rows), long rows, exhaustive files.
    let limits: &[(u64, u64, u64)] = &[
        (10, 12, 20),
        (7, 1, 5),
        (12, 8, 1),
        (30, 2, 3),
        (10, 6, 6),
        (15, 30, (1 << 63) - 1),
        (24, 5, 5_000_000_000),
        (3, 300, 1_000_000_000),
        (400, 3, 4),
        (40, 3, 3),
    ];
    let mut compared = 0;
    let mut refused = 0;
    for variant in [Variant::TwoEnds, Variant::Leftmost] {
        for family in Family::ALL {
            for &(cases, max_n, max_a) in limits {
                for seed in [0, 1, 2, 3, 5, 8, 13, 2009, u64::MAX] {
                    let spec = GenSpec {
                        family,
                        cases,
                        max_n,
                        max_a,
                        seed,
                        variant,
                    };
                    let out = Command::new(&gen_bin)
                        .args(["--family", family.name()])
                        .args(["--cases", &cases.to_string()])
                        .args(["--max-n", &max_n.to_string()])
                        .args(["--max-a", &max_a.to_string()])
                        .args(["--seed", &seed.to_string()])
                        .args(["--variant", variant.name()])
                        .output()
                        .unwrap();
                    match rust_input(&spec) {
                        Some(input) => {
                            assert_eq!(out.status.code(), Some(0), "{spec:?}: {}", text(&out));
                            assert!(
                                out.stdout == input,
                                "{spec:?}: gen.cpp wrote\n{}\nstonegame gen wrote\n{}",
                                String::from_utf8_lossy(&out.stdout),
                                String::from_utf8_lossy(&input)
                            );
                            compared += 1;
                        }
                        None => {
                            assert_eq!(out.status.code(), Some(1), "{spec:?}: {}", text(&out));
                            assert!(text(&out).starts_with("gen: error:"), "{}", text(&out));
                            refused += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(
        compared > 1000 && refused > 0,
        "{compared} compared, {refused} refused"
    );
    // And with the command itself, `stonegame gen`, on every family.
    for variant in ["two-ends", "leftmost"] {
        for family in Family::ALL {
            let (cases, max_n, max_a) = if family == Family::Exhaustive {
                ("40", "3", "3")
            } else {
                ("20", "9", "5000000000")
            };
            let args = [
                "--family",
                family.name(),
                "--cases",
                cases,
                "--max-n",
                max_n,
                "--max-a",
                max_a,
                "--seed",
                "29",
                "--variant",
                variant,
            ];
            let cli = run_ok(stonegame().arg("gen").args(args));
            let cpp = run_ok(Command::new(&gen_bin).args(args));
            assert!(cli.stdout == cpp.stdout, "{args:?}");
            assert!(cli.stdout.len() > 20, "{args:?}");
        }
    }
    // Every secret file of the package is what its generators.yaml line
    // makes gen.cpp write.
    let mut lines = 0;
    for line in yaml.lines() {
        let Some((name, cmd)) = line.trim().split_once(": gen.cpp ") else {
            continue;
        };
        let name = name.trim_matches('\'');
        let out = run_ok(Command::new(&gen_bin).args(cmd.split(' ')));
        let file: PathBuf = dir.join(format!("data/secret/{name}.in"));
        assert!(out.stdout == fs::read(&file).unwrap(), "{name}");
        lines += 1;
    }
    assert!(lines >= 10, "{lines} generator lines");
    // Bad arguments: exit 1, the reason on stderr.
    for args in [
        &["--family", "wild", "--seed", "1"][..],
        &["--family", "random"],
        &["--family", "random", "--seed", "x"],
        &[
            "--family",
            "random",
            "--seed",
            "1",
            "--max-a",
            "9223372036854775808",
        ],
        &["--family", "hack", "--seed", "1", "--max-n", "1"],
        &["--family", "random", "--seed", "1", "--bogus", "2"],
    ] {
        let out = Command::new(&gen_bin).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out));
        assert!(
            text(&out).starts_with("gen: error:"),
            "{args:?}: {}",
            text(&out)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
