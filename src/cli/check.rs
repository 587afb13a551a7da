//! `stonegame check` (being written).

use std::process::ExitCode;

/// Arguments of `stonegame check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {}

/// Runs the command.
pub fn run(_args: CheckArgs) -> ExitCode {
    super::fail("`check` is not available yet")
}
