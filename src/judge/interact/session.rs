//! The judge's side of the pipes: a reader thread and a writer thread, and
//! lines received with a timeout, so neither a silent program nor one that
//! does not read can hang the judge.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ExitStatus};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use super::transcript::Transcript;
use super::{MAX_LINE, shown_line};

/// What the reader thread saw.
pub(super) enum Incoming {
    Line(Vec<u8>),
    TooLong,
    Eof,
    Failed(io::Error),
}

/// Reads lines of at most [`MAX_LINE`] bytes (the `\n`, and a `\r` before
/// it, removed) and sends them until the end of the input.
pub(super) fn spawn_reader(input: Box<dyn Read + Send>) -> Receiver<Incoming> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut r = BufReader::new(input);
        loop {
            let mut buf = Vec::new();
            let got = match r
                .by_ref()
                .take(MAX_LINE as u64 + 2)
                .read_until(b'\n', &mut buf)
            {
                Ok(0) => Incoming::Eof,
                Ok(_) if buf.last() == Some(&b'\n') => {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                    if buf.len() > MAX_LINE {
                        Incoming::TooLong
                    } else {
                        Incoming::Line(buf)
                    }
                }
                Ok(_) if buf.len() > MAX_LINE => Incoming::TooLong,
                // The last line, without its newline.
                Ok(_) => Incoming::Line(buf),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Incoming::Failed(e),
            };
            let last = !matches!(got, Incoming::Line(_));
            if tx.send(got).is_err() || last {
                return;
            }
        }
    });
    rx
}

/// Writes (and flushes) each message it is sent; says when it is done (its
/// sender dropped, or the output closed).
pub(super) fn spawn_writer(mut out: Box<dyn Write + Send>) -> (Sender<Vec<u8>>, Receiver<()>) {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || {
        for msg in rx {
            if out.write_all(&msg).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
        drop(out);
        let _ = done_tx.send(());
    });
    (tx, done_rx)
}

/// Waits up to `grace` for `child` to exit.
pub(super) fn wait_for(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

/// The judge's side of the pipes.
pub(super) struct Session<'a> {
    /// To the writer thread; `None` once the program's input is closed.
    pub(super) to: Option<Sender<Vec<u8>>>,
    pub(super) from: Receiver<Incoming>,
    pub(super) timeout: Duration,
    pub(super) transcript: &'a mut Transcript,
    pub(super) child: Option<&'a mut Child>,
    /// The program's output has ended.
    pub(super) eof: bool,
}

/// Why no line came.
pub(super) enum NoLine {
    Timeout,
    /// The output ended; a note on how (` (exit status …)`, or empty).
    Ended(String),
    /// A line that is no line of text; how messages show it.
    Garbage(String),
}

impl Session<'_> {
    /// Sends `line` (and its `\n`) to the program.
    pub(super) fn send(&mut self, line: &str) {
        self.transcript.line(">", line);
        if let Some(to) = &self.to {
            // A closed pipe shows up as the end of the program's output.
            let _ = to.send(format!("{line}\n").into_bytes());
        }
    }

    /// The program's next line, within the timeout.
    pub(super) fn recv(&mut self) -> Result<String, NoLine> {
        if self.eof {
            return Err(NoLine::Ended(self.exit_note()));
        }
        match self.from.recv_timeout(self.timeout) {
            Ok(Incoming::Line(bytes)) => match String::from_utf8(bytes) {
                Ok(s) => {
                    self.transcript.line("<", &s);
                    Ok(s)
                }
                Err(e) => {
                    let shown = String::from_utf8_lossy(e.as_bytes()).into_owned();
                    self.transcript.line("<", &shown);
                    Err(NoLine::Garbage(format!(
                        "{} (not UTF-8)",
                        shown_line(&shown)
                    )))
                }
            },
            Ok(Incoming::TooLong) => {
                self.eof = true;
                Err(NoLine::Garbage(format!(
                    "a line longer than {MAX_LINE} bytes"
                )))
            }
            Ok(Incoming::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                self.transcript.note("the program's output ended");
                Err(NoLine::Ended(self.exit_note()))
            }
            Ok(Incoming::Failed(e)) => {
                self.eof = true;
                Err(NoLine::Ended(format!(" (reading its output failed: {e})")))
            }
            Err(RecvTimeoutError::Timeout) => Err(NoLine::Timeout),
        }
    }

    /// ` (exit status …)` when the program is ours and has exited.
    fn exit_note(&mut self) -> String {
        let child = self.child.as_mut();
        let status = child.and_then(|c| wait_for(c, Duration::from_millis(200)));
        status.map_or_else(String::new, |status| format!(" ({status})"))
    }
}
