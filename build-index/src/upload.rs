//! Where does the index go in S3, and did it arrive intact?

use anyhow::{Context, Result, bail};
use aws_sdk_s3::primitives::ByteStream;

/// Splits `s3://bucket/key`.
pub fn parse_s3_uri(uri: &str) -> Result<(String, String)> {
    let Some(rest) = uri.strip_prefix("s3://") else {
        bail!("--upload takes s3://bucket/key, got {uri:?}");
    };
    match rest.split_once('/') {
        Some((b, k)) if !b.is_empty() && !k.is_empty() => Ok((b.to_string(), k.to_string())),
        _ => bail!("--upload takes s3://bucket/key, got {uri:?}"),
    }
}

/// `ASK_S3_FORCE_PATH_STYLE` set to 1/true/yes.
pub fn path_style_from_env() -> bool {
    std::env::var("ASK_S3_FORCE_PATH_STYLE")
        .map(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
        .unwrap_or(false)
}

/// Writes `bytes` to `uri`, then reads the object back and compares size and
/// CRC-32 with what was sent.
pub async fn upload(uri: &str, bytes: &[u8], path_style: bool) -> Result<()> {
    let (bucket, key) = parse_s3_uri(uri)?;
    let conf = aws_config::load_from_env().await;
    let s3conf = aws_sdk_s3::config::Builder::from(&conf)
        .force_path_style(path_style)
        .build();
    let client = aws_sdk_s3::Client::from_conf(s3conf);
    client
        .put_object()
        .bucket(&bucket)
        .key(&key)
        .content_type("application/octet-stream")
        .body(ByteStream::from(bytes.to_vec()))
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("{}", aws_sdk_s3::error::DisplayErrorContext(e)))
        .with_context(|| format!("uploading to {uri}"))?;
    let got = client
        .get_object()
        .bucket(&bucket)
        .key(&key)
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("{}", aws_sdk_s3::error::DisplayErrorContext(e)))
        .with_context(|| format!("reading back {uri}"))?;
    let body = got
        .body
        .collect()
        .await
        .with_context(|| format!("reading back {uri}"))?
        .into_bytes();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_uris() {
        assert_eq!(
            parse_s3_uri("s3://b/k/x.idx").unwrap(),
            ("b".to_string(), "k/x.idx".to_string())
        );
        for bad in ["b/k", "s3://b", "s3:///k", "s3://b/"] {
            assert!(parse_s3_uri(bad).is_err(), "{bad}");
        }
    }
}
