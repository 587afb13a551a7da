//! The command-line interface: argument parsing and one module per command.
//!
//! Exit codes: 0 success; 1 bad input or a failed request (with a message on
//! stderr); 2 bad usage (clap's own). `check` has its own testlib-style codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod bench;
pub mod check;
pub mod client;
pub mod client_play;
pub mod generate;
pub mod interact;
pub mod package;
pub mod play;
pub mod row_input;
pub mod serve;
pub mod server_arg;
pub mod solve;
pub mod suggest;
pub mod tabletop;

/// Judge and strategy oracle for the "take stones from either end" game.
#[derive(Debug, Parser)]
#[command(name = "stonegame", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Judge OJ-format input: one 0/1 line per case.
    Solve(solve::SolveArgs),
    /// The verdict and winning move(s) of one position.
    Suggest(suggest::SuggestArgs),
    /// Measure the kernel and the whole process beside the C++ peer.
    Bench(bench::BenchArgs),
    /// Run the gRPC service.
    Serve(serve::ServeArgs),
    /// Talk to a running service.
    #[command(subcommand)]
    Client(client::ClientCommand),
    /// Check a contestant's output against a test input (testlib exit codes).
    Check(check::CheckArgs),
    /// Generate OJ-format test data.
    Gen(generate::LocalGenArgs),
    /// Judge a contestant's program that plays the games of an input
    /// (interactive problem; testlib or Kattis conventions).
    Interact(interact::InteractArgs),
    /// Play a game against the bot in the terminal.
    Play(play::PlayArgs),
    /// Write a contest problem package (ICPC/Kattis format 2025-09).
    Package(package::PackageArgs),
}

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Suggest(args) => suggest::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Client(cmd) => client::run(cmd),
        Command::Check(args) => check::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Interact(args) => interact::run(args),
        Command::Play(args) => play::run(args),
        Command::Package(args) => package::run(args),
    }
}

/// Opens FILE, or standard input for `None` or `-`, buffered. A directory
/// is refused here (`Is a directory`), not at its first read.
pub fn open_input(path: Option<&std::path::Path>) -> std::io::Result<Box<dyn std::io::BufRead>> {
    const BUF: usize = 1 << 16;
    Ok(match path.filter(|p| p.as_os_str() != "-") {
        None => Box::new(std::io::BufReader::with_capacity(BUF, std::io::stdin())),
        Some(p) => {
            let file = std::fs::File::open(p)?;
            if file.metadata()?.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::IsADirectory,
                    "Is a directory",
                ));
            }
            Box::new(std::io::BufReader::with_capacity(BUF, file))
        }
    })
}

/// The message of an input that cannot be opened: ``cannot read `PATH`:
/// REASON`` (`-` for standard input).
pub fn cannot_read(path: Option<&std::path::Path>, e: &std::io::Error) -> String {
    let name = path.unwrap_or("-".as_ref()).display();
    format!("cannot read `{name}`: {e}")
}

/// What a command returns: its exit code, or the error [`exit`] reports.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// The exit code of a command's result: an error is reported by [`fail`].
pub fn exit(result: CliResult) -> ExitCode {
    result.unwrap_or_else(fail)
}

/// Prints `error: {msg}` on stderr and returns exit code 1.
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("stonegame: error: {msg}");
    ExitCode::from(1)
}
