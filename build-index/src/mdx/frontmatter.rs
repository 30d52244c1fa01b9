//! The page's frontmatter: `title`, `description`, Mintlify's `openapi`,
//! `search.boost`.

use super::types::MdxFile;

/// The frontmatter members read; others are ignored.
#[derive(serde::Deserialize, Default)]
pub(super) struct Frontmatter {
    #[serde(default)]
    title: Option<YamlText>,
    #[serde(default, rename = "sidebarTitle")]
    sidebar_title: Option<YamlText>,
    #[serde(default)]
    description: Option<YamlText>,
    #[serde(default)]
    openapi: Option<YamlText>,
    #[serde(default)]
    search: Option<SearchFrontmatter>,
    #[serde(default)]
    boost: Option<YamlText>,
}

/// Frontmatter `search:` — `boost` weighs the page's sections (1 = as is).
#[derive(serde::Deserialize)]
#[serde(untagged)]
pub(super) enum SearchFrontmatter {
    Map {
        #[serde(default)]
        boost: Option<YamlText>,
    },
    Other(serde::de::IgnoredAny),
}

/// A frontmatter value as `ask.sites` matches it: a scalar or a list of
/// them.
#[derive(serde::Deserialize)]
#[serde(untagged)]
pub(super) enum MetaValue {
    // A list first: a scalar's `Other` would take it whole.
    Many(Vec<YamlText>),
    One(YamlText),
}

/// Frontmatter that is a mapping, or anything else (read as empty).
#[derive(serde::Deserialize)]
#[serde(untagged)]
pub(super) enum FrontmatterDoc {
    Map(Frontmatter),
    Other(serde::de::IgnoredAny),
}

/// A scalar read as text; lists and mappings are not text.
#[derive(serde::Deserialize)]
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
    // Read again as a whole: every key's text, for the sites.
    if let Ok(all) = serde_saphyr::from_str::<std::collections::BTreeMap<String, MetaValue>>(yaml) {
        for (key, value) in all {
            let values: Vec<String> = match value {
                MetaValue::One(v) => v.text().into_iter().collect(),
                MetaValue::Many(list) => list.into_iter().filter_map(YamlText::text).collect(),
            };
            if !values.is_empty() {
                file.meta.insert(key, values);
            }
        }
    }
    file.title = fm
        .title
        .and_then(YamlText::text)
        .or_else(|| fm.sidebar_title.and_then(YamlText::text));
    file.description = fm.description.and_then(YamlText::text);
    file.extra = fm.openapi.and_then(YamlText::text);
    // A weight that is not a number ≥ 0 is ignored (the page weighs 1).
    // Mintlify's `boost:`, or `search: {boost: …}`.
    let boost = fm.boost.or(match fm.search {
        Some(SearchFrontmatter::Map { boost }) => boost,
        _ => None,
    });
    file.boost = match boost {
        Some(YamlText::Int(n)) => Some(n as f32),
        Some(YamlText::Float(x)) => Some(x as f32),
        _ => None,
    }
    .filter(|b| b.is_finite() && *b >= 0.0);
    Ok(())
}
