//! The transcript: every line exchanged with the program (`>` judge to
//! program, `<` program to judge) and the judge's notes (`#`), one per line.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::InteractError;

/// The transcript file, if asked for. A write error does not stop the
/// games: the first one is kept and, once they are over, is the
/// [`InteractError::WriteTranscript`] of [`interact`](super::interact).
pub struct Transcript {
    out: Option<(PathBuf, BufWriter<File>)>,
    error: Option<std::io::Error>,
}

impl Transcript {
    /// Creates the file at `path`; `None`: no transcript.
    pub fn create(path: Option<&Path>) -> Result<Transcript, InteractError> {
        let create = |p: &Path| match File::create(p) {
            Ok(file) => Ok((p.to_path_buf(), BufWriter::new(file))),
            Err(source) => Err(InteractError::CreateTranscript {
                path: p.to_path_buf(),
                source,
            }),
        };
        let out = path.map(create).transpose()?;
        Ok(Transcript { out, error: None })
    }

    /// Writes `{prefix} {text}`.
    pub(super) fn line(&mut self, prefix: &str, text: &str) {
        if let Some((_, w)) = &mut self.out
            && self.error.is_none()
            && let Err(e) = writeln!(w, "{prefix} {text}")
        {
            self.error = Some(e);
        }
    }

    /// Writes a note (`# {text}`).
    pub(super) fn note(&mut self, text: &str) {
        self.line("#", text);
    }

    /// Flushes the file; the first error of any write.
    pub(super) fn finish(&mut self) -> Result<(), InteractError> {
        if let Some((path, w)) = &mut self.out {
            let failed = |source| InteractError::WriteTranscript {
                path: path.clone(),
                source,
            };
            if let Some(e) = self.error.take() {
                return Err(failed(e));
            }
            w.flush().map_err(failed)?;
        }
        Ok(())
    }
}
