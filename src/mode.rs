//! The answer modes: a word of the settings (`ask.default_mode`,
//! `ask.generator_modes`) and of the wire (`mode`, `prefer.mode`), so it
//! lives below both, in the settings crate.

pub use ask_settings::Mode;
