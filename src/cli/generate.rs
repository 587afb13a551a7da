//! `stonegame gen` (being written).

use std::process::ExitCode;

/// Arguments of `stonegame gen`.
#[derive(Debug, clap::Args)]
pub struct GenArgs {}

/// Runs the command.
pub fn run(_args: GenArgs) -> ExitCode {
    super::fail("`gen` is not available yet")
}
