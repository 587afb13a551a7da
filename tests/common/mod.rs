//! Helpers shared by the judge tests.
#![allow(dead_code)]

use stonegame::judge::generate::{GenSpec, generate};
use stonegame::ojformat::OjReader;

/// Generates `spec`'s input and expected answers as strings.
pub fn gen_strings(spec: &GenSpec) -> (String, String) {
    let (mut input, mut answers) = (Vec::new(), Vec::new());
    generate(spec, &mut input, Some(&mut answers)).expect("generate");
    (
        String::from_utf8(input).expect("utf-8 input"),
        String::from_utf8(answers).expect("utf-8 answers"),
    )
}

/// The rows of an OJ-format input (panics on malformed input).
pub fn parse_rows(input: &str) -> Vec<Vec<u64>> {
    OjReader::new(input.as_bytes())
        .expect("header")
        .map(|case| case.expect("valid case").piles)
        .collect()
}

/// The 0/1 lines of an answer file.
pub fn parse_answers(answers: &str) -> Vec<bool> {
    answers
        .lines()
        .map(|l| match l {
            "0" => false,
            "1" => true,
            other => panic!("bad answer line {other:?}"),
        })
        .collect()
}
