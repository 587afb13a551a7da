//! Unit tests of `schedule`, in their own file beside it.

use super::*;

type S = Scheduler<&'static str, String>;

fn quick() -> RetryPolicy {
    RetryPolicy {
        max_replica_failures: 3,
        max_batch_attempts: 3,
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(300),
    }
}

/// Opens every startable replica's stream.
fn open_all(s: &mut S, now: Instant) -> Vec<(String, u64)> {
    let started = s.start(now);
    for (name, id) in &started {
        s.opened(name, *id);
    }
    started
}

fn drain_ready(s: &mut S) -> Vec<String> {
    std::iter::from_fn(|| s.pop_ready()).collect()
}

#[test]
fn backoff_doubles_up_to_the_cap() {
    let p = RetryPolicy::default();
    let ms = |m| Duration::from_millis(m);
    let waits: Vec<_> = (1..=8).map(|f| p.backoff(f)).collect();
    assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000].map(ms));
    assert_eq!(p.backoff(u32::MAX), ms(5000));
}

#[test]
fn answers_are_released_in_input_order_whatever_order_they_come_in() {
    let now = Instant::now();
    let mut s = S::new(quick(), 2);
    s.add_replica("a");
    s.add_replica("b");
    for (i, b) in ["b0", "b1", "b2", "b3", "b4"].into_iter().enumerate() {
        assert!(s.wants_input());
        assert_eq!(s.push(b, i + 1), i as u64);
    }
    s.end_input();
    assert!(!s.wants_input());
    open_all(&mut s, now);
    // Lowest index first, to the least loaded replica: a0 b1 a2 b3.
    let sent: Vec<_> = std::iter::from_fn(|| s.assign()).collect();
    assert_eq!(
        sent,
        [
            ("a".into(), 1, 0),
            ("b".into(), 2, 1),
            ("a".into(), 1, 2),
            ("b".into(), 2, 3)
        ]
    );
    // b answers first: nothing can be released before batch 0.
    assert_eq!(s.expecting("b", 2), Some(2));
    assert_eq!(s.answered("b", 2, "r1".into()), Some(1));
    assert_eq!(s.pop_ready(), None);
    assert_eq!(s.answered("a", 1, "r0".into()), Some(0));
    assert_eq!(drain_ready(&mut s), ["r0", "r1"]);
    // Both have one batch in flight and one answered: a (by name) gets 4.
    assert_eq!(s.assign(), Some(("a".into(), 1, 4)));
    assert_eq!(s.answered("b", 2, "r3".into()), Some(3));
    assert_eq!(drain_ready(&mut s), Vec::<String>::new());
    assert_eq!(s.answered("a", 1, "r2".into()), Some(2));
    assert_eq!(s.answered("a", 1, "r4".into()), Some(4));
    assert_eq!(drain_ready(&mut s), ["r2", "r3", "r4"]);
    assert!(s.done());
    assert_eq!(s.released_cases(), 15);
    let stats = s.stats();
    assert_eq!((stats[0].batches, stats[0].cases), (3, 9));
    assert_eq!((stats[1].batches, stats[1].cases), (2, 6));
}

#[test]
fn a_failed_stream_resends_its_unanswered_batches_elsewhere_exactly_once() {
    let now = Instant::now();
    let mut s = S::new(quick(), 3);
    for r in ["a", "b"] {
        s.add_replica(r);
    }
    for b in ["b0", "b1", "b2", "b3", "b4", "b5"] {
        s.push(b, 1);
    }
    s.end_input();
    open_all(&mut s, now);
    while s.assign().is_some() {}
    // a holds 0, 2, 4; b holds 1, 3, 5. a answers 0, then dies.
    assert_eq!(s.answered("a", 1, "r0".into()), Some(0));
    let ended = s
        .ended("a", 1, Some("connection reset".into()), None, now)
        .unwrap();
    let Ended::Failed {
        resent: 2,
        retry_in: Some(wait),
    } = ended
    else {
        panic!("{ended:?}")
    };
    assert!(wait >= Duration::from_millis(100) && wait <= Duration::from_millis(125));
    // Nothing is in flight on a any more.
    assert_eq!(s.expecting("a", 1), None);
    assert_eq!(s.answered("a", 1, "late".into()), None);
    // b takes the resent 2 and 4 as its batches are answered.
    assert_eq!(s.assign(), None);
    assert_eq!(s.answered("b", 2, "r1".into()), Some(1));
    assert_eq!(s.assign(), Some(("b".into(), 2, 2)));
    assert_eq!(drain_ready(&mut s), ["r0", "r1"]);
    assert_eq!(s.answered("b", 2, "r3".into()), Some(3));
    assert_eq!(s.assign(), Some(("b".into(), 2, 4)));
    for r in ["r5", "r2", "r4"] {
        s.answered("b", 2, r.into()).unwrap();
    }
    assert_eq!(drain_ready(&mut s), ["r2", "r3", "r4", "r5"]);
    assert!(s.done());
    // a backs off; a is not restarted once the run is done.
    assert_eq!(s.next_wakeup(), Some(now + wait));
    assert!(s.start(now + wait).is_empty());
    let a = &s.stats()[0];
    assert_eq!((a.batches, a.failures), (1, 1));
    assert_eq!(a.last_error.as_deref(), Some("connection reset"));
}

#[test]
fn a_replica_is_retried_after_its_backoff_and_given_up_after_too_many_failures() {
    let t0 = Instant::now();
    let mut s = S::new(quick(), 1);
    s.add_replica("a");
    s.push("b0", 1);
    s.end_input();
    let mut now = t0;
    for attempt in 1..=3u32 {
        let started = s.start(now);
        assert_eq!(started.len(), 1, "attempt {attempt}");
        let (_, id) = started[0].clone();
        // The stream cannot be opened: nothing was in flight.
        let ended = s
            .ended("a", id, Some("connection refused".into()), None, now)
            .unwrap();
        match ended {
            Ended::Failed {
                resent: 0,
                retry_in: Some(wait),
            } if attempt < 3 => {
                assert!(s.start(now).is_empty(), "still backing off");
                assert!(!s.stuck());
                now = s.next_wakeup().unwrap();
                assert_eq!(now, now.max(t0 + wait));
            }
            Ended::Failed {
                resent: 0,
                retry_in: None,
            } if attempt == 3 => {}
            other => panic!("attempt {attempt}: {other:?}"),
        }
    }
    assert!(s.stuck());
    let a = &s.stats()[0];
    assert!(a.given_up);
    assert_eq!(a.failures, 3);
}

#[test]
fn an_answer_resets_the_failure_count_and_the_server_hint_is_a_floor() {
    let now = Instant::now();
    let mut s = S::new(quick(), 1);
    s.add_replica("a");
    for b in ["b0", "b1", "b2"] {
        s.push(b, 1);
    }
    let mut id = open_all(&mut s, now)[0].1;
    for round in 0..3 {
        s.assign().unwrap();
        s.answered("a", id, format!("r{round}")).unwrap();
        let hint = Duration::from_secs(2);
        let Ended::Failed { retry_in, .. } = s
            .ended("a", id, Some("busy".into()), Some(hint), now)
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(retry_in, Some(hint), "round {round}: never given up");
        id = s.start(now + hint)[0].1;
        s.opened("a", id);
    }
    assert_eq!(drain_ready(&mut s), ["r0", "r1", "r2"]);
}

#[test]
fn a_batch_failing_on_too_many_streams_ends_the_run() {
    let now = Instant::now();
    let mut s = S::new(quick(), 1);
    for r in ["a", "b", "c", "d"] {
        s.add_replica(r);
    }
    s.push("poison", 1);
    s.end_input();
    let mut started = open_all(&mut s, now);
    for attempt in 1..=3 {
        let (name, id, index) = s.assign().unwrap();
        assert_eq!(index, 0);
        let result = s.ended(&name, id, Some("reset".into()), None, now);
        if attempt < 3 {
            assert!(result.is_ok());
        } else {
            assert_eq!(
                result,
                Err(BatchGaveUp {
                    batch: 0,
                    attempts: 3,
                    last_error: "reset".into()
                })
            );
        }
        started.retain(|(n, _)| *n != name);
    }
}

#[test]
fn a_draining_replica_finishes_its_batches_takes_no_more_and_is_closed() {
    let now = Instant::now();
    let mut s = S::new(quick(), 2);
    s.add_replica("a");
    s.add_replica("b");
    for b in ["b0", "b1", "b2", "b3", "b4", "b5"] {
        s.push(b, 1);
    }
    s.end_input();
    open_all(&mut s, now);
    while s.assign().is_some() {}
    s.draining("a", 1);
    assert!(s.to_close().is_empty(), "a still has batches in flight");
    s.answered("a", 1, "r0".into()).unwrap();
    s.answered("b", 2, "r1".into()).unwrap();
    // Batch 4 goes to b although a has room.
    assert_eq!(s.assign(), Some(("b".into(), 2, 4)));
    s.answered("a", 1, "r2".into()).unwrap();
    assert_eq!(s.to_close(), [("a".to_string(), 1)]);
    assert_eq!(s.ended("a", 1, None, None, now), Ok(Ended::Quiet));
    for r in ["r3", "r4"] {
        s.answered("b", 2, r.into()).unwrap();
    }
    assert_eq!(s.assign(), Some(("b".into(), 2, 5)));
    s.answered("b", 2, "r5".into()).unwrap();
    assert_eq!(drain_ready(&mut s), ["r0", "r1", "r2", "r3", "r4", "r5"]);
    assert!(s.done());
    assert_eq!(s.stats()[0].failures, 0);
}

#[test]
fn replicas_leaving_and_joining_the_resolved_set() {
    let now = Instant::now();
    let mut s = S::new(quick(), 1);
    s.add_replica("a");
    for b in ["b0", "b1"] {
        s.push(b, 1);
    }
    s.end_input();
    open_all(&mut s, now);
    assert_eq!(s.assign(), Some(("a".into(), 1, 0)));
    // a leaves the set with batch 0 in flight; c joins.
    s.remove_replica("a");
    s.add_replica("c");
    assert!(!s.stuck());
    assert_eq!(open_all(&mut s, now), [("c".to_string(), 2)]);
    assert_eq!(s.assign(), Some(("c".into(), 2, 1)));
    // a's stream breaks: batch 0 goes to c; a is not retried.
    assert!(s.ended("a", 1, Some("reset".into()), None, now).is_ok());
    assert!(s.start(now + Duration::from_secs(9)).is_empty());
    s.answered("c", 2, "r1".into()).unwrap();
    assert_eq!(s.assign(), Some(("c".into(), 2, 0)));
    s.answered("c", 2, "r0".into()).unwrap();
    assert_eq!(drain_ready(&mut s), ["r0", "r1"]);
    // Everything gone: stuck as soon as there is work.
    let mut s = S::new(quick(), 1);
    s.add_replica("a");
    s.remove_replica("a");
    assert!(!s.stuck());
    s.push("b0", 1);
    assert!(s.stuck());
    s.add_replica("a");
    assert!(!s.stuck());
    assert_eq!(s.start(now).len(), 1);
}

#[test]
fn input_is_taken_in_bounded_rounds() {
    let mut s = S::new(quick(), 2);
    s.add_replica("a");
    s.add_replica("b");
    let mut n = 0;
    while s.wants_input() {
        s.push("b", 1);
        n += 1;
    }
    assert_eq!(n, 8, "two rounds of 2 in flight on 2 replicas");
}
