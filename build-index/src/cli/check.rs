//! `build-index check-index`: whether an index (a file or `s3://bucket/key`) is one this release reads.

use build_index::upload;

use anyhow::{Context, Result};

/// Reads an index's bytes (a file or `s3://bucket/key`) and checks them as
/// the Lambda's cold start would, without decoding the payload.
pub(crate) fn check_index(spec: &str) -> Result<()> {
    let bytes =
        match ask_store::Location::parse(spec).map_err(|e| anyhow::anyhow!("{spec}: {e}"))? {
            ask_store::Location::File(path) => {
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?
            }
            ask_store::Location::S3 { bucket, key } => {
                let runtime = tokio::runtime::Runtime::new().context("starting tokio")?;
                runtime.block_on(async {
                    let client = ask_store::s3_client(upload::path_style_from_env()?).await;
                    let s3 = ask_store::S3::new(client, &bucket, &key);
                    ask_store::IndexSource::fetch(&s3)
                        .await
                        .map(|b| b.to_vec())
                        .map_err(|e| anyhow::anyhow!("fetching {spec}: {e}"))
                })?
            }
        };
    let version = bytes
        .get(8..12)
        .map_or(0, |v| u32::from_le_bytes(v.try_into().expect("4 bytes")));
    let meta = ask_index::read_meta(&bytes)
        .with_context(|| format!("{spec} is not an index this release reads"))?;
    println!(
        "{spec}: index format {version} (this release reads {} to {}), build id {}, built {}, {} pages, {} sections, settings {}",
        ask_index::OLDEST_READABLE,
        ask_index::FORMAT_VERSION,
        meta.build_id,
        meta.built_at,
        meta.pages,
        meta.sections,
        if meta.settings.is_empty() {
            "none"
        } else {
            "carried"
        }
    );
    Ok(())
}
