//! `stonegame bench` (being written).

use std::process::ExitCode;

/// Arguments of `stonegame bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {}

/// Runs the command.
pub fn run(_args: BenchArgs) -> ExitCode {
    super::fail("`bench` is not available yet")
}
