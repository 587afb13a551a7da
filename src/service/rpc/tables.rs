//! `GetTables`: the `left` / `right` tables of one row, streamed in chunks
//! of rows, 2-bit codes packed four per byte (see `TablesChunk` in the
//! .proto and [`pack_rows`]).
//!
//! The row is limited to `max_table_piles` (default 5,000: 12.5 M entries,
//! about 25 MB while it is built); larger rows are refused with
//! `RESOURCE_EXHAUSTED`.

use std::sync::Arc;
use std::time::Instant;

use tokio_stream::StreamExt;
use tonic::{Request, Response, Status};

use crate::core::tables::Tables;

use crate::service::pb;
use crate::service::rpc::convert::TablesRequest;
use crate::service::state::clients::ClientKey;
use crate::service::state::limits::{cells_of, deadline, piles_of_bytes};
use crate::service::state::{BoxStream, State};

/// Builds the tables on the pool, then streams them. The build polls the
/// call's cancellation (client gone, `grpc-timeout` deadline, the end of the
/// shutdown grace) once per diagonal, so abandoned work stops within
/// milliseconds and work queued behind it is never started.
#[tracing::instrument(name = "GetTables", skip_all, fields(piles = request.get_ref().piles.len()))]
pub async fn get_tables(
    state: &Arc<State>,
    request: Request<pb::GetTablesRequest>,
) -> Result<Response<BoxStream<pb::TablesChunk>>, Status> {
    let _permit = state.admit_rpc(ClientKey::of(&request))?;
    let started = Instant::now();
    let deadline = deadline(&request);
    let req = TablesRequest::try_from((request.into_inner(), &state.limits))?;
    let (row, chunk_rows) = (req.row, req.chunk_rows);
    let n = row.len();
    let reservation = state.admit_work(cells_of(n, true), memory_units(n))?;
    // If tonic drops this future (client gone, deadline passed), the guard
    // stops the build on the pool.
    let cancel = state.cancellation(deadline);
    let _guard = cancel.token().clone().drop_guard();
    let watched = cancel.clone();
    let (chunks, reservation) = state
        .run_cpu(move || {
            let cancelled = || watched.is_cancelled();
            let tables = Tables::new_cancellable(&row, &cancelled).ok()?;
            (0..n)
                .step_by(chunk_rows)
                .map(|first| {
                    (!cancelled()).then(|| pack_rows(&tables, first, (first + chunk_rows).min(n)))
                })
                .collect::<Option<Vec<_>>>()
                .map(|chunks| {
                    // Built: the CPU is given back, and the memory held from
                    // now on is the chunks'.
                    let [cells, mut memory] = reservation;
                    drop((cells, tables));
                    let held: usize = chunks.iter().map(chunk_bytes).sum();
                    memory.resize(piles_of_bytes(held as u64));
                    (chunks, memory)
                })
        })
        .await?
        .ok_or_else(|| cancel.status("the tables' build"))?;
    state.metrics.count_tables(n);
    tracing::info!(
        piles = n,
        chunks = chunks.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "GetTables"
    );
    // The chunks stay reserved until the stream is sent (or dropped).
    let stream = tokio_stream::iter(chunks.into_iter().map(Ok)).map(move |chunk| {
        let _held = &reservation;
        chunk
    });
    Ok(Response::new(Box::pin(stream)))
}

/// What a GetTables call of `n` piles holds at most, in memory-budget
/// units (8 bytes): the row, the tables (two bytes an entry: n(n+1) bytes)
/// and the packed chunks (half a byte an entry). Once the tables are built
/// and dropped, the call holds only its chunks' bytes until they are sent.
pub fn memory_units(n: usize) -> u64 {
    let n = n as u64;
    let entries = n * (n + 1) / 2;
    (8 * n + 2 * entries + entries.div_ceil(2)).div_ceil(8)
}

/// The heap bytes of one chunk.
fn chunk_bytes(chunk: &pb::TablesChunk) -> usize {
    chunk.left_codes.capacity() + chunk.right_codes.capacity() + 64
}

/// Rows `first .. end` of the tables as one chunk: entries (i, j) for
/// j = i .. n−1, rows in order, codes packed four per byte, the first entry
/// in the lowest two bits ([`unpack_code`](crate::wire::unpack_code) reads
/// them).
pub fn pack_rows(tables: &Tables, first: usize, end: usize) -> pb::TablesChunk {
    let n = tables.len();
    let entries: usize = (first..end).map(|i| n - i).sum();
    let mut left = vec![0u8; entries.div_ceil(4)];
    let mut right = vec![0u8; entries.div_ceil(4)];
    let mut k = 0;
    for i in first..end {
        for j in i..n {
            let shift = 2 * (k % 4);
            left[k / 4] |= tables.left_code(i, j) << shift;
            right[k / 4] |= tables.right_code(i, j) << shift;
            k += 1;
        }
    }
    pb::TablesChunk {
        n: n as u32,
        first_row: first as u32,
        row_count: (end - first) as u32,
        left_codes: left,
        right_codes: right,
        entries: entries as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ValidRow;
    use crate::wire::unpack_code as unpack;

    #[test]
    fn packing_round_trips() {
        let piles = [3, 1, 9, 4, 4, 2, 7];
        let t = Tables::new(&ValidRow::new(&piles[..], 100).unwrap());
        let chunk = pack_rows(&t, 2, 5);
        let mut k = 0;
        for i in 2..5 {
            for j in i..piles.len() {
                assert_eq!(unpack(&chunk.left_codes, k), Some(t.left_code(i, j)));
                assert_eq!(unpack(&chunk.right_codes, k), Some(t.right_code(i, j)));
                k += 1;
            }
        }
        assert_eq!(chunk.entries as usize, k);
    }
}
