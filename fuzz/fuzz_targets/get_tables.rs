//! Decoding and validating a GetTables request and packing its answer:
//! `pb::GetTablesRequest` decoded by prost from arbitrary bytes, converted
//! with the server's `TryFrom` (`service::convert::TablesRequest`), its
//! tables built and packed in chunks (`service::tables::pack_rows`).
//!
//! Input: byte 0 picks the table limit and the largest chunk, the rest is
//! the encoded request.
//!
//! Holds: no panic; the request is refused exactly when the row is empty,
//! too long, or has a zero or too large pile, the message starting with
//! `piles:` and naming the 1-based bad pile; `chunk_rows` is clamped to
//! 1 ..= the largest (0 meaning the largest); the chunks cover the rows in
//! order, each with the right counts, and every 2-bit code unpacked
//! (`wire::unpack_code`) equals the table's; the tables' verdict equals the
//! kernel's (and the exhaustive solver's on tiny rows).
#![no_main]

use std::num::{NonZeroU32, NonZeroUsize};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use prost::Message;
use stonegame::core::tables::Tables;
use stonegame::core::{MAX_PILE, Variant};
use stonegame::service::rpc::convert::TablesRequest;
use stonegame::service::rpc::tables::pack_rows;
use stonegame::service::{Config, Limits, pb};
use stonegame::wire::unpack_code;
use stonegame_fuzz::assert_solved_right;

const MAX_TABLE: [usize; 4] = [1, 3, 16, 200];
const MAX_CHUNK: [u32; 4] = [1, 2, 7, 1000];

fn limits(max_table: usize, max_chunk: u32) -> Limits {
    static DEFAULTS: OnceLock<Limits> = OnceLock::new();
    let mut limits = DEFAULTS
        .get_or_init(|| Config::defaults().unwrap().limits)
        .clone();
    limits.max_table_piles = NonZeroUsize::new(max_table).unwrap();
    limits.max_chunk_rows = NonZeroU32::new(max_chunk).unwrap();
    limits
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let Ok(req) = pb::GetTablesRequest::decode(bytes) else {
        return;
    };
    let max_table = MAX_TABLE[usize::from(mode & 3)];
    let max_chunk = MAX_CHUNK[usize::from(mode >> 2) & 3];
    let bad_pile = req.piles.iter().position(|&p| p == 0 || p > MAX_PILE);
    let refuse = req.piles.is_empty() || req.piles.len() > max_table || bad_pile.is_some();
    let (piles, asked) = (req.piles.clone(), req.chunk_rows);
    match TablesRequest::try_from((req, &limits(max_table, max_chunk))) {
        Err(e) => {
            assert!(refuse, "refused a good request: {e}");
            let message = e.to_string();
            assert!(message.starts_with("piles: "), "{message}");
            if let Some(i) = bad_pile.filter(|_| piles.len() <= max_table) {
                assert!(message.contains(&format!("pile {} ", i + 1)), "{message}");
            }
        }
        Ok(ok) => {
            assert!(!refuse, "accepted a bad request");
            assert_eq!(&ok.row[..], &piles[..]);
            let want_rows = if asked == 0 {
                max_chunk
            } else {
                asked.min(max_chunk)
            };
            assert_eq!(ok.chunk_rows, want_rows as usize);
            let tables = Tables::new(&ok.row);
            let n = ok.row.len();
            let analysis = assert_solved_right(&ok.row, Variant::TwoEnds);
            assert_eq!(tables.first_player_wins(), analysis.first_player_wins);
            let mut first = 0;
            while first < n {
                let end = (first + ok.chunk_rows).min(n);
                let chunk = pack_rows(&tables, first, end);
                assert_eq!(
                    (
                        chunk.n as usize,
                        chunk.first_row as usize,
                        chunk.row_count as usize
                    ),
                    (n, first, end - first)
                );
                let mut k = 0;
                for i in first..end {
                    for j in i..n {
                        assert_eq!(
                            unpack_code(&chunk.left_codes, k),
                            Some(tables.left_code(i, j))
                        );
                        assert_eq!(
                            unpack_code(&chunk.right_codes, k),
                            Some(tables.right_code(i, j))
                        );
                        k += 1;
                    }
                }
                assert_eq!(chunk.entries as usize, k);
                assert_eq!(chunk.left_codes.len(), k.div_ceil(4));
                first = end;
            }
        }
    }
});
