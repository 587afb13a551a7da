//! `stonegame play` with its commands piped in: the row drawn, moves, the
//! bot's replies, hints, bad lines, quitting, both seats and variants.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `stonegame play ARGS` with `input` on stdin: (exit code, stdout, stderr).
fn play(args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn assert_has(text: &str, parts: &[&str]) {
    for p in parts {
        assert!(text.contains(p), "output lacks `{p}`:\n{text}");
    }
}

#[test]
fn a_lost_row_hints_bad_lines_and_quit() {
    let (code, out, err) = play(
        &["3", "1", "9", "4"],
        "hint\nR 1\nfoo\n\nL 9\nL 0\nhelp\nquit\n",
    );
    assert_eq!(code, 0, "{err}");
    assert_has(
        &out,
        &[
            "stonegame play: 4 piles, two-ends variant; you move first, the bot plays at strength 1.",
            "piles: [3] 1 9 [4]\nyour move> ",
            "hint: no move wins here",
            "you: R 1 (take 1 from the right pile, leaving 3)",
            "piles: [3] 1 9 [3]\nbot: L 1 (take 1 from the left pile, leaving 2)\npiles: [2] 1 9 [3]",
            "I did not understand \"foo\". Type a move such as `L 3` or `R 2`",
            "That move is not allowed: cannot take 9 from the left pile: it holds 2.",
            "That move is not allowed: a move must take at least 1 stone.",
            "Commands: `L k` takes k stones",
            "You quit. The bot wins.",
        ],
    );
}

/// Playing the hinted moves wins every won row; the bot wins the rest.
#[test]
fn following_the_hints_wins() {
    // Won rows. A pipe cannot react to the output, so replay the game with
    // one more line each time: read the last hint, play its first move.
    let rows: [&[&str]; 3] = [&["2", "3", "1", "4", "5"], &["5"], &["7", "7", "2"]];
    for row in rows {
        let mut input = String::new();
        let mut out;
        loop {
            input.push_str("hint\n");
            let (_, o, _) = play(row, &input);
            out = o;
            let last_hint = out.rsplit("hint: winning moves: ").next().unwrap();
            let mv: String = last_hint
                .chars()
                .take_while(|&c| c != ' ')
                .collect::<String>()
                + " "
                + last_hint.split_whitespace().nth(1).unwrap();
            input.push_str(&mv);
            input.push('\n');
            let (code, o, _) = play(row, &input);
            assert_eq!(code, 0);
            out = o;
            if out.contains("You took the last pile: you win!") || out.contains("bot wins") {
                break;
            }
        }
        assert_has(&out, &["You took the last pile: you win!"]);
        assert!(!out.contains("gives the win away"), "{out}");
    }
}

#[test]
fn a_blunder_is_pointed_out_and_the_perfect_bot_wins() {
    // (3 1 9 3): the only win is L 1; R 1 gives it away.
    let input = "R 1\n".to_string() + &"L 1\n".repeat(20);
    let (code, out, _) = play(&["3", "1", "9", "3"], &input);
    assert_eq!(code, 0);
    assert_has(
        &out,
        &[
            "you: R 1 (take 1 from the right pile, leaving 2)",
            "(That move gives the win away; L 1 would have kept it.)",
            "The bot took the last pile: the bot wins.",
        ],
    );
}

#[test]
fn second_seat_leftmost_and_end_of_input() {
    let (code, out, _) = play(&["--second", "2", "2"], "");
    assert_eq!(code, 0);
    assert_has(
        &out,
        &[
            "you move second",
            "piles: [2] [2]\nbot: L 1 (take 1 from the left pile, leaving 1)\npiles: [1] [2]",
            "Input ended: the game is abandoned.",
        ],
    );
    let (code, out, _) = play(&["--variant", "leftmost", "1", "1", "1"], "R 1\nl1\nL 1\n");
    assert_eq!(code, 0);
    assert_has(
        &out,
        &[
            "(Leftmost variant: only `L k` moves.)",
            "piles: [1] 1 1",
            "That move is not allowed: the leftmost variant takes from the left pile only.",
            "you: L 1 (take all 1 from the left pile)",
            "You took the last pile: you win!",
        ],
    );
}

#[test]
fn long_rows_are_cut_and_bad_rows_refused() {
    let row: Vec<String> = (1..=40).map(|i| i.to_string()).collect();
    let row: Vec<&str> = row.iter().map(String::as_str).collect();
    let (code, out, _) = play(&row, "quit\n");
    assert_eq!(code, 0);
    assert_has(
        &out,
        &["piles: [1] 2 3 4 5 6 … 28 more … 35 36 37 38 39 [40]"],
    );
    let (code, _, err) = play(&["3", "0"], "");
    assert_eq!(code, 1);
    assert_has(&err, &["pile 2 is 0"]);
    let (code, _, _) = play(&["--strength", "1.5", "3"], "");
    assert_eq!(code, 2);
}

/// The bot has its tempo far above the old bound of 128 piles: on random
/// rows of 300 and 1,000 piles whose first tempo move is not the O(1)
/// move (won, lost), from the second seat (the bot moves first)
/// and after a reply of the human's, each bot move is the core's
/// `best_move` (the exact remoteness's fastest win or longest resistance).
#[test]
fn the_bot_plays_the_tempo_move_on_long_rows() {
    use rand::SeedableRng;
    use stonegame::core::exhaustive::after;
    use stonegame::core::remoteness::best_move;
    use stonegame::core::{Move, Side, ValidRow, Variant};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1_000);
    for (n, won) in [(300, true), (1_000, false)] {
        // Its first tempo move is not the O(1) move; piles of at least 2
        // (the human's `L 1` never ends the game).
        let piles: Vec<u64> = loop {
            let row = crate::common::tempo_row(&mut rng, n, won);
            if row.iter().all(|&a| a >= 2) {
                break row;
            }
        };
        let args: Vec<String> = ["--second".to_string()]
            .into_iter()
            .chain(piles.iter().map(u64::to_string))
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // The human takes one stone from the left pile after each bot move
        // (every left pile here keeps at least 1 stone for it).
        let (code, out, err) = play(&args, "L 1\nL 1\n");
        assert_eq!(code, 0, "{err}");
        let bot_moves: Vec<Move> = out
            .lines()
            .filter_map(|l| l.strip_prefix("bot: "))
            .map(|l| {
                let mut words = l.split_whitespace();
                let side = match words.next() {
                    Some("L") => Side::Left,
                    Some("R") => Side::Right,
                    other => panic!("a side, got {other:?} in {l}"),
                };
                let take: u64 = words.next().unwrap().parse().unwrap();
                Move {
                    side,
                    take,
                    remaining: 0,
                }
            })
            .collect();
        assert_eq!(bot_moves.len(), 3, "{out}");
        let mut now = piles.clone();
        for m in bot_moves {
            let best = best_move(&ValidRow::new(&now, usize::MAX).unwrap(), Variant::TwoEnds);
            assert_eq!(
                (m.side, m.take),
                (best.side, best.take),
                "n = {n} at {now:?}"
            );
            now = after(&now, best);
            if now.is_empty() {
                break;
            }
            now = after(&now, Move::to_remaining(Side::Left, now[0], now[0] - 1));
        }
    }
}
