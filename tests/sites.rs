//! One index, several sites (`ask.sites`): each site answers from its own
//! pages, every route and tool names the sites, a site that lacks an
//! answer names the one that has it, and links fill their `[platform]`
//! from the site asked. The bundled docs divided into `guides` and
//! `reference`; aws-amplify divided as `examples/sites/aws-amplify.yaml`
//! divides it, where naming the reader's site must raise page nDCG@10 on
//! every question set.

mod support;
#[path = "support/state.rs"]
mod test_state;

use ask_index::Index;
use ask_index::search::Retriever;
use lambda_http::{Body, Response};
use nlweb_ask::app::respond;
use nlweb_ask::state::State;
use serde_json::{Value, json};
use support::docs::{model_dir, repo, shared_corpora, with_vectors};
use support::sites::{GUIDES_AND_REFERENCE as SITES, index_with_sites, settings_yaml};

/// An enabled handler over `index`, with the settings it carries (as the
/// cold start reads them).
fn state_of(index: Index) -> State {
    let settings = nlweb_ask::config::carried(&index.meta.settings).unwrap();
    let config = nlweb_ask::config::load(&settings, &|k| match k {
        "ASK_ENABLED" => Some("true".into()),
        "ASK_INDEX" => Some("unused-in-tests.idx".into()),
        _ => None,
    })
    .unwrap();
    nlweb_ask::sites::Sites::check(&config, &index).expect("the settings name the index's sites");
    State::with_clock(config, index, Box::new(|| 0.0)).with_analytics_in_memory()
}

fn docs_state() -> State {
    let corpus = repo().join("docs/content/docs");
    state_of(index_with_sites("routes", &corpus, &settings_yaml(SITES)))
}

/// A saved event sent to `path_and_query`, with `body` if given.
fn request(
    state: &State,
    event: &str,
    path_and_query: &str,
    body: Option<&Value>,
) -> Response<Body> {
    let mut v = test_state::event_at(event, path_and_query);
    if let Some(b) = body {
        v["body"] = json!(b.to_string());
        v["isBase64Encoded"] = json!(false);
        v["headers"]["content-length"] = json!(b.to_string().len().to_string());
    }
    respond(
        state,
        &lambda_http::request::from_str(&v.to_string()).unwrap(),
    )
}

fn get(state: &State, path_and_query: &str) -> Value {
    let r = request(state, "http-get-sites.json", path_and_query, None);
    serde_json::from_slice(r.body().as_ref()).unwrap()
}

/// The items' URLs of an `/ask` answer.
fn urls(d: &Value) -> Vec<String> {
    d["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["@type"] != "SearchSummary")
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect()
}

fn is_reference(url: &str) -> bool {
    url.contains("/docs/api") || url.contains("/docs/configuration")
}

#[test]
fn sites_config_openapi_and_mcp_name_each_site() {
    let s = docs_state();
    let d = get(&s, "/sites");
    assert_eq!(d["sites"], json!(["guides", "reference"]));
    assert_eq!(d["details"][0]["default"], true);
    assert!(d["details"][1].get("default").is_none(), "{d}");
    assert_eq!(d["details"][1]["description"], SITES[1].description);
    let pages = |i: usize| d["details"][i]["pages"].as_u64().unwrap();
    assert_eq!(pages(1), 2);
    assert_eq!(pages(0) + pages(1), s.index.meta.pages as u64, "{d}");

    let c = get(&s, "/config");
    assert_eq!(c["sites"], json!(["guides", "reference"]));
    assert_eq!(c["default_site"], "guides");

    let o = get(&s, "/openapi.json");
    for path in ["/ask", "/who"] {
        let params = o["paths"][path]["get"]["parameters"].as_array().unwrap();
        let site = params.iter().find(|p| p["name"] == "site").unwrap();
        assert_eq!(
            site["schema"]["items"]["enum"],
            json!(["guides", "reference", "all"]),
            "{path}"
        );
        assert_eq!(site["explode"], false);
    }

    let r = request(&s, "http-post-mcp-tools-list.json", "/mcp", None);
    let tools: Value = serde_json::from_slice(r.body().as_ref()).unwrap();
    let tools = tools["result"]["tools"].as_array().unwrap();
    for name in ["ask", "search"] {
        let t = tools.iter().find(|t| t["name"] == name).unwrap();
        let site = &t["inputSchema"]["properties"]["site"];
        assert_eq!(
            site["enum"],
            json!(["guides", "reference", "all"]),
            "{name}"
        );
        assert!(
            site["description"]
                .as_str()
                .unwrap()
                .contains(&format!("reference ({})", SITES[1].description))
        );
    }
}

#[test]
fn a_site_answers_from_its_own_pages_and_an_unknown_one_lists_the_sites() {
    let s = docs_state();
    let q = "query=which+settings+change+the+rate+limit&mode=list&streaming=false";
    let reference = urls(&get(&s, &format!("/ask?{q}&site=reference")));
    assert!(!reference.is_empty());
    assert!(reference.iter().all(|u| is_reference(u)), "{reference:?}");
    // No site: the default, guides.
    let default = urls(&get(&s, &format!("/ask?{q}")));
    assert!(!default.is_empty());
    assert!(default.iter().all(|u| !is_reference(u)), "{default:?}");
    let both = urls(&get(&s, &format!("/ask?{q}&site=guides,reference")));
    let all = urls(&get(&s, &format!("/ask?{q}&site=all")));
    assert_eq!(both, all);
    assert!(all.iter().any(|u| is_reference(u)), "{all:?}");
    // The analytics line says which sites were searched.
    let lines = s.analytics.lines();
    let line: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(line["site"], "reference");

    let d = get(&s, &format!("/ask?{q}&site=guides,gen3"));
    assert_eq!(d["error"]["code"], "NO_RESULTS", "{d}");
    let message = d["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("\"gen3\"") && message.contains("guides, reference"),
        "{message}"
    );

    // /who answers for the site named.
    let who = get(
        &s,
        "/who?query=which+settings+change+the+rate+limit&site=reference",
    );
    assert_eq!(who["content"][0]["resource"]["data"]["site"], "reference");
    assert!(is_reference(
        who["content"][0]["resource"]["data"]["best_page"]["url"]
            .as_str()
            .unwrap()
    ));
}

#[test]
fn a_named_site_without_the_answer_names_the_site_that_has_it() {
    let s = docs_state();
    // Words only the reference pages use: the guides have no page for it.
    let d = get(
        &s,
        "/ask?query=jsonwebtoken+leeway&mode=summarize&streaming=false&site=guides",
    );
    assert_eq!(d["_meta"]["response_type"], "answer", "{d}");
    assert!(urls(&d).is_empty());
    let c = &d["_meta"]["answer_confidence"];
    assert_eq!(
        (c["answered"].clone(), c["other_sites"].clone()),
        (json!(false), json!(["reference"])),
        "{d}"
    );
    let summary = d["results"][0]["text"].as_str().unwrap();
    assert!(
        summary.contains("Pages of reference match it (ask with site=reference)"),
        "{summary}"
    );
    // Asked of every page, it is answered, and no other site is named.
    let all = get(
        &s,
        "/ask?query=jsonwebtoken+leeway&mode=list&streaming=false&site=all",
    );
    assert!(urls(&all).iter().all(|u| is_reference(u)));
    assert!(
        all["_meta"]["answer_confidence"]
            .get("other_sites")
            .is_none()
    );
    // The same as Server-Sent Events: the stream ends as every stream does.
    let r = request(
        &s,
        "http-get-sites.json",
        "/ask?query=jsonwebtoken+leeway&mode=summarize&streaming=true&site=guides",
        None,
    );
    let text = String::from_utf8_lossy(r.body().as_ref()).to_string();
    assert_eq!(r.status(), 200);
    assert!(
        text.contains("\"other_sites\":[\"reference\"]") && text.contains("event: complete"),
        "{text}"
    );
    // A question no site answers has no results at all.
    let none = get(
        &s,
        "/ask?query=zzyzx+quux&mode=list&streaming=false&site=guides",
    );
    assert_eq!(none["error"]["code"], "NO_RESULTS", "{none}");
}

/// aws-amplify divided as `examples/sites/aws-amplify.yaml` divides it.
fn amplify(test: &str) -> Option<Index> {
    let dir = shared_corpora(test, &["aws-amplify"])?.remove(0);
    let yaml = std::fs::read_to_string(repo().join("examples/sites/aws-amplify.yaml")).unwrap();
    Some(index_with_sites(test, &dir, &yaml))
}

#[test]
fn a_page_in_two_sites_links_to_each_ones_platform() {
    let Some(index) = amplify("a_page_in_two_sites_links_to_each_ones_platform") else {
        return;
    };
    let page = (0..index.page_count() as u32)
        .find(|&p| {
            index.page(p).path == "pages/[platform]/build-a-backend/auth/set-up-auth/index.mdx"
        })
        .unwrap();
    let s = state_of(index);
    let names = &s.sites.names;
    let bit = |n: &str| 1u32 << names.iter().position(|x| x == n).unwrap();
    let bits = s.index.page_sites(page);
    assert!(bits & bit("react") != 0 && bits & bit("flutter") != 0 && bits & bit("gen2") != 0);
    let q = "/ask?query=set+up+auth&mode=list&streaming=false";
    for platform in ["react", "flutter"] {
        let found = urls(&get(&s, &format!("{q}&site={platform}")));
        assert!(
            found.iter().any(|u| u.starts_with(&format!(
                "https://docs.amplify.aws/{platform}/build-a-backend/auth/set-up-auth"
            ))),
            "{platform}: {found:?}"
        );
        assert!(
            found
                .iter()
                .all(|u| u.starts_with(&format!("https://docs.amplify.aws/{platform}/"))),
            "{platform}: {found:?}"
        );
    }
    // Gen 2 names no platform: the default (javascript) where the page
    // has it; Gen 1's links keep their generation.
    let gen2 = urls(&get(&s, &format!("{q}&site=gen2")));
    assert!(
        gen2.iter()
            .all(|u| !u.contains("%5B") && !u.contains("/gen1/")),
        "{gen2:?}"
    );
    let gen1 = urls(&get(&s, &format!("{q}&site=gen1-swift")));
    assert!(
        gen1.iter()
            .all(|u| u.starts_with("https://docs.amplify.aws/gen1/swift/")),
        "{gen1:?}"
    );
}

/// A labelled question: its text, its graded pages and its sites.
struct Labelled {
    q: String,
    expected: Vec<String>,
    partial: Vec<String>,
    site: String,
}

fn jsonl(path: &str) -> Vec<Value> {
    std::fs::read_to_string(repo().join(path))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The site a reader with these labels asks: a platform of Gen 2 is that
/// platform's site, of Gen 1 `gen1-<platform>`; else the generation.
fn site_of(labels: &[Value]) -> String {
    let labels: Vec<&str> = labels.iter().map(|l| l.as_str().unwrap()).collect();
    let generation = labels.iter().find(|l| l.starts_with("gen")).unwrap();
    match labels.iter().find(|l| !l.starts_with("gen")) {
        None => generation.to_string(),
        Some(p) if *generation == "gen2" => p.to_string(),
        Some(p) => format!("gen1-{p}"),
    }
}

/// Each question set of aws-amplify with an expected page, labelled.
fn sets() -> Vec<(&'static str, Vec<Labelled>)> {
    let labels = jsonl("tests/golden/sites/aws-amplify-labels.jsonl");
    let label = |set: &str, q: &str| {
        labels
            .iter()
            .find(|l| l["set"] == set && l["q"] == q)
            .unwrap_or_else(|| panic!("no label for {set}: {q}"))["sites"]
            .as_array()
            .unwrap()
            .clone()
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().map(|x| x.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for (set, path) in [
        ("golden", "tests/golden/aws-amplify.jsonl"),
        ("paraphrase", "tests/golden/paraphrase/aws-amplify.jsonl"),
        ("fresh", "tests/golden/fresh/aws-amplify.jsonl"),
        ("new", "tests/golden/sites/aws-amplify-new.jsonl"),
    ] {
        let questions = jsonl(path)
            .into_iter()
            .filter(|q| q["expected"].as_array().is_some_and(|e| !e.is_empty()))
            .map(|q| {
                let text = q["q"].as_str().unwrap();
                let sites = if set == "new" {
                    q["sites"].as_array().unwrap().clone()
                } else {
                    label(set, text)
                };
                Labelled {
                    q: text.to_string(),
                    expected: strings(&q["expected"]),
                    partial: strings(&q["partial"]),
                    site: site_of(&sites),
                }
            })
            .collect();
        out.push((set, questions));
    }
    out
}

/// Page nDCG@10 of `pages` (best first) for a question graded 2 for an
/// expected page, 1 for a partial one.
fn ndcg(q: &Labelled, pages: &[String]) -> f64 {
    let gain = |p: &str| {
        if q.expected.iter().any(|e| e == p) {
            3.0
        } else if q.partial.iter().any(|e| e == p) {
            1.0
        } else {
            0.0
        }
    };
    let dcg: f64 = pages
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, p)| gain(p) / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<f64> = q.expected.iter().map(|_| 3.0).collect();
    ideal.extend(
        q.partial
            .iter()
            .filter(|p| !q.expected.contains(p))
            .map(|_| 1.0),
    );
    let idcg: f64 = ideal
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, g)| g / (i as f64 + 2.0).log2())
        .sum();
    dcg / idcg
}

/// The pages of the first 10 sections for `q` among `site`'s (`None`: every
/// page), checking that each is in the site.
fn pages(index: &Index, retriever: &Retriever, q: &str, site: Option<&str>) -> Vec<String> {
    let scope = site.map(|s| ask_index::sites::mask_of(index.site_names(), [s]).unwrap());
    let ask = ask_index::search::Ask {
        query: q,
        k: 10,
        scope,
        ..Default::default()
    };
    let found = retriever.find_in(index, ask);
    let mut out: Vec<String> = Vec::new();
    for h in &found.hits {
        let page = index.section_page(h.section);
        if let Some(mask) = scope {
            assert!(
                index.page_sites(page) & mask != 0,
                "{q}: a page of another site"
            );
        }
        let path = index.page(page).path.to_string();
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

#[test]
fn on_amplify_the_site_given_raises_page_ndcg_on_every_set() {
    let test = "on_amplify_the_site_given_raises_page_ndcg_on_every_set";
    let Some(index) = amplify(test) else {
        return;
    };
    let mut retrievers = vec![("bm25", Retriever::default())];
    let model = model_dir(test);
    let index = match &model {
        Some(m) => with_vectors(index, m),
        None => index,
    };
    if let Some(m) = &model {
        let config = test_state::config(&[
            ("ASK_RETRIEVER", "hybrid"),
            ("ASK_MODEL_DIR", m.to_str().unwrap()),
        ]);
        let hybrid =
            nlweb_ask::built::hybrid(&config, &index, nlweb_ask::built::start_model(&config))
                .unwrap();
        retrievers.push((
            "hybrid",
            Retriever {
                rules: ask_index::search::Rules {
                    hybrid,
                    ..Default::default()
                },
                ..Default::default()
            },
        ));
    }
    let mut rows = Vec::new();
    for (set, questions) in sets() {
        for (name, retriever) in &retrievers {
            let mean = |site: &dyn Fn(&Labelled) -> Option<String>| {
                questions
                    .iter()
                    .map(|q| ndcg(q, &pages(&index, retriever, &q.q, site(q).as_deref())))
                    .sum::<f64>()
                    / questions.len() as f64
            };
            let without = mean(&|_| None);
            let default = mean(&|_| Some("gen2".into()));
            let given = mean(&|q| Some(q.site.clone()));
            rows.push(format!(
                "| {set} | {} | {name} | {without:.3} | {default:.3} | {given:.3} |",
                questions.len()
            ));
            assert!(given > without, "{set} {name}: {given:.3} <= {without:.3}");
        }
    }
    eprintln!(
        "| set | questions | retriever | every page | gen2 (the default) | site given |\n|---|---|---|---|---|---|\n{}",
        rows.join("\n")
    );
}
