//! `stonegame package --interactive --tempo`: BAPCtools runs the written
//! package (every submission its verdict: the tempo player accepted, the
//! first-winning-move player `perfect.cpp` a wrong answer; `bt generate`
//! rewrites the `.interaction` sample byte for byte), and the package's C++
//! is held to the Rust core's exact remoteness: the interactor's moves are
//! `remoteness::best_move` and its games last the remoteness, `tempo.cpp`'s
//! moves are `best_move` too, and the interactor rejects the first winning
//! move exactly when its game is longer than the remoteness, with the
//! plies of both in its message. Without `--tempo` nothing changes (the
//! other package tests); the flag's refusals are checked here.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use stonegame::core::remoteness::{best_move, remoteness};
use stonegame::core::{MAX_PILES, Move, Side, ValidRow, Variant, winning_moves};

use super::package_bapctools::{bapctools_accepts, package, play_cpp, programs, stonegame, text};

#[test]
fn bapctools_accepts_the_tempo_package() {
    let args = [
        "--interactive",
        "--tempo",
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
    bapctools_accepts("stonegameinteractivetempo", &args, false);
}

/// Every row of 1 to 4 piles of 1 to 4 stones, then random rows of up to
/// 12 piles of up to 20 stones.
fn rows() -> Vec<Vec<u64>> {
    let mut rows = Vec::new();
    for n in 1..=4u32 {
        for code in 0..4u64.pow(n) {
            let mut c = code;
            let row = (0..n)
                .map(|_| {
                    let a = c % 4 + 1;
                    c /= 4;
                    a
                })
                .collect();
            rows.push(row);
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2009);
    for _ in 0..60 {
        let n = rng.random_range(1..=12);
        let a = rng.random_range(1..=20);
        rows.push((0..n).map(|_| rng.random_range(1..=a)).collect());
    }
    rows
}

fn oj(rows: &[Vec<u64>]) -> String {
    let mut s = format!("{}\n", rows.len());
    for r in rows {
        let piles: Vec<String> = r.iter().map(u64::to_string).collect();
        s.push_str(&format!("{}\n{}\n", r.len(), piles.join(" ")));
    }
    s
}

fn valid(live: &[u64]) -> ValidRow<'_> {
    ValidRow::new(live, MAX_PILES).unwrap()
}

/// A move as the protocol writes it.
fn line_of(live: &[u64], m: &Move) -> String {
    let side = if live.len() == 1 || m.side == Side::Left {
        'L'
    } else {
        'R'
    };
    format!("{side} {}", m.take)
}

/// Plays the protocol line `line` on `live`.
fn apply(live: &mut Vec<u64>, line: &str) {
    let (side, k) = line.split_once(' ').unwrap();
    let k: u64 = k.parse().unwrap();
    let at = if side == "L" { 0 } else { live.len() - 1 };
    live[at] -= k;
    if live[at] == 0 {
        live.remove(at);
    }
}

/// The perfect player with tempo: the core's best move.
fn tempo_move(live: &[u64]) -> String {
    line_of(live, &best_move(&valid(live), Variant::TwoEnds))
}

struct Pipe {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Pipe {
    fn start(cmd: &mut Command) -> Pipe {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        Pipe { child, to, from }
    }

    fn say(&mut self, line: &str) {
        writeln!(self.to, "{line}").unwrap();
        self.to.flush().unwrap();
    }

    fn hear(&mut self) -> String {
        let mut line = String::new();
        self.from.read_line(&mut line).unwrap();
        line.trim_end().to_string()
    }
}

#[test]
fn cpp_tempo_programs_agree_with_the_rust_core() {
    let p = programs(
        &["--interactive", "--tempo", "--max-n", "12"],
        &[
            "output_validator/interactor.cpp",
            "submissions/accepted/tempo.cpp",
            "submissions/wrong_answer/perfect.cpp",
        ],
    );
    let feedback = p.bin.join("feedback");
    fs::create_dir(&feedback).unwrap();
    let rows = rows();
    let input = p.bin.join("all.in");
    fs::write(&input, oj(&rows)).unwrap();
    let message = || fs::read_to_string(feedback.join("judgemessage.txt")).unwrap();

    // The interactor, against the core's tempo player: it writes the
    // core's best move every time, and every game lasts its remoteness.
    let mut judge = Pipe::start(
        Command::new(p.bin.join("interactor"))
            .arg(&input)
            .arg("/dev/null")
            .arg(&feedback),
    );
    assert_eq!(judge.hear(), rows.len().to_string());
    let mut total = 0u128;
    for row in &rows {
        assert_eq!(judge.hear(), row.len().to_string());
        judge.hear();
        let first = !winning_moves(&valid(row), Variant::TwoEnds).is_empty();
        judge.say(if first { "FIRST" } else { "SECOND" });
        let (mut live, mut mine) = (row.clone(), first);
        let mut plies = 0u128;
        while !live.is_empty() {
            let expected = tempo_move(&live);
            let line = if mine {
                judge.say(&expected);
                expected
            } else {
                let heard = judge.hear();
                assert_eq!(
                    heard, expected,
                    "the judge's move in {live:?} (row {row:?})"
                );
                heard
            };
            apply(&mut live, &line);
            mine = !mine;
            plies += 1;
        }
        assert_eq!(plies, remoteness(&valid(row), Variant::TwoEnds), "{row:?}");
        total += plies;
    }
    drop(judge.to);
    assert_eq!(
        judge.child.wait().unwrap().code(),
        Some(42),
        "{}",
        message()
    );
    assert!(
        message().contains(&format!("{total} plies, each game within its remoteness")),
        "{}",
        message()
    );

    // tempo.cpp, against the core's tempo judge: the winning seat and the
    // core's best move every time.
    let mut player = Pipe::start(&mut Command::new(p.bin.join("tempo")));
    player.say(&rows.len().to_string());
    for row in &rows {
        player.say(&row.len().to_string());
        let piles: Vec<String> = row.iter().map(u64::to_string).collect();
        player.say(&piles.join(" "));
        let first = !winning_moves(&valid(row), Variant::TwoEnds).is_empty();
        assert_eq!(player.hear(), if first { "FIRST" } else { "SECOND" });
        let (mut live, mut theirs) = (row.clone(), first);
        while !live.is_empty() {
            let expected = tempo_move(&live);
            let line = if theirs {
                let heard = player.hear();
                assert_eq!(
                    heard, expected,
                    "tempo.cpp's move in {live:?} (row {row:?})"
                );
                heard
            } else {
                player.say(&expected);
                expected
            };
            apply(&mut live, &line);
            theirs = !theirs;
        }
    }
    drop(player.to);
    assert!(player.child.wait().unwrap().success());

    // perfect.cpp (the first winning move, left first) against the
    // interactor, one row at a time: rejected exactly when its game, against
    // the longest resistance, outlasts the remoteness.
    let (mut slow, mut fast) = (0, 0);
    let one = p.bin.join("one.in");
    let perfect = p.bin.join("perfect");
    for row in &rows {
        let (mut live, mut mine) = (
            row.clone(),
            !winning_moves(&valid(row), Variant::TwoEnds).is_empty(),
        );
        let mut plies = 0u128;
        while !live.is_empty() {
            let line = if mine {
                let m = &winning_moves(&valid(&live), Variant::TwoEnds)[0];
                line_of(&live, m)
            } else {
                tempo_move(&live)
            };
            apply(&mut live, &line);
            mine = !mine;
            plies += 1;
        }
        let rem = remoteness(&valid(row), Variant::TwoEnds);
        fs::write(&one, oj(std::slice::from_ref(row))).unwrap();
        let code = play_cpp(
            &p.bin.join("interactor"),
            &one,
            &feedback,
            &[perfect.to_str().unwrap()],
        );
        if plies > rem {
            // Never below the limits where a row of SLOW_WINS fits.
            let most = *row.iter().max().unwrap();
            assert!(
                row.len() >= 4 && most >= 2 || row.len() >= 3 && most >= 3,
                "{row:?}"
            );
            slow += 1;
            assert_eq!(code, 43, "{row:?}: {}", message());
            assert!(
                message().contains(&format!(
                    "won, but too slowly: took {plies} plies, perfect play takes {rem}"
                )),
                "{row:?}: {}",
                message()
            );
        } else {
            fast += 1;
            assert_eq!(code, 42, "{row:?}: {}", message());
        }
    }
    assert!(slow > 5 && fast > 100, "{slow} slow, {fast} fast");
    eprintln!(
        "{} rows: the C++ tempo interactor and tempo.cpp play the core's best moves; \
         perfect.cpp too slow on {slow}",
        rows.len()
    );
}

#[test]
fn tempo_refusals_name_the_flag() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    for (args, needle) in [
        (&["--tempo"][..], "give --interactive too"),
        (
            &["--interactive", "--tempo", "--variant", "leftmost"],
            "--variant leftmost is not supported",
        ),
        (
            &["--tempo", "--task", "remoteness"],
            "--task remoteness is not supported",
        ),
        (
            &["--interactive", "--tempo", "--max-n", "101"],
            "--max-n 101 is larger than 100",
        ),
        (
            &[
                "--interactive",
                "--tempo",
                "--max-n",
                "100",
                "--max-a",
                "101",
            ],
            "--max-n 100 times --max-a 101 is larger than 10000",
        ),
    ] {
        let out = stonegame()
            .arg("package")
            .args(args)
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(text(&out).contains(needle), "{args:?}: {}", text(&out));
        assert!(!Path::new(&dir).exists());
    }
}

#[test]
fn the_statement_and_sample_ask_for_tempo() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("p");
    package(&dir, &["--interactive", "--tempo"]);
    let read = |rel: &str| fs::read_to_string(dir.join(rel)).unwrap();
    let tex = read("statement/problem.en.tex");
    for needle in [
        "\\problemname{Beat the Judge Fast at Both Ends}",
        "each in the fewest moves possible",
        "A game counts only if you win it\nwithin the remoteness of its row.",
        "makes a move\nthat wins as fast as possible, and otherwise a move that resists as long as\npossible",
        "The row \\texttt{1 5 5} is won by the first player in 5 moves",
        "$1 \\le a_i \\le 20$",
    ] {
        assert!(tex.contains(needle), "no `{needle}` in\n{tex}");
    }
    let yaml = read("problem.yaml");
    assert!(
        yaml.contains("(two-ends game, interactive, tempo)"),
        "{yaml}"
    );
    assert!(
        yaml.contains("stonegame package --interactive --tempo --variant two-ends --cases 10 --max-n 20 --max-a 20"),
        "{yaml}"
    );
    assert!(
        read("generators/generators.yaml").contains("solution: /submissions/accepted/tempo.cpp")
    );
    assert!(dir.join("submissions/wrong_answer/perfect.cpp").exists());
    assert!(!dir.join("submissions/accepted/perfect.cpp").exists());
    // The sample's transcript: every game lasts exactly its remoteness, and
    // 1 5 5 starts with R 4.
    let transcript = read("data/sample/001-sample.interaction");
    let lines: Vec<&str> = transcript.lines().collect();
    let sample = read("data/sample/001-sample.in");
    let mut input = sample.lines().skip(1);
    let mut at = 1;
    while let (Some(_), Some(piles)) = (input.next(), input.next()) {
        let row: Vec<u64> = piles.split(' ').map(|p| p.parse().unwrap()).collect();
        assert_eq!(lines[at + 1], format!("<{piles}"));
        at += 3; // n, piles, seat
        let mut live = row.clone();
        let mut plies = 0u128;
        while !live.is_empty() {
            apply(&mut live, &lines[at][1..]);
            at += 1;
            plies += 1;
        }
        assert_eq!(plies, remoteness(&valid(&row), Variant::TwoEnds), "{row:?}");
        if row == [1, 5, 5] {
            assert_eq!(lines[at - plies as usize], ">R 4");
        }
    }
    assert_eq!(at, lines.len());
    // The contestants' testing tool runs the sample against tempo.cpp, and
    // says what it does not check.
    let bin = root.path().join("tempo");
    super::package_bapctools::compile(&dir.join("submissions/accepted/tempo.cpp"), &bin);
    crate::common::require_python3("the package's testing tool is Python");
    let out = Command::new("python3")
        .arg(dir.join("attachments/testing_tool.py"))
        .arg(dir.join("data/sample/001-sample.in"))
        .arg("--")
        .arg(&bin)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("OK: every game won (not checked here: within its remoteness)"),
        "{}",
        text(&out)
    );
    assert!(
        read("attachments/testing_tool.py")
            .contains("It neither plays\n# with tempo nor checks it")
    );
}

/// The part of `text` from the line starting `from` to the line before the
/// one starting `to`.
fn between<'a>(text: &'a str, from: &str, to: &str) -> &'a str {
    let start = text.find(from).unwrap_or_else(|| panic!("no `{from}`"));
    let end = start
        + text[start..]
            .find(to)
            .unwrap_or_else(|| panic!("no `{to}`"));
    &text[start..end]
}

#[test]
fn the_tempo_sources_copy_theirs_verbatim() {
    // (Judge systems compile each file on its own, so the code is copied,
    // and this test keeps the copies equal to their sources.)
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/package/assets");
    let read = |rel: &str| fs::read_to_string(assets.join(rel)).unwrap();
    let solution = read("remoteness/accepted/solution.cpp");
    let interactor = read("interactor.cpp");
    let perfect = read("interactive/accepted/perfect.cpp");
    let tempo_judge = read("interactor-tempo.cpp");
    let tempo = read("interactive-tempo/accepted/tempo.cpp");
    // The remoteness DP: pieces, curve, running maximum, left_free and right_free.
    let dp = between(
        &solution,
        "static const i128 END",
        "// The pile beside a segment",
    );
    assert!(dp.contains("static void right_free("));
    // The protocol: the game, reading and parsing lines.
    let game = between(
        &interactor,
        "static u64 lose_beside(",
        "// The program's next line",
    );
    let lines = between(&interactor, "// The program's next line", "int main(");
    let player_game = between(&perfect, "static u64 lose_beside(", "int main(");
    for (copy, name) in [
        (&tempo_judge, "interactor-tempo.cpp"),
        (&tempo, "tempo.cpp"),
    ] {
        assert!(copy.contains(dp), "{name}: not solution.cpp's DP");
    }
    assert!(
        tempo_judge.contains(game),
        "interactor-tempo.cpp: not interactor.cpp's Game"
    );
    assert!(
        tempo_judge.contains(lines),
        "interactor-tempo.cpp: not interactor.cpp's lines"
    );
    assert!(
        tempo.contains(player_game),
        "tempo.cpp: not perfect.cpp's Game"
    );
    // Both tempo programs choose moves by the same code.
    let choice =
        |text: &str| between(text, "// The layers of remoteness()", "int main(").to_string();
    let judge_choice = choice(&tempo_judge).replace(
        between(
            &tempo_judge,
            "static std::string str(",
            "// The remoteness of a game",
        ),
        "",
    );
    let judge_choice = judge_choice
        .split("// The program's next line")
        .next()
        .unwrap()
        .to_string();
    assert_eq!(
        judge_choice,
        choice(&tempo),
        "the tempo move differs between the two"
    );
}

#[test]
fn perfect_cpp_is_a_wrong_answer_only_where_it_can_be_slow() {
    let root = tempfile::tempdir().unwrap();
    for (limits, slow) in [
        (["--max-n", "3", "--max-a", "3"], true),
        (["--max-n", "4", "--max-a", "2"], true),
        (["--max-n", "3", "--max-a", "2"], false),
        (["--max-n", "2", "--max-a", "100"], false),
        (["--max-n", "100", "--max-a", "1"], false),
    ] {
        let dir = root.path().join(format!("p{}{}", limits[1], limits[3]));
        let mut args = vec!["--interactive", "--tempo", "--cases", "1"];
        args.extend(limits);
        package(&dir, &args);
        let wrong = dir.join("submissions/wrong_answer/perfect.cpp").exists();
        let accepted = dir.join("submissions/accepted/perfect.cpp").exists();
        assert_eq!((wrong, accepted), (slow, !slow), "{limits:?}");
        assert!(dir.join("submissions/accepted/tempo.cpp").exists());
        // The slow-wins file holds a slow row first, even at T = 1.
        let slow_file = fs::read_dir(dir.join("data/secret"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with("-slow-wins.in"));
        if slow {
            let text = fs::read_to_string(slow_file.unwrap()).unwrap();
            let row: Vec<u64> = text
                .lines()
                .nth(2)
                .unwrap()
                .split(' ')
                .map(|p| p.parse().unwrap())
                .collect();
            assert!(
                stonegame::package::SLOW_WINS
                    .iter()
                    .any(|r| r[..] == row[..]),
                "{limits:?}: {row:?}"
            );
        }
    }
}
