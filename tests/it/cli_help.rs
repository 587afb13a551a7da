//! Every `--help` of the `stonegame` binary, each subcommand's and each
//! `client` subcommand's (walked from the clap definition, so a new
//! command is checked too), stays true: no rustdoc links (`[`X`]`,
//! `](…)`), no path of the checkout it was built in, and no measured
//! timings (they go stale; docs/benchmarks.md keeps them, dated).

use clap::CommandFactory;

use crate::common;

/// Every command path: `[]`, `["solve"]`, …, `["client", "suggest"]`, ….
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            walk(sub, p, out);
        }
        out.push(path);
    }
    let mut out = Vec::new();
    walk(&stonegame::cli::Cli::command(), Vec::new(), &mut out);
    out
}

/// The time units a measured figure would be written in.
const UNITS: &[&str] = &[
    "ms", "s", "µs", "us", "ns", "sec", "second", "seconds", "min", "minute", "minutes", "h",
    "hour", "hours",
];

/// The timing figures of `text`: a number followed by a time unit
/// ("0.2 s", "70 s at n = 20,000", "3 minutes"), unless it is an interval
/// the program keeps ("every 30 s").
fn timings(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let is_number = |w: &str| {
        let w = w.trim_start_matches(['(', '~', '≈']);
        w.chars().next().is_some_and(|c| c.is_ascii_digit())
            && w.chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    };
    let mut found = Vec::new();
    for i in 1..words.len() {
        let unit = words[i].trim_end_matches([',', '.', ')', ';', ':']);
        if UNITS.contains(&unit) && is_number(words[i - 1]) && (i < 2 || words[i - 2] != "every") {
            found.push(format!("{} {}", words[i - 1], words[i]));
        }
    }
    for glued in ["ms", "s"] {
        // "0.2s", "70ms"
        for w in &words {
            let w = w.trim_end_matches([',', '.', ')', ';', ':']);
            if let Some(n) = w.strip_suffix(glued)
                && !n.is_empty()
                && is_number(n)
            {
                found.push(w.to_string());
            }
        }
    }
    found
}

#[test]
fn the_timing_check_finds_timings() {
    assert_eq!(
        timings("about 0.15 s at n = 1,000, 70 s at n = 20,000").len(),
        2
    );
    assert_eq!(timings("(about 0.2 s at n = 1,000)").len(), 1);
    assert_eq!(timings("takes 3 minutes; 5ms").len(), 2);
    assert!(timings("re-resolved every 30 s; in milliseconds [default: 5000]").is_empty());
    assert!(timings("piles 1..=10^9, n = 20,000 piles").is_empty());
}

#[test]
fn every_help_text_stays_true() {
    let checkout = env!("CARGO_MANIFEST_DIR");
    let paths = command_paths();
    assert!(
        paths.iter().any(|p| p == &["client", "suggest"]),
        "{paths:?}"
    );
    let mut problems = Vec::new();
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, out, err) = common::run_cli(&args, "");
        let name = format!("stonegame {}", args.join(" "));
        assert_eq!(code, Some(0), "{name}: {err}");
        for bad in ["[`", "](", checkout] {
            if out.contains(bad) {
                problems.push(format!("{name} shows {bad:?}"));
            }
        }
        for t in timings(&out) {
            problems.push(format!("{name} states the timing {t:?}"));
        }
        // Short help (-h) too: a summary must not say what the long one no
        // longer does.
        args.pop();
        args.push("-h");
        let (_, short, _) = common::run_cli(&args, "");
        for t in timings(&short) {
            problems.push(format!("{name} (-h) states the timing {t:?}"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The numbers of `suggest --help` are those of the constants.
#[test]
fn suggest_help_states_the_auto_limit() {
    let limit = stonegame::cli::suggest::AUTO_MAX_PILES;
    let (_, out, _) = common::run_cli(&["suggest", "--help"], "");
    let grouped = format!("{},{:03}", limit / 1000, limit % 1000);
    assert!(out.contains(&format!("at most {grouped} piles")), "{out}");
    let (_, out, _) = common::run_cli(&["client", "suggest", "--help"], "");
    assert!(out.contains(&format!("at most {grouped} piles")), "{out}");
}
