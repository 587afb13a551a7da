//! Unit tests of `interact`, in their own file beside it.

use std::io::{BufRead, BufReader, Write};
use std::thread;

use super::*;

#[test]
fn move_lines_parse_strictly() {
    assert_eq!(parse_move("L 3"), Some((Side::Left, Some(3))));
    assert_eq!(parse_move("  R\t12 "), Some((Side::Right, Some(12))));
    assert_eq!(
        parse_move("L 99999999999999999999999"),
        Some((Side::Left, None))
    );
    for bad in [
        "", "L", "L 3 4", "X 3", "l 3", "L -1", "L +1", "L 1.0", "3 L",
    ] {
        assert_eq!(parse_move(bad), None, "{bad:?}");
    }
}

#[test]
fn long_lines_are_cut_in_messages() {
    assert_eq!(shown_line("FIRST"), "\"FIRST\"");
    let long = "x".repeat(61);
    assert_eq!(shown_line(&long), format!("{:?}…", "x".repeat(60)));
    assert_eq!(
        protocol_move(&Move {
            side: Side::Right,
            take: 7,
            remaining: 0
        }),
        "R 7"
    );
}

#[test]
fn bad_input_is_a_judge_failure() {
    let e = read_games(&b"2\n1\n5\n"[..]).unwrap_err();
    assert!(matches!(e, InteractError::BadInput(_)), "{e:?}");
    assert!(e.to_string().starts_with("bad input: "), "{e}");
    let games = read_games(&b"2\n1\n5\n3\n1 2 3\n"[..]).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[1][..], [1, 2, 3]);
}

#[test]
fn an_unwritable_transcript_is_a_judge_failure() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("t.log");
    let e = Transcript::create(Some(&path)).err().unwrap();
    assert!(
        e.to_string().starts_with(&format!(
            "cannot create the transcript {}: ",
            path.display()
        )),
        "{e}"
    );
}

/// How the test player plays.
#[derive(Clone, Copy)]
enum Player {
    Perfect,
    WrongSeat,
    Garbage,
}

/// Plays `input` with `player` on the other end of two pipes; the
/// outcome, the transcript and every line the player received.
fn play(input: &str, player: Player) -> (Outcome, String, Vec<String>) {
    let games = read_games(input.as_bytes()).unwrap();
    let (from_judge, to_player) = std::io::pipe().unwrap();
    let (from_player, to_judge) = std::io::pipe().unwrap();
    let variant = Variant::TwoEnds;
    let player = thread::spawn(move || {
        let mut lines = BufReader::new(from_judge).lines().map(Result::unwrap);
        let mut out = to_judge;
        let mut seen = Vec::new();
        let mut next = |seen: &mut Vec<String>| {
            let l = lines.next();
            seen.extend(l.clone());
            l
        };
        let t: usize = next(&mut seen).unwrap().parse().unwrap();
        for _ in 0..t {
            let Some(_n) = next(&mut seen) else { break };
            let piles: Vec<u64> = next(&mut seen)
                .unwrap()
                .split(' ')
                .map(|w| w.parse().unwrap())
                .collect();
            let row = ValidRow::try_from(piles).unwrap();
            let Ok(row) = GameRow::new(&row, variant, &Never);
            let mut game = Game::new(Arc::new(row));
            let first = game.mover_wins();
            let seat = match player {
                Player::Perfect => first,
                Player::WrongSeat => !first,
                Player::Garbage => {
                    writeln!(out, "THIRD").unwrap();
                    break;
                }
            };
            writeln!(out, "{}", if seat { "FIRST" } else { "SECOND" }).unwrap();
            if !matches!(player, Player::Perfect) {
                break;
            }
            let mut mine = !seat;
            while !game.is_over() {
                mine = !mine;
                if mine {
                    let m = game.winning_moves()[0];
                    game.play_move(m).unwrap();
                    writeln!(out, "{}", protocol_move(&m)).unwrap();
                } else {
                    let line = next(&mut seen).unwrap();
                    let Some((side, Some(take))) = parse_move(&line) else {
                        panic!("{line:?}")
                    };
                    game.play(side, take).unwrap();
                }
            }
        }
        // Until the judge closes the pipe.
        while next(&mut seen).is_some() {}
        seen
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.log");
    let transcript = Transcript::create(Some(&path)).unwrap();
    let settings = Settings {
        variant,
        strength: 1.0,
        seed: 7,
        move_timeout: Duration::from_secs(10),
        tempo: false,
    };
    let program = Program {
        input: Box::new(to_player),
        output: Box::new(from_player),
        child: None,
    };
    let outcome = interact(&games, &settings, program, transcript).unwrap();
    let seen = player.join().unwrap();
    (outcome, std::fs::read_to_string(&path).unwrap(), seen)
}

const INPUT: &str = "3\n4\n3 1 9 4\n1\n5\n6\n2 7 1 8 2 8\n";

#[test]
fn a_perfect_player_is_accepted() {
    let (outcome, transcript, seen) = play(INPUT, Player::Perfect);
    assert_eq!(outcome.verdict, Verdict::Accepted, "{outcome:?}");
    assert_eq!(
        outcome.message,
        "3 games won (2 as FIRST, 1 as SECOND), 18 plies"
    );
    assert_eq!(&seen[..3], ["3", "4", "3 1 9 4"]);
    assert!(!seen.contains(&"-1".to_string()), "{seen:?}");
    let lines: Vec<&str> = transcript.lines().collect();
    assert_eq!(
        lines[0],
        "# stonegame interact: 3 games, two-ends variant, strength 1, seed 7"
    );
    assert_eq!(
        &lines[1..5],
        [
            "> 3",
            "# game 1: n = 4, the first player loses",
            "> 4",
            "> 3 1 9 4"
        ]
    );
    assert!(lines.contains(&"< SECOND"), "{transcript}");
    assert_eq!(
        *lines.last().unwrap(),
        format!("# verdict: ok {}", outcome.message)
    );
}

#[test]
fn a_losing_seat_is_a_wrong_answer() {
    let (outcome, transcript, seen) = play(INPUT, Player::WrongSeat);
    assert_eq!(outcome.verdict, Verdict::WrongAnswer, "{outcome:?}");
    assert_eq!(
        outcome.message,
        "game 1: the program took the seat FIRST in (3 1 9 4), which loses against perfect \
             play; the winning seat was SECOND"
    );
    assert_eq!(seen, ["3", "4", "3 1 9 4", "-1"]);
    assert!(transcript.ends_with("> -1\n"), "{transcript}");
}

#[test]
fn a_garbage_seat_is_a_presentation_error() {
    let (outcome, _, seen) = play(INPUT, Player::Garbage);
    assert_eq!(outcome.verdict, Verdict::PresentationError, "{outcome:?}");
    assert_eq!(
        outcome.message,
        "game 1: expected `FIRST` or `SECOND`, got \"THIRD\""
    );
    assert_eq!(seen.last().map(String::as_str), Some("-1"));
}
