//! The page's frontmatter: `title`, `description`, Mintlify's `openapi`,
//! `search.boost`, and every key's text (what `ask.sites` matches).

use super::types::MdxFile;

/// A frontmatter value: a list of scalars, a mapping of them
/// (`search: {boost: …}`), or a scalar (anything else reads as a scalar
/// that is not text).
#[derive(serde::Deserialize)]
#[serde(untagged)]
pub(super) enum Value {
    // Lists and mappings first: a scalar's `Other` would take them whole.
    Many(Vec<YamlText>),
    Map(std::collections::BTreeMap<String, YamlText>),
    One(YamlText),
}

/// Frontmatter that is a mapping, or anything else (read as empty).
#[derive(serde::Deserialize)]
#[serde(untagged)]
pub(super) enum FrontmatterDoc {
    Map(std::collections::BTreeMap<String, Value>),
    Other(serde::de::IgnoredAny),
}

/// A scalar read as text; lists and mappings are not text.
#[derive(Clone, serde::Deserialize)]
#[serde(untagged)]
pub(super) enum YamlText {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Other(serde::de::IgnoredAny),
}

impl YamlText {
    pub(super) fn text(self) -> Option<String> {
        match self {
            YamlText::Text(s) => Some(s.trim().to_string()),
            YamlText::Int(n) => Some(n.to_string()),
            YamlText::Float(n) => Some(n.to_string()),
            YamlText::Bool(b) => Some(b.to_string()),
            YamlText::Other(_) => None,
        }
        .filter(|s| !s.is_empty())
    }
}

pub(super) fn read_frontmatter(yaml: &str, file: &mut MdxFile) -> Result<(), (usize, String)> {
    if yaml.trim().is_empty() {
        return Ok(());
    }
    let doc: FrontmatterDoc = serde_saphyr::from_str(yaml).map_err(|e| {
        let line = e.location().map(|l| l.line() as usize).unwrap_or(1);
        (line, format!("frontmatter is not valid YAML: {e}"))
    })?;
    let FrontmatterDoc::Map(fm) = doc else {
        return Ok(());
    };
    let one = |key: &str| match fm.get(key) {
        Some(Value::One(v)) => Some(v.clone()),
        _ => None,
    };
    file.title = one("title")
        .and_then(YamlText::text)
        .or_else(|| one("sidebarTitle").and_then(YamlText::text));
    file.description = one("description").and_then(YamlText::text);
    file.extra = one("openapi").and_then(YamlText::text);
    // A weight that is not a number ≥ 0 is ignored (the page weighs 1).
    // Mintlify's `boost:`, or `search: {boost: …}`.
    let boost = one("boost").or_else(|| match fm.get("search") {
        Some(Value::Map(search)) => search.get("boost").cloned(),
        _ => None,
    });
    file.boost = match boost {
        Some(YamlText::Int(n)) => Some(n as f32),
        Some(YamlText::Float(x)) => Some(x as f32),
        _ => None,
    }
    .filter(|b| b.is_finite() && *b >= 0.0);
    // Every key's text, for the sites (`ask.sites`' `meta`).
    for (key, value) in fm {
        let values: Vec<String> = match value {
            Value::One(v) => v.text().into_iter().collect(),
            Value::Many(list) => list.into_iter().filter_map(YamlText::text).collect(),
            Value::Map(_) => Vec::new(),
        };
        if !values.is_empty() {
            file.meta.insert(key, values);
        }
    }
    Ok(())
}
