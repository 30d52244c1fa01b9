//! Where does the index go in S3, and did it arrive intact?

use anyhow::{Context, Result, bail};
use ask_store::{IndexSource, Location};

/// Path-style addressing when `ASK_S3_FORCE_PATH_STYLE` says so; a value
/// that is not a boolean is an error, not a silent `false`.
pub fn path_style_from_env() -> Result<bool> {
    let var = ask_store::PATH_STYLE_VAR;
    let flag =
        ask_store::env_flag(var, std::env::var(var).ok().as_deref()).map_err(anyhow::Error::msg)?;
    Ok(flag.unwrap_or(false))
}

/// Writes `bytes` to `uri`, then reads the object back and compares size and
/// CRC-32 with what was sent.
pub async fn upload(uri: &str, bytes: &[u8], path_style: bool) -> Result<()> {
    let Ok(Location::S3 { bucket, key }) = Location::parse(uri) else {
        bail!("--upload takes s3://bucket/key, got {uri:?}");
    };
    let object = ask_store::S3::new(ask_store::s3_client(path_style).await, &bucket, &key);
    object
        .put(bytes.to_vec())
        .await
        .with_context(|| format!("uploading to {uri}"))?;
    let body = object
        .fetch()
        .await
        .with_context(|| format!("reading back {uri}"))?;
    if body.len() != bytes.len() {
        bail!(
            "read back {} bytes from {uri}, sent {}",
            body.len(),
            bytes.len()
        );
    }
    let (sent, back) = (crc32fast::hash(bytes), crc32fast::hash(&body));
    if sent != back {
        bail!("read back a different object from {uri}: crc32 {back:08x}, sent {sent:08x}");
    }
    ask_index::read_meta(&body).with_context(|| format!("checking {uri}"))?;
    eprintln!(
        "uploaded {} bytes to {uri}, read back: size and crc32 {sent:08x} match",
        body.len()
    );
    Ok(())
}
