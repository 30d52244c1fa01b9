//! `ask.auth`: bearer JWTs (RS256, ES256) against a JWKS, with keys made in
//! the test. No credentials: anonymous when optional, 401 when required;
//! bad credentials: always 401; valid without the scope: 403; an
//! authenticated caller has its own bucket; `/mcp` follows the same rules.

mod support;
#[path = "support/state.rs"]
mod test_state;
// Only this test binary needs the key-making helpers (build-index's tests
// share tests/support without these dependencies).
#[path = "support/auth.rs"]
mod auth;

use auth::{AUDIENCE, ISSUER, TestKey};
use lambda_http::{Body, Response};
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::{Value, json};
use support::docs::{docs_index, repo};

struct Keys {
    rsa: TestKey,
    ec: TestKey,
    stranger: TestKey,
}

fn keys() -> &'static Keys {
    static KEYS: std::sync::OnceLock<Keys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| Keys {
        rsa: auth::rsa_key("rsa-1"),
        ec: auth::ec_key("ec-1"),
        // Not in the JWKS.
        stranger: auth::rsa_key("rsa-1"),
    })
}

fn state(mode: &str, extra: &[(&str, &str)]) -> State {
    let k = keys();
    let jwks = auth::jwks(&[&k.rsa, &k.ec]);
    let mut vars = vec![
        ("ASK_AUTH", mode),
        ("ASK_AUTH_JWKS", jwks.as_str()),
        ("ASK_AUTH_ISSUER", ISSUER),
        ("ASK_AUTH_AUDIENCE", AUDIENCE),
    ];
    vars.extend_from_slice(extra);
    test_state::state(docs_index(), &vars)
}

/// A GET /ask (HTTP API v2) from `ip` with an optional Authorization.
fn ask(state: &State, ip: &str, authorization: Option<&str>) -> Response<Body> {
    respond(state, &ask_event(ip, authorization))
}

/// The same, from inside a runtime (the service awaits a JWKS refetch on
/// it).
async fn ask_async(state: &State, ip: &str, authorization: Option<&str>) -> Response<Body> {
    nlweb_ask::app::replay(state, &ask_event(ip, authorization)).await
}

fn ask_event(ip: &str, authorization: Option<&str>) -> lambda_http::Request {
    let text = std::fs::read_to_string(repo().join("events/http-get-json.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["requestContext"]["http"]["sourceIp"] = json!(ip);
    if let Some(a) = authorization {
        v["headers"]["authorization"] = json!(a);
    }
    lambda_http::request::from_str(&v.to_string()).unwrap()
}

fn bearer(t: &str) -> String {
    format!("Bearer {t}")
}

fn header<'a>(r: &'a Response<Body>, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or("")
}

fn doc(r: &Response<Body>) -> Value {
    serde_json::from_slice(r.body().as_ref()).unwrap()
}

/// 401 with the failure document and the challenge.
fn assert_401(r: &Response<Body>, error: Option<&str>) {
    assert_eq!(r.status(), 401, "{}", doc(r));
    let d = doc(r);
    assert_eq!(d["error"]["code"], "UNAUTHORIZED", "{d}");
    assert_eq!(d["_meta"]["response_type"], "failure");
    let challenge = header(r, "www-authenticate");
    assert!(
        challenge.starts_with(
            "Bearer resource_metadata=\"https://f7m2xw4p1c.execute-api.us-east-1.amazonaws.com/.well-known/oauth-protected-resource\""
        ),
        "{challenge}"
    );
    match error {
        Some(e) => assert!(challenge.contains(&format!("error=\"{e}\"")), "{challenge}"),
        None => assert!(!challenge.contains("error="), "{challenge}"),
    }
}

#[test]
fn no_credentials_are_anonymous_when_optional_and_401_when_required() {
    let r = ask(&state("optional", &[]), "198.51.100.1", None);
    assert_eq!(r.status(), 200);
    assert_401(&ask(&state("required", &[]), "198.51.100.1", None), None);
    // Off: the header is not even read.
    let off = test_state::state(docs_index(), &[]);
    assert_eq!(ask(&off, "198.51.100.1", Some("Bearer junk")).status(), 200);
}

#[test]
fn valid_rs256_and_es256_tokens_are_served() {
    let k = keys();
    for mode in ["optional", "required"] {
        let s = state(mode, &[]);
        for key in [&k.rsa, &k.ec] {
            let t = auth::token(key, &auth::claims("partner-agent"));
            let r = ask(&s, "198.51.100.2", Some(&bearer(&t)));
            assert_eq!(r.status(), 200, "{mode} {:?}: {}", key.alg, doc(&r));
            assert_eq!(header(&r, "ratelimit-policy"), "\"subject\";q=120;w=60");
        }
    }
}

#[test]
fn bad_credentials_are_401_never_anonymous() {
    let k = keys();
    let s = state("optional", &[]);
    let with = |f: &dyn Fn(&mut Value)| {
        let mut c = auth::claims("partner-agent");
        f(&mut c);
        auth::token(&k.rsa, &c)
    };
    let cases: Vec<(&str, String)> = vec![
        ("expired", with(&|c| c["exp"] = json!(auth::now() - 3600))),
        (
            "not yet valid",
            with(&|c| c["nbf"] = json!(auth::now() + 3600)),
        ),
        (
            "wrong audience",
            with(&|c| c["aud"] = json!("https://other.example")),
        ),
        (
            "wrong issuer",
            with(&|c| c["iss"] = json!("https://evil.example/")),
        ),
        (
            "no subject",
            with(&|c| {
                c.as_object_mut().unwrap().remove("sub");
            }),
        ),
        (
            "no exp",
            with(&|c| {
                c.as_object_mut().unwrap().remove("exp");
            }),
        ),
        ("unknown key", auth::token(&k.stranger, &auth::claims("x"))),
        ("not a JWT", "abc.def.ghi".into()),
        ("garbage", "%%%".into()),
    ];
    for (what, t) in cases {
        let r = ask(&s, "198.51.100.3", Some(&bearer(&t)));
        assert_401(&r, Some("invalid_token"));
        assert!(
            !doc(&r)["error"]["message"].as_str().unwrap().is_empty(),
            "{what}"
        );
    }
    // Tampered payload: a valid token's claims changed after signing.
    let t = auth::token(&k.rsa, &auth::claims("partner-agent"));
    let parts: Vec<&str> = t.split('.').collect();
    let forged = format!("{}.{}.{}", parts[0], parts[1].replace('a', "b"), parts[2]);
    assert_401(
        &ask(&s, "198.51.100.3", Some(&bearer(&forged))),
        Some("invalid_token"),
    );
    // alg none and HS256 (the JWKS's RSA n as an HMAC secret) are refused.
    let none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{}.", parts[1]);
    assert_401(
        &ask(&s, "198.51.100.3", Some(&bearer(&none))),
        Some("invalid_token"),
    );
    let hs = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &auth::claims("partner-agent"),
        &jsonwebtoken::EncodingKey::from_secret(k.rsa.jwk["n"].as_str().unwrap().as_bytes())
            .unwrap(),
    )
    .unwrap();
    assert_401(
        &ask(&s, "198.51.100.3", Some(&bearer(&hs))),
        Some("invalid_token"),
    );
    // Another scheme.
    assert_401(
        &ask(&s, "198.51.100.3", Some("Basic dXNlcjpwYXNz")),
        Some("invalid_request"),
    );
}

#[test]
fn a_valid_token_without_the_scope_is_403_and_scp_counts() {
    let k = keys();
    let s = state("required", &[]);
    let mut c = auth::claims("partner-agent");
    c["scope"] = json!("openid profile");
    let r = ask(&s, "198.51.100.4", Some(&bearer(&auth::token(&k.ec, &c))));
    assert_eq!(r.status(), 403, "{}", doc(&r));
    assert_eq!(doc(&r)["error"]["code"], "FORBIDDEN");
    let challenge = header(&r, "www-authenticate");
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("scope=\"docs:read\""),
        "{challenge}"
    );
    c.as_object_mut().unwrap().remove("scope");
    c["scp"] = json!(["docs:read"]);
    let r = ask(&s, "198.51.100.4", Some(&bearer(&auth::token(&k.ec, &c))));
    assert_eq!(r.status(), 200);
    // A custom scope.
    let s = state("required", &[("ASK_AUTH_SCOPE", "partner:ask")]);
    let r = ask(
        &s,
        "198.51.100.4",
        Some(&bearer(&auth::token(&k.ec, &auth::claims("p")))),
    );
    assert_eq!(r.status(), 403);
}

#[test]
fn an_authenticated_caller_has_its_own_bucket() {
    let k = keys();
    let s = state("optional", &[("ASK_AUTH_RATE_LIMIT_PER_MINUTE", "3")]);
    let ip = "198.51.100.5";
    // The address's anonymous bucket (20) runs dry...
    for _ in 0..20 {
        assert_eq!(ask(&s, ip, None).status(), 200);
    }
    assert_eq!(ask(&s, ip, None).status(), 429);
    // ...while a partner on the same address is served from its own (3).
    let t = bearer(&auth::token(&k.rsa, &auth::claims("partner-agent")));
    for _ in 0..3 {
        let r = ask(&s, ip, Some(&t));
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "ratelimit-policy"), "\"subject\";q=3;w=60");
        // Both headers name the bucket that was charged.
        assert!(
            header(&r, "ratelimit").starts_with("\"subject\";r="),
            "{r:?}"
        );
    }
    let r = ask(&s, ip, Some(&t));
    assert_eq!(r.status(), 429);
    assert!(!header(&r, "retry-after").is_empty());
    // Another subject is not affected.
    let other = bearer(&auth::token(&k.rsa, &auth::claims("second-agent")));
    assert_eq!(ask(&s, ip, Some(&other)).status(), 200);
}

#[test]
fn mcp_follows_the_same_rules() {
    let s = state("required", &[]);
    let text =
        std::fs::read_to_string(repo().join("events/http-post-mcp-tools-call.json")).unwrap();
    let call = |authorization: Option<String>| {
        let mut v: Value = serde_json::from_str(&text).unwrap();
        if let Some(a) = authorization {
            v["headers"]["authorization"] = json!(a);
        }
        respond(&s, &lambda_http::request::from_str(&v.to_string()).unwrap())
    };
    let r = call(None);
    assert_eq!(r.status(), 401);
    assert!(header(&r, "www-authenticate").starts_with("Bearer resource_metadata="));
    let d = doc(&r);
    assert_eq!(d["jsonrpc"], "2.0");
    assert_eq!(d["error"]["code"], -32001);
    assert_eq!(d["error"]["data"]["error"]["code"], "UNAUTHORIZED");
    let t = auth::token(&keys().ec, &auth::claims("partner-agent"));
    let r = call(Some(bearer(&t)));
    assert_eq!(r.status(), 200, "{}", doc(&r));
    assert!(doc(&r)["result"].is_object());
}

#[test]
fn the_protected_resource_metadata_names_the_issuer_and_scope() {
    let text = std::fs::read_to_string(repo().join("events/http-get-oauth-metadata.json")).unwrap();
    let req = || lambda_http::request::from_str(&text).unwrap();
    let r = respond(&state("required", &[]), &req());
    assert_eq!(r.status(), 200);
    let d = doc(&r);
    assert_eq!(
        d["resource"],
        "https://f7m2xw4p1c.execute-api.us-east-1.amazonaws.com"
    );
    assert_eq!(d["authorization_servers"], json!([ISSUER]));
    assert_eq!(d["scopes_supported"], json!(["docs:read"]));
    assert_eq!(d["bearer_methods_supported"], json!(["header"]));
    // With auth off there is nothing to describe.
    let off = test_state::state(docs_index(), &[]);
    assert_eq!(respond(&off, &req()).status(), 404);
}

#[test]
fn config_refuses_auth_without_usable_keys() {
    let load = test_state::load;
    for (pairs, says) in [
        (
            vec![("ASK_AUTH", "sometimes")],
            "`off`, `optional`, `required`",
        ),
        (vec![("ASK_AUTH", "required")], "no key set"),
        (
            vec![("ASK_AUTH", "required"), ("ASK_AUTH_JWKS_URL", "ftp://x")],
            "not an https URL",
        ),
    ] {
        let e = load(&pairs).unwrap_err().to_string();
        assert!(e.contains(says), "{pairs:?}: {e}");
    }
    // The settings are plain data: a key set is read when the state is
    // made, and one that gives no key fails the cold start there, naming it.
    let named = [
        ("ASK_AUTH_ISSUER", "https://auth.example.com/"),
        ("ASK_AUTH_AUDIENCE", "docs-api"),
    ];
    for (jwks, says) in [("{}", "JWK set"), (r#"{"keys":[]}"#, "no RS256")] {
        let mut pairs = vec![("ASK_AUTH", "required"), ("ASK_AUTH_JWKS", jwks)];
        pairs.extend(named);
        let config = load(&pairs).unwrap();
        let e = nlweb_ask::built::auth(&config, None).err().unwrap();
        assert!(
            e.contains("ask.auth_jwks") && e.contains(says),
            "{jwks}: {e}"
        );
        // A fetched document is read the same way, and named by its URL.
        let mut pairs = vec![
            ("ASK_AUTH", "required"),
            ("ASK_AUTH_JWKS_URL", "https://auth.example.com/jwks.json"),
        ];
        pairs.extend(named);
        let config = load(&pairs).unwrap();
        let e = nlweb_ask::built::auth(&config, Some(jwks)).err().unwrap();
        assert!(
            e.contains("https://auth.example.com/jwks.json") && e.contains(says),
            "{e}"
        );
    }
}

/// The cold-start path of `ask.auth_jwks_url`: the JWKS served on loopback
/// is fetched and its keys check tokens.
#[tokio::test]
async fn the_jwks_url_is_fetched_on_loopback() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let k = keys();
    let body = auth::jwks(&[&k.rsa]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        let n = sock.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("GET /jwks.json"));
        let resp = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        sock.write_all(resp.as_bytes()).await.unwrap();
    });
    let url = format!("http://127.0.0.1:{port}/jwks.json");
    let jwks = nlweb_ask::auth::fetch_jwks(&url).await.unwrap();
    server.await.unwrap();
    let checker = nlweb_ask::auth::Auth::new(
        nlweb_ask::auth::Mode::Required,
        &jwks,
        Some(ISSUER.into()),
        Some(AUDIENCE.into()),
        "docs:read".into(),
    )
    .unwrap();
    let t = bearer(&auth::token(&k.rsa, &auth::claims("partner-agent")));
    assert_eq!(
        checker.check(Some(t.as_bytes())),
        Ok(nlweb_ask::auth::Caller::Subject("partner-agent".into()))
    );
    // Nothing listening: a named cause, quickly.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead = format!(
        "http://127.0.0.1:{}/jwks.json",
        closed.local_addr().unwrap().port()
    );
    drop(closed);
    let e = nlweb_ask::auth::fetch_jwks(&dead).await.unwrap_err();
    assert!(
        e.contains("cannot fetch the JWKS at http://127.0.0.1:"),
        "{e}"
    );
}

/// Writes the key set and tokens the saved auth events use
/// (`tests/data/auth/`); run by hand: `cargo test --test auth -- --ignored`.
#[test]
#[ignore]
fn mint_event_fixtures() {
    let key = auth::rsa_key("events-rsa");
    let dir = repo().join("tests/data/auth");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("jwks.json"), auth::jwks(&[&key]) + "\n").unwrap();
    // Valid until 2100, without docs:read.
    let mut c = auth::claims("events-partner");
    c["iat"] = json!(1767225600);
    c["exp"] = json!(4102444800i64);
    c["scope"] = json!("openid");
    let no_scope = auth::token(&key, &c);
    // Expired in 2026.
    c["scope"] = json!("docs:read");
    c["exp"] = json!(1767229200);
    let expired = auth::token(&key, &c);
    std::fs::write(
        dir.join("tokens.json"),
        serde_json::to_string_pretty(&json!({"no_scope": no_scope, "expired": expired})).unwrap()
            + "\n",
    )
    .unwrap();
}

/// A token signed by a key the function does not hold (rotated since the
/// cold start, or a JWKS that could not be fetched then) starts one
/// background fetch of the JWKS; later tokens of that key check out. Made-up
/// `kid`s cost at most one fetch a minute.
#[tokio::test]
async fn an_unknown_key_fetches_the_jwks_again_at_most_once_a_minute() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rotated = auth::rsa_key("rotated-1");
    let body = auth::jwks(&[&rotated]);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let fetches = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = fetches.clone();
    tokio::spawn(async move {
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            seen.fetch_add(1, Ordering::SeqCst);
            let mut buf = vec![0u8; 4096];
            let _ = sock.read(&mut buf).await;
            let resp = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(resp.as_bytes()).await;
        }
    });
    // The cold start could not fetch the keys (optional: anonymous still
    // served); the URL is where they are fetched again from.
    let url = format!("http://127.0.0.1:{port}/jwks.json");
    let s = test_state::state(
        docs_index(),
        &[
            ("ASK_AUTH", "optional"),
            ("ASK_AUTH_JWKS_URL", url.as_str()),
            ("ASK_AUTH_ISSUER", ISSUER),
            ("ASK_AUTH_AUDIENCE", AUDIENCE),
            ("ASK_RATE_LIMIT_PER_MINUTE", "1000"),
        ],
    );
    assert_eq!(ask_async(&s, "198.51.100.90", None).await.status(), 200);
    let good = bearer(&auth::token(&rotated, &auth::claims("rotated-partner")));
    // The request that names the unknown key is refused; it starts the
    // fetch, and once that is done the same token checks out.
    // The service fetches after the answer, before handing it back.
    assert_401(
        &ask_async(&s, "198.51.100.90", Some(&good)).await,
        Some("invalid_token"),
    );
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    assert_eq!(
        ask_async(&s, "198.51.100.90", Some(&good)).await.status(),
        200
    );
    // Made-up kids: refused, and no second fetch within the minute.
    for n in 0..20 {
        let stranger = auth::rsa_key(&format!("made-up-{n}"));
        let t = bearer(&auth::token(&stranger, &auth::claims("x")));
        assert_401(
            &ask_async(&s, "198.51.100.91", Some(&t)).await,
            Some("invalid_token"),
        );
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    // The fetched keys still need this API's issuer and audience.
    let mut other = auth::claims("rotated-partner");
    other["aud"] = json!("https://another-api.example.com");
    let t = bearer(&auth::token(&rotated, &other));
    assert_401(
        &ask_async(&s, "198.51.100.92", Some(&t)).await,
        Some("invalid_token"),
    );
}
