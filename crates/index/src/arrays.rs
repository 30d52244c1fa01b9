//! Flat arrays stored as little-endian byte blobs.
//!
//! bincode's serde API decodes a `Vec<u32>` one element at a time; a byte blob
//! (`serde_bytes`) decodes as one copy. Reading an element back is a plain
//! load on every little-endian target Lambda runs on.

use serde::Serialize;

/// Bytes of an index: built up in a `Vec` by `build`, or a slice of the
/// file's bytes as fetched (no copy: decoding an index shares them).
#[derive(Clone)]
pub enum Blob {
    /// Bytes of its own.
    Owned(Vec<u8>),
    /// Part of the bytes an index was decoded from.
    Shared(bytes::Bytes),
}

impl Default for Blob {
    fn default() -> Self {
        Blob::Owned(Vec::new())
    }
}

impl std::ops::Deref for Blob {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Blob::Owned(v) => v,
            Blob::Shared(b) => b,
        }
    }
}

impl PartialEq for Blob {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Blob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Blob({} bytes)", self.len())
    }
}

impl Blob {
    /// The bytes, to append to (shared bytes are copied first).
    pub fn vec_mut(&mut self) -> &mut Vec<u8> {
        if let Blob::Shared(b) = self {
            *self = Blob::Owned(b.to_vec());
        }
        match self {
            Blob::Owned(v) => v,
            Blob::Shared(_) => unreachable!("made owned above"),
        }
    }
}

/// Encoded exactly as `serde_bytes` encodes a `Vec<u8>`.
impl Serialize for Blob {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self)
    }
}

/// The text of an index: a `String` built by `build`, or a slice of the
/// file's bytes, checked to be UTF-8 once when decoded, so that reading a
/// span of it checks no more than its two ends.
#[derive(Clone)]
pub enum Text {
    /// Text of its own.
    Owned(String),
    /// Part of the bytes an index was decoded from.
    Shared(bytes_utils::Str),
}

impl Default for Text {
    fn default() -> Self {
        Text::Owned(String::new())
    }
}

impl Text {
    /// The text in `bytes`, if they are UTF-8 (shared, not copied).
    pub fn shared(bytes: bytes::Bytes) -> Option<Self> {
        bytes_utils::Str::from_inner(bytes).ok().map(Text::Shared)
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Text::Owned(s) => s,
            Text::Shared(s) => s,
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Text({} bytes)", self.len())
    }
}

/// Encoded exactly as `serde_bytes` encodes a `Vec<u8>` (and as bincode
/// encodes a `String`).
impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.as_bytes())
    }
}

macro_rules! le_array {
    ($name:ident, $t:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Default, PartialEq, Serialize)]
        pub struct $name(Blob);

        impl $name {
            /// An empty array.
            pub fn new() -> Self {
                Self(Blob::default())
            }

            /// An empty array with room for `n` values.
            pub fn with_capacity(n: usize) -> Self {
                Self(Blob::Owned(Vec::with_capacity(n * size_of::<$t>())))
            }

            /// The array over `bytes` (little-endian values), shared.
            pub fn shared(bytes: bytes::Bytes) -> Self {
                Self(Blob::Shared(bytes))
            }

            /// Appends one value.
            #[inline]
            pub fn push(&mut self, v: $t) {
                self.0.vec_mut().extend_from_slice(&v.to_le_bytes());
            }

            /// Number of values.
            pub fn len(&self) -> usize {
                self.0.len() / size_of::<$t>()
            }

            /// True when there are no values.
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }

            /// Whether the blob holds a whole number of values.
            pub fn is_well_formed(&self) -> bool {
                self.0.len() % size_of::<$t>() == 0
            }

            /// The value at `i`; panics past the end, like slice indexing.
            #[inline]
            pub fn get(&self, i: usize) -> $t {
                const N: usize = size_of::<$t>();
                let b: [u8; N] = self.0[i * N..i * N + N].try_into().expect("N bytes");
                <$t>::from_le_bytes(b)
            }

            /// The values in `start..end`.
            #[inline]
            pub fn iter_range(&self, start: usize, end: usize) -> impl Iterator<Item = $t> + '_ {
                const N: usize = size_of::<$t>();
                self.0[start * N..end * N]
                    .chunks_exact(N)
                    .map(|c| <$t>::from_le_bytes(c.try_into().expect("N bytes")))
            }

            /// All values.
            pub fn iter(&self) -> impl Iterator<Item = $t> + '_ {
                self.iter_range(0, self.len())
            }

            /// Size in bytes.
            pub fn byte_len(&self) -> usize {
                self.0.len()
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_list().entries(self.iter().take(16)).finish()?;
                if self.len() > 16 {
                    write!(f, "… ({} values)", self.len())?;
                }
                Ok(())
            }
        }

        impl FromIterator<$t> for $name {
            fn from_iter<I: IntoIterator<Item = $t>>(iter: I) -> Self {
                let mut a = Self::new();
                for v in iter {
                    a.push(v);
                }
                a
            }
        }
    };
}

le_array!(U32s, u32, "A flat array of `u32`.");
le_array!(F32s, f32, "A flat array of `f32`.");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_get_iter() {
        let a: U32s = [1u32, 2, 0xdead_beef].into_iter().collect();
        assert_eq!(a.len(), 3);
        assert_eq!(a.get(2), 0xdead_beef);
        assert_eq!(a.iter_range(1, 3).collect::<Vec<_>>(), vec![2, 0xdead_beef]);
        let f: F32s = [0.5f32, -1.0].into_iter().collect();
        assert_eq!(f.iter().collect::<Vec<_>>(), vec![0.5, -1.0]);
    }
}
