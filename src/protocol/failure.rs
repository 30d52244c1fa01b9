//! How can a request fail? Every NLWeb failure the endpoint sends, with its
//! code, its HTTP status and the headers that go with it, decided here and
//! nowhere else.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `error.code` of a failure document (docs/content/docs/api.mdx, Failures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FailureCode {
    /// Nothing in the index matches.
    NoResults,
    /// A mode this endpoint does not serve.
    UnsupportedMode,
    /// A `response_format` this endpoint does not serve.
    UnsupportedFormat,
    /// Missing, empty or over-long query; a bad parameter value.
    InvalidQuery,
    /// The body is not JSON, or not an object.
    InvalidRequest,
    /// The body is over the limit.
    PayloadTooLarge,
    /// Not GET, POST or OPTIONS.
    MethodNotAllowed,
    /// A POST whose body is not sent as `application/json`.
    UnsupportedMediaType,
    /// The client's token bucket is empty.
    RateLimited,
    /// No credentials where they are required, or credentials that do not
    /// check out (`ask.auth`).
    Unauthorized,
    /// Valid credentials without the required scope.
    Forbidden,
    /// A bug: never a panic or an invocation error.
    InternalError,
}

impl FailureCode {
    /// The HTTP status that goes with the code: the one exhaustive table.
    pub fn status(self) -> u16 {
        match self {
            FailureCode::NoResults
            | FailureCode::UnsupportedMode
            | FailureCode::UnsupportedFormat => 200,
            FailureCode::InvalidQuery | FailureCode::InvalidRequest => 400,
            FailureCode::Unauthorized => 401,
            FailureCode::Forbidden => 403,
            FailureCode::MethodNotAllowed => 405,
            FailureCode::UnsupportedMediaType => 415,
            FailureCode::PayloadTooLarge => 413,
            FailureCode::RateLimited => 429,
            FailureCode::InternalError => 500,
        }
    }

    /// The code as it is written on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCode::NoResults => "NO_RESULTS",
            FailureCode::UnsupportedMode => "UNSUPPORTED_MODE",
            FailureCode::UnsupportedFormat => "UNSUPPORTED_FORMAT",
            FailureCode::InvalidQuery => "INVALID_QUERY",
            FailureCode::InvalidRequest => "INVALID_REQUEST",
            FailureCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            FailureCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            FailureCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            FailureCode::RateLimited => "RATE_LIMITED",
            FailureCode::Unauthorized => "UNAUTHORIZED",
            FailureCode::Forbidden => "FORBIDDEN",
            FailureCode::InternalError => "INTERNAL_ERROR",
        }
    }

    /// Every code, for tests and schemas.
    pub const ALL: [FailureCode; 12] = [
        FailureCode::NoResults,
        FailureCode::UnsupportedMode,
        FailureCode::UnsupportedFormat,
        FailureCode::InvalidQuery,
        FailureCode::InvalidRequest,
        FailureCode::PayloadTooLarge,
        FailureCode::MethodNotAllowed,
        FailureCode::UnsupportedMediaType,
        FailureCode::RateLimited,
        FailureCode::Unauthorized,
        FailureCode::Forbidden,
        FailureCode::InternalError,
    ];
}

/// Why a request got a failure document instead of an answer. The message
/// (its `Display`) says what went wrong and what to send instead.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Failure {
    /// Nothing in the index matches the question.
    #[error("nothing in the documentation matches {query:?}")]
    NoResults {
        /// The question as asked.
        query: String,
    },
    /// The request names a mode that is not served.
    #[error("{0}")]
    UnsupportedMode(String),
    /// The request names a response format that is not served.
    #[error("response_format {0:?} is not served here; use conversational_search")]
    UnsupportedFormat(String),
    /// A missing, empty or over-long query, or a bad parameter value.
    #[error("{0}")]
    InvalidQuery(String),
    /// The body is not a JSON object.
    #[error("{0}")]
    InvalidRequest(String),
    /// The body is over the limit.
    #[error("request body is {bytes} bytes; the limit is {limit} bytes")]
    PayloadTooLarge {
        /// Body size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A method the route does not take.
    #[error("{method} is not allowed on {path}; use {allow}")]
    MethodNotAllowed {
        /// The method sent.
        method: String,
        /// The route.
        path: &'static str,
        /// Its methods (the `Allow` header).
        allow: &'static str,
    },
    /// A POST whose body is not sent as JSON.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// A request from a web page (or to a name) this route does not
    /// serve: `/mcp`'s `Origin` and, on a local run, `Host`.
    #[error("{0}")]
    OriginNotAllowed(String),
    /// The request names a site this index does not serve.
    #[error(
        "site {site:?} is not served here; this index serves {} (see /sites), or send all",
        served.join(", ")
    )]
    UnknownSite {
        /// The sites asked for that are not served.
        site: String,
        /// The sites served.
        served: Vec<String>,
    },
    /// The client's bucket is empty.
    #[error("too many requests from this address; retry in {retry_after_secs} s")]
    RateLimited {
        /// Seconds until a token is back.
        retry_after_secs: u32,
    },
    /// No credentials where they are required, or credentials that do not
    /// check out: never answered as anonymous.
    #[error("{description}")]
    Unauthorized {
        /// RFC 6750 `error` (`invalid_token`, `invalid_request`), none when
        /// no credentials were sent.
        error: Option<&'static str>,
        /// What is wrong, for the client's developer: one fixed text per
        /// case, never a library's message (it could echo the token).
        description: &'static str,
        /// The protected-resource metadata URL (RFC 9728).
        resource_metadata: String,
    },
    /// Valid credentials without the scope this endpoint requires.
    #[error("the token lacks the scope {scope:?}")]
    Forbidden {
        /// The scope required.
        scope: String,
        /// The protected-resource metadata URL (RFC 9728).
        resource_metadata: String,
    },
    /// A bug (a panic caught while answering).
    #[error("the endpoint hit a bug; please retry or report it")]
    InternalError,
    /// An answer over the configured response cap: not sent.
    #[error(
        "the answer would be {bytes} bytes, over this endpoint's cap of {limit} bytes (ask.max_response_bytes); ask for fewer results or send fewer messages at once"
    )]
    AnswerTooLarge {
        /// The answer's size.
        bytes: usize,
        /// The cap.
        limit: usize,
    },
}

impl Failure {
    /// The NLWeb code.
    pub fn code(&self) -> FailureCode {
        match self {
            Failure::NoResults { .. } | Failure::UnknownSite { .. } => FailureCode::NoResults,
            Failure::UnsupportedMode(_) => FailureCode::UnsupportedMode,
            Failure::UnsupportedFormat(_) => FailureCode::UnsupportedFormat,
            Failure::InvalidQuery(_) => FailureCode::InvalidQuery,
            Failure::InvalidRequest(_) => FailureCode::InvalidRequest,
            Failure::PayloadTooLarge { .. } => FailureCode::PayloadTooLarge,
            Failure::MethodNotAllowed { .. } => FailureCode::MethodNotAllowed,
            Failure::UnsupportedMediaType(_) => FailureCode::UnsupportedMediaType,
            Failure::OriginNotAllowed(_) => FailureCode::Forbidden,
            Failure::RateLimited { .. } => FailureCode::RateLimited,
            Failure::Unauthorized { .. } => FailureCode::Unauthorized,
            Failure::Forbidden { .. } => FailureCode::Forbidden,
            Failure::InternalError | Failure::AnswerTooLarge { .. } => FailureCode::InternalError,
        }
    }

    /// The HTTP status of the response that carries it.
    pub fn status(&self) -> u16 {
        self.code().status()
    }

    /// Headers that the status calls for (`Retry-After` with 429, `Allow`
    /// with 405).
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        match self {
            Failure::RateLimited { retry_after_secs } => {
                vec![("retry-after", retry_after_secs.to_string())]
            }
            Failure::MethodNotAllowed { allow, .. } => vec![("allow", allow.to_string())],
            Failure::Unauthorized {
                error,
                description,
                resource_metadata,
            } => {
                let mut v = format!("Bearer resource_metadata=\"{resource_metadata}\"");
                if let Some(e) = error {
                    v.push_str(&format!(
                        ", error=\"{e}\", error_description=\"{}\"",
                        description.replace(['"', '\\'], "'")
                    ));
                }
                vec![("www-authenticate", v)]
            }
            Failure::Forbidden {
                scope,
                resource_metadata,
            } => vec![(
                "www-authenticate",
                format!(
                    "Bearer resource_metadata=\"{resource_metadata}\", error=\"insufficient_scope\", scope=\"{scope}\""
                ),
            )],
            _ => Vec::new(),
        }
    }

    /// An `INVALID_QUERY` failure.
    pub fn invalid_query(message: impl Into<String>) -> Failure {
        Failure::InvalidQuery(message.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_statuses_and_wire_names_table() {
        let table = [
            ("NO_RESULTS", 200),
            ("UNSUPPORTED_MODE", 200),
            ("UNSUPPORTED_FORMAT", 200),
            ("INVALID_QUERY", 400),
            ("INVALID_REQUEST", 400),
            ("PAYLOAD_TOO_LARGE", 413),
            ("METHOD_NOT_ALLOWED", 405),
            ("UNSUPPORTED_MEDIA_TYPE", 415),
            ("RATE_LIMITED", 429),
            ("UNAUTHORIZED", 401),
            ("FORBIDDEN", 403),
            ("INTERNAL_ERROR", 500),
        ];
        assert_eq!(table.len(), FailureCode::ALL.len());
        for (code, (name, status)) in FailureCode::ALL.iter().zip(table) {
            assert_eq!(code.as_str(), name);
            assert_eq!(code.status(), status, "{name}");
            // The serde name is the same string.
            assert_eq!(serde_json::to_value(code).unwrap(), name);
        }
    }

    #[test]
    fn headers_follow_the_failure() {
        let f = Failure::RateLimited {
            retry_after_secs: 3,
        };
        assert_eq!(f.status(), 429);
        assert_eq!(f.headers(), vec![("retry-after", "3".to_string())]);
        assert_eq!(
            f.to_string(),
            "too many requests from this address; retry in 3 s"
        );
        let f = Failure::MethodNotAllowed {
            method: "DELETE".into(),
            path: crate::protocol::paths::NLWEB_ASK_PATH,
            allow: "GET, POST, OPTIONS",
        };
        assert_eq!(f.status(), 405);
        assert_eq!(
            f.headers(),
            vec![("allow", "GET, POST, OPTIONS".to_string())]
        );
        assert_eq!(
            f.to_string(),
            "DELETE is not allowed on /ask; use GET, POST, OPTIONS"
        );
    }
}
