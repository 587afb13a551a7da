//! Remoteness (docs/game.md §5).

pub mod exhaustive;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
