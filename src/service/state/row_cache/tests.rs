//! Unit tests of `row_cache`, in their own file beside it.

use super::*;
use crate::core::{Never, ValidRow};

fn prepared(piles: &[u64], budget: &Arc<Budget>) -> PreparedRow {
    let row = ValidRow::new(piles, 100).unwrap();
    let Ok(row) = GameRow::new(&row, Variant::TwoEnds, &Never);
    let memory = vec![budget.try_reserve(piles.len() as u64).unwrap()];
    PreparedRow::new(row, memory)
}

fn key(b: u8) -> RowKey {
    (Variant::TwoEnds, [b; 32])
}

#[tokio::test]
async fn builds_once_evicts_by_bytes_and_releases_memory() {
    let budget = Budget::piles(1000);
    let one = prepared(&[1, 2, 3], &budget).bytes;
    // Room for two rows of three piles.
    let cache = RowCache::new(2 * one + one / 2);
    let get = |k: u8| {
        let b = Arc::clone(&budget);
        let cache = &cache;
        async move {
            cache
                .get_or_build(
                    key(k),
                    || async move { Ok::<_, ()>(prepared(&[1, 2, 3], &b)) },
                )
                .await
                .unwrap()
        }
    };
    let (a, hit) = get(1).await;
    assert!(!hit);
    let (a2, hit) = get(1).await;
    assert!(hit);
    assert!(Arc::ptr_eq(&a, &a2));
    drop((a, a2));
    let _b = get(2).await;
    assert_eq!(
        cache.stats(),
        CacheStats {
            entries: 2,
            bytes: 2 * one
        }
    );
    assert_eq!(budget.in_flight(), 6);
    // A third row evicts the least recently used (1), whose memory
    // goes back to the budget.
    let _c = get(3).await;
    assert_eq!(cache.stats().entries, 2);
    assert_eq!(budget.in_flight(), 6);
    assert!(!get(1).await.1, "1 was evicted");
    // Idle rows go when the budget needs them; rows in use stay.
    drop(_c);
    let held = get(1).await.0;
    assert_eq!(cache.evict_idle(u64::MAX), one);
    assert_eq!(cache.stats().entries, 1);
    drop(held);
    assert_eq!(cache.evict_idle(u64::MAX), one);
    assert_eq!(budget.in_flight(), 3, "only _b's row is held");
    drop(_b);
    assert_eq!(budget.in_flight(), 0);
}

#[tokio::test]
async fn idle_rows_make_room_for_a_reservation_rows_in_use_stay() {
    let piles: Vec<u64> = (1..=60).collect();
    let budget = Budget::piles(200);
    let cache = RowCache::new(1 << 20);
    let mut held = Vec::new();
    for k in 1..=3u8 {
        let (row, _) = cache
            .get_or_build(key(k), || async { Ok::<_, ()>(prepared(&piles, &budget)) })
            .await
            .unwrap();
        held.push(row);
    }
    assert_eq!(budget.in_flight(), 180);
    // Every row in use: nothing to evict, the request is refused.
    assert!(matches!(
        cache.reserve_or_evict(&budget, 100),
        Err(AdmissionError::Busy { .. })
    ));
    // Two idle rows: evicted (least recently used first) until it fits.
    held.truncate(1);
    let r = cache.reserve_or_evict(&budget, 100).unwrap();
    assert_eq!(budget.in_flight(), 160);
    assert_eq!(cache.stats().entries, 1, "the row in use stays");
    drop((r, held));
}

#[tokio::test]
async fn failed_builds_are_forgotten_and_zero_bytes_keeps_nothing() {
    let budget = Budget::piles(1000);
    let cache = RowCache::new(0);
    let e = cache
        .get_or_build(key(1), || async { Err::<PreparedRow, _>("refused") })
        .await
        .unwrap_err();
    assert_eq!(e, "refused");
    assert!(cache.lock().slots.is_empty());
    let (row, hit) = cache
        .get_or_build(key(1), || async { Ok::<_, ()>(prepared(&[4, 5], &budget)) })
        .await
        .unwrap();
    assert!(!hit);
    assert_eq!(cache.stats(), CacheStats::default());
    drop(row);
    assert_eq!(budget.in_flight(), 0);
}

#[tokio::test]
async fn concurrent_builds_of_one_row_build_it_once() {
    let budget = Budget::piles(1000);
    let cache = Arc::new(RowCache::new(1 << 20));
    let builds = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (cache, budget, builds) =
            (Arc::clone(&cache), Arc::clone(&budget), Arc::clone(&builds));
        tasks.push(tokio::spawn(async move {
            cache
                .get_or_build(key(9), || async move {
                    builds.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    tokio::task::yield_now().await;
                    Ok::<_, ()>(prepared(&[3, 1, 4, 1, 5], &budget))
                })
                .await
                .unwrap()
                .0
        }));
    }
    let rows: Vec<_> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(builds.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(rows.iter().all(|r| Arc::ptr_eq(r, &rows[0])));
}
