//! What does a docs team set, and where does it come from?
//!
//! The `ask:` settings are one serde type, [`Settings`], with a doc comment
//! and a default for each key. That type is the schema of everything else:
//!
//! - the **settings file** a docs team keeps beside its docs (YAML, an
//!   `ask:` section): [`read_file`] refuses an unknown key or a bad value,
//!   naming the key, the file and the line. `build-index --config FILE`
//!   reads it and stores the keys it sets in the index, so the Lambda, the
//!   local server and every deploy use the same values;
//! - the **environment**: each key `ask.<key>` is read from `ASK_<KEY>` by
//!   one rule ([`resolve`]), and overrides the file; an empty variable is
//!   ignored;
//! - the `/config` document and the configuration page's table, which
//!   [`keys`] lists with their variable, default and doc comment.
//!
//! Precedence: the defaults below < the settings file (carried in the
//! index) < the environment. [`Settings::validate`] is the one check of a
//! loaded value. Pure: no I/O; the environment is a function passed in.

mod read;
mod settings;
mod table;

pub use read::{read_file, resolve};
pub use settings::{
    AuthMode, DEFAULT_AUTH_SCOPE, Error, Generator, MAX_GENERATOR_TIMEOUT_MS, Mode, Retriever,
    Settings, SiteSetting, Transport,
};
pub use table::{Key, Kind, env_name, keys, table};

#[cfg(test)]
mod tests;
