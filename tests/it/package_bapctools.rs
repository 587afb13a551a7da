//! `stonegame package` proven by the tools contest systems use: BAPCtools
//! (pinned, from PyPI, installed into a venv under target/ by this test)
//! runs `bt validate` and `bt run` on the written batch, leftmost and
//! interactive packages (every input valid, every invalid input rejected,
//! every submission its verdict, the slow one a real time-out) and `bt zip`;
//! the package's C++ programs are held to the Rust judge by a differential
//! test (solution vs solver, checker vs `check`, validator vs a strict
//! reference, interactor vs `stonegame interact`); same seed, same bytes;
//! a non-empty DIR, bad flags and unwritable paths refused with nothing
//! left behind.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::Variant;
use stonegame::judge::check::{Verdict, check};
use stonegame::judge::generate::{Family, GenSpec, Task, generate, generate_task};

/// A line on the real stderr, shown by a plain `cargo test` too (the
/// harness captures `println!`/`eprintln!` of passing tests, not writes to
/// the stream itself): BAPCtools' times.
macro_rules! report {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The BAPCtools release the packages are proven with.
const BAPCTOOLS: &str = "bapctools==2026.10.0";

pub(crate) fn stonegame() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stonegame"))
}

pub(crate) fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

pub(crate) fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed:\n{}", text(&out));
    out
}

/// `stonegame package ARGS DIR`, which must succeed.
pub(crate) fn package(dir: &Path, args: &[&str]) {
    run_ok(stonegame().arg("package").args(args).arg(dir));
}

/// The venv's `bt`, installing BAPCtools the first time (once per process).
fn bt_path() -> PathBuf {
    static BT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BT.get_or_init(|| {
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bapctools-venv");
        let python = venv.join("bin").join("python");
        let bt = venv.join("bin").join("bt");
        let ready = || {
            Command::new(&python)
                .args([
                    "-c",
                    "import importlib.metadata as m; print(m.version('bapctools'))",
                ])
                .output()
                .is_ok_and(|o| o.status.success() && o.stdout.starts_with(b"2026.10.0"))
        };
        if !ready() {
            crate::common::require_python3(
                "BAPCtools is pip-installed from PyPI into a venv under target/",
            );
            let install = || -> Result<(), String> {
                if !python.exists() {
                    let out = Command::new("python3")
                        .args(["-m", "venv"])
                        .arg(&venv)
                        .output()
                        .map_err(|e| e.to_string())?;
                    if !out.status.success() {
                        return Err(text(&out));
                    }
                }
                let out = Command::new(&python)
                    .args([
                        "-m",
                        "pip",
                        "install",
                        "--quiet",
                        "--disable-pip-version-check",
                    ])
                    .arg(BAPCTOOLS)
                    .output()
                    .map_err(|e| e.to_string())?;
                if out.status.success() {
                    Ok(())
                } else {
                    Err(text(&out))
                }
            };
            if let Err(first) = install() {
                eprintln!("recreating the venv after: {first}");
                let _ = fs::remove_dir_all(&venv);
                install().unwrap_or_else(|e| {
                    panic!("cannot install {BAPCTOOLS} from PyPI (does this machine reach pypi.org?): {e}")
                });
            }
            assert!(ready(), "{BAPCTOOLS} is not importable after installing");
        }
        bt
    })
    .clone()
}

/// BAPCtools' configuration directory: python3 is CPython here (no PyPy).
fn bt_config(root: &Path) -> PathBuf {
    let config = root.join("config");
    fs::create_dir_all(config.join("bapctools")).unwrap();
    fs::write(
        config.join("bapctools/languages.yaml"),
        "python3:\n    name: 'Python 3 (CPython)'\n    \
         compile: 'python3 -m py_compile {files}'\n    run: 'python3 \"{mainfile}\"'\n",
    )
    .unwrap();
    config
}

/// `bt ARGS` in the problem directory; its output, its success and how long
/// it took.
fn bt(problem: &Path, config: &Path, args: &[&str]) -> (bool, String, f64) {
    let bt = bt_path();
    let mut path = bt.parent().unwrap().as_os_str().to_owned();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let start = Instant::now();
    let out = Command::new(&bt)
        .args(args)
        .arg("--no-bar")
        .current_dir(problem)
        .env("XDG_CONFIG_HOME", config)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("bt runs");
    let secs = start.elapsed().as_secs_f64();
    (
        out.status.success(),
        without_ansi_colours(&text(&out)),
        secs,
    )
}

/// `log` without ANSI escape sequences. BAPCtools colours its output
/// through colorama, which strips the colours off a pipe, except when `CI`
/// or `GITLAB_CI` is set, as it is on CI machines.
fn without_ansi_colours(log: &str) -> String {
    let mut out = String::with_capacity(log.len());
    let mut chars = log.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        // CSI: ESC '[' parameters, ended by a byte in '@'..='~'.
        if chars.next() == Some('[') {
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        }
    }
    out
}

/// Every submission of the package with the verdict its directory names.
fn submissions(problem: &Path) -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for (dir, verdict) in [
        ("accepted", "AC"),
        ("wrong_answer", "WA"),
        ("time_limit_exceeded", "TLE"),
    ] {
        let Ok(entries) = fs::read_dir(problem.join("submissions").join(dir)) else {
            continue;
        };
        for e in entries {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            out.push((format!("{dir}/{name}"), verdict));
        }
    }
    out.sort();
    out
}

/// `bt validate` and `bt run -G` on a package written with `args`, with
/// every expectation checked; prints the times.
pub(crate) fn bapctools_accepts(name: &str, args: &[&str], expect_tle: bool) {
    let root = tempfile::tempdir().unwrap();
    let problem = root.path().join(name);
    package(&problem, args);
    let config = bt_config(root.path());
    // generators.yaml gives the same data: a copy without data/, `bt
    // generate` (generators/gen.cpp writes the inputs, the accepted
    // solution the answers; no `stonegame` on PATH, no Rust).
    // (In a directory of its own: BAPCtools warns about two problems with
    // one uuid side by side.)
    let copy_root = tempfile::tempdir().unwrap();
    let copy = copy_root.path().join(name);
    run_ok(Command::new("cp").arg("-r").arg(&problem).arg(&copy));
    fs::remove_dir_all(copy.join("data")).unwrap();
    // (BAPCtools also remembers each uuid's path in its configuration
    // directory: the copy gets its own.)
    let copy_config = bt_config(copy_root.path());
    let (ok, log, generate_secs) = bt(&copy, &copy_config, &["generate"]);
    assert!(ok, "bt generate failed on {name}:\n{log}");
    let _ = fs::remove_file(copy.join(".gitignore"));
    let (written, regenerated) = (tree(&problem), tree(&copy));
    let names =
        |t: &[(PathBuf, Vec<u8>)]| -> Vec<PathBuf> { t.iter().map(|(p, _)| p.clone()).collect() };
    assert_eq!(
        names(&written),
        names(&regenerated),
        "bt generate: other files\n{log}"
    );
    for ((path, a), (_, b)) in written.iter().zip(&regenerated) {
        assert!(a == b, "bt generate changed {}", path.display());
    }

    let (ok, log, validate_secs) = bt(&problem, &config, &["validate"]);
    assert!(ok, "bt validate failed on {name}:\n{log}");
    assert!(!log.contains("WARNING") && !log.contains("ERROR"), "{log}");

    let (ok, log, run_secs) = bt(&problem, &config, &["run", "-G"]);
    assert!(ok, "bt run failed on {name}:\n{log}");
    let subs = submissions(&problem);
    assert_eq!(
        subs.iter().any(|(_, v)| *v == "TLE"),
        expect_tle,
        "{subs:?}"
    );
    for (sub, verdict) in &subs {
        let line = log
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{sub}:")))
            .unwrap_or_else(|| panic!("bt run did not report {sub}:\n{log}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words.get(1), Some(verdict), "{sub}: {line}\n{log}");
    }

    let (ok, log, zip_secs) = bt(&problem, &config, &["zip", "-G", "--kattis"]);
    assert!(ok, "bt zip failed on {name}:\n{log}");
    let zip = problem.join(format!("{name}.zip"));
    let listing = run_ok(
        Command::new("python3")
            .args([
                "-c",
                "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
            ])
            .arg(&zip),
    );
    let listing = String::from_utf8_lossy(&listing.stdout);
    for needed in [
        "problem.yaml",
        "statement/problem.en.tex",
        "data/sample/001-sample.in",
        "data/secret/01-random-small.in",
        "input_validators/validate.cpp",
        "solution/solution.en.tex",
    ] {
        assert!(
            listing.contains(needed),
            "{needed} not in {name}.zip:\n{listing}"
        );
    }
    assert!(listing.contains("output_validator/"), "{listing}");

    // The legacy format (what DOMjudge before the 2023-07 format imports):
    // BAPCtools converts the package offline.
    let (ok, log, legacy_secs) = bt(&problem, &config, &["zip", "-G", "--kattis", "--legacy"]);
    assert!(ok, "bt zip --legacy failed on {name}:\n{log}");
    let legacy = run_ok(
        Command::new("python3")
            .args([
                "-c",
                "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
                 print('\\n'.join(z.namelist())); print(z.read(sys.argv[2]).decode())",
            ])
            .arg(&zip)
            .arg(format!("{name}/problem.yaml")),
    );
    let legacy = String::from_utf8_lossy(&legacy.stdout);
    for needed in [
        "/problem_statement/problem.en.tex",
        "/output_validators/",
        "/input_validators/validate.cpp",
        "/data/secret/01-random-small.in",
        "/problem_statement/solution.en.tex",
        "validation: custom",
    ] {
        assert!(
            legacy.contains(needed),
            "{needed} not in the legacy zip:\n{legacy}"
        );
    }
    assert_eq!(
        legacy.contains("validation: custom interactive"),
        name.contains("interactive"),
        "{legacy}"
    );
    report!(
        "{name}: bt validate {validate_secs:.1} s, bt run {run_secs:.1} s, bt generate \
         {generate_secs:.1} s, bt zip {zip_secs:.1} s, bt zip --legacy {legacy_secs:.1} s \
         ({} submissions)",
        subs.len()
    );
}

const SMALL: &[&str] = &[
    "--cases",
    "6",
    "--max-n",
    "12",
    "--max-a",
    "20",
    "--seed",
    "3",
    "--time-limit",
    "1",
];

#[test]
fn bapctools_accepts_the_batch_package() {
    // With every credit flag: BAPCtools reads them without a warning.
    let mut args = SMALL.to_vec();
    args.extend([
        "--author",
        "Ada Lovelace <ada@example.org>",
        "--author",
        "Alan Turing",
        "--source",
        "NWERC 2026",
        "--rights-owner",
        "The Jury",
        "--license",
        "cc by-sa",
    ]);
    bapctools_accepts("stonegame", &args, true);
}

#[test]
fn bapctools_accepts_the_remoteness_package() {
    // a_i up to 2^63 - 1 (the default of --task remoteness), so the
    // overflow file is written and the 64-bit submission fails on it.
    let args = [
        "--task",
        "remoteness",
        "--cases",
        "6",
        "--max-n",
        "12",
        "--seed",
        "3",
        "--time-limit",
        "1",
    ];
    bapctools_accepts("stonegameremoteness", &args, true);
}

#[test]
fn bapctools_accepts_the_leftmost_package() {
    let mut args = SMALL.to_vec();
    args.extend(["--variant", "leftmost"]);
    bapctools_accepts("stonegameleftmost", &args, true);
}

#[test]
fn bapctools_accepts_the_interactive_package() {
    let mut args = SMALL.to_vec();
    args.push("--interactive");
    bapctools_accepts("stonegameinteractive", &args, false);
}

#[test]
fn bapctools_accepts_the_leftmost_interactive_package() {
    let mut args = SMALL.to_vec();
    args.extend(["--interactive", "--variant", "leftmost"]);
    bapctools_accepts("stonegameinteractiveleftmost", &args, false);
}

/// Every file of a directory tree, by relative path.
fn tree(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn same_seed_same_bytes_other_seed_other_data() {
    let root = tempfile::tempdir().unwrap();
    for interactive in [false, true] {
        let mut args = vec!["--seed", "11", "--zip"];
        if interactive {
            args.push("--interactive");
        }
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        package(&a, &args);
        package(&b, &args);
        let (ta, tb) = (tree(&a), tree(&b));
        assert!(ta.len() > 40, "{} files", ta.len());
        assert_eq!(ta, tb, "the same seed gave different packages");
        assert_eq!(
            fs::read(root.path().join("a.zip")).unwrap(),
            fs::read(root.path().join("b.zip")).unwrap()
        );
        // The zip holds the same files, sorted, byte for byte, deflated, dated
        // 1980-01-01 00:00, 0755 for the scripts and 0644 otherwise
        // (python's zipfile reads it).
        let listing = run_ok(Command::new("python3").args([
            "-c",
            "import os, sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None\n\
             for i in z.infolist():\n\
             \x20   assert z.read(i) == open(os.path.join(sys.argv[2], i.filename), 'rb').read(), i\n\
             \x20   assert i.compress_type == zipfile.ZIP_DEFLATED and i.date_time == (1980, 1, 1, 0, 0, 0), i\n\
             \x20   assert i.external_attr >> 16 == (0o100755 if i.filename.endswith('.sh') else 0o100644), i\n\
             assert z.namelist() == sorted(z.namelist())\n\
             print('\\n'.join(sorted(z.namelist())))",
        ]).arg(root.path().join("a.zip")).arg(&a));
        let names: Vec<String> = ta
            .iter()
            .map(|(p, _)| p.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            String::from_utf8_lossy(&listing.stdout).trim(),
            names.join("\n")
        );
        // The defaults are the original limits.
        let yaml = String::from_utf8(fs::read(a.join("problem.yaml")).unwrap()).unwrap();
        assert!(
            yaml.contains("--cases 10 --max-n 1000 --max-a 1000000000"),
            "{yaml}"
        );
        assert!(yaml.contains("problem_format_version: 2025-09"), "{yaml}");
        let c = root.path().join("c");
        args[1] = "12";
        package(&c, &args);
        let tc = tree(&c);
        let secret = |t: &[(PathBuf, Vec<u8>)]| -> Vec<Vec<u8>> {
            t.iter()
                .filter(|(p, _)| {
                    p.starts_with("data/secret") && p.to_string_lossy().contains("random")
                })
                .map(|(_, b)| b.clone())
                .collect()
        };
        assert_ne!(
            secret(&ta),
            secret(&tc),
            "another seed gave the same random data"
        );
        for d in ["a", "b", "c", "a.zip", "b.zip", "c.zip"] {
            let p = root.path().join(d);
            if p.is_dir() {
                fs::remove_dir_all(p).unwrap();
            } else {
                fs::remove_file(p).unwrap();
            }
        }
    }
}

#[test]
fn the_files_follow_the_flags() {
    let root = tempfile::tempdir().unwrap();
    let read = |p: &Path| fs::read_to_string(p).unwrap();
    // The defaults: the original problem, the classic sample row.
    let batch = root.path().join("batch");
    package(&batch, &[]);
    let sample = read(&batch.join("data/sample/001-sample.in"));
    assert!(sample.contains("4\n3 1 9 4\n"), "{sample}");
    assert!(read(&batch.join("data/sample/001-sample.ans")).starts_with("0\n"));
    let yaml = read(&batch.join("problem.yaml"));
    for needed in ["type: pass-fail", "time_limit: 2\n"] {
        assert!(yaml.contains(needed), "{needed}: {yaml}");
    }
    // (Credits only as given: package_setter.)
    assert!(!yaml.contains("credits:") && !yaml.contains("rights_owner:"));
    let tex = read(&batch.join("statement/problem.en.tex"));
    assert!(tex.contains("\\problemname{Stones at Both Ends}"), "{tex}");
    assert!(tex.contains("1 \\le T \\le 10$") && tex.contains("1 \\le n \\le 1000$"));
    assert!(tex.contains("1 \\le a_i \\le 10^9$"), "{tex}");
    assert!(tex.contains("is lost for the first player"), "{tex}");
    let validator = read(&batch.join("input_validators/validate.cpp"));
    assert!(validator.contains("MAX_N = 1000ULL"), "{validator}");
    // Other flags.
    let other = root.path().join("other");
    package(
        &other,
        &[
            "--interactive",
            "--variant",
            "leftmost",
            "--cases",
            "7",
            "--max-n",
            "33",
            "--max-a",
            "44",
            "--time-limit",
            "3",
            "--title",
            "Piles & \"Stones\"",
        ],
    );
    let yaml = read(&other.join("problem.yaml"));
    assert!(
        yaml.contains("type: interactive") && yaml.contains("time_limit: 3\n"),
        "{yaml}"
    );
    assert!(yaml.contains(r#"name: "Piles & \"Stones\"""#), "{yaml}");
    let tex = read(&other.join("statement/problem.en.tex"));
    assert!(tex.contains("\\problemname{Piles \\& \"Stones\"}"), "{tex}");
    assert!(tex.contains("1 \\le T \\le 7$") && tex.contains("1 \\le n \\le 33$"));
    assert!(tex.contains("leftmost pile of the row only") && tex.contains("\\texttt{FIRST} there"));
    assert!(read(&other.join("output_validator/interactor.cpp")).contains("LEFTMOST = 1;"));
    // The remoteness task: its defaults, limits written as powers, its
    // own checker and submissions.
    let rem = root.path().join("remoteness");
    package(&rem, &["--task", "remoteness"]);
    let yaml = read(&rem.join("problem.yaml"));
    assert!(
        yaml.contains(
            "--task remoteness --variant two-ends --cases 10 --max-n 100 \
                       --max-a 9223372036854775807"
        ),
        "{yaml}"
    );
    let tex = read(&rem.join("statement/problem.en.tex"));
    assert!(
        tex.contains("\\problemname{How Long at Both Ends}"),
        "{tex}"
    );
    assert!(tex.contains("1 \\le n \\le 100$") && tex.contains("1 \\le a_i \\le 2^{63}-1$"));
    assert!(
        tex.contains("remoteness") && tex.contains("\\texttt{3 1 2 3}"),
        "{tex}"
    );
    assert!(read(&rem.join("data/sample/001-sample.ans")).starts_with("8\n7\n12\n"));
    assert!(read(&rem.join("output_validator/checker.cpp")).contains("\"ok: \""));
    for f in [
        "13-heuristics.in",
        "14-overflow.in",
        "13-heuristics.ans",
        "14-overflow.ans",
    ] {
        assert!(rem.join("data/secret").join(f).is_file(), "{f}");
    }
    let tex = read(&root.path().join("other/statement/problem.en.tex"));
    assert!(tex.contains("1 \\le a_i \\le 44$"), "{tex}");
    for e in fs::read_dir(other.join("data/secret")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "ans") {
            assert_eq!(
                fs::metadata(&p).unwrap().len(),
                0,
                "{p:?}: interactive .ans not empty"
            );
        }
    }
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_non_empty_dir_is_refused_unless_force() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("pkg");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("notes.txt"), "mine").unwrap();
    let out = stonegame().arg("package").arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("--force"), "{}", text(&out));
    assert!(text(&out).contains("not empty"), "{}", text(&out));
    assert_eq!(listing(&dir), ["notes.txt"]);
    assert_eq!(listing(root.path()), ["pkg"], "something was left behind");
    package(&dir, &["--force", "--cases", "3", "--max-n", "5"]);
    assert!(!dir.join("notes.txt").exists());
    assert!(dir.join("problem.yaml").is_file());
    assert_eq!(listing(root.path()), ["pkg"]);
    // An existing empty directory is fine without --force.
    let empty = root.path().join("empty");
    fs::create_dir(&empty).unwrap();
    package(&empty, &["--cases", "3", "--max-n", "5"]);
    assert!(empty.join("problem.yaml").is_file());
}

#[test]
fn bad_flags_and_paths_are_errors_naming_them() {
    let root = tempfile::tempdir().unwrap();
    let file = root.path().join("afile");
    fs::write(&file, "x").unwrap();
    let cases: &[(&[&str], PathBuf, &str)] = &[
        (&["--max-n", "0"], root.path().join("p"), "--max-n"),
        (&["--max-n", "200001"], root.path().join("p"), "--max-n"),
        (
            &["--interactive", "--max-n", "5000"],
            root.path().join("p"),
            "--max-n",
        ),
        (&["--max-a", "0"], root.path().join("p"), "--max-a"),
        (
            &["--max-a", "9223372036854775808"],
            root.path().join("p"),
            "--max-a",
        ),
        (&["--cases", "0"], root.path().join("p"), "--cases"),
        (
            &["--time-limit", "0"],
            root.path().join("p"),
            "--time-limit",
        ),
        (&["--name", ""], root.path().join("p"), "--name"),
        (
            &["--task", "remoteness", "--interactive"],
            root.path().join("p"),
            "--task remoteness",
        ),
        (
            &["--task", "remoteness", "--variant", "leftmost"],
            root.path().join("p"),
            "--task remoteness",
        ),
        (
            &["--task", "remoteness", "--max-n", "2001"],
            root.path().join("p"),
            "--max-n",
        ),
        (&[], file.join("p"), "afile"),
        (&[], file.clone(), "not a directory"),
        (&[], root.path().join("missing").join("p"), "missing"),
    ];
    for (args, dir, needle) in cases {
        let out = stonegame()
            .arg("package")
            .args(*args)
            .arg(dir)
            .output()
            .unwrap();
        let msg = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?} {dir:?}: {msg}");
        assert!(msg.contains(needle), "{args:?}: `{needle}` not in {msg}");
        assert!(msg.starts_with("stonegame: error:"), "{msg}");
        assert_eq!(listing(root.path()), ["afile"], "{args:?} left something");
    }
    // An unknown variant is a usage error from clap, as in every other
    // command: exit code 2, the flag and the possible values named.
    let out = stonegame()
        .args(["package", "--variant", "middle"])
        .arg(root.path().join("p"))
        .output()
        .unwrap();
    let msg = text(&out);
    assert_eq!(out.status.code(), Some(2), "{msg}");
    assert!(msg.contains("'--variant <VARIANT>'"), "{msg}");
    assert!(
        msg.contains("[possible values: two-ends, leftmost]"),
        "{msg}"
    );
    assert_eq!(listing(root.path()), ["afile"], "--variant left something");
    // A directory that cannot be written (not as root, who may write anyway).
    let ro = root.path().join("ro");
    fs::create_dir(&ro).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    if fs::write(ro.join("probe"), "").is_err() {
        let out = stonegame()
            .arg("package")
            .arg(ro.join("p"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out).contains("cannot write"), "{}", text(&out));
        assert!(listing(&ro).is_empty());
    }
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o755)).unwrap();
}

// ---- the differential test: the package's C++ against the Rust judge ----

/// Compiles `src` (a file of the package) to `out`.
pub(crate) fn compile(src: &Path, out: &Path) {
    crate::common::require_gxx("the package's C++ programs are compiled and run");
    run_ok(
        Command::new("g++")
            .args(["-std=c++17", "-O2", "-o"])
            .arg(out)
            .arg(src),
    );
}

pub(crate) struct Programs {
    _root: tempfile::TempDir,
    pub(crate) dir: PathBuf,
    pub(crate) bin: PathBuf,
}

/// A package with the given flags and its C++ programs compiled.
pub(crate) fn programs(args: &[&str], sources: &[&str]) -> Programs {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    package(&dir, args);
    let bin = root.path().join("bin");
    fs::create_dir(&bin).unwrap();
    for src in sources {
        let name = Path::new(src).file_stem().unwrap();
        compile(&dir.join(src), &bin.join(name));
    }
    Programs {
        _root: root,
        dir,
        bin,
    }
}

fn gen_file(spec: &GenSpec) -> (Vec<u8>, Vec<u8>) {
    let (mut input, mut answers) = (Vec::new(), Vec::new());
    generate(spec, &mut input, Some(&mut answers)).unwrap();
    (input, answers)
}

fn run_with_input(program: &Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The families and limits the differential test draws from.
fn specs(variant: Variant, seeds: u64) -> Vec<GenSpec> {
    let mut v = Vec::new();
    for family in Family::ALL {
        for seed in 1..=seeds {
            let (cases, max_n, max_a) = match family {
                Family::Exhaustive => (400, 4, 4),
                Family::Max => (3, 300, 1_000_000_000),
                _ => (
                    30,
                    if seed % 2 == 0 { 6 } else { 60 },
                    [3, 10, 1_000_000_000][seed as usize % 3],
                ),
            };
            v.push(GenSpec {
                family,
                cases,
                max_n,
                max_a,
                seed,
                variant,
            });
        }
    }
    v
}

#[test]
fn cpp_solution_and_checker_agree_with_the_rust_judge() {
    let mut runs = 0;
    for (variant, flag) in [
        (Variant::TwoEnds, "two-ends"),
        (Variant::Leftmost, "leftmost"),
    ] {
        let p = programs(
            &["--variant", flag, "--cases", "400", "--max-n", "300"],
            &[
                "submissions/accepted/solution.cpp",
                "output_validator/checker.cpp",
                "submissions/wrong_answer/shortcut.cpp",
            ],
        );
        let feedback = p.bin.join("feedback");
        fs::create_dir(&feedback).unwrap();
        let mut shortcut_wrong = 0;
        for spec in specs(variant, 6) {
            let (input, answers) = gen_file(&spec);
            let out = run_with_input(&p.bin.join("solution"), &[], &input);
            assert!(out.status.success());
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&answers),
                "solution.cpp vs the solver on {spec:?}"
            );
            let shortcut = run_with_input(&p.bin.join("shortcut"), &[], &input);
            shortcut_wrong += usize::from(shortcut.stdout != answers);
            // The checker vs `check`: the truth, one case flipped, all ones,
            // one answer missing.
            let in_path = p.bin.join("t.in");
            let ans_path = p.bin.join("t.ans");
            fs::write(&in_path, &input).unwrap();
            fs::write(&ans_path, &answers).unwrap();
            let mut flipped = answers.clone();
            let k = 2 * (spec.seed as usize % (answers.len() / 2));
            flipped[k] ^= 1; // '0' <-> '1'
            let ones: Vec<u8> = answers
                .iter()
                .map(|&b| if b == b'0' { b'1' } else { b })
                .collect();
            let short = answers[..answers.len() - 2].to_vec();
            // Whitespace is free for the checker (Kattis default), not for
            // `check`: the truth on one line is accepted.
            let one_line: Vec<u8> = answers
                .iter()
                .map(|&b| if b == b'\n' { b' ' } else { b })
                .collect();
            let cpp = run_with_input(
                &p.bin.join("checker"),
                &[
                    in_path.to_str().unwrap(),
                    ans_path.to_str().unwrap(),
                    feedback.to_str().unwrap(),
                ],
                &one_line,
            );
            assert_eq!(cpp.status.code(), Some(42), "checker.cpp on one line");
            for output in [&answers, &flipped, &ones, &short] {
                let cpp = run_with_input(
                    &p.bin.join("checker"),
                    &[
                        in_path.to_str().unwrap(),
                        ans_path.to_str().unwrap(),
                        feedback.to_str().unwrap(),
                    ],
                    output,
                );
                let rust = check(&input[..], &output[..], variant);
                let rust_ok = rust.verdict == Verdict::Accepted;
                assert_eq!(
                    cpp.status.code(),
                    Some(if rust_ok { 42 } else { 43 }),
                    "checker.cpp vs check on {spec:?}: {}",
                    rust.message
                );
                assert!(fs::read_to_string(feedback.join("judgemessage.txt")).is_ok());
                runs += 1;
            }
        }
        if variant == Variant::TwoEnds {
            assert!(shortcut_wrong > 0, "the shortcut was never wrong");
        }
    }
    report!("{runs} checker runs agree with `stonegame check`");
}

/// `stonegame gen --task remoteness` and its C++ against the Rust core:
/// the accepted solution equals the expected answers on every family, the
/// checker compares them exactly, and each wrong answer fails where it
/// should (the heuristics on the `heuristics` file, the 64-bit one on the
/// `overflow` file and nowhere a remoteness fits 64 bits).
#[test]
fn cpp_remoteness_solution_and_checker_agree_with_the_rust_core() {
    let p = programs(
        &["--task", "remoteness", "--cases", "60", "--max-n", "60"],
        &[
            "submissions/accepted/solution.cpp",
            "output_validator/checker.cpp",
            "submissions/wrong_answer/one_stone.cpp",
            "submissions/wrong_answer/greedy_winner.cpp",
            "submissions/wrong_answer/overflow_64.cpp",
        ],
    );
    let feedback = p.bin.join("feedback");
    fs::create_dir(&feedback).unwrap();
    let (in_path, ans_path) = (p.bin.join("t.in"), p.bin.join("t.ans"));
    let checker = |output: &[u8]| -> (i32, String) {
        let out = run_with_input(
            &p.bin.join("checker"),
            &[
                in_path.to_str().unwrap(),
                ans_path.to_str().unwrap(),
                feedback.to_str().unwrap(),
            ],
            output,
        );
        let msg = fs::read_to_string(feedback.join("judgemessage.txt")).unwrap_or_default();
        (out.status.code().unwrap_or(-1), msg)
    };
    let mut files = Vec::new();
    for spec in specs(Variant::TwoEnds, 3) {
        let spec = GenSpec {
            cases: spec.cases.min(60),
            max_n: spec.max_n.min(60),
            ..spec
        };
        let spec = match spec.family {
            Family::Exhaustive => GenSpec { cases: 400, ..spec },
            // Piles near 2^63: remoteness past 2^64 - 1.
            Family::Max if spec.seed == 3 => GenSpec {
                max_a: (1 << 63) - 1,
                ..spec
            },
            _ => spec,
        };
        let (mut input, mut answers) = (Vec::new(), Vec::new());
        generate_task(&spec, Task::Remoteness, &mut input, Some(&mut answers)).unwrap();
        files.push((format!("{spec:?}"), input, answers));
    }
    let dir = p.dir.join("data/secret");
    for kind in ["-heuristics", "-overflow"] {
        let name = listing(&dir)
            .into_iter()
            .find_map(|f| {
                f.strip_suffix(".in")
                    .filter(|n| n.ends_with(kind))
                    .map(str::to_string)
            })
            .unwrap_or_else(|| panic!("no {kind} file"));
        let read = |ext: &str| fs::read(dir.join(format!("{name}.{ext}"))).unwrap();
        files.push((name.clone(), read("in"), read("ans")));
    }
    let (mut one_stone_wrong, mut greedy_wrong, mut overflow_wrong) = (0, 0, 0);
    for (name, input, answers) in &files {
        fs::write(&in_path, input).unwrap();
        fs::write(&ans_path, answers).unwrap();
        let out = run_with_input(&p.bin.join("solution"), &[], input);
        assert!(out.status.success(), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(answers),
            "solution.cpp vs the Rust core on {name}"
        );
        let text = String::from_utf8_lossy(answers).into_owned();
        let cases = text.lines().count();
        assert_eq!(checker(answers), (42, format!("ok: {cases} cases\n")));
        // Whitespace is free; one more ply, one fewer answer, a leading
        // zero, a sign: wrong.
        assert_eq!(checker(text.replace('\n', " ").as_bytes()).0, 42);
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let last = lines.len() - 1;
        let bumped: u128 = lines[last].parse::<u128>().unwrap() + 1;
        lines[last] = bumped.to_string();
        let (code, msg) = checker(format!("{}\n", lines.join("\n")).as_bytes());
        assert_eq!(code, 43, "{name}");
        assert!(
            msg.starts_with(&format!("wrong answer case {cases}:")),
            "{msg}"
        );
        for bad in [
            text[..text.trim_end().rfind('\n').map_or(0, |k| k + 1)].to_string(),
            format!("0{text}"),
            format!("+{text}"),
            format!("{text}1\n"),
        ] {
            assert_eq!(checker(bad.as_bytes()).0, 43, "{name}: {bad:?}");
        }
        let wrong = |prog: &str| run_with_input(&p.bin.join(prog), &[], input).stdout != *answers;
        one_stone_wrong += usize::from(wrong("one_stone"));
        greedy_wrong += usize::from(wrong("greedy_winner"));
        let overflows = text.lines().any(|l| l.parse::<u64>().is_err());
        assert_eq!(wrong("overflow_64"), overflows, "overflow_64.cpp on {name}");
        overflow_wrong += usize::from(overflows);
        if name.ends_with("-heuristics") {
            assert!(wrong("one_stone") && wrong("greedy_winner"), "{name}");
        }
    }
    assert!(overflow_wrong >= 2, "{overflow_wrong}");
    report!(
        "remoteness: solution.cpp equals the Rust core on {} files; wrong on them: one_stone \
         {one_stone_wrong}, greedy_winner {greedy_wrong}, overflow_64 {overflow_wrong}",
        files.len()
    );
}

/// The strict reference of the input format: parse, check the limits, and
/// write back canonically; valid iff that gives the same bytes.
fn reference_valid(bytes: &[u8], max_t: u64, max_n: u64, max_a: u64) -> bool {
    let Ok(s) = std::str::from_utf8(bytes) else {
        return false;
    };
    let mut lines = s.split('\n');
    let num = |t: &str, max: u64| t.parse::<u64>().ok().filter(|&v| (1..=max).contains(&v));
    let Some(t) = lines.next().and_then(|l| num(l, max_t)) else {
        return false;
    };
    let mut canonical = format!("{t}\n");
    for _ in 0..t {
        let Some(n) = lines.next().and_then(|l| num(l, max_n)) else {
            return false;
        };
        let Some(row) = lines.next() else {
            return false;
        };
        let piles: Option<Vec<u64>> = row.split(' ').map(|p| num(p, max_a)).collect();
        let Some(piles) = piles.filter(|p| p.len() as u64 == n) else {
            return false;
        };
        let piles: Vec<String> = piles.iter().map(u64::to_string).collect();
        canonical.push_str(&format!("{n}\n{}\n", piles.join(" ")));
    }
    canonical.as_bytes() == bytes
}

#[test]
fn cpp_input_validator_agrees_with_a_strict_reference() {
    let (max_t, max_n, max_a) = (40u64, 60u64, 1_000_000_000u64);
    let p = programs(
        &["--cases", "40", "--max-n", "60"],
        &["input_validators/validate.cpp"],
    );
    let validator = p.bin.join("validate");
    let mut rng = ChaCha8Rng::seed_from_u64(20);
    let (mut accepted, mut rejected) = (0, 0);
    let one = |bytes: &[u8]| {
        let out = run_with_input(&validator, &[], bytes);
        let expected = reference_valid(bytes, max_t, max_n, max_a);
        assert_eq!(
            out.status.code(),
            Some(if expected { 42 } else { 43 }),
            "validate.cpp on {:?}: {}",
            String::from_utf8_lossy(bytes),
            text(&out)
        );
        if !expected {
            let msg = String::from_utf8_lossy(&out.stderr);
            assert!(
                msg.starts_with("line ") && msg.contains(", column "),
                "{msg}"
            );
        }
        expected
    };
    // Every invalid input of the package, and every generated valid file.
    for e in fs::read_dir(p.dir.join("data/invalid_input")).unwrap() {
        let bytes = fs::read(e.unwrap().path()).unwrap();
        assert!(!one(&bytes), "an invalid input is valid for the reference");
    }
    for spec in specs(Variant::TwoEnds, 3) {
        let spec = GenSpec {
            cases: spec.cases.min(max_t),
            max_n: spec.max_n.min(max_n),
            max_a: spec.max_a.min(max_a),
            ..spec
        };
        let spec = if spec.family == Family::Exhaustive {
            GenSpec {
                max_n: 2,
                max_a: 5,
                ..spec
            }
        } else {
            spec
        };
        let (input, _) = gen_file(&spec);
        assert!(one(&input));
        accepted += 1;
    }
    // Random edits of small valid files.
    let alphabet = b"0123456789 \n\r\t+-x\xff";
    for seed in 0..40 {
        let spec = GenSpec {
            family: Family::Random,
            cases: 3,
            max_n: 4,
            max_a: [9, 1_000_000_000][seed % 2],
            seed: seed as u64,
            variant: Variant::TwoEnds,
        };
        let (input, _) = gen_file(&spec);
        for _ in 0..12 {
            let mut b = input.clone();
            let at = rng.random_range(0..b.len());
            match rng.random_range(0..3) {
                0 => b[at] = alphabet[rng.random_range(0..alphabet.len())],
                1 => b.insert(at, alphabet[rng.random_range(0..alphabet.len())]),
                _ => {
                    b.remove(at);
                }
            }
            if one(&b) {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
    }
    assert!(rejected > 200 && accepted > 20, "{accepted} {rejected}");
    report!("validate.cpp agrees with the reference: {accepted} valid, {rejected} invalid");
}

/// Plays `input` with the C++ interactor against `program`, the judge
/// system's way (the interactor's stdin is the program's stdout and the
/// other way round); the interactor's exit code.
pub(crate) fn play_cpp(interactor: &Path, input: &Path, feedback: &Path, program: &[&str]) -> i32 {
    let mut prog = Command::new(program[0])
        .args(&program[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let to_prog = prog.stdin.take().unwrap();
    let from_prog = prog.stdout.take().unwrap();
    let status = Command::new(interactor)
        .arg(input)
        .arg("/dev/null")
        .arg(feedback)
        .stdin(Stdio::from(from_prog))
        .stdout(Stdio::from(to_prog))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    let _ = prog.kill();
    let _ = prog.wait();
    status.code().unwrap_or(-1)
}

fn play_rust(input: &Path, feedback: &Path, variant: &str, program: &[&str]) -> i32 {
    let out = stonegame()
        .args(["interact", "--format", "kattis", "--variant", variant])
        .arg(input)
        .arg("/dev/null")
        .arg(feedback)
        .arg("--")
        .args(program)
        .output()
        .unwrap();
    out.status.code().unwrap_or(-1)
}

#[test]
fn cpp_interactor_agrees_with_stonegame_interact() {
    let mut games = 0;
    for (variant, flag) in [
        (Variant::TwoEnds, "two-ends"),
        (Variant::Leftmost, "leftmost"),
    ] {
        let p = programs(
            &[
                "--interactive",
                "--variant",
                flag,
                "--cases",
                "30",
                "--max-n",
                "60",
            ],
            &[
                "output_validator/interactor.cpp",
                "submissions/accepted/perfect.cpp",
                "submissions/wrong_answer/losing_seat.cpp",
            ],
        );
        let feedback = p.bin.join("feedback");
        fs::create_dir(&feedback).unwrap();
        let perfect = p.bin.join("perfect");
        let losing = p.bin.join("losing_seat");
        let random = p.dir.join("submissions/wrong_answer/random_player.py");
        let protocol = p.dir.join("submissions/wrong_answer/protocol_violation.py");
        let s = |p: &Path| p.to_str().unwrap().to_string();
        let players: [(Vec<String>, bool); 4] = [
            (vec![s(&perfect)], true),
            (vec![s(&losing)], false),
            (vec!["python3".into(), s(&random)], false),
            (vec!["python3".into(), s(&protocol)], false),
        ];
        for spec in specs(variant, 2) {
            if spec.family == Family::Exhaustive || spec.max_n > 60 {
                continue;
            }
            let (input, answers) = gen_file(&spec);
            let in_path = p.bin.join("g.in");
            fs::write(&in_path, &input).unwrap();
            // The random player always sits FIRST: sure to lose once a game
            // is a first-player loss.
            let has_loss = answers.contains(&b'0');
            for (player, wins) in &players {
                let args: Vec<&str> = player.iter().map(String::as_str).collect();
                if args.len() == 2 && args[1].ends_with("random_player.py") && !has_loss {
                    continue;
                }
                let expected = if *wins { 42 } else { 43 };
                let cpp = play_cpp(&p.bin.join("interactor"), &in_path, &feedback, &args);
                assert_eq!(cpp, expected, "interactor.cpp, {args:?} on {spec:?}");
                let rust = play_rust(&in_path, &feedback, flag, &args);
                assert_eq!(rust, expected, "stonegame interact, {args:?} on {spec:?}");
                games += spec.cases;
            }
        }
        // The contestants' testing tool agrees on the sample.
        let tool = p.dir.join("attachments/testing_tool.py");
        let sample = p.dir.join("data/sample/001-sample.in");
        for (player, code) in [(&perfect, 0), (&losing, 43)] {
            let out = Command::new("python3")
                .arg(&tool)
                .arg(&sample)
                .arg("--")
                .arg(player)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(code),
                "testing_tool.py: {}",
                text(&out)
            );
        }
        // The perfect player wins every file of the families against the C++
        // judge.
        let mut rows = Vec::new();
        for spec in specs(variant, 2) {
            if matches!(spec.family, Family::Exhaustive | Family::Max) {
                continue;
            }
            let (input, _) = gen_file(&spec);
            rows.push(input);
        }
        for input in rows {
            let in_path = p.bin.join("r.in");
            fs::write(&in_path, &input).unwrap();
            assert_eq!(
                play_cpp(
                    &p.bin.join("interactor"),
                    &in_path,
                    &feedback,
                    &[perfect.to_str().unwrap()]
                ),
                42
            );
        }
    }
    report!("{games} games agree between interactor.cpp and `stonegame interact`");
}

#[test]
fn colours_are_stripped_from_bt_logs() {
    let coloured = "\x1b[36maccepted/a.cpp\x1b[0m:  \x1b[32m AC 0.003s\x1b[0m \x1b[2m@ x\x1b[0m";
    assert_eq!(
        without_ansi_colours(coloured),
        "accepted/a.cpp:   AC 0.003s @ x"
    );
}
