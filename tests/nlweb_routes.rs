//! NLWeb's other routes, `/config` and `/who` (the route table of the
//! NLWeb reference server), and the older in-band headers of an answer:
//! what they hold, that `/who` agrees with `/ask`, and that both routes obey
//! the off switch, CORS, auth and the rate limit like `/ask`.

mod support;
#[path = "support/state.rs"]
mod test_state;

use lambda_http::{Body, Response};
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::{Value, json};
use support::docs::{docs_index, repo};

fn state(extra: &[(&str, &str)]) -> State {
    test_state::state(docs_index(), extra)
}

/// A GET (HTTP API v2) of `path_and_query` from `ip`, with `headers`.
fn get(state: &State, path_and_query: &str, ip: &str, headers: &[(&str, &str)]) -> Response<Body> {
    let mut v = test_state::event_at("http-get-sites.json", path_and_query);
    v["requestContext"]["http"]["sourceIp"] = json!(ip);
    for (name, value) in headers {
        v["headers"][*name] = json!(value);
    }
    respond(
        state,
        &lambda_http::request::from_str(&v.to_string()).unwrap(),
    )
}

fn doc(r: &Response<Body>) -> Value {
    serde_json::from_slice(r.body().as_ref()).unwrap_or(Value::Null)
}

fn header<'a>(r: &'a Response<Body>, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or("")
}

#[test]
fn config_shows_the_settings_in_force_and_nothing_secret() {
    let s = state(&[
        ("ASK_RATE_LIMIT_PER_MINUTE", "7"),
        ("ASK_DEFAULT_MODE", "list"),
        ("ASK_DEFAULT_STREAMING", "false"),
        ("ASK_TOP_K", "3"),
        ("ASK_MAX_QUERY_CHARS", "321"),
        ("ASK_INDEX", "s3://secret-bucket/index/key.idx"),
    ]);
    let r = get(&s, "/config", "203.0.113.1", &[]);
    assert_eq!(r.status(), 200);
    let d = doc(&r);
    let typed: nlweb_ask::protocol::settings::ConfigDocument =
        serde_json::from_value(d.clone()).unwrap();
    assert_eq!(d["protocol_version"], "0.55");
    assert_eq!(d["default_mode"], "list");
    assert_eq!(d["default_streaming"], false);
    assert_eq!(d["modes"], json!(["list", "summarize", "generate"]));
    assert_eq!(
        d["response_formats"],
        json!(["conversational_search", "chatgpt_app"])
    );
    assert_eq!(typed.limits.default_results, 3);
    assert_eq!(typed.limits.max_results, 10);
    assert_eq!(typed.limits.max_query_chars, 321);
    assert_eq!(typed.limits.max_body_bytes, 65536);
    assert_eq!(typed.rate_limit.per_minute, 7);
    assert_eq!(typed.auth.mode, "off");
    assert_eq!(typed.auth.resource_metadata, None);
    assert_eq!(typed.generator, "extractive");
    assert_eq!(
        typed.nlweb_gateway,
        "f7m2xw4p1c.execute-api.us-east-1.amazonaws.com"
    );
    assert_eq!(
        typed.endpoints.who,
        "https://f7m2xw4p1c.execute-api.us-east-1.amazonaws.com/who"
    );
    let body = d.to_string();
    assert!(!body.contains("secret-bucket"), "{body}");
    assert_eq!(header(&r, "ratelimit-policy"), "\"default\";q=7;w=60");
    assert_eq!(header(&r, "access-control-allow-origin"), "*");
}

#[test]
fn who_agrees_with_the_answer_to_the_same_question() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "1000")]);
    for (question, relevant) in [
        ("how do I configure the rate limit", true),
        ("how do I turn the endpoint off", true),
        ("how do I bake sourdough bread", false),
        ("zzqxv blorptangle", false),
    ] {
        let q = question.replace(' ', "+");
        let who = doc(&get(&s, &format!("/who?query={q}"), "203.0.113.2", &[]));
        let ask = doc(&get(
            &s,
            &format!("/ask?query={q}&streaming=false&mode=list"),
            "203.0.113.2",
            &[],
        ));
        assert_eq!(who["relevant"], relevant, "{question}: {who}");
        assert_eq!(who["_meta"]["response_type"], "answer");
        assert_eq!(who["_meta"]["version"], "0.55");
        assert_eq!(who["query"], question);
        let site = &who["content"][0]["resource"]["data"];
        assert_eq!(who["content"][0]["type"], "resource");
        assert_eq!(site["@type"], "WebSite");
        assert_eq!(site["relevant"], who["relevant"]);
        assert_eq!(site["score"], who["score"]);
        if ask["_meta"]["response_type"] == "failure" {
            assert_eq!(ask["error"]["code"], "NO_RESULTS", "{question}");
            assert_eq!(who["score"], 0.0, "{question}");
            assert!(site.get("best_page").is_none(), "{question}");
            continue;
        }
        let confidence = &ask["_meta"]["answer_confidence"];
        assert_eq!(who["relevant"], confidence["answered"], "{question}");
        assert_eq!(who["score"], confidence["coverage"], "{question}");
        assert_eq!(
            site["best_page"]["url"], ask["results"][0]["url"],
            "{question}"
        );
    }
}

#[test]
fn who_without_a_question_is_invalid_query() {
    let s = state(&[]);
    for path in ["/who", "/who?query=+++", "/who?site=docs"] {
        let r = get(&s, path, "203.0.113.3", &[]);
        assert_eq!(r.status(), 400, "{path}");
        assert_eq!(doc(&r)["error"]["code"], "INVALID_QUERY", "{path}");
    }
    // An alias of the question is read, like /ask's.
    let r = get(&s, "/who?q=rate+limit", "203.0.113.3", &[]);
    assert_eq!(r.status(), 200);
    assert_eq!(doc(&r)["query"], "rate limit");
}

#[test]
fn both_routes_follow_the_off_switch_methods_and_the_rate_limit() {
    let off = state(&[("ASK_ENABLED", "false")]);
    for path in ["/config", "/who?query=rate+limit"] {
        let r = get(&off, path, "203.0.113.4", &[]);
        assert_eq!(r.status(), 404, "{path}");
        assert_eq!(doc(&r), json!({"message": "Not Found"}));
        // A bare 404: nothing says there is an endpoint here.
        let names: Vec<&str> = r.headers().keys().map(|k| k.as_str()).collect();
        assert!(
            names
                .iter()
                .all(|n| matches!(*n, "content-type" | "content-length")),
            "{path}: {names:?}"
        );
    }
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "2")]);
    for path in ["/config", "/who?query=rate+limit"] {
        let ip = if path == "/config" {
            "203.0.113.5"
        } else {
            "203.0.113.6"
        };
        for n in 0..2 {
            let r = get(&s, path, ip, &[]);
            assert_eq!(r.status(), 200, "{path} #{n}");
            assert!(header(&r, "ratelimit").starts_with("\"default\";r="));
        }
        let r = get(&s, path, ip, &[]);
        assert_eq!(r.status(), 429, "{path}");
        assert_eq!(doc(&r)["error"]["code"], "RATE_LIMITED");
        assert!(!header(&r, "retry-after").is_empty());
    }
    // A preflight names GET; POST is refused with Allow.
    let text = std::fs::read_to_string(repo().join("events/http-options-preflight.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    for path in ["/config", "/who"] {
        v["rawPath"] = json!(path);
        v["requestContext"]["http"]["path"] = json!(path);
        let r = respond(&s, &lambda_http::request::from_str(&v.to_string()).unwrap());
        assert_eq!(r.status(), 204, "{path}");
        assert_eq!(header(&r, "access-control-allow-methods"), "GET, OPTIONS");
        v["requestContext"]["http"]["method"] = json!("POST");
        let r = respond(&s, &lambda_http::request::from_str(&v.to_string()).unwrap());
        assert_eq!(r.status(), 405, "{path}");
        assert_eq!(header(&r, "allow"), "GET, OPTIONS");
        // HEAD is not served as a GET: the 405's headers, no content.
        v["requestContext"]["http"]["method"] = json!("HEAD");
        let r = respond(&s, &lambda_http::request::from_str(&v.to_string()).unwrap());
        assert_eq!(r.status(), 405, "{path}");
        assert_eq!(header(&r, "allow"), "GET, OPTIONS");
        assert!(r.body().as_ref().is_empty());
        v["requestContext"]["http"]["method"] = json!("OPTIONS");
    }
}

#[test]
fn both_routes_take_tokens_like_ask() {
    let jwks = std::fs::read_to_string(repo().join("tests/data/auth/jwks.json")).unwrap();
    let vars = |mode: &'static str| {
        vec![
            ("ASK_AUTH", mode),
            ("ASK_AUTH_JWKS", jwks.trim()),
            ("ASK_AUTH_ISSUER", "https://auth.example.com/"),
            ("ASK_AUTH_AUDIENCE", "https://nlweb-ask.example.com"),
        ]
    };
    let required = state(&vars("required"));
    let optional = state(&vars("optional"));
    for path in ["/config", "/who?query=rate+limit"] {
        // Required: no token, 401 with the challenge.
        let r = get(&required, path, "203.0.113.7", &[]);
        assert_eq!(r.status(), 401, "{path}");
        assert!(header(&r, "www-authenticate").starts_with("Bearer resource_metadata="));
        // Optional: anonymous works, a bad token is never anonymous.
        assert_eq!(get(&optional, path, "203.0.113.8", &[]).status(), 200);
        let r = get(
            &optional,
            path,
            "203.0.113.8",
            &[("authorization", "Bearer not.a.token")],
        );
        assert_eq!(r.status(), 401, "{path}");
    }
    let d = doc(&get(&optional, "/config", "203.0.113.9", &[]));
    assert_eq!(d["auth"]["mode"], "optional");
    assert_eq!(
        d["auth"]["resource_metadata"],
        "https://f7m2xw4p1c.execute-api.us-east-1.amazonaws.com/.well-known/oauth-protected-resource"
    );
}

/// NLWeb's older in-band headers: top-level members of a JSON answer, which
/// a 0.55 client ignores, and unnamed events right after a stream's
/// `start`, which a client listening for the named events never sees; the
/// named events keep their order and ids.
#[test]
fn answers_carry_the_older_in_band_headers() {
    let s = state(&[("ASK_RATE_LIMIT_PER_MINUTE", "13")]);
    let d = doc(&get(
        &s,
        "/ask?query=rate+limit&streaming=false",
        "203.0.113.10",
        &[],
    ));
    assert_eq!(d["api_version"], "0.55");
    let built_at = d["_meta"]["index_built_at"].as_str().unwrap();
    assert!(
        d["data_freshness"]["message"]
            .as_str()
            .unwrap()
            .contains(built_at),
        "{d}"
    );
    assert!(
        d["rate_limits"]["message"]
            .as_str()
            .unwrap()
            .starts_with("13 requests a minute"),
        "{d}"
    );
    let r = get(
        &s,
        "/ask?query=rate+limit&streaming=true",
        "203.0.113.10",
        &[],
    );
    let text = String::from_utf8(r.body().as_ref().to_vec()).unwrap();
    let events = support::sse::parse(&text).unwrap();
    support::sse::check_answer_stream(&events).unwrap();
    let legacy = support::sse::legacy_headers(&events).unwrap();
    let kinds: Vec<&str> = legacy
        .iter()
        .map(|e| e.data["message_type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["api_version", "data_freshness", "rate_limits"]);
    assert_eq!(legacy[0].data["api_version"], "0.55");
    assert!(
        legacy[2].data["content"]
            .as_str()
            .unwrap()
            .starts_with("13 requests a minute")
    );
    let ids: Vec<&str> = events.iter().filter_map(|e| e.id.as_deref()).collect();
    let expected: Vec<String> = (0..ids.len()).map(|i| i.to_string()).collect();
    assert_eq!(ids, expected);
    // A failure carries none.
    let f = doc(&get(
        &s,
        "/ask?query=+&streaming=false",
        "203.0.113.10",
        &[],
    ));
    assert_eq!(f["_meta"]["response_type"], "failure");
    assert!(f.get("api_version").is_none(), "{f}");
}

/// API Gateway forwards only the paths `template.yaml` names: every route
/// of the OpenAPI document (the routes the handler serves) has an event
/// there, and the template names no other.
#[test]
fn the_template_routes_every_path_the_handler_serves() {
    let template = std::fs::read_to_string(repo().join("template.yaml")).unwrap();
    // API Gateway's greedy `{page+}` is OpenAPI's `{page}`.
    let mut in_template: Vec<String> = template
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Path: "))
        .map(|p| p.replace("+}", "}"))
        .collect();
    in_template.sort();
    in_template.dedup();
    let openapi = nlweb_ask::routes::openapi_document();
    let mut served: Vec<String> = openapi["paths"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    served.sort();
    assert_eq!(in_template, served);
}

/// The router serves exactly the methods the layers' route table names
/// (preflights and `Allow` come from the table), and the OpenAPI document
/// describes exactly those: every route, every method, with auth on so
/// that the RFC 9728 metadata is a route too.
#[test]
fn the_router_and_the_route_table_agree() {
    let s = state(
        &support::docs::events_env()
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect::<Vec<_>>(),
    );
    let text = std::fs::read_to_string(repo().join("events/http-get-sites.json")).unwrap();
    let base: Value = serde_json::from_str(&text).unwrap();
    let openapi = nlweb_ask::routes::openapi_document();
    let documented: Vec<&str> = openapi["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let table: Vec<String> = nlweb_ask::routes::ROUTES
        .iter()
        .map(|r| nlweb_ask::protocol::openapi::path_of(r.path))
        .collect();
    assert_eq!(
        documented, table,
        "the OpenAPI paths are the table's, in order"
    );
    for route in nlweb_ask::routes::ROUTES {
        // The OpenAPI path item documents exactly the methods it takes.
        let mut operations: Vec<String> = openapi["paths"]
            [nlweb_ask::protocol::openapi::path_of(route.path).as_str()]
        .as_object()
        .unwrap()
        .keys()
        // Path-level parameters are not an operation.
        .filter(|k| *k != "parameters")
        .map(|m| m.to_uppercase())
        .collect();
        operations.sort();
        let mut methods: Vec<&str> = route.methods.split(", ").collect();
        methods.sort();
        assert_eq!(operations, methods, "{}", route.path);
        // A pattern's route is asked at one of its paths.
        let path = route.path.replace("{*page}", "quickstart.md");
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"] {
            let mut v = base.clone();
            v["rawPath"] = json!(path);
            v["requestContext"]["http"]["path"] = json!(path);
            v["requestContext"]["http"]["method"] = json!(method);
            // Its own address each time: no bucket runs dry.
            v["requestContext"]["http"]["sourceIp"] =
                json!(format!("192.0.2.{}", method.len() * 20 + route.path.len()));
            let r = respond(&s, &lambda_http::request::from_str(&v.to_string()).unwrap());
            let takes = route.methods.split(", ").any(|m| m == method);
            let status = r.status().as_u16();
            assert_ne!(status, 404, "{method} {}", route.path);
            if takes {
                assert_ne!(status, 405, "{method} {}", route.path);
            } else {
                assert_eq!(status, 405, "{method} {}", route.path);
                assert_eq!(
                    header(&r, "allow"),
                    route.methods,
                    "{method} {}",
                    route.path
                );
            }
            if method == "OPTIONS" {
                assert_eq!(status, 204, "{}", route.path);
                assert_eq!(header(&r, "access-control-allow-methods"), route.methods);
                // `Allow` belongs to the 405 alone.
                assert_eq!(header(&r, "allow"), "", "{}", route.path);
            }
        }
    }
}

/// The router is built from the route table, and a route the table does
/// not list fails closed: added to a router under the same layers, it is
/// refused (404) before any handler runs, never served without the
/// table's authentication and rate limit.
#[test]
fn a_route_missing_from_the_table_is_refused_not_free() {
    use tower::ServiceExt;
    let s = state(&[]);
    let served = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = served.clone();
    let router = axum::Router::new()
        .route(
            "/openapi.json",
            axum::routing::get(nlweb_ask::routes::openapi::handle),
        )
        .route(
            "/not-in-the-table",
            axum::routing::get(move || async move {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
                "free"
            }),
        );
    let app = nlweb_ask::app::layered(router, s);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let get = |path: &str| {
        let req = axum::http::Request::builder()
            .uri(path)
            .body(axum::body::Body::empty())
            .unwrap();
        rt.block_on(app.clone().oneshot(req)).unwrap()
    };
    let r = get("/not-in-the-table");
    assert_eq!(r.status(), 404);
    assert!(!served.load(std::sync::atomic::Ordering::SeqCst));
    // A route of the table under the same layers is served.
    let r = get("/openapi.json");
    assert_eq!(r.status(), 200);
    // The real router serves every path of the table and no other.
    let s = state(&[]);
    for route in nlweb_ask::routes::served(&s) {
        let mut v: Value = serde_json::from_str(
            &std::fs::read_to_string(repo().join("events/http-get-sites.json")).unwrap(),
        )
        .unwrap();
        v["rawPath"] = json!(route.path);
        v["requestContext"]["http"]["path"] = json!(route.path);
        v["requestContext"]["http"]["method"] = json!("OPTIONS");
        let r = respond(&s, &lambda_http::request::from_str(&v.to_string()).unwrap());
        assert_eq!(r.status(), 204, "{}", route.path);
    }
}

/// Each page as Markdown at `/pages/{key}.md`: the whole page, an `ETag`
/// of the build and the page (a revalidation that names it is 304 and
/// spends no token), another page another `ETag`, an unknown key 404;
/// `/llms-full.txt` holds every page and its own `ETag`.
#[test]
fn pages_are_served_as_markdown_and_revalidated() {
    let s = state(&[]);
    let r = get(&s, "/pages/quickstart.md", "198.51.100.7", &[]);
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "content-type"), "text/markdown; charset=utf-8");
    let body = String::from_utf8(r.body().to_vec()).unwrap();
    assert!(body.starts_with("# Quickstart\n"), "{body}");
    let source = std::fs::read_to_string(repo().join("docs/content/docs/quickstart.mdx")).unwrap();
    for h in source.lines().filter(|l| l.starts_with("## ")) {
        assert!(body.contains(h), "{h}");
    }
    let etag = header(&r, "etag").to_string();
    assert!(!etag.is_empty());
    let left = |r: &Response<Body>| header(r, "ratelimit").to_string();
    let before = left(&r);
    let again = get(
        &s,
        "/pages/quickstart.md",
        "198.51.100.7",
        &[("if-none-match", &etag)],
    );
    assert_eq!(again.status(), 304);
    assert!(again.body().is_empty());
    assert_eq!(left(&again), before, "a 304 spends no token");
    let other = get(&s, "/pages/api.md", "198.51.100.8", &[]);
    assert_eq!(other.status(), 200);
    assert_ne!(header(&other, "etag"), etag);
    let missing = get(&s, "/pages/no-such-page.md", "198.51.100.9", &[]);
    assert_eq!(missing.status(), 404);

    let full = get(&s, "/llms-full.txt", "198.51.100.10", &[]);
    assert_eq!(full.status(), 200);
    let text = String::from_utf8(full.body().to_vec()).unwrap();
    assert_eq!(text.matches("\nSource: https://").count(), 13, "every page");
    assert!(!header(&full, "etag").is_empty());
}
