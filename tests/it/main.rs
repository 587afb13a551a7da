//! The integration tests as one test binary, `it`: each former
//! `tests/NAME.rs` is the module `NAME` here (`tests/it/NAME.rs`), so cargo
//! links one executable instead of 32, each with the library and its
//! dependencies (issue 21 §5; the map of what each module holds the code to
//! is docs/tests.md).
//!
//! All of it: `cargo test --test it`. One area: its module's path, e.g.
//! `cargo test --test it service_play::`; one test:
//! `cargo test --test it service_play::NAME -- --exact`. Helpers shared by
//! the modules are in `common` (`common::certs`: the TLS tests'
//! certificates); data files stay in `tests/data`, `tests/python`,
//! `tests/web` and `tests/web_install`.

mod common;

mod build_msrv;
mod cli_client_play;
mod cli_client_suggest;
mod cli_help;
mod cli_interact;
mod cli_play;
mod cli_solve;
mod client_goaway;
mod client_replicas;
mod core_exhaustive;
mod core_game;
mod core_kernel;
mod deploy_manifests;
mod deploy_pod;
mod docs_examples;
mod docs_links;
mod judge_check;
mod judge_generate;
mod judge_wrong_solutions;
mod package_bapctools;
mod package_setter;
mod package_tempo;
mod service_admission;
mod service_auth;
mod service_budgets;
mod service_config;
mod service_e2e;
mod service_errors;
mod service_hostile;
mod service_interop_python;
mod service_judge;
mod service_layers;
mod service_loadtest;
mod service_metrics;
mod service_play;
mod service_remoteness;
mod service_shutdown;
mod service_tls;
mod service_web;
mod web_browser;
