//! Where does the index come from? `ASK_INDEX` names an `s3://bucket/key`
//! or a file path ([`ask_store::Location`]); the bytes are read once at cold
//! start through an [`ask_store::IndexSource`], then checked and decoded.

use std::time::Instant;

use ask_index::Index;
use ask_store::{IndexSource, Location};

/// Why the index could not be loaded; each message says what to run.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// ASK_INDEX is malformed.
    #[error("ASK_INDEX {0:?} is neither s3://bucket/key nor a file path")]
    Spec(String),
    /// The file is not there.
    #[error("{source}; build it with `build-index --out {location}` or set ASK_INDEX")]
    File {
        /// Where.
        location: Location,
        /// What went wrong.
        source: ask_store::Error,
    },
    /// S3 refused or failed.
    #[error(
        "cannot fetch index {location}: {source}; upload it with `build-index --upload {location}` or fix ASK_INDEX"
    )]
    S3 {
        /// Where.
        location: Location,
        /// What S3 said.
        source: ask_store::Error,
    },
    /// The bytes are not a valid index.
    #[error("index {location} is unusable: {source}")]
    Invalid {
        /// Where it came from.
        location: Location,
        /// Why.
        source: ask_index::Error,
    },
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

/// Fetches and decodes the index from `source`.
pub async fn load(source: &impl IndexSource) -> Result<(Index, LoadTimings), LoadError> {
    let t = Instant::now();
    let location = source.location();
    let bytes = source.fetch().await.map_err(|e| match location.clone() {
        location @ Location::File(_) => LoadError::File {
            location,
            source: e,
        },
        location @ Location::S3 { .. } => LoadError::S3 {
            location,
            source: e,
        },
    })?;
    let fetch_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let n = bytes.len();
    let index = ask_index::decode_bytes(bytes).map_err(|source| LoadError::Invalid {
        location: location.clone(),
        source,
    })?;
    Ok((
        index,
        LoadTimings {
            fetch_ms,
            decode_ms: t.elapsed().as_secs_f64() * 1e3,
            bytes: n,
        },
    ))
}

/// Loads the index that `spec` (`ASK_INDEX`) names; S3 is read with a
/// client configured from the environment.
pub async fn open(spec: &str, s3_path_style: bool) -> Result<(Index, LoadTimings), LoadError> {
    match Location::parse(spec).map_err(|_| LoadError::Spec(spec.to_string()))? {
        Location::File(path) => load(&ask_store::File(path)).await,
        Location::S3 { bucket, key } => {
            let client = ask_store::s3_client(s3_path_style).await;
            let mut s3 = ask_store::S3::new(client, &bucket, &key);
            if let Ok(v) = std::env::var(ask_store::PART_BYTES_VAR) {
                match v.trim().parse::<u64>() {
                    Ok(n) if n > 0 => s3 = s3.with_part_bytes(n),
                    _ => tracing::warn!(
                        "{}={v:?} is not a positive number of bytes; fetching with one GET",
                        ask_store::PART_BYTES_VAR
                    ),
                }
            }
            load(&s3).await
        }
    }
}
