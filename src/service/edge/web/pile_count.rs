//! Counting the piles of a Connect JSON request while its body arrives
//! ([`PileCounter`]): a byte-at-a-time scan, resumable across chunks, that
//! follows just enough of JSON's structure (strings and their escapes,
//! nesting, the keys of the top-level object) to count the elements of the
//! top-level `piles` array, and stops at the first element past the limit.
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
        for &b in chunk {
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
                self.element_next = false;
                self.count += 1;
                if self.count > self.max {
                    return Err(TooManyPiles {
                        at_least: self.count,
                        max: self.max,
                    });
                }
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
        Ok(())
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
}
