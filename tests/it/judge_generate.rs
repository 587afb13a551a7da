//! The generator: every family is deterministic for its seed, stays within
//! the limits, and its expected answers are the solver's (and, on small rows,
//! the exhaustive solver's); parameters are checked with typed errors.

use crate::common;

use std::process::Command;

use common::{gen_strings, parse_answers, parse_rows, spec, valid};
use stonegame::core::exhaustive::{Exhaustive, all_rows};
use stonegame::core::{MAX_PILE, Variant, first_player_wins};
use stonegame::judge::generate::{Family, GenError, GenSpec, Rows, generate};

/// Parameters that suit every family (exhaustive: 3 + 9 + 27 + 81 = 120 rows).
fn typical(family: Family, seed: u64, variant: Variant) -> GenSpec {
    let (cases, max_n, max_a) = match family {
        Family::Exhaustive => (200, 4, 3),
        Family::Max => (5, 30, 1_000_000_000),
        _ => (60, 12, 20),
    };
    GenSpec {
        variant,
        ..spec(family, cases, max_n, max_a, seed)
    }
}

const VARIANTS: [Variant; 2] = [Variant::TwoEnds, Variant::Leftmost];

#[test]
fn every_family_is_deterministic_for_its_seed() {
    for family in Family::ALL {
        for variant in VARIANTS {
            let a = gen_strings(&typical(family, 42, variant));
            let b = gen_strings(&typical(family, 42, variant));
            assert_eq!(a, b, "{family} {variant}: same seed, different bytes");
            let c = gen_strings(&typical(family, 43, variant));
            if family == Family::Exhaustive {
                // Every row, in a fixed order: the seed plays no part.
                assert_eq!(a, c);
            } else {
                assert_ne!(a.0, c.0, "{family} {variant}: seeds 42 and 43 agree");
            }
        }
    }
}

#[test]
fn a_seed_gives_the_same_first_rows_whatever_the_number_of_cases() {
    for family in Family::ALL {
        if family == Family::Exhaustive {
            continue;
        }
        let short = Rows::new(&spec(family, 10, 9, 50, 5)).unwrap();
        let long = Rows::new(&spec(family, 30, 9, 50, 5)).unwrap();
        let short: Vec<_> = short.map(Result::unwrap).collect();
        let long: Vec<_> = long.take(10).map(Result::unwrap).collect();
        assert_eq!(short, long, "{family}");
    }
}

#[test]
fn every_family_respects_the_limits_and_the_answers_are_the_solvers() {
    let mut exhaustive = [
        Exhaustive::new(Variant::TwoEnds),
        Exhaustive::new(Variant::Leftmost),
    ];
    for family in Family::ALL {
        for (v, variant) in VARIANTS.into_iter().enumerate() {
            for seed in 0..4 {
                let spec = typical(family, seed, variant);
                let (input, answers) = gen_strings(&spec);
                let rows = parse_rows(&input);
                let answers = parse_answers(&answers);
                let want_cases = if family == Family::Exhaustive {
                    120
                } else {
                    spec.cases
                };
                assert_eq!(rows.len() as u64, want_cases, "{family}");
                assert_eq!(answers.len(), rows.len(), "{family}");
                for (row, &wins) in rows.iter().zip(&answers) {
                    assert!(
                        (1..=spec.max_n as usize).contains(&row.len()),
                        "{family}: {row:?}"
                    );
                    assert!(
                        row.iter().all(|&a| (1..=spec.max_a).contains(&a)),
                        "{family}: {row:?}"
                    );
                    assert_eq!(first_player_wins(&valid(row), variant), wins);
                    if row.iter().all(|&a| a <= 20) && row.len() <= 12 {
                        assert_eq!(exhaustive[v].wins(row), wins, "{family} {variant} {row:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn family_shapes() {
    let rows = |family, max_n, max_a| {
        let (input, _) = gen_strings(&spec(family, 40, max_n, max_a, 9));
        parse_rows(&input)
    };
    for row in rows(Family::Tiny, 20, 1000) {
        assert!(row.iter().all(|&a| a <= 3), "{row:?}");
    }
    for row in rows(Family::Near, 20, 1000) {
        let (lo, hi) = (row.iter().min().unwrap(), row.iter().max().unwrap());
        assert!(hi - lo <= 1, "{row:?}");
    }
    for row in rows(Family::Palindrome, 20, 1000) {
        let rev: Vec<_> = row.iter().rev().copied().collect();
        assert_eq!(row, rev);
    }
    let max = rows(Family::Max, 20, MAX_PILE);
    assert_eq!(max[0], vec![MAX_PILE; 20]);
    for row in &max {
        assert_eq!(row.len(), 20);
        assert!(row.iter().all(|&a| a >= MAX_PILE - 2), "{row:?}");
    }
    // Rows vary in length up to max-n.
    let random = rows(Family::Random, 20, 1000);
    assert!(random.iter().any(|r| r.len() == 1) || random.iter().any(|r| r.len() < 5));
    assert!(random.iter().any(|r| r.len() >= 15));
}

#[test]
fn planted_has_40_to_60_percent_losses_in_both_variants() {
    for variant in VARIANTS {
        for (seed, max_n, max_a) in [
            (1, 50, 1_000_000_000),
            (2, 8, 5),
            (3, 2, 1),
            (4, 200, MAX_PILE),
        ] {
            let spec = GenSpec {
                variant,
                ..spec(Family::Planted, 101, max_n, max_a, seed)
            };
            let (mut input, mut answers) = (Vec::new(), Vec::new());
            let summary = generate(&spec, &mut input, Some(&mut answers)).unwrap();
            let answers = parse_answers(std::str::from_utf8(&answers).unwrap());
            let losses = answers.iter().filter(|&&w| !w).count() as u64;
            assert_eq!(summary.losses, Some(losses));
            let percent = losses * 100 / 101;
            assert!(
                (40..=60).contains(&percent),
                "{variant} seed {seed}: {losses} of 101 losses"
            );
        }
    }
}

#[test]
fn planted_near_misses_are_one_off_the_losing_first_pile() {
    let (input, answers) = gen_strings(&spec(Family::Planted, 60, 10, 30, 11));
    let rows = parse_rows(&input);
    let answers = parse_answers(&answers);
    let mut near = 0;
    for (row, wins) in rows.iter().zip(answers) {
        if wins {
            // Some a_1 ± 1 is the losing value.
            let lost_nearby = [row[0] - 1, row[0] + 1].into_iter().any(|a1| {
                let mut r = row.clone();
                r[0] = a1;
                a1 >= 1 && !first_player_wins(&valid(&r), Variant::TwoEnds)
            });
            assert!(lost_nearby, "{row:?}");
            near += 1;
        }
    }
    assert_eq!(near, 30);
}

#[test]
fn exhaustive_lists_every_row_in_order_and_cases_must_allow_them() {
    let (input, _) = gen_strings(&spec(Family::Exhaustive, 10_000, 4, 3, 0));
    assert_eq!(parse_rows(&input), all_rows(4, 3));
    // --cases is a cap: exactly the rows are written even when it is larger.
    assert!(input.starts_with("120\n"));
    let err = Rows::new(&spec(Family::Exhaustive, 119, 4, 3, 0)).unwrap_err();
    assert!(matches!(
        err,
        GenError::ExhaustiveTooManyRows {
            rows: Some(120),
            cases: 119,
            ..
        }
    ));
    assert!(err.to_string().contains("120 rows"), "{err}");
    let err = Rows::new(&spec(Family::Exhaustive, u64::MAX, 1000, 1000, 0)).unwrap_err();
    assert!(matches!(
        err,
        GenError::ExhaustiveTooManyRows { rows: None, .. }
    ));
    assert!(err.to_string().contains("more than 2^64"), "{err}");
}

#[test]
fn hack_uses_values_near_2_31_and_2_32_only_when_max_a_allows() {
    let big = |max_a| {
        let (input, _) = gen_strings(&spec(Family::Hack, 50, 6, max_a, 3));
        parse_rows(&input)
            .into_iter()
            .flatten()
            .filter(|&a| a >= 1 << 31)
            .count()
    };
    assert_eq!(big(1_000_000_000), 0);
    assert!(big(1 << 31) > 0);
    let (input, _) = gen_strings(&spec(Family::Hack, 50, 6, 1 << 32, 3));
    let values: Vec<u64> = parse_rows(&input).into_iter().flatten().collect();
    assert!(values.contains(&(1 << 32)), "a pile of 2^32");
    assert!(values.iter().any(|&a| (1u64 << 31..1 << 32).contains(&a)));
    // Small limits still give valid files (the kinds that fit).
    for (max_n, max_a) in [(2, 1), (2, 2), (3, 5), (4, 2)] {
        let (input, answers) = gen_strings(&spec(Family::Hack, 30, max_n, max_a, 1));
        assert_eq!(parse_rows(&input).len(), 30);
        assert_eq!(parse_answers(&answers).len(), 30);
    }
}

#[test]
fn bad_parameters_are_typed_errors() {
    let ok = spec(Family::Random, 10, 10, 10, 0);
    let check = |s: GenSpec, what: &str| {
        let err = generate(&s, &mut Vec::new(), None).unwrap_err();
        assert!(err.to_string().contains(what), "{err}");
        err
    };
    assert!(matches!(
        check(GenSpec { cases: 0, ..ok }, "at least 1"),
        GenError::NoCases
    ));
    assert!(matches!(
        check(GenSpec { max_n: 0, ..ok }, "max-n"),
        GenError::MaxNZero
    ));
    assert!(matches!(
        check(
            GenSpec {
                max_n: 1 << 40,
                ..ok
            },
            "max-n"
        ),
        GenError::MaxNTooLarge { .. }
    ));
    assert!(matches!(
        check(GenSpec { max_a: 0, ..ok }, "max-a"),
        GenError::MaxAZero
    ));
    assert!(matches!(
        check(
            GenSpec {
                max_a: MAX_PILE + 1,
                ..ok
            },
            "2^63-1"
        ),
        GenError::MaxATooLarge { .. }
    ));
    for family in [Family::Planted, Family::Hack] {
        assert!(matches!(
            check(
                GenSpec {
                    family,
                    max_n: 1,
                    ..ok
                },
                "max-n of at least 2"
            ),
            GenError::NeedsTwoPiles { .. }
        ));
    }
    // The limits themselves are fine.
    let (input, _) = gen_strings(&spec(Family::Random, 3, 5, MAX_PILE, 0));
    assert_eq!(parse_rows(&input).len(), 3);
}

#[test]
fn without_answers_the_input_is_the_same() {
    let s = spec(Family::Planted, 20, 10, 100, 8);
    let mut input = Vec::new();
    let summary = generate(&s, &mut input, None).unwrap();
    assert_eq!(summary.losses, None);
    assert_eq!(summary.cases, 20);
    assert_eq!(String::from_utf8(input).unwrap(), gen_strings(&s).0);
}

#[test]
fn cli_gen_writes_the_library_bytes_and_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("out.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .args([
            "gen", "--family", "planted", "--cases", "25", "--max-n", "9",
        ])
        .args([
            "--max-a",
            "40",
            "--seed",
            "77",
            "--variant",
            "leftmost",
            "--answers",
        ])
        .arg(&answers)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = GenSpec {
        variant: Variant::Leftmost,
        ..spec(Family::Planted, 25, 9, 40, 77)
    };
    let (input, want_answers) = gen_strings(&s);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), input);
    assert_eq!(std::fs::read_to_string(&answers).unwrap(), want_answers);

    let out = Command::new(env!("CARGO_BIN_EXE_stonegame"))
        .args([
            "gen",
            "--family",
            "exhaustive",
            "--cases",
            "10",
            "--max-n",
            "3",
        ])
        .args(["--max-a", "3", "--seed", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("39 rows") && err.contains("--cases"), "{err}");
}

#[test]
fn family_names_round_trip() {
    for family in Family::ALL {
        assert_eq!(family.name().parse::<Family>(), Ok(family));
        assert_eq!(family.to_string(), family.name());
    }
    let err = "randm".parse::<Family>().unwrap_err();
    assert!(err.contains("random") && err.contains("hack"), "{err}");
}
