//! `/who`: does this site answer a question?

use axum::extract::{Request, State as Ctx};
use axum::response::Response;
use lambda_http::RequestExt;
use lambda_http::http::request::Parts;

use crate::protocol::openapi::{self as oa, get_protected, json, obj, s};
use crate::protocol::response::{
    ResourceType, WebSiteType, WhoContent, WhoDocument, WhoMeta, WhoPage, WhoResource, WhoSite,
};
use crate::protocol::{self, RawRequest};
use crate::reply;
use crate::state::{State, api_base_url};
use serde_json::Value;

/// `GET /who?query=…`: whether this site answers the question, by the same
/// retrieval and confidence rule as `/ask`, with its best page. The
/// question (`query`, `q` or `text`) and `site` are read: with `ask.sites`,
/// `/who` answers for the sites named (absent: the default site, as
/// `/ask`); `prev` is ignored, and the answer is JSON whatever `streaming`
/// says.
pub async fn handle(Ctx(state): Ctx<State>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    who(&state, &parts).await
}

async fn who(state: &State, req: &Parts) -> Response {
    let params: Vec<(String, String)> = req
        .query_string_parameters_ref()
        .map(|q| {
            q.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|(k, _)| matches!(k.as_str(), "query" | "q" | "text" | "site"))
        .chain([
            ("mode".to_string(), "list".to_string()),
            ("streaming".to_string(), "false".to_string()),
        ])
        .collect();
    let raw = RawRequest {
        params,
        accept: None,
        body: &[],
    };
    let parsed = match protocol::parse(&raw, &state.limits) {
        Ok(p) => p,
        Err(f) => return reply::failure(&f, None, &state.echo(None)),
    };
    // The sites it answers for: a site not served is a failure, as on /ask.
    let site = match state.asked(parsed.site.as_deref()) {
        Ok(crate::sites::Asked::Sites(mask)) => state.sites.names_in(mask).join(","),
        Ok(crate::sites::Asked::All) if !state.sites.names.is_empty() => "all".to_string(),
        Ok(crate::sites::Asked::All) => state.config.site.clone(),
        Err(f) => return reply::failure(&f, None, &state.echo(Some(&parsed))),
    };
    let query_id = state.new_query_id();
    // The same number of sections as an /ask answer, so that the confidence
    // is the same as that answer's.
    let started = crate::exchange::started(req);
    let result = state
        .answer(&parsed, state.config.top_k, crate::exchange::deadline(req))
        .await;
    state.analytics.query(&crate::analytics::Query {
        route: crate::protocol::paths::WHO_PATH,
        client: crate::analytics::Client::of(&req.headers),
        request_id: crate::state::request_id(req),
        query_id: &query_id,
        client_query_id: false,
        request: &parsed,
        result: result.as_ref(),
        latency_ms: started.elapsed().as_secs_f64() * 1e3,
        cold_start: crate::exchange::cold_start(req),
    });
    let answer = result.ok();
    let confidence = answer.as_ref().and_then(|a| a.confidence.clone());
    let relevant = confidence.as_ref().is_some_and(|c| c.answered);
    let score = confidence.map_or(0.0, |c| c.coverage);
    let best_page = answer
        .as_ref()
        .and_then(|a| a.items.first())
        .map(|a| WhoPage {
            name: a.name.clone(),
            url: a.url.clone(),
            score: a.score,
            description: a.description.clone(),
        });
    let (name, description) = state.product.clone();
    tracing::info!(query_id = %query_id, relevant, score, "who");
    reply::json(
        200,
        &WhoDocument {
            meta: WhoMeta {
                response_type: protocol::response::ResponseType::Answer,
                version: protocol::response::Version::V055,
                conversation_id: query_id,
            },
            query: parsed.query.clone(),
            relevant,
            score,
            content: vec![WhoContent {
                kind: ResourceType::Resource,
                resource: WhoResource {
                    uri: format!("{}/ask", api_base_url(state, req)),
                    mime_type: "application/ld+json".into(),
                    data: WhoSite {
                        kind: WebSiteType::WebSite,
                        site,
                        name,
                        description,
                        url: state.base_url.clone(),
                        score,
                        relevant,
                        best_page,
                    },
                },
            }],
        },
    )
}

/// The OpenAPI path item.
pub fn fragment(p: &oa::Parts) -> Value {
    get_protected(
        p,
        "who",
        "Whether this site answers a question: relevant, a score from 0 to 1 (the /ask answer's confidence) and the best page; JSON whatever streaming says",
        json("The site's relevance", p.who.clone(), &[]),
        vec![
            obj(&[
                ("name", s("query")),
                ("in", s("query")),
                ("required", Value::Bool(true)),
                ("description", s("The question (also `q` or `text`)")),
                ("schema", obj(&[("type", s("string"))])),
            ]),
            obj(&[
                ("name", s("site")),
                ("in", s("query")),
                ("required", Value::Bool(false)),
                (
                    "description",
                    s(
                        "The sites to answer for (see /sites), comma-separated; all: every page. Absent: the default site",
                    ),
                ),
                ("schema", obj(&[("type", s("string"))])),
            ]),
        ],
        vec![(
            "400",
            json(
                "INVALID_QUERY: missing, empty or too long",
                p.failure.clone(),
                &[],
            ),
        )],
    )
}
