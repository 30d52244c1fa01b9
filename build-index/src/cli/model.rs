//! `build-index pack-model`: the sentence model's packed int8 form, checked against its pin.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Writes the model's packed form into `out`, refusing to write one whose
/// sha256 is not the pinned one.
pub(crate) fn pack_model(model: Option<PathBuf>, out: &Path) -> Result<()> {
    let dir = model.context("pack-model needs the model: --model DIR or ASK_MODEL_DIR")?;
    let model = ask_embed::Embedder::load(&dir)
        .with_context(|| format!("loading the sentence model from {}", dir.display()))?;
    let bytes = model.packed();
    let pin = ask_embed::MINILM_L6.packed;
    let sha = ask_embed::sha256_hex(&bytes);
    if sha != pin.sha256 {
        bail!(
            "the packed model has sha256 {sha}, not the pinned {}: this build of build-index packs differently",
            pin.sha256
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let path = out.join(pin.name);
    std::fs::write(&path, &bytes).with_context(|| format!("writing {}", path.display()))?;
    println!("{} ({} bytes, sha256 {sha})", path.display(), bytes.len());
    Ok(())
}
