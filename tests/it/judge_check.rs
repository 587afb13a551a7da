//! The checker: its four verdicts and exit codes on crafted files, through
//! the library and through the built binary.

use crate::common;

use std::io::Write;
use std::process::Command;

use common::gen_strings;
use stonegame::core::Variant;
use stonegame::judge::check::{CheckReport, Mismatch, Verdict, check};
use stonegame::judge::generate::{Family, GenSpec};

/// Three cases: `3 1 9 4` (lost: 0), `5` (won: 1), `2 2` (lost: 0).
const INPUT: &str = "3\n4\n3 1 9 4\n1\n5\n2\n2 2\n";
const RIGHT: &str = "0\n1\n0\n";

fn run(input: &str, answer: &str) -> CheckReport {
    check(input.as_bytes(), answer.as_bytes(), Variant::TwoEnds)
}

fn assert_verdict(input: &str, answer: &str, verdict: Verdict, message: &str) -> CheckReport {
    let report = run(input, answer);
    assert_eq!(
        report.verdict, verdict,
        "answer {answer:?}: {}",
        report.message
    );
    assert!(
        report.message.contains(message),
        "answer {answer:?}: `{}` lacks `{message}`",
        report.message
    );
    report
}

#[test]
fn verdicts_have_testlib_exit_codes() {
    assert_eq!(Verdict::Accepted.exit_code(), 0);
    assert_eq!(Verdict::WrongAnswer.exit_code(), 1);
    assert_eq!(Verdict::PresentationError.exit_code(), 2);
    assert_eq!(Verdict::JudgeFailure.exit_code(), 3);
}

#[test]
fn accepted_with_crlf_trailing_whitespace_and_trailing_blank_lines() {
    for answer in [
        RIGHT,
        "0\r\n1\r\n0\r\n",
        "0  \n1\t\n0 \r\n",
        "0\n1\n0",
        "0\n1\n0\n\n\n",
        "0\n1\n0\n \r\n\t\n",
    ] {
        let r = assert_verdict(INPUT, answer, Verdict::Accepted, "ok 3 cases");
        assert_eq!(r.message, "ok 3 cases");
        assert_eq!((r.cases, r.wrong_cases, r.first_mismatch), (3, 0, None));
    }
}

#[test]
fn wrong_answer_names_the_first_mismatch_and_counts_wrong_cases() {
    let r = assert_verdict(INPUT, "0\n0\n1\n", Verdict::WrongAnswer, "");
    assert_eq!(
        r.message,
        "wrong answer case 2: expected 1, got 0 (2 of 3 cases wrong)"
    );
    assert_eq!(r.cases, 3);
    assert_eq!(r.wrong_cases, 2);
    assert_eq!(
        r.first_mismatch,
        Some(Mismatch {
            case: 2,
            expected: true,
            got: false
        })
    );
}

#[test]
fn presentation_errors() {
    let pe = Verdict::PresentationError;
    for (answer, message) in [
        ("", "ends after 0 lines, expected 3 lines"),
        ("0\n1\n", "no answer to case 3"),
        (
            "0\n1\n0\n1\n",
            "line 4: unexpected `1` after the answers to all 3 cases",
        ),
        ("0\n1\n0\n\n1\n", "line 5: unexpected `1`"),
        ("0\n\n1\n0\n", "line 2 is blank"),
        (
            "0\n2\n0\n",
            "line 2: expected `0` or `1` (the answer to case 2), found `2`",
        ),
        ("0\n1\n01\n", "found `01`"),
        ("true\n1\n0\n", "found `true`"),
        ("0 1\n1\n0\n", "found `0 1`"),
        (" 0\n1\n0\n", "found ` 0`"),
        ("+0\n1\n0\n", "found `+0`"),
        ("0\n1\n0\nx", "unexpected `x`"),
        ("\u{feff}0\n1\n0\n", "line 1"),
    ] {
        let r = assert_verdict(INPUT, answer, pe, message);
        assert!(
            r.message.starts_with("wrong output format "),
            "{}",
            r.message
        );
        assert_eq!(r.cases, 3);
    }
}

#[test]
fn a_wrong_answer_before_a_format_error_is_a_presentation_error() {
    let r = assert_verdict(INPUT, "1\n1\n", Verdict::PresentationError, "case 3");
    // Comparing went up to the format error.
    assert_eq!(r.wrong_cases, 1);
}

#[test]
fn over_long_lines_are_cut_in_the_message() {
    let long = format!("{}\n1\n0\n", "1".repeat(100_000));
    let r = assert_verdict(INPUT, &long, Verdict::PresentationError, "…");
    assert!(r.message.len() < 200, "{}", r.message);
}

#[test]
fn judge_failure_names_line_and_column_of_a_malformed_input() {
    let jf = Verdict::JudgeFailure;
    let r = assert_verdict("2\n2\n1 x\n1\n1\n", "1\n1\n", jf, "line 3, column 3");
    assert!(r.message.starts_with("FAIL "), "{}", r.message);
    assert!(r.message.contains("case 1"), "{}", r.message);
    assert_eq!(r.cases, 0);
    assert_verdict("", "", jf, "line 1, column 1");
    assert_verdict("0\n", "", jf, "T is 0");
    assert_verdict("1\n2\n5 0\n", "1\n", jf, "line 3, column 3");
    assert_verdict("1\n1\n5\n7\n", "1\n", jf, "line 4, column 1");
    // A malformed input wins over a wrong or malformed answer found earlier.
    let r = assert_verdict("2\n1\n5\n1\n-3\n", "0\n", jf, "line 5, column 1");
    assert_eq!(r.cases, 1);
    assert_verdict("2\n1\n5\n1\n", "x\n", jf, "end of input");
}

#[test]
fn the_variant_changes_the_truth() {
    // Leftmost: (1, 2) is lost (take the 1, opponent takes the 2); two-ends: won.
    let input = "1\n2\n1 2\n";
    let r = check(input.as_bytes(), "0\n".as_bytes(), Variant::Leftmost);
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    let r = check(input.as_bytes(), "0\n".as_bytes(), Variant::TwoEnds);
    assert_eq!(r.verdict, Verdict::WrongAnswer, "{}", r.message);
}

#[test]
fn many_cases_stream_through_in_batches() {
    // More cases than one batch holds, with a single wrong answer near the end.
    let spec = GenSpec {
        family: Family::Random,
        cases: 20_000,
        max_n: 6,
        max_a: 5,
        seed: 3,
        variant: Variant::TwoEnds,
    };
    let (input, answers) = gen_strings(&spec);
    let r = run(&input, &answers);
    assert_eq!(r.verdict, Verdict::Accepted, "{}", r.message);
    assert_eq!(r.message, "ok 20000 cases");
    let mut lines: Vec<&str> = answers.lines().collect();
    let flipped = if lines[19_990] == "0" { "1" } else { "0" };
    lines[19_990] = flipped;
    let wrong = lines.join("\n");
    let r = run(&input, &wrong);
    assert_eq!(r.verdict, Verdict::WrongAnswer);
    assert_eq!(r.first_mismatch.map(|m| m.case), Some(19_991));
    assert_eq!(r.wrong_cases, 1);
}

/// Runs the binary's `check` on files holding `input` and `answer`.
fn cli(input: &str, answer: &str, extra: &[&str]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::File::create(&path)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        path
    };
    let (i, a) = (write("in.txt", input), write("out.txt", answer));
    let out = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .arg("check")
        .args(extra)
        .arg(&i)
        .arg(&a)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn cli_exit_codes_and_verdict_lines() {
    assert_eq!(cli(INPUT, RIGHT, &[]), (0, "ok 3 cases\n".into()));
    assert_eq!(cli(INPUT, "0\r\n1 \r\n0\r\n\r\n", &[]).0, 0);
    let (code, line) = cli(INPUT, "1\n1\n0\n", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        line,
        "wrong answer case 1: expected 0, got 1 (1 of 3 cases wrong)\n"
    );
    for bad in ["0\n1\n", "0\n1\n0\n1\n", "0\n2\n0\n"] {
        let (code, line) = cli(INPUT, bad, &[]);
        assert_eq!(code, 2, "{bad:?}: {line}");
        assert!(line.starts_with("wrong output format"), "{line}");
    }
    let (code, line) = cli("2\n1\n5\n2\n1 x\n", "1\n1\n", &[]);
    assert_eq!(code, 3, "{line}");
    assert!(
        line.starts_with("FAIL") && line.contains("line 5, column 3"),
        "{line}"
    );
    let (code, line) = cli("1\n2\n1 2\n", "0\n", &["--variant", "leftmost"]);
    assert_eq!((code, line.as_str()), (0, "ok 1 case\n"));
}

#[test]
fn cli_missing_file_is_a_judge_failure() {
    let out = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .args(["check", "/nonexistent/in.txt", "/nonexistent/out.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("FAIL cannot open the input"), "{line}");
}
