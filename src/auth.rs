//! Who is asking? Optional bearer-token authentication (`ask.auth`).
//!
//! - `off` (the default): `Authorization` is not read; everyone is anonymous.
//! - `optional`: no credentials → anonymous; credentials → they must check
//!   out, else 401. Invalid credentials never fall back to anonymous.
//! - `required`: no credentials → 401.
//!
//! A credential is a JWT signed with RS256 or ES256 by a key of the JWKS
//! (`ask.auth_jwks` inline, or fetched once at cold start from
//! `ask.auth_jwks_url`). Checked: the signature, `exp` and `nbf` (with
//! [`LEEWAY_SECS`] of leeway), `iss` against `ask.auth_issuer` and `aud`
//! against `ask.auth_audience` when they are set, a `sub`, and the scope
//! `ask.auth_scope` (default `docs:read`) in `scope` (space-separated) or
//! `scp` (a list or a string): valid without it is 403. Signature checks
//! are the `jsonwebtoken` crate's (aws-lc-rs); nothing here is crypto.

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

/// Seconds of clock skew allowed on `exp` and `nbf`.
pub const LEEWAY_SECS: u64 = 60;
/// The scope required when `ask.auth_scope` is not set.
pub const DEFAULT_SCOPE: &str = crate::config::DEFAULT_AUTH_SCOPE;
/// Longest `Authorization` header read, in bytes.
const MAX_CREDENTIAL_BYTES: usize = 8 * 1024;

pub use crate::config::AuthMode as Mode;

/// Who is asking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    /// No credentials (auth `off`, or `optional` without a header).
    Anonymous,
    /// A valid token's subject.
    Subject(String),
}

/// Why a request is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Denied {
    /// `required` and no `Authorization` header: 401 without an error code
    /// (RFC 6750 §3.1).
    NoCredentials,
    /// Credentials that do not check out: 401 with `error` (`invalid_token`
    /// or `invalid_request`) and what is wrong, one fixed text per case.
    Invalid(&'static str, &'static str),
    /// Valid, without the required scope: 403 `insufficient_scope`.
    InsufficientScope,
}

/// One verification key.
struct Key {
    kid: Option<String>,
    alg: Algorithm,
    key: DecodingKey,
}

/// The keys, shared with a refetch under way and replaced whole by it.
type KeySet = std::sync::Arc<std::sync::RwLock<std::sync::Arc<Vec<Key>>>>;

/// Where the key set is fetched again from when a token names a key it
/// does not hold, and when that last happened.
struct Refetch {
    url: String,
    last: std::sync::Mutex<Option<std::time::Instant>>,
    wanted: std::sync::atomic::AtomicBool,
}

/// Seconds between two fetches of the JWKS caused by unknown keys: a
/// stream of made-up `kid`s costs at most one fetch a minute.
pub const REFETCH_SECS: u64 = 60;

/// The checker built from the configuration and the JWKS.
pub struct Auth {
    mode: Mode,
    keys: KeySet,
    refetch: Option<Refetch>,
    issuer: Option<String>,
    audience: Option<String>,
    scope: String,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("mode", &self.mode)
            .field("keys", &self.keys().len())
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("scope", &self.scope)
            .finish()
    }
}

/// The claims read from a token (the registered ones are checked by
/// `jsonwebtoken`).
#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Scp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    List(Vec<String>),
    Text(String),
}

impl Auth {
    /// No authentication.
    pub fn off() -> Auth {
        Auth {
            mode: Mode::Off,
            keys: KeySet::default(),
            refetch: None,
            issuer: None,
            audience: None,
            scope: String::new(),
        }
    }

    /// A checker for `mode` with the keys of `jwks` (a JWKS document). Keys
    /// that are neither RSA nor EC P-256 are skipped; none usable is an
    /// error.
    pub fn new(
        mode: Mode,
        jwks: &str,
        issuer: Option<String>,
        audience: Option<String>,
        scope: String,
    ) -> Result<Auth, String> {
        if mode == Mode::Off {
            return Ok(Auth::off());
        }
        let mut auth = Auth::without_keys(mode, issuer, audience, scope);
        auth.keys = KeySet::new(std::sync::RwLock::new(std::sync::Arc::new(parse_keys(
            jwks,
        )?)));
        Ok(auth)
    }

    /// `mode` with no key yet: credentials do not check out (so `required`
    /// refuses everyone and `optional` serves anonymous callers only) until
    /// a refetch brings keys.
    pub fn without_keys(
        mode: Mode,
        issuer: Option<String>,
        audience: Option<String>,
        scope: String,
    ) -> Auth {
        Auth {
            mode,
            keys: KeySet::default(),
            refetch: None,
            issuer: issuer.filter(|s| !s.is_empty()),
            audience: audience.filter(|s| !s.is_empty()),
            scope,
        }
    }

    /// This checker, fetching the key set again from `url` (after the
    /// answer, at most once in [`REFETCH_SECS`]) when a token names a key
    /// it does not hold: keys rotated since the cold start, or keys
    /// that could not be fetched then.
    pub fn with_refetch(mut self, url: String) -> Auth {
        self.refetch = Some(Refetch {
            url,
            last: std::sync::Mutex::new(None),
            wanted: std::sync::atomic::AtomicBool::new(false),
        });
        self
    }

    fn keys(&self) -> std::sync::Arc<Vec<Key>> {
        self.keys.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Asks for a fetch of the key set, unless one was asked for less than
    /// [`REFETCH_SECS`] ago (or there is no URL). The request that asked is
    /// refused all the same; [`Auth::refetch_if_wanted`] does the fetch.
    fn want_refetch(&self) {
        let Some(r) = &self.refetch else {
            return;
        };
        let mut last = r.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed().as_secs() < REFETCH_SECS) {
            return;
        }
        *last = Some(std::time::Instant::now());
        r.wanted.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Fetches the key set again if a token named a key it does not hold
    /// (at most once in [`REFETCH_SECS`]), within [`JWKS_TIMEOUT_SECS`].
    /// `main` awaits it after each answer, before handing the answer back:
    /// a task left running would freeze with the Lambda environment.
    pub async fn refetch_if_wanted(&self) {
        let Some(r) = &self.refetch else {
            return;
        };
        if !r.wanted.swap(false, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        match fetch_jwks(&r.url).await.and_then(|j| parse_keys(&j)) {
            Ok(fetched) => {
                tracing::info!(keys = fetched.len(), "JWKS fetched again");
                *self.keys.write().unwrap_or_else(|p| p.into_inner()) =
                    std::sync::Arc::new(fetched);
            }
            Err(e) => tracing::error!("{e}"),
        }
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The scope required.
    pub fn scope(&self) -> &str {
        &self.scope
    }

    /// The issuer, if one is required.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// Checks the `Authorization` header (`None`: absent).
    pub fn check(&self, authorization: Option<&[u8]>) -> Result<Caller, Denied> {
        if self.mode == Mode::Off {
            return Ok(Caller::Anonymous);
        }
        let Some(raw) = authorization else {
            return match self.mode {
                Mode::Required => Err(Denied::NoCredentials),
                _ => Ok(Caller::Anonymous),
            };
        };
        let invalid_request = |why: &'static str| Err(Denied::Invalid("invalid_request", why));
        if raw.len() > MAX_CREDENTIAL_BYTES {
            return invalid_request("the Authorization header is too long");
        }
        let Ok(value) = std::str::from_utf8(raw) else {
            return invalid_request("the Authorization header is not text");
        };
        let value = value.trim();
        let token = match value.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return invalid_request("send Authorization: Bearer <token>"),
        };
        let claims = self.verify(token)?;
        if !self.scope.is_empty() && !has_scope(&claims, &self.scope) {
            return Err(Denied::InsufficientScope);
        }
        Ok(Caller::Subject(claims.sub))
    }

    fn verify(&self, token: &str) -> Result<Claims, Denied> {
        let invalid = |why: &'static str| Denied::Invalid("invalid_token", why);
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| invalid("the token is not a well-formed JWT"))?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(invalid(
                "the token's alg is not accepted; sign with RS256 or ES256",
            ));
        }
        let keys = self.keys();
        let candidates: Vec<&Key> = keys
            .iter()
            .filter(|k| k.alg == header.alg && (header.kid.is_none() || k.kid == header.kid))
            .collect();
        if candidates.is_empty() {
            self.want_refetch();
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;
        let mut required = vec!["exp", "sub"];
        if let Some(iss) = &self.issuer {
            validation.set_issuer(&[iss]);
            required.push("iss");
        }
        match &self.audience {
            Some(aud) => {
                validation.set_audience(&[aud]);
                required.push("aud");
            }
            None => validation.validate_aud = false,
        }
        validation.set_required_spec_claims(&required);
        let mut last = None;
        for key in candidates {
            match jsonwebtoken::decode::<Claims>(token, &key.key, &validation) {
                Ok(data) => return Ok(data.claims),
                Err(e) => last = Some(e),
            }
        }
        Err(invalid(match last {
            Some(e) => refusal(e.kind()),
            None => "no key of the JWKS matches the token's kid and alg",
        }))
    }
}

/// Why a token that was checked against a key is refused: one fixed text
/// per case (the library's own message can echo what the token holds).
fn refusal(kind: &jsonwebtoken::errors::ErrorKind) -> &'static str {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired",
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)",
        ErrorKind::InvalidSignature => "the token's signature does not check out",
        ErrorKind::InvalidIssuer => "the token's issuer (iss) is not the one this endpoint trusts",
        ErrorKind::InvalidAudience => "the token is for another audience (aud)",
        ErrorKind::MissingRequiredClaim(_) => {
            "the token lacks a required claim (exp, sub, and iss and aud where set)"
        }
        ErrorKind::InvalidAlgorithm => "the token's alg does not match the key",
        ErrorKind::Json(_) => "the token's claims are not readable (sub must be a string)",
        _ => "the token is not a well-formed JWT",
    }
}

/// The keys of a JWKS document that can check tokens: RSA keys for RS256,
/// EC P-256 keys for ES256; none usable is an error.
fn parse_keys(jwks: &str) -> Result<Vec<Key>, String> {
    let set: JwkSet =
        serde_json::from_str(jwks).map_err(|e| format!("the JWKS is not a JWK set: {e}"))?;
    let mut keys = Vec::new();
    for jwk in &set.keys {
        let alg = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => Algorithm::RS256,
            AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
                Algorithm::ES256
            }
            _ => continue,
        };
        let key = DecodingKey::from_jwk(jwk)
            .map_err(|e| format!("JWKS key {:?}: {e}", jwk.common.key_id))?;
        keys.push(Key {
            kid: jwk.common.key_id.clone(),
            alg,
            key,
        });
    }
    if keys.is_empty() {
        return Err("the JWKS has no RS256 (RSA) or ES256 (EC P-256) key".into());
    }
    Ok(keys)
}

/// Seconds the JWKS fetch may take in all.
pub const JWKS_TIMEOUT_SECS: u64 = 5;
/// Largest JWKS document read.
const MAX_JWKS_BYTES: usize = 1024 * 1024;

/// Fetches the JWKS at `url` (http or https, system roots), once, at cold
/// start; a failure names the URL and the cause.
pub async fn fetch_jwks(url: &str) -> Result<String, String> {
    use http_body_util::{BodyExt, Empty, Limited};
    let fail = |why: String| format!("cannot fetch the JWKS at {url}: {why}");
    let uri: hyper::Uri = url.parse().map_err(|e| fail(format!("{e}")))?;
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_provider_and_native_roots(rustls::crypto::aws_lc_rs::default_provider())
        .map_err(|e| fail(format!("no TLS roots: {e}")))?
        .https_or_http()
        .enable_http1()
        .build();
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build::<_, Empty<hyper::body::Bytes>>(https);
    let request = hyper::Request::get(uri)
        .header("accept", "application/json")
        .body(Empty::new())
        .map_err(|e| fail(format!("{e}")))?;
    let fetch = async {
        let resp = client
            .request(request)
            .await
            .map_err(|e| fail(format!("{e}")))?;
        if !resp.status().is_success() {
            return Err(fail(format!("HTTP {}", resp.status())));
        }
        let body = Limited::new(resp.into_body(), MAX_JWKS_BYTES)
            .collect()
            .await
            .map_err(|e| fail(format!("{e}")))?
            .to_bytes();
        String::from_utf8(body.to_vec()).map_err(|_| fail("the body is not UTF-8".into()))
    };
    tokio::time::timeout(std::time::Duration::from_secs(JWKS_TIMEOUT_SECS), fetch)
        .await
        .map_err(|_| fail(format!("no answer within {JWKS_TIMEOUT_SECS} s")))?
}

fn has_scope(claims: &Claims, want: &str) -> bool {
    let in_scope = claims
        .scope
        .as_deref()
        .is_some_and(|s| s.split_whitespace().any(|x| x == want));
    let in_scp = match &claims.scp {
        Some(Scp::List(l)) => l.iter().any(|x| x == want),
        Some(Scp::Text(s)) => s.split_whitespace().any(|x| x == want),
        None => false,
    };
    in_scope || in_scp
}
