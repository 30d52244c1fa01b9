//! Is the docs repository's pipeline (`examples/github-actions/`) a workflow
//! GitHub would run? `actionlint` (scripts/prereqs.sh installs it, pinned)
//! checks it: syntax, expressions, the inputs of each action, deprecated
//! runtimes. It deploys with OIDC credentials, never stored keys. And does
//! `scripts/deploy.sh` deploy right? Run with `sam` replaced by a recorder
//! on `PATH` and the index bucket in moto: it refuses what it must before
//! anything is built, and passes the stack only the parameters asked for.

mod support;

use std::path::Path;
use std::process::Command;

fn actionlint(file: &Path) -> (bool, String) {
    let out = Command::new("actionlint")
        .arg("-no-color")
        .arg(file)
        .output()
        .expect("actionlint on PATH (source scripts/prereqs.sh)");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/github-actions/deploy-ask.yml")
}

#[test]
fn the_docs_pipeline_passes_actionlint() {
    let (ok, report) = actionlint(&example());
    assert!(ok, "{report}");
}

#[test]
fn actionlint_refuses_a_broken_copy_of_it() {
    // The check has teeth: a misspelt input of the credentials action and an
    // unclosed expression are both reported.
    let text = std::fs::read_to_string(example()).unwrap();
    let dir = std::env::temp_dir().join(format!("ask-workflow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (what, from, to) in [
        ("misspelt input", "role-to-assume:", "role-to-asume:"),
        (
            "unclosed expression",
            "${{ vars.AWS_REGION }}",
            "${{ vars.AWS_REGION }",
        ),
    ] {
        assert!(text.contains(from), "{what}: {from}");
        let broken = dir.join("broken.yml");
        std::fs::write(&broken, text.replacen(from, to, 1)).unwrap();
        let (ok, report) = actionlint(&broken);
        assert!(!ok, "{what} passed actionlint");
        assert!(report.contains("broken.yml"), "{what}: {report}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_docs_pipeline_uses_oidc_and_the_deploy_script() {
    let text = std::fs::read_to_string(example()).unwrap();
    assert!(
        text.contains("id-token: write"),
        "OIDC needs id-token: write"
    );
    assert!(text.contains("role-to-assume: ${{ vars.AWS_DEPLOY_ROLE_ARN }}"));
    for stored in ["aws-access-key-id", "aws-secret-access-key", "secrets.AWS_"] {
        assert!(!text.contains(stored), "stored credentials: {stored}");
    }
    assert!(text.contains("scripts/deploy.sh"));
    assert!(text.contains("ASK_PREREQS: deploy"));
}

/// A folder with a `sam` (deploy.sh's `SAM`) that records its arguments (one call a line in
/// `sam.log`) and answers `sam list stack-outputs` with a stack whose index
/// bucket is `bucket`.
fn fake_sam(bucket: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ask-fake-sam-{}-{bucket}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        r#"#!/usr/bin/env bash
echo "$*" >> "{log}"
if [ "$1 $2" = "list stack-outputs" ]; then
  echo '[{{"OutputKey": "IndexBucket", "OutputValue": "{bucket}"}}, {{"OutputKey": "AskEndpoint", "OutputValue": "https://abc.execute-api.eu-west-1.amazonaws.com/prod/ask"}}, {{"OutputKey": "McpEndpoint", "OutputValue": "https://abc.execute-api.eu-west-1.amazonaws.com/prod/mcp"}}, {{"OutputKey": "WidgetScript", "OutputValue": "https://abc.execute-api.eu-west-1.amazonaws.com/prod/ask/widget.js"}}]'
fi
"#,
        log = dir.join("sam.log").display()
    );
    let sam = dir.join("sam");
    std::fs::write(&sam, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sam, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `scripts/deploy.sh settings` with `env`, the recorder as its `SAM`:
/// whether it succeeded, what it printed, what `sam` was called with.
fn deploy(settings: &Path, sam: &Path, env: &[(&str, String)]) -> (bool, String, String) {
    let out = Command::new("bash")
        .arg(repo().join("scripts/deploy.sh"))
        .arg(settings)
        .env("SAM", sam.join("sam"))
        .env_remove("DOCS_BASE_URL")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    let calls = std::fs::read_to_string(sam.join("sam.log")).unwrap_or_default();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        calls,
    )
}

#[test]
fn deploy_refuses_an_example_or_empty_base_url_and_a_missing_region_before_building() {
    let sam = fake_sam("refused");
    let dir = sam.join("docs");
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("ask.yaml");
    std::fs::write(&empty, "ask:\n  corpus_path: .\n").unwrap();
    let region = ("AWS_REGION", "eu-west-1".to_string());
    let acme = ("DOCS_BASE_URL", "https://docs.acme.dev".to_string());
    for (settings, cmd_env, says) in [
        (
            repo().join("common/global_config.yaml"),
            vec![region.clone()],
            "is on example.com",
        ),
        (empty.clone(), vec![region.clone()], "is empty"),
        (
            empty.clone(),
            vec![
                region.clone(),
                ("DOCS_BASE_URL", "https://docs.example.com/x".to_string()),
            ],
            "is on example.com",
        ),
        (
            empty.clone(),
            vec![acme.clone(), ("AWS_REGION", String::new())],
            "AWS_REGION is not set",
        ),
    ] {
        let (ok, printed, calls) = deploy(&settings, &sam, &cmd_env);
        assert!(!ok, "{settings:?} {cmd_env:?}: deployed:\n{printed}");
        assert!(
            printed.contains(says),
            "{settings:?} {cmd_env:?}: {printed}"
        );
        assert!(
            !printed.contains("Compiling"),
            "built before refusing: {printed}"
        );
        assert!(calls.is_empty(), "sam was called: {calls}");
    }
    std::fs::remove_dir_all(&sam).unwrap();
}

/// A whole deploy of a docs team's folder, `sam` recorded: the index
/// (uploaded to moto) carries the team's settings; `sam deploy` gets the
/// region, no prompt, and only the stack's infrastructure parameters; and
/// the template sets no `ASK_*` variable a parameter did not ask for.
#[test]
fn deploy_passes_only_what_the_team_set() {
    let s3 = support::moto::Moto::start();
    s3.create_bucket("acme-index");
    let sam = fake_sam("acme-index");
    let docs = sam.join("acme-docs");
    std::fs::create_dir_all(docs.join("content")).unwrap();
    std::fs::write(
        docs.join("ask.yaml"),
        "ask:\n  corpus_path: content\n  docs_base_url: https://docs.acme.dev\n  top_k: 3\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("content/index.mdx"),
        "---\ntitle: Acme\n---\n\n## Install\n\nRun npm install acme.\n",
    )
    .unwrap();
    let mut env = s3.env();
    env.push(("AWS_REGION", "eu-west-1".into()));
    env.push(("STACK", "acme-ask".into()));
    let (ok, printed, calls) = deploy(&docs.join("ask.yaml"), &sam, &env);
    assert!(ok, "{printed}");
    assert!(
        printed
            .contains("deploy: /ask    https://abc.execute-api.eu-west-1.amazonaws.com/prod/ask")
            && printed.contains(
                "deploy: widget  https://abc.execute-api.eu-west-1.amazonaws.com/prod/ask/widget.js"
            ),
        "{printed}"
    );
    let deploys: Vec<&str> = calls.lines().filter(|l| l.starts_with("deploy ")).collect();
    assert_eq!(deploys.len(), 1, "{calls}");
    let d = deploys[0];
    assert!(
        d.contains("--region eu-west-1") && d.contains("--no-confirm-changeset"),
        "{d}"
    );
    let overrides: Vec<&str> = d
        .split("--parameter-overrides ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    // Each parameter the settings file may decide is passed empty (a
    // parameter left out would keep the stack's earlier value).
    assert_eq!(
        overrides,
        [
            "Transport=buffered",
            "Architecture=x86_64",
            "Retriever=\"\"",
            overrides[3],
            "Enabled=\"\"",
            overrides[5],
        ],
        "{d}"
    );
    assert!(overrides[3].starts_with("IndexKey=index/"), "{d}");
    // A query_id secret drawn for this deploy: 32 random bytes.
    let secret = overrides[5].trim_start_matches("QueryIdSecret=");
    assert!(
        secret.len() == 64 && secret.chars().all(|c| c.is_ascii_hexdigit()),
        "{d}"
    );
    assert!(!calls.contains("ASK_"), "{calls}");
    // The index the stack reads carries the team's settings.
    let key = overrides[3].trim_start_matches("IndexKey=");
    let meta = ask_index::read_meta(&s3.get("acme-index", key)).unwrap();
    assert_eq!(meta.docs_base_url, "https://docs.acme.dev");
    let carried: serde_json::Value = serde_json::from_str(&meta.settings).unwrap();
    assert_eq!(carried["top_k"], 3, "{carried}");
    std::fs::remove_dir_all(&sam).unwrap();
}

/// template.yaml sets an `ASK_*` variable only where a parameter asks for
/// it: where the index is and the transport, always (infrastructure); the
/// others only under a condition that leaves them out by default.
#[test]
fn the_template_sets_no_setting_the_team_did_not_ask_for() {
    let template = std::fs::read_to_string(repo().join("template.yaml")).unwrap();
    let vars: Vec<&str> = template
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("ASK_"))
        .collect();
    assert!(!vars.is_empty());
    for v in vars {
        let name = v.split(':').next().unwrap();
        let always = matches!(name, "ASK_INDEX" | "ASK_TRANSPORT");
        assert!(
            always || v.contains("!If [") && v.contains("AWS::NoValue"),
            "{v}: set whatever the parameters say"
        );
    }
}

/// The embeddings cache of the docs pipeline is saved anew when the docs
/// change (its key hashes them) and the newest earlier one restored (a
/// `restore-keys` prefix), so a docs change embeds only what it touched;
/// the build cache leaves it out, and the deploy names its region.
#[test]
fn the_pipeline_keeps_embeddings_between_runs_and_names_its_region() {
    let text = std::fs::read_to_string(example()).unwrap();
    let step = text
        .split("- name: ")
        .find(|s| s.contains("path: ~/.cache/nlweb-ask/embeddings.bin"))
        .expect("a cache step for the embedded sections");
    assert!(
        step.contains("key: nlweb-ask-embeddings-${{ hashFiles('docs-repo/**/*.mdx'"),
        "{step}"
    );
    assert!(
        step.contains("restore-keys: |\n            nlweb-ask-embeddings-"),
        "{step}"
    );
    let build = text
        .split("- name: ")
        .find(|s| s.starts_with("Cache the Rust build"))
        .unwrap();
    assert!(
        !build.contains("embeddings") && !build.contains("path: ~/.cache/nlweb-ask\n"),
        "{build}"
    );
    assert!(text.contains("AWS_REGION: ${{ vars.AWS_REGION }}"));
}
