//! Is the docs repository's pipeline (`examples/github-actions/`) a workflow
//! GitHub would run? `actionlint` (scripts/prereqs.sh installs it, pinned)
//! checks it: syntax, expressions, the inputs of each action, deprecated
//! runtimes. It deploys with OIDC credentials, never stored keys.

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
