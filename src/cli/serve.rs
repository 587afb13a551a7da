//! `stonegame serve`: runs the gRPC service until SIGTERM or SIGINT.
//!
//! Configuration layers: embedded defaults → `--config FILE` →
//! `STONEGAME_*` environment → flags (see `crate::service::config`). The
//! bound address is printed as `listening on ADDR` on stderr, and the
//! Prometheus endpoint's as `metrics on ADDR` (unless `metrics.listen` is
//! empty). malloc is
//! tuned to keep freed buffers (`crate::service::state::alloc`) before the runtime
//! starts.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::service::config::telemetry;
use crate::service::config::{Config, Overrides};
use crate::service::serve;
use crate::service::state::alloc;

use super::{CliResult, exit};

/// Arguments of `stonegame serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// A TOML file overriding the built-in defaults.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[arg(long, value_name = "ADDR", help = listen_help())]
    pub listen: Option<String>,
    #[arg(long, value_name = "ADDR", help = metrics_listen_help())]
    pub metrics_listen: Option<String>,
    /// Print the effective configuration (Rust debug form) and exit.
    #[arg(long)]
    pub print_config: bool,
}

/// `--listen`'s help, its default read from the embedded configuration.
fn listen_help() -> String {
    let default = Config::defaults().map(|c| c.listen).unwrap_or_default();
    format!("Address to listen on (default {default}; port 0 = any free port)")
}

/// `--metrics-listen`'s help, its default read from the embedded
/// configuration.
fn metrics_listen_help() -> String {
    let default = Config::defaults()
        .ok()
        .and_then(|c| c.metrics.listen)
        .unwrap_or_default();
    format!(
        "Address of the Prometheus endpoint, `/metrics` (default {default}, or port 0 on \
         that host when the gRPC address has port 0 and no layer sets this; port 0 = any \
         free port; \"\" = none)"
    )
}

/// Runs the command.
pub fn run(args: ServeArgs) -> ExitCode {
    exit(run_serve(args))
}

fn run_serve(args: ServeArgs) -> CliResult {
    let overrides = Overrides {
        listen: args.listen,
        metrics_listen: args.metrics_listen,
    };
    let config = Config::load(args.config.as_deref(), None, &overrides)?;
    if args.print_config {
        for warning in &config.warnings {
            eprintln!("warning: {warning}");
        }
        println!("{config:#?}");
        return Ok(ExitCode::SUCCESS);
    }
    telemetry::init(&config.log).map_err(|e| format!("invalid configuration: {e}"))?;
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    alloc::keep_freed_memory();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if config.io_threads > 0 {
        builder.worker_threads(config.io_threads);
    }
    let runtime = builder.enable_all().thread_name("stonegame-io").build();
    let runtime = runtime.map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(serve(&config))?;
    Ok(ExitCode::SUCCESS)
}
