//! Counting the piles of a Connect JSON request while its body arrives
//! ([`PileCounter`]): a byte-at-a-time scan, resumable across chunks, that
//! follows just enough of JSON's structure (strings and their escapes,
//! nesting, the keys of the top-level object) to count the elements of the
//! top-level `piles` array, and stops at the first element past the limit.
//! Inside that array, runs of numbers are counted 64 bytes at a time by
//! their commas (vectorised loops), so that counting a refused row costs
//! far less than reading it (docs/security.md, "JSON rows").
//!
//! It does not check the JSON: serde_json parses the whole body once it has
//! arrived within the limits, and refuses what is malformed. For valid JSON
//! the count is exact (a key spelt with escapes, `"pi\u006ces"`, is decoded
//! as serde_json decodes it; a repeated `piles` key is counted on its own,
//! and refused by the parser anyway); for malformed JSON it may be anything,
//! which only decides which of two refusals the body gets.

use std::fmt;

/// The raw bytes of a top-level key kept to recognise `piles`: its longest
/// spelling, every character escaped (`\u0070\u0069…`), is 30 bytes.
const KEY_CAP: usize = 64;

/// The bytes of a row counted at once ([`PileCounter::row_block`]).
const BLOCK: usize = 64;

/// A JSON array of more piles than the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyPiles {
    /// The elements seen so far (the limit plus one: counting stops there).
    pub at_least: usize,
    /// The limit.
    pub max: usize,
}

impl fmt::Display for TooManyPiles {
    /// The form of the RPC's own refusal (`piles: the row has N piles, more
    /// than the limit of M`), with "at least": the rest was never read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "piles: the row has at least {} piles, more than the limit of {}",
            self.at_least, self.max
        )
    }
}

/// Counts the elements of the top-level object's `piles` array in a JSON
/// text fed in chunks ([`PileCounter::feed`]).
#[derive(Debug, Clone)]
pub struct PileCounter {
    max: usize,
    /// Open objects and arrays.
    depth: usize,
    in_string: bool,
    /// The previous byte in a string was an unescaped backslash.
    escaped: bool,
    /// In the top-level object, the next string is a key.
    expect_key: bool,
    /// A top-level key is being read (its raw bytes in `key`).
    in_key: bool,
    key: Vec<u8>,
    /// The key was longer than [`KEY_CAP`] (so it is not `piles`).
    key_overflow: bool,
    /// The last top-level key read was `piles`, its `:` not yet seen.
    key_is_piles: bool,
    /// After `"piles":`, before its value's first byte.
    piles_value_next: bool,
    /// Inside the `piles` array.
    in_piles: bool,
    /// In the `piles` array, before an element's first byte.
    element_next: bool,
    count: usize,
}

impl PileCounter {
    /// A counter refusing more than `max` piles.
    pub fn new(max: usize) -> PileCounter {
        PileCounter {
            max,
            depth: 0,
            in_string: false,
            escaped: false,
            expect_key: false,
            in_key: false,
            key: Vec::with_capacity(KEY_CAP),
            key_overflow: false,
            key_is_piles: false,
            piles_value_next: false,
            in_piles: false,
            element_next: false,
            count: 0,
        }
    }

    /// Scans the next chunk of the body; `Err` at the first element past
    /// the limit.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), TooManyPiles> {
        let mut rest = chunk;
        loop {
            if self.in_piles && self.depth == 2 && !self.in_string {
                rest = self.row_run(rest)?;
            }
            let Some((&b, after)) = rest.split_first() else {
                return Ok(());
            };
            rest = after;
            if self.in_string {
                self.string_byte(b);
                continue;
            }
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                continue;
            }
            if std::mem::take(&mut self.piles_value_next) && b == b'[' {
                self.depth += 1;
                self.in_piles = true;
                self.element_next = true;
                self.count = 0;
                continue;
            }
            if self.in_piles && self.depth == 2 && self.element_next && !matches!(b, b']' | b',') {
                self.element_starts()?;
            }
            match b {
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && std::mem::take(&mut self.expect_key) {
                        self.in_key = true;
                        self.key.clear();
                        self.key_overflow = false;
                    }
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    self.expect_key = self.depth == 1 && b == b'{';
                }
                b'}' | b']' => {
                    if self.depth == 2 {
                        self.in_piles = false;
                    }
                    self.depth = self.depth.saturating_sub(1);
                }
                b',' => match self.depth {
                    1 => self.expect_key = true,
                    2 if self.in_piles => self.element_next = true,
                    _ => {}
                },
                b':' if self.depth == 1 => {
                    self.piles_value_next = std::mem::take(&mut self.key_is_piles);
                }
                _ => {}
            }
        }
    }

    /// An element of `piles` starts: counted, and refused past the limit.
    fn element_starts(&mut self) -> Result<(), TooManyPiles> {
        self.element_next = false;
        self.count += 1;
        if self.count > self.max {
            return Err(TooManyPiles {
                at_least: self.count,
                max: self.max,
            });
        }
        Ok(())
    }

    /// The fast path of the scan, inside the `piles` array and outside a
    /// string: counts the elements of a run of scalars, commas and
    /// whitespace as the byte-at-a-time scan would, and returns the chunk
    /// from its first other byte (a quote, a bracket or a brace, which the
    /// slow path takes). A row of numbers is scanned here whole, a block of
    /// [`BLOCK`] bytes at a time while the limit is not near.
    fn row_run<'c>(&mut self, chunk: &'c [u8]) -> Result<&'c [u8], TooManyPiles> {
        let mut rest = chunk;
        loop {
            if let Some((block, after)) = rest.split_first_chunk::<BLOCK>()
                && self.row_block(block)
            {
                rest = after;
                continue;
            }
            // A block with structure in it, near the limit, or the chunk's
            // last bytes: one byte at a time, up to a block's length.
            let (bytes, after) = rest.split_at(rest.len().min(BLOCK));
            for (i, &b) in bytes.iter().enumerate() {
                match b {
                    b'"' | b'[' | b']' | b'{' | b'}' => return Ok(&rest[i..]),
                    b',' => self.element_next = true,
                    b' ' | b'\t' | b'\n' | b'\r' => {}
                    _ if self.element_next => self.element_starts()?,
                    _ => {}
                }
            }
            if after.is_empty() {
                return Ok(after);
            }
            rest = after;
        }
    }

    /// Counts a block of the `piles` array at once when it holds only
    /// scalars, commas and whitespace and cannot reach the limit; `false`
    /// (nothing done) otherwise. In a valid array every comma is followed
    /// by one element, so the elements starting in the block are its
    /// commas, less one if its last byte that is not whitespace is a comma
    /// (that element starts later), plus one if an element was due and the
    /// block starts with it. The loops have no early exits, so they
    /// compile to vector instructions.
    fn row_block(&mut self, block: &[u8; BLOCK]) -> bool {
        let (mut structure, mut commas) = (0u8, 0u8);
        for &b in block {
            structure |=
                u8::from((b == b'"') | (b == b'[') | (b == b']') | (b == b'{') | (b == b'}'));
            commas = commas.wrapping_add(u8::from(b == b',')); // at most 64
        }
        if structure != 0 {
            return false;
        }
        let commas = usize::from(commas);
        let blank = |b: &&u8| matches!(**b, b' ' | b'\t' | b'\n' | b'\r');
        let (Some(&first), Some(&last)) = (
            block.iter().find(|b| !blank(b)),
            block.iter().rev().find(|b| !blank(b)),
        ) else {
            return true; // whitespace only
        };
        let starts =
            commas - usize::from(last == b',') + usize::from(self.element_next && first != b',');
        if self.count + starts > self.max {
            return false; // the byte-at-a-time scan finds where
        }
        self.count += starts;
        self.element_next = last == b',';
        true
    }

    /// One byte inside a string.
    fn string_byte(&mut self, b: u8) {
        let closes = !self.escaped && b == b'"';
        self.escaped = !self.escaped && b == b'\\';
        if closes {
            self.in_string = false;
            if std::mem::take(&mut self.in_key) {
                self.key_is_piles = self.key_is_piles();
            }
        } else if self.in_key {
            if self.key.len() < KEY_CAP {
                self.key.push(b);
            } else {
                self.key_overflow = true;
            }
        }
    }

    /// Is the key just read `piles` (decoded as serde_json decodes it)?
    fn key_is_piles(&self) -> bool {
        if self.key_overflow {
            return false;
        }
        if !self.key.contains(&b'\\') {
            return self.key == b"piles";
        }
        let mut quoted = Vec::with_capacity(self.key.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(&self.key);
        quoted.push(b'"');
        serde_json::from_slice::<String>(&quoted).is_ok_and(|k| k == "piles")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The count `text` reaches (fed whole, then byte by byte: the same),
    /// or where it stops.
    fn count(text: &str, max: usize) -> Result<usize, TooManyPiles> {
        let mut whole = PileCounter::new(max);
        let got = whole.feed(text.as_bytes()).map(|()| whole.count);
        let mut bytes = PileCounter::new(max);
        let one_by_one = text
            .as_bytes()
            .chunks(1)
            .try_for_each(|b| bytes.feed(b))
            .map(|()| bytes.count);
        assert_eq!(got, one_by_one, "{text}");
        got
    }

    #[test]
    fn counts_the_piles_array_only() {
        assert_eq!(count(r#"{"piles": [1, "2", 3]}"#, 10), Ok(3));
        assert_eq!(count(r#"{"piles":[]}"#, 10), Ok(0));
        assert_eq!(count("{\n  \"piles\": [\n    1,\n    2\n  ]\n}", 10), Ok(2));
        // Other keys, strings holding the structure's characters, nested
        // values: not piles.
        let text = r#"{"variant": "[1,2,3]", "x\"piles": [1, 2, 3], "seed": "piles",
                       "piles": [[1, 2, 3], {"a": [1, 2]}, "a,b\"],[", 4]}"#;
        assert_eq!(count(text, 10), Ok(4));
        // A key spelt with escapes is the same key.
        assert_eq!(count(r#"{"pi\u006ces": [1, 2, 3]}"#, 10), Ok(3));
        assert_eq!(
            count(r#"{"\u0070\u0069\u006c\u0065\u0073": [1, 2]}"#, 10),
            Ok(2)
        );
        // `piles` below the top level is another field.
        assert_eq!(count(r#"{"a": {"piles": [1, 2, 3]}}"#, 1), Ok(0));
        assert_eq!(count(r#"{"piles": null, "seed": [1, 2, 3]}"#, 1), Ok(0));
        // Nested values and strings longer than a block of the fast path.
        let ones = vec!["1"; 100].join(",");
        let text = format!(r#"{{"piles": [[{ones}], {{"a": [{ones}]}}, "{ones}", {ones}]}}"#);
        assert_eq!(count(&text, 1000), Ok(103));
    }

    #[test]
    fn stops_at_the_first_pile_past_the_limit() {
        let e = count(r#"{"piles": [1, 1, 1, 1"#, 3).expect_err("four");
        assert_eq!(
            e,
            TooManyPiles {
                at_least: 4,
                max: 3
            }
        );
        assert_eq!(
            e.to_string(),
            "piles: the row has at least 4 piles, more than the limit of 3"
        );
        assert!(count(r#"{"piles": [1, 1, 1]}"#, 3).is_ok());
        // A second `piles` is counted on its own (the parser refuses it).
        assert!(count(r#"{"piles": [1, 1], "piles": [1, 1]}"#, 3).is_ok());
        assert!(count(r#"{"piles": [1], "piles": [1, 1, 1, 1]}"#, 3).is_err());
    }

    /// A JSON value for the `piles` array and beside it: numbers, strings
    /// holding the structure's characters and escapes, nested values.
    fn value() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value;
        let leaf = prop_oneof![
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[\\[\\]{},:\"\\\\ a-z0-9]{0,8}".prop_map(Value::from),
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map("[a-z\\[,\"]{0,6}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// On valid JSON, fed in any chunks, pretty or compact, the count
        /// is the length of the `piles` array serde_json reads.
        #[test]
        fn counts_what_serde_json_reads(
            piles in prop::collection::vec(value(), 0..40),
            others in prop::collection::btree_map("[a-z]{1,6}", value(), 0..3),
            pretty in any::<bool>(),
            cut in prop::collection::vec(1usize..64, 1..8),
        ) {
            let mut object: serde_json::Map<String, serde_json::Value> =
                others.into_iter().filter(|(k, _)| k != "piles").collect();
            object.insert("piles".into(), piles.clone().into());
            let text = if pretty {
                serde_json::to_string_pretty(&object).unwrap()
            } else {
                serde_json::to_string(&object).unwrap()
            };
            let mut counter = PileCounter::new(usize::MAX);
            let mut rest = text.as_bytes();
            for &k in cut.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (chunk, after) = rest.split_at(k.min(rest.len()));
                counter.feed(chunk).unwrap();
                rest = after;
            }
            prop_assert_eq!(counter.count, piles.len(), "{}", text);
        }
    }

    proptest! {
        /// A row of numbers, compact or spaced, fed in any chunks: refused
        /// exactly at its first pile past the limit (all of it before that
        /// pile's first byte passes), whatever blocks the piles fall in.
        #[test]
        fn refuses_a_row_at_its_first_pile_past_the_limit(
            piles in prop::collection::vec((0u64..1000, "[ \n]{0,2}", "[ \t]{0,2}"), 0..300),
            max in 0usize..300,
            cut in prop::collection::vec(1usize..200, 1..8),
        ) {
            let mut text = String::from("{\"piles\": [");
            let mut starts = Vec::new();
            for (i, (pile, before, after)) in piles.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(before);
                starts.push(text.len());
                text.push_str(&pile.to_string());
                text.push_str(after);
            }
            text.push_str("]}");
            let feed = |text: &[u8]| {
                let mut counter = PileCounter::new(max);
                let mut rest = text;
                for &k in cut.iter().cycle() {
                    if rest.is_empty() {
                        break;
                    }
                    let (chunk, after) = rest.split_at(k.min(rest.len()));
                    counter.feed(chunk)?;
                    rest = after;
                }
                Ok(counter.count)
            };
            if piles.len() <= max {
                prop_assert_eq!(feed(text.as_bytes()), Ok(piles.len()));
            } else {
                let past = TooManyPiles { at_least: max + 1, max };
                prop_assert_eq!(feed(text.as_bytes()), Err(past));
                prop_assert_eq!(feed(&text.as_bytes()[..starts[max] + 1]), Err(past));
                prop_assert_eq!(feed(&text.as_bytes()[..starts[max]]), Ok(max));
            }
        }
    }
}
