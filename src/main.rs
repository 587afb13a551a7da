//! The `stonegame` command: see `stonegame --help`.

fn main() -> std::process::ExitCode {
    stonegame::cli::main()
}
