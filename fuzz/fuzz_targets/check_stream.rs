//! The streaming Check (`stonegame::service::rpc::check`): the test input and the
//! answer cut into chunks of fuzzer-chosen sizes, interleaved in a
//! fuzzer-chosen order, sent as `CheckRequest` messages through the
//! service's `route` into its `Pipes`, while the checker reads the
//! `PipeReader`s on another thread, as the RPC does.
//!
//! Input: byte 0 the mode (first message's variant number 0–3, the byte
//! limit 64 B / 256 B / 4 KiB / 1 MiB, whether later messages repeat the
//! variant, whether one names another variant, whether a variant-only
//! message comes first), byte 1 (mod 16) the number of schedule bytes
//! that follow (each: which file, bit 0, and chunk length, the rest, + 1);
//! then the test input, a NUL byte, and the answer.
//!
//! Holds: no panic and no deadlock (libFuzzer's `-timeout`); an unknown
//! variant in the first message and another variant in a later one are
//! INVALID_ARGUMENT, naming `variant`; otherwise the stream either gives
//! exactly the report of `judge::check` on the two whole files, or
//! (only when the two files together exceed the byte limit) fails with
//! RESOURCE_EXHAUSTED naming the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stonegame::judge::OnPool;
use stonegame::judge::check::{check, check_with};
use stonegame::service::pb::{self, CheckRequest, check_request::Part};
use stonegame::service::rpc::check::{Pipes, route};
use stonegame::wire::convert::variant_from_wire;
use tonic::Code;

const LIMITS: [usize; 4] = [64, 256, 4096, 1 << 20];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (schedule, files) = match rest.split_first() {
        Some((&k, rest)) if rest.len() >= usize::from(k % 16) => rest.split_at(usize::from(k % 16)),
        _ => (&[][..], rest),
    };
    let (input, answer) = match files.iter().position(|&b| b == 0) {
        Some(i) => (&files[..i], &files[i + 1..]),
        None => (files, &[][..]),
    };
    let first_variant = i32::from(mode & 3);
    let max_bytes = LIMITS[usize::from(mode >> 2) & 3];
    let repeat = mode & 0x10 != 0;
    let change = mode & 0x20 != 0;
    let variant_only_first = mode & 0x40 != 0;

    // The messages.
    let mut messages = vec![];
    if variant_only_first {
        messages.push(CheckRequest {
            part: None,
            variant: first_variant,
        });
    }
    let schedule = if schedule.is_empty() {
        &[0xff][..]
    } else {
        schedule
    };
    let (mut at_input, mut at_answer, mut k) = (0, 0, 0);
    while at_input < input.len() || at_answer < answer.len() {
        let step = schedule[k % schedule.len()];
        let len = usize::from(step >> 1) + 1;
        let want_input = step & 1 == 0;
        let take_input = (want_input && at_input < input.len()) || at_answer == answer.len();
        let chunk = if take_input {
            let end = (at_input + len).min(input.len());
            let c = Part::InputChunk(input[at_input..end].to_vec());
            at_input = end;
            c
        } else {
            let end = (at_answer + len).min(answer.len());
            let c = Part::AnswerChunk(answer[at_answer..end].to_vec());
            at_answer = end;
            c
        };
        let variant = if messages.is_empty() || repeat {
            first_variant
        } else {
            0
        };
        messages.push(CheckRequest {
            part: Some(chunk),
            variant,
        });
        k += 1;
    }
    if messages.is_empty() {
        messages.push(CheckRequest {
            part: None,
            variant: first_variant,
        });
    }
    let mut other_at = None;
    if change && messages.len() > 1 {
        let i = usize::from(mode) % (messages.len() - 1) + 1;
        let other = if first_variant == pb::Variant::Leftmost as i32 {
            1
        } else {
            2
        };
        messages[i].variant = other;
        other_at = Some(i);
    }

    // The RPC: the first message's variant, then every message routed.
    let variant = match variant_from_wire(messages[0].variant) {
        Ok(v) => v,
        Err(e) => {
            assert_eq!(first_variant, 3);
            assert!(e.to_string().starts_with("variant: "), "{e}");
            return;
        }
    };
    let (pipes, input_reader, answer_reader) = Pipes::new(max_bytes);
    let finished = pipes.finish_on_drop();
    let job = std::thread::spawn(move || {
        let _finished = finished;
        check_with(input_reader, answer_reader, variant, &mut OnPool(None))
    });
    let sent = futures::executor::block_on(async {
        for (i, message) in messages.into_iter().enumerate() {
            if let Err(status) = route(&pipes, message, variant).await {
                return Err((i, status));
            }
        }
        pipes.close();
        Ok(())
    });
    match sent {
        Ok(()) => {
            let report = job.join().expect("the checker panicked").unwrap();
            assert_eq!(other_at, None, "another variant was accepted");
            assert_eq!(report, check(input, answer, variant));
        }
        Err((i, status)) => {
            drop(pipes); // the RPC ends: the reads fail, the job returns
            let _ = job.join().expect("the checker panicked");
            match status.code() {
                Code::InvalidArgument => {
                    assert_eq!(Some(i), other_at, "{status:?}");
                    assert!(status.message().starts_with("variant: "), "{status:?}");
                }
                Code::ResourceExhausted => {
                    assert!(input.len() + answer.len() > max_bytes, "{status:?}");
                    assert!(
                        status
                            .message()
                            .contains(&format!("limit of {max_bytes} bytes"))
                    );
                }
                _ => panic!("unexpected status {status:?}"),
            }
        }
    }
});
