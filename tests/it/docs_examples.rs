//! Every console example of README.md and docs/*.md (a ```` ```console ````
//! block: `$ COMMAND` lines, each followed by what it prints) is run and
//! its output compared with the text, so that no example goes stale.
//!
//! - `stonegame` is the binary under test (its directory first on `PATH`);
//!   each block runs in its own empty directory where `tests/` is this
//!   repository's `tests/` (so `tests/data/sample.txt` resolves).
//! - A command that names `127.0.0.1:50051` (curl, `client --server`)
//!   talks to a live `stonegame serve` on an ephemeral loopback port,
//!   started for this test with its default configuration: the address
//!   is replaced by the live one.
//! - Standard output and standard error are one stream, as in a terminal.
//!   `…` in the expected text stands for any text (an elided part);
//!   HTTP's `\r\n` is read as `\n`.
//! - A terminal session (`your move> hint`: the prompt, then what the
//!   user typed) feeds the typed lines to standard input; the output then
//!   holds the prompt alone.
//! - A block that cannot run here says why in an HTML comment on the line
//!   before its fence: `<!-- not run: REASON -->`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What the terminal shows before the user's input in interactive
/// examples (`stonegame play`, `client play`).
const PROMPTS: &[&str] = &["your move> "];

/// The address the examples write for the server.
const EXAMPLE_SERVER: &str = "127.0.0.1:50051";

/// One `$ COMMAND` of a console block and what it prints.
#[derive(Debug)]
struct Example {
    /// `FILE:LINE` of the command.
    place: String,
    command: String,
    /// The lines the user typed at prompts, in order.
    stdin: String,
    expected: String,
}

/// A console block in the docs: its examples, or why it is not run.
#[derive(Debug)]
struct Block {
    place: String,
    not_run: Option<String>,
    examples: Vec<Example>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, relative to the repository.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| Path::new("docs").join(p.file_name().expect("a name")))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The console blocks of one Markdown text.
fn blocks(file: &Path, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_end() != "```console" {
            i += 1;
            continue;
        }
        let place = format!("{}:{}", file.display(), i + 1);
        let not_run = i
            .checked_sub(1)
            .and_then(|p| lines[p].trim().strip_prefix("<!-- not run:"))
            .and_then(|r| r.strip_suffix("-->"))
            .map(|r| r.trim().to_string());
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && !lines[i].starts_with("```") {
            body.push((i + 1, lines[i]));
            i += 1;
        }
        out.push(Block {
            examples: examples(file, &body),
            place,
            not_run,
        });
        i += 1;
    }
    out
}

/// The `$ COMMAND` lines of a block's body (continued by a trailing `\`)
/// and the output after each.
fn examples(file: &Path, body: &[(usize, &str)]) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut continued = false;
    for &(number, line) in body {
        if continued {
            let ex = out.last_mut().expect("a command being continued");
            ex.command.push('\n');
            ex.command.push_str(line);
            continued = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                place: format!("{}:{number}", file.display()),
                command: command.to_string(),
                stdin: String::new(),
                expected: String::new(),
            });
            continued = line.ends_with('\\');
        } else {
            let ex = out.last_mut().unwrap_or_else(|| {
                panic!(
                    "{}:{number}: output before any `$ ` command",
                    file.display()
                )
            });
            match PROMPTS
                .iter()
                .find_map(|p| line.strip_prefix(p).map(|typed| (p, typed)))
            {
                Some((prompt, typed)) => {
                    ex.expected.push_str(prompt);
                    ex.stdin.push_str(typed);
                    ex.stdin.push('\n');
                }
                None => {
                    ex.expected.push_str(line);
                    ex.expected.push('\n');
                }
            }
        }
    }
    out
}

/// Whether `actual` is `expected` with each `…` standing for any text
/// (newlines at the end aside: a terminal shows none after a last line
/// that lacks one, as curl's JSON bodies do).
fn matches(expected: &str, actual: &str) -> bool {
    let (expected, actual) = (
        expected.trim_end_matches('\n'),
        actual.trim_end_matches('\n'),
    );
    let parts: Vec<&str> = expected.split('…').collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Starts the live server the examples that talk to one are sent to.
fn start_server() -> crate::common::ServeProcess {
    crate::common::ServeProcess::spawn(&[
        ("STONEGAME_LISTEN", "127.0.0.1:0"),
        ("STONEGAME_METRICS__LISTEN", ""),
    ])
}

/// Runs one example in `dir` under bash: its combined output.
fn run(example: &Example, dir: &Path, server: &mut Option<crate::common::ServeProcess>) -> String {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_stonegame"))
        .parent()
        .expect("the binary's directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = example.command.clone();
    if command.contains(EXAMPLE_SERVER) {
        let live = server.get_or_insert_with(start_server);
        command = command.replace(EXAMPLE_SERVER, &live.addr);
    }
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("RUST_LOG")
        .env_remove("STONEGAME_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("bash runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(example.stdin.as_bytes())
        .expect("the typed lines");
    drop(stdin);
    let out = child.wait_with_output().expect("the example ends");
    String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
}

#[test]
fn the_matching_of_elisions() {
    assert!(matches("a…c\n", "abbbc\n"));
    assert!(matches("…", "anything"));
    assert!(matches("x\n…\ny\n", "x\n1\n2\ny\n"));
    assert!(!matches("a…c\n", "abbb\n"));
    assert!(!matches("ab…bc", "abc"));
    assert!(!matches("exact\n", "exact\nmore\n"));
    assert!(matches("{}\n", "{}"));
}

#[test]
fn every_console_example_prints_what_the_docs_say() {
    crate::common::require("bash", "the examples run under bash", "install bash");
    crate::common::require(
        "curl",
        "the examples that talk to the server use curl",
        "install curl (Debian: `apt-get install curl`)",
    );
    let mut run_count = 0;
    let mut server = None;
    let mut failures = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).expect("a doc");
        for block in blocks(&file, &text) {
            if let Some(reason) = &block.not_run {
                assert!(
                    !reason.is_empty(),
                    "{}: `not run` needs a reason",
                    block.place
                );
                println!("{}: not run: {reason}", block.place);
                continue;
            }
            assert!(
                !block.examples.is_empty(),
                "{}: a console block without a `$ ` command",
                block.place
            );
            let dir = tempfile::tempdir().expect("a directory");
            std::os::unix::fs::symlink(root().join("tests"), dir.path().join("tests"))
                .expect("tests/ linked");
            for example in &block.examples {
                let actual = run(example, dir.path(), &mut server);
                run_count += 1;
                if !matches(&example.expected, &actual) {
                    failures.push(format!(
                        "{}: $ {}\n--- the docs say:\n{}--- it printed:\n{}",
                        example.place, example.command, example.expected, actual
                    ));
                }
            }
        }
    }
    println!("{run_count} console examples run");
    assert!(run_count >= 10, "only {run_count} examples found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
