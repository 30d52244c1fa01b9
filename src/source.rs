//! Where does the index come from? `s3://bucket/key` or a file path, read
//! once at cold start.

use std::time::Instant;

use ask_index::Index;

/// Why the index could not be loaded; each message says what to run.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file is not there.
    #[error(
        "cannot read index file {path}: {source}; build it with `build-index --out {path}` or set ASK_INDEX"
    )]
    File {
        /// Path tried.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// S3 refused or failed.
    #[error(
        "cannot fetch index s3://{bucket}/{key}: {message}; upload it with `build-index --upload s3://{bucket}/{key}` or fix ASK_INDEX"
    )]
    S3 {
        /// Bucket.
        bucket: String,
        /// Key.
        key: String,
        /// What S3 said.
        message: String,
    },
    /// The bytes are not a valid index.
    #[error("index {location} is unusable: {source}")]
    Invalid {
        /// Where it came from.
        location: String,
        /// Why.
        source: ask_index::Error,
    },
    /// ASK_INDEX is malformed.
    #[error("ASK_INDEX {0:?} is neither s3://bucket/key nor a file path")]
    Spec(String),
}

/// How long each phase took, for the cold-start log.
#[derive(Debug, Clone, Copy)]
pub struct LoadTimings {
    /// Fetch (S3 GET or file read), ms.
    pub fetch_ms: f64,
    /// Checksum and decode, ms.
    pub decode_ms: f64,
    /// Bytes fetched.
    pub bytes: usize,
}

/// Splits `s3://bucket/key`.
pub fn parse_s3(spec: &str) -> Option<(String, String)> {
    let rest = spec.strip_prefix("s3://")?;
    let (b, k) = rest.split_once('/')?;
    (!b.is_empty() && !k.is_empty()).then(|| (b.to_string(), k.to_string()))
}

/// An S3 client configured from the environment (AWS_ENDPOINT_URL_S3 and
/// ASK_S3_FORCE_PATH_STYLE for S3-compatible stores).
pub async fn s3_client(path_style: bool) -> aws_sdk_s3::Client {
    let conf = aws_config::load_from_env().await;
    aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&conf)
            .force_path_style(path_style)
            .build(),
    )
}

/// Fetches and decodes the index named by `spec`; an `s3://` spec is read
/// with a client configured from the environment.
pub async fn load(spec: &str, s3_path_style: bool) -> Result<(Index, LoadTimings), LoadError> {
    let t = Instant::now();
    let bytes = if spec.starts_with("s3://") {
        let (bucket, key) = parse_s3(spec).ok_or_else(|| LoadError::Spec(spec.to_string()))?;
        let client = s3_client(s3_path_style).await;
        let s3err = |message: String| LoadError::S3 {
            bucket: bucket.clone(),
            key: key.clone(),
            message,
        };
        let obj = client
            .get_object()
            .bucket(&bucket)
            .key(&key)
            .send()
            .await
            .map_err(|e| s3err(aws_sdk_s3::error::DisplayErrorContext(e).to_string()))?;
        obj.body
            .collect()
            .await
            .map_err(|e| s3err(e.to_string()))?
            .into_bytes()
    } else if spec.trim().is_empty() {
        return Err(LoadError::Spec(spec.to_string()));
    } else {
        bytes::Bytes::from(std::fs::read(spec).map_err(|source| LoadError::File {
            path: spec.to_string(),
            source,
        })?)
    };
    let fetch_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let index = ask_index::decode(&bytes).map_err(|source| LoadError::Invalid {
        location: spec.to_string(),
        source,
    })?;
    Ok((
        index,
        LoadTimings {
            fetch_ms,
            decode_ms: t.elapsed().as_secs_f64() * 1e3,
            bytes: bytes.len(),
        },
    ))
}
