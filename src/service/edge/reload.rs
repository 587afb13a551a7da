//! Re-reading files when they change, by polling: the certificates of
//! [`crate::service::edge::tls`] and the tokens of [`crate::service::edge::auth`].
//!
//! Every interval the files are read whole and compared with what was
//! last seen; when the bytes differ the new contents are handed to the
//! owner, which applies them or refuses them (then the old ones stay and an
//! error is logged, once per distinct content). Polling the contents, not
//! watching inodes, follows a Kubernetes Secret's in-place update (a
//! symlink swap of the whole directory) and an editor's rename alike, on
//! every platform, without another dependency; the files are small.

use std::fmt::Display;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use tokio_util::task::AbortOnDropHandle;

use crate::service::metrics::{Metrics, Reloaded};

/// The contents of the watched files, in order.
pub type Contents = Vec<Vec<u8>>;

/// Reads every file of `paths`; the first error names its file.
pub fn read_all(paths: &[PathBuf]) -> Result<Contents, (PathBuf, std::io::Error)> {
    paths
        .iter()
        .map(|p| std::fs::read(p).map_err(|e| (p.clone(), e)))
        .collect()
}

/// Polls `paths` every `every` and, when their contents differ from
/// `initial` (and from the last contents seen), stores what `build` makes
/// of them in `target`; a `build` error keeps the old value. `what` names
/// the files in logs and in `stonegame_reloads_total`. The task runs until
/// the handle is dropped.
pub fn watch<T, E, F>(
    what: Reloaded,
    paths: Vec<PathBuf>,
    every: Duration,
    initial: Contents,
    metrics: Arc<Metrics>,
    target: Arc<ArcSwap<T>>,
    build: F,
) -> AbortOnDropHandle<()>
where
    T: Send + Sync + 'static,
    E: Display,
    F: Fn(&Contents) -> Result<T, E> + Send + 'static,
{
    AbortOnDropHandle::new(tokio::spawn(async move {
        let mut seen = initial;
        let mut last_read_error: Option<String> = None;
        let mut interval = tokio::time::interval(every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval.tick().await;
        loop {
            interval.tick().await;
            let paths_for_read = paths.clone();
            let read = tokio::task::spawn_blocking(move || read_all(&paths_for_read)).await;
            let contents = match read {
                Ok(Ok(contents)) => {
                    last_read_error = None;
                    contents
                }
                Ok(Err((path, e))) => {
                    // A Secret update swaps a symlink: a read may miss the
                    // file for an instant. Logged once per distinct error.
                    let message = format!("{}: {e}", path.display());
                    if last_read_error.as_ref() != Some(&message) {
                        tracing::error!(what = what.label(), error = %message, "cannot re-read; keeping the old ones");
                        metrics.reloaded(what, false);
                        last_read_error = Some(message);
                    }
                    continue;
                }
                Err(e) => {
                    tracing::error!(what = what.label(), error = %e, "the re-reading task failed");
                    continue;
                }
            };
            if contents == seen {
                continue;
            }
            match build(&contents) {
                Ok(value) => {
                    target.store(Arc::new(value));
                    tracing::info!(what = what.label(), "changed files re-read and applied");
                    metrics.reloaded(what, true);
                }
                Err(e) => {
                    tracing::error!(what = what.label(), error = %e, "changed files refused; keeping the old ones");
                    metrics.reloaded(what, false);
                }
            }
            seen = contents;
        }
    }))
}
