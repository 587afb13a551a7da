//! `stonegame client …` (being written).

use std::process::ExitCode;

/// Client subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ClientCommand {
    /// Not yet.
    Solve,
}

/// Runs the command.
pub fn run(_cmd: ClientCommand) -> ExitCode {
    super::fail("`client` is not available yet")
}
