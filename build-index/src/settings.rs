//! Which settings does a docs team give? Its settings file (an `ask:`
//! section beside its docs), read and checked with
//! [`ask_settings::read_file`]: the keys it sets go into the index
//! ([`TeamSettings::carried`]), its `corpus_path` names the docs folder.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// A docs team's settings file, read and checked.
#[derive(Clone, Debug)]
pub struct TeamSettings {
    /// Where the file is (for messages and relative paths).
    pub path: PathBuf,
    /// The keys the file sets, as JSON.
    pub set: serde_json::Map<String, serde_json::Value>,
    /// The defaults with those keys on top.
    pub settings: ask_settings::Settings,
}

impl TeamSettings {
    /// Reads the settings file at `path`; when it does not exist and was
    /// not `explicit`ly named, the defaults. An unknown key or a bad value
    /// fails, naming the key, the file and the line.
    pub fn read(path: &Path, explicit: bool) -> Result<TeamSettings> {
        let text = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => String::new(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let set = ask_settings::read_file(&path.display().to_string(), &text)
            .map_err(|e| anyhow::anyhow!(e.message))?;
        let settings =
            ask_settings::resolve(&set, &|_| None).map_err(|e| anyhow::anyhow!(e.message))?;
        Ok(TeamSettings {
            path: path.to_path_buf(),
            set,
            settings,
        })
    }

    /// The folder of `.mdx` pages the file names, relative to its folder.
    pub fn corpus(&self) -> PathBuf {
        let dir = self.path.parent().unwrap_or(Path::new(""));
        dir.join(&self.settings.corpus_path)
    }

    /// What the index carries to the Lambda: the keys the file sets, as a
    /// JSON object with its keys sorted (whether serde_json keeps insertion
    /// order depends on the features a build unifies; the index's bytes
    /// must not), empty when it sets none.
    pub fn carried(&self) -> String {
        if self.set.is_empty() {
            return String::new();
        }
        let sorted: std::collections::BTreeMap<&String, &serde_json::Value> =
            self.set.iter().collect();
        serde_json::to_string(&sorted).expect("settings serialise")
    }
}
