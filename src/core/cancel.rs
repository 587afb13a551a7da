//! Cancellation checks for long computations.
//!
//! The kernels poll a [`Cancel`] between blocks of layers. A closure
//! `Fn() -> bool` (true: stop) stops the work with [`Cancelled`]; [`Never`]
//! never stops it, and its stop type is uninhabited, so a caller that passes
//! it gets the value with `let Ok(value) = …;` and no impossible error to
//! handle.

use std::convert::Infallible;

/// The work was stopped because its cancellation check returned true.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the computation was cancelled")]
pub struct Cancelled;

/// A check, polled now and then, of whether to stop the work.
pub trait Cancel: Sync {
    /// What a stopped computation returns as its error.
    type Stop;
    /// `Err` when the work should stop now.
    fn check(&self) -> Result<(), Self::Stop>;
}

/// A check that never stops the work.
#[derive(Debug, Clone, Copy, Default)]
pub struct Never;

impl Cancel for Never {
    type Stop = Infallible;
    #[inline]
    fn check(&self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// A closure that returns true once the work should stop.
impl<F: Fn() -> bool + Sync + ?Sized> Cancel for F {
    type Stop = Cancelled;
    #[inline]
    fn check(&self) -> Result<(), Cancelled> {
        if self() { Err(Cancelled) } else { Ok(()) }
    }
}
