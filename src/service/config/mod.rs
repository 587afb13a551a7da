//! Configuration of `stonegame serve` ([`settings`]: the layers, the
//! sections and their checks), the tables of its sections that the layers
//! above apply ([`transport`], [`web`], [`log`]), and logging's set-up
//! from it ([`telemetry`]).
//!
//! The lowest layer of the service: it uses the core only.

pub mod costs;
pub mod log;
pub mod settings;
pub mod telemetry;
pub mod transport;
pub mod web;

pub use log::{LogConfig, LogFormat, parse_filter};
pub use settings::*;
pub use transport::TransportConfig;
pub use web::WebConfig;
