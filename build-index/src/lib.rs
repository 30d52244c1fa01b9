//! The build-time half of nlweb-ask: reading `.mdx` docs into pages
//! ([`mdx`], [`corpus`]), their sentence vectors ([`embed`]) and storing the index in S3 ([`upload`]);
//! the docs team's settings file ([`settings`]);
//! the content-gap report of a deployed endpoint's log ([`report`]); and how
//! well an index ranks a team's own graded questions ([`evaluate`]). The
//! `build-index` binary wires them to the command line.

pub mod corpus;
pub mod embed;
pub mod evaluate;
pub mod mdx;
pub mod report;
pub mod settings;
pub mod upload;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

/// Reads every `.mdx` file under `dir` into a map from its path relative to
/// `dir` (with `/` separators) to its text. Files that are not UTF-8 are
/// reported on stderr and left out. `progress` makes a progress bar for the
/// given number of files.
pub fn read_mdx_files(
    dir: &Path,
    progress: &dyn Fn(u64, &str) -> indicatif::ProgressBar,
) -> Result<BTreeMap<String, String>> {
    let mut paths = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(true) {
        let entry = entry.with_context(|| format!("walking {}", dir.display()))?;
        let p = entry.path();
        if entry.file_type().is_file() && p.extension().is_some_and(|e| e == "mdx") {
            paths.push(p.to_path_buf());
        }
    }
    let pb = progress(paths.len() as u64, "reading");
    let mut files = BTreeMap::new();
    for p in &paths {
        let rel = p
            .strip_prefix(dir)
            .unwrap_or(p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
        match String::from_utf8(bytes) {
            Ok(s) => {
                files.insert(rel, s);
            }
            Err(_) => eprintln!("warning: {}: not UTF-8, skipped", p.display()),
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(files)
}
