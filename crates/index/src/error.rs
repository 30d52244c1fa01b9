//! What can go wrong building or reading an index: the crate's one error
//! type, which every module imports from here.

/// What can go wrong building or reading an index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes do not start with the index magic.
    #[error(
        "not an nlweb-ask index (bad magic bytes); build one with `build-index --out PATH` and point ASK_INDEX at it"
    )]
    BadMagic,
    /// Written by another format version.
    #[error(
        "index format version {found}, this build reads versions {oldest} to {expected}; rebuild it with this release's `build-index` (`build-index --corpus DOCS --out PATH`, or `--upload s3://BUCKET/KEY`) and deploy the new file"
    )]
    Version {
        /// Version in the file.
        found: u32,
        /// The oldest version this build reads.
        oldest: u32,
        /// Version this build writes (the newest it reads).
        expected: u32,
    },
    /// Shorter than its header says.
    #[error(
        "index is truncated: {actual} bytes of {expected}; re-run `build-index` (or the upload) and check the copy"
    )]
    Truncated {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// Longer than its header says.
    #[error(
        "index has {actual} bytes, its header says {expected}; re-run `build-index` (or the upload)"
    )]
    TrailingBytes {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// Checksum mismatch: the bytes changed after they were written.
    #[error(
        "index checksum mismatch (stored {expected:08x}, computed {actual:08x}): the file is corrupted; re-run `build-index`"
    )]
    Checksum {
        /// Stored CRC-32.
        expected: u32,
        /// Computed CRC-32.
        actual: u32,
    },
    /// Built with another analyzer.
    #[error(
        "index was built with analyzer {found:?}, this build uses {:?}; rebuild it with this release's `build-index`",
        crate::analyzer::ANALYZER_ID
    )]
    Analyzer {
        /// Analyzer id in the file.
        found: String,
    },
    /// bincode could not decode it.
    #[error("index payload does not decode ({0}); rebuild it with `build-index`")]
    Decode(String),
    /// bincode could not encode it.
    #[error("index does not encode: {0}")]
    Encode(String),
    /// Decoded, but inconsistent.
    #[error("index is inconsistent ({0}); rebuild it with `build-index`")]
    Invalid(String),
    /// Past a 32-bit limit of the format.
    #[error("corpus too large for the index format: {0}")]
    TooLarge(&'static str),
    /// The build time is not a date the format can write.
    #[error("build time {0} (Unix seconds) is past the year 9999; check SOURCE_DATE_EPOCH")]
    BuiltAt(u64),
}

/// Result with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
