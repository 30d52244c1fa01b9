//! Where is the index kept, and how is it read and written? A
//! [`Location`] (`s3://bucket/key` or a file path), parsed once; the
//! [`IndexSource`] trait that both binaries read an index through ([`File`],
//! [`S3`]); the S3 client that both configure the same way; and
//! [`parse_bool`], the one reading of a boolean flag.
//!
//! The index crate does not depend on this one: it turns bytes into an
//! index, and this crate only moves bytes.
#![deny(missing_docs)]

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;

/// Why bytes could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The text names neither an S3 object nor a file.
    #[error("{0:?} is neither s3://bucket/key nor a file path")]
    Spec(String),
    /// A file could not be read.
    #[error("cannot read index file {path}: {source}")]
    File {
        /// Path tried.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// S3 refused or failed.
    #[error("S3 {op}: {message}")]
    S3 {
        /// `GetObject` or `PutObject`.
        op: &'static str,
        /// Bucket.
        bucket: String,
        /// Key.
        key: String,
        /// What S3 (or the connection) said.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Reads a boolean flag: `1`, `true`, `yes`, `on` are true; `0`, `false`,
/// `no`, `off` are false (any case, surrounding spaces ignored); anything
/// else is not a boolean. Both binaries read every flag, from the
/// environment or from a request, through this function.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// A boolean setting read from the environment: unset is `None`, set but
/// empty is false, anything [`parse_bool`] refuses is an error naming the
/// variable.
pub fn env_flag(name: &str, value: Option<&str>) -> std::result::Result<Option<bool>, String> {
    match value {
        None => Ok(None),
        Some(v) if v.trim().is_empty() => Ok(Some(false)),
        Some(v) => parse_bool(v)
            .map(Some)
            .ok_or_else(|| format!("{name}={v:?} is not a boolean (true/false)")),
    }
}

/// Where an index lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// An S3 object.
    S3 {
        /// Bucket.
        bucket: String,
        /// Key.
        key: String,
    },
    /// A local file.
    File(PathBuf),
}

impl Location {
    /// `s3://bucket/key` (both parts non-empty) or any other non-empty text
    /// as a file path.
    pub fn parse(spec: &str) -> Result<Location> {
        let spec = spec.trim();
        if let Some(rest) = spec.strip_prefix("s3://") {
            return match rest.split_once('/') {
                Some((b, k)) if !b.is_empty() && !k.is_empty() => Ok(Location::S3 {
                    bucket: b.to_string(),
                    key: k.to_string(),
                }),
                _ => Err(Error::Spec(spec.to_string())),
            };
        }
        if spec.is_empty() {
            return Err(Error::Spec(spec.to_string()));
        }
        Ok(Location::File(PathBuf::from(spec)))
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::S3 { bucket, key } => write!(f, "s3://{bucket}/{key}"),
            Location::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// Something an index can be read from.
pub trait IndexSource {
    /// Where, for messages.
    fn location(&self) -> Location;
    /// All of the index's bytes.
    fn fetch(&self) -> impl std::future::Future<Output = Result<Bytes>> + Send;
}

/// An index in a local file.
#[derive(Clone, Debug)]
pub struct File(pub PathBuf);

impl IndexSource for File {
    fn location(&self) -> Location {
        Location::File(self.0.clone())
    }

    async fn fetch(&self) -> Result<Bytes> {
        std::fs::read(&self.0)
            .map(Bytes::from)
            .map_err(|source| Error::File {
                path: self.0.display().to_string(),
                source,
            })
    }
}

/// An index in an S3 object.
#[derive(Clone, Debug)]
pub struct S3 {
    client: aws_sdk_s3::Client,
    bucket: String,
    key: String,
    /// Fetch in ranges of this many bytes (`None`: one GET).
    part_bytes: Option<u64>,
}

/// Ranged GETs in flight at once.
pub const PARALLEL_PARTS: usize = 8;
/// The environment variable that turns ranged GETs on, with their size in
/// bytes (unset: one GET).
pub const PART_BYTES_VAR: &str = "ASK_S3_PART_BYTES";

/// The environment variable that turns on path-style S3 addressing (for
/// S3-compatible stores such as moto).
pub const PATH_STYLE_VAR: &str = "ASK_S3_FORCE_PATH_STYLE";

/// An S3 client configured from the environment (credentials, region,
/// `AWS_ENDPOINT_URL_S3`), with path-style addressing when asked.
pub async fn s3_client(force_path_style: bool) -> aws_sdk_s3::Client {
    let conf = aws_config::load_from_env().await;
    aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(&conf)
            .force_path_style(force_path_style)
            .timeout_config(timeouts())
            .retry_config(retries())
            .build(),
    )
}

/// Connect within 1 s, first byte within 2 s, each attempt within 3 s, the
/// whole operation within 8 s: a cold start that cannot reach S3 fails well
/// inside Lambda's 10-second init limit, naming the cause.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// See [`CONNECT_TIMEOUT`].
pub const READ_TIMEOUT: Duration = Duration::from_secs(2);
/// See [`CONNECT_TIMEOUT`].
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(3);
/// See [`CONNECT_TIMEOUT`]; [`S3`]'s fetch holds the body read to it too.
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(8);
/// Attempts of one request (the SDK's standard retries: throttling and
/// transient errors, with jittered backoff from 100 ms up to 1 s).
pub const MAX_ATTEMPTS: u32 = 3;

fn timeouts() -> aws_sdk_s3::config::timeout::TimeoutConfig {
    aws_sdk_s3::config::timeout::TimeoutConfig::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .operation_attempt_timeout(ATTEMPT_TIMEOUT)
        .operation_timeout(OPERATION_TIMEOUT)
        .build()
}

fn retries() -> aws_sdk_s3::config::retry::RetryConfig {
    aws_sdk_s3::config::retry::RetryConfig::standard()
        .with_max_attempts(MAX_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(100))
        .with_max_backoff(Duration::from_secs(1))
}

/// An SDK error's whole chain of causes, as one line.
fn sdk_message(e: impl std::error::Error) -> String {
    aws_sdk_s3::error::DisplayErrorContext(e).to_string()
}

impl S3 {
    /// The object `bucket`/`key`, read with `client`.
    pub fn new(client: aws_sdk_s3::Client, bucket: &str, key: &str) -> S3 {
        S3 {
            client,
            bucket: bucket.to_string(),
            key: key.to_string(),
            part_bytes: None,
        }
    }

    /// Fetches an object larger than `bytes` as ranges of that size,
    /// [`PARALLEL_PARTS`] at once, each held to the first part's ETag.
    pub fn with_part_bytes(mut self, bytes: u64) -> S3 {
        self.part_bytes = Some(bytes.max(1));
        self
    }

    /// A failure of `op` on this object.
    fn error(&self, op: &'static str, message: String) -> Error {
        Error::S3 {
            op,
            bucket: self.bucket.clone(),
            key: self.key.clone(),
            message,
        }
    }

    /// Writes `bytes` to the object.
    pub async fn put(&self, bytes: Vec<u8>) -> Result<()> {
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(&self.key)
            .content_type("application/octet-stream")
            .body(aws_sdk_s3::primitives::ByteStream::from(bytes))
            .send()
            .await
            .map_err(|e| self.error("PutObject", sdk_message(e)))?;
        Ok(())
    }

    /// Sends one GET of `range` (all of the object when `None`), held to
    /// `etag`; the body is still to be read.
    async fn send(
        &self,
        range: Option<(u64, u64)>,
        etag: Option<&str>,
    ) -> Result<aws_sdk_s3::operation::get_object::GetObjectOutput> {
        self.client
            .get_object()
            .bucket(&self.bucket)
            .key(&self.key)
            .set_range(range.map(|(a, b)| format!("bytes={a}-{}", b - 1)))
            .set_if_match(etag.map(str::to_string))
            .send()
            .await
            .map_err(|e| self.error("GetObject", sdk_message(e)))
    }

    /// Reads a GET's body.
    async fn body(&self, obj: aws_sdk_s3::operation::get_object::GetObjectOutput) -> Result<Bytes> {
        Ok(obj
            .body
            .collect()
            .await
            .map_err(|e| self.error("GetObject", sdk_message(e)))?
            .into_bytes())
    }

    /// One ranged GET, held to `etag`, checked for its length.
    async fn part(self, (a, b): (u64, u64), etag: Option<String>) -> Result<Bytes> {
        let obj = self.send(Some((a, b)), etag.as_deref()).await?;
        let got = self.body(obj).await?;
        if got.len() as u64 != b - a {
            return Err(self.error(
                "GetObject",
                format!("bytes {a}-{} came back as {} bytes", b - 1, got.len()),
            ));
        }
        Ok(got)
    }

    /// The whole object: one GET when it fits in a part. Otherwise the
    /// first part's headers give the size and ETag, the other parts are
    /// asked for [`PARALLEL_PARTS`] at a time while the first part's body
    /// is read, and all are put together in order (the index's checksum
    /// then covers every byte).
    async fn get_all(&self) -> Result<Bytes> {
        let Some(part) = self.part_bytes else {
            return self.body(self.send(None, None).await?).await;
        };
        let first = self.send(Some((0, part)), None).await?;
        // "bytes 0-8388607/14104162"; none when the store sent it all.
        let total = first
            .content_range()
            .and_then(|r| r.rsplit('/').next())
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|&t| t > part);
        let Some(total) = total else {
            return self.body(first).await;
        };
        let etag = first.e_tag().map(str::to_string);
        let ranges: Vec<(u64, u64)> = (1..total.div_ceil(part))
            .map(|i| (i * part, ((i + 1) * part).min(total)))
            .collect();
        let mut batches = ranges.chunks(PARALLEL_PARTS);
        let spawn = |batch: &[(u64, u64)]| {
            let mut tasks = tokio::task::JoinSet::new();
            for (n, &range) in batch.iter().enumerate() {
                let part = self.clone().part(range, etag.clone());
                tasks.spawn(async move { (n, part.await) });
            }
            tasks
        };
        let mut running = batches.next().map(spawn);
        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(&self.body(first).await?);
        while let Some(mut tasks) = running.take() {
            let mut parts: Vec<Option<Bytes>> = vec![None; tasks.len()];
            while let Some(done) = tasks.join_next().await {
                let (n, got) = done.map_err(|e| {
                    self.error("GetObject", format!("a ranged GET did not finish: {e}"))
                })?;
                parts[n] = Some(got?);
            }
            running = batches.next().map(spawn);
            for p in parts {
                out.extend_from_slice(&p.expect("every part joined"));
            }
        }
        Ok(Bytes::from(out))
    }
}

impl IndexSource for S3 {
    fn location(&self) -> Location {
        Location::S3 {
            bucket: self.bucket.clone(),
            key: self.key.clone(),
        }
    }

    async fn fetch(&self) -> Result<Bytes> {
        // The SDK's operation timeout ends at the response headers; a body
        // that stalls is held to the same deadline here.
        tokio::time::timeout(OPERATION_TIMEOUT, self.get_all())
            .await
            .unwrap_or_else(|_| {
                Err(self.error(
                    "GetObject",
                    format!(
                        "no complete answer within {} s (stalled connection?)",
                        OPERATION_TIMEOUT.as_secs()
                    ),
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_table() {
        for (s, want) in [
            ("1", Some(true)),
            ("true", Some(true)),
            (" True ", Some(true)),
            ("YES", Some(true)),
            ("on", Some(true)),
            ("0", Some(false)),
            ("false", Some(false)),
            ("False", Some(false)),
            ("no", Some(false)),
            ("off", Some(false)),
            ("", None),
            ("maybe", None),
            ("2", None),
            ("tru", None),
        ] {
            assert_eq!(parse_bool(s), want, "{s:?}");
        }
    }

    #[test]
    fn env_flags() {
        assert_eq!(env_flag("X", None), Ok(None));
        assert_eq!(env_flag("X", Some(" ")), Ok(Some(false)));
        assert_eq!(env_flag("X", Some("on")), Ok(Some(true)));
        assert_eq!(
            env_flag("X", Some("maybe")),
            Err("X=\"maybe\" is not a boolean (true/false)".to_string())
        );
    }

    #[test]
    fn locations_table() {
        assert_eq!(
            Location::parse("s3://b/k/x.idx").unwrap(),
            Location::S3 {
                bucket: "b".into(),
                key: "k/x.idx".into()
            }
        );
        assert_eq!(
            Location::parse("/tmp/a.idx").unwrap(),
            Location::File("/tmp/a.idx".into())
        );
        assert_eq!(Location::parse("s3://b/k").unwrap().to_string(), "s3://b/k");
        for bad in ["s3://b", "s3:///k", "s3://b/", "", "  "] {
            assert!(Location::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn a_missing_file_names_its_path() {
        let e = File("/nonexistent/x.idx".into()).fetch().await.unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.idx"), "{e}");
    }
}
