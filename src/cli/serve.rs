//! `stonegame serve` (being written).

use std::process::ExitCode;

/// Arguments of `stonegame serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {}

/// Runs the command.
pub fn run(_args: ServeArgs) -> ExitCode {
    super::fail("`serve` is not available yet")
}
