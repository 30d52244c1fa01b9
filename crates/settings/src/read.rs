//! Where settings come from: a settings file, then the environment, over the defaults.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::settings::{Error, Settings};
use super::table::{Kind, keys};

/// The value of variable `var` (of key kind `kind`) as JSON.
fn env_value(var: &str, kind: Kind, raw: &str) -> Result<Value, Error> {
    let v = raw.trim();
    let bad = |what: &str| Error::new(None, format!("{var}={raw:?} is not {what}"));
    Ok(match kind {
        Kind::Bool => Value::Bool(
            ask_store::parse_bool(v)
                .ok_or_else(|| bad("a boolean (true, false, 1, 0, yes, no, on or off)"))?,
        ),
        Kind::Number => serde_json::from_str::<serde_json::Number>(v)
            .map(Value::Number)
            .map_err(|_| bad("a number"))?,
        Kind::Text => Value::String(v.to_string()),
        Kind::List if v.starts_with('[') => serde_json::from_str(v)
            .map_err(|e| bad(&format!("a JSON list ({e}) or a comma list")))?,
        Kind::List => Value::Array(
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.to_string()))
                .collect(),
        ),
        Kind::Json => serde_json::from_str(v).map_err(|e| bad(&format!("JSON ({e})")))?,
    })
}

/// The settings: the defaults, then the keys `file` sets (what a settings
/// file gave, as [`read_file`] returns it or an index carries it), then
/// each key's `ASK_<KEY>` variable that `env` gives and is not empty.
/// Checked ([`Settings::validate`]).
pub fn resolve(
    file: &Map<String, Value>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Settings, Error> {
    let mut map = file.clone();
    let mut from_env: Vec<(String, String)> = Vec::new();
    for key in keys() {
        let Some(raw) = env(&key.env).filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        map.insert(key.name.clone(), env_value(&key.env, key.kind, &raw)?);
        from_env.push((key.name, key.env));
    }
    let settings: Settings = serde_path_to_error::deserialize(Value::Object(map)).map_err(|e| {
        let key = e.path().iter().next().map(|s| s.to_string());
        let source = key
            .as_deref()
            .and_then(|k| from_env.iter().find(|(n, _)| n == k))
            .map_or_else(|| "the settings".to_string(), |(_, v)| v.clone());
        Error::new(key.as_deref(), format!("{source}: {}", e.into_inner()))
    })?;
    let mut settings = settings;
    settings.normalize();
    settings.validate().map_err(|mut e| {
        if let Some((_, var)) = e
            .key
            .as_deref()
            .and_then(|k| from_env.iter().find(|(n, _)| n == k))
        {
            e.message = format!("{var}: {}", e.message);
        }
        e
    })?;
    Ok(settings)
}

/// The keys a settings file sets, checked: the YAML `text` of file
/// `name` must hold an `ask:` section (and nothing else) whose keys are
/// keys of [`Settings`] and whose values check out with the defaults for
/// the rest. An error names the key, the file and the line.
pub fn read_file(name: &str, text: &str) -> Result<Map<String, Value>, Error> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Typed {
        #[serde(default)]
        #[allow(dead_code)]
        ask: Settings,
    }
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        ask: Option<Map<String, Value>>,
    }
    let at = |line: Option<u64>| line.map_or_else(String::new, |l| format!(", line {l}"));
    if let Err(e) = serde_saphyr::from_str::<Typed>(text) {
        let line = e.location().map(|l| l.line());
        let message = one_line(&e.to_string());
        let key = unknown_key(&message);
        return Err(Error::new(
            key.as_deref(),
            format!("{name}{}: {message}", at(line)),
        ));
    }
    let raw: Raw = serde_saphyr::from_str(text)
        .map_err(|e| Error::new(None, format!("{name}: {}", one_line(&e.to_string()))))?;
    let map = raw.ask.unwrap_or_default();
    resolve(&map, &|_| None).map_err(|e| {
        let line = e.key.as_deref().and_then(|k| line_of(text, k));
        Error::new(
            e.key.as_deref(),
            format!(
                "{name}{}: ask.{}: {}",
                at(line),
                e.key.as_deref().unwrap_or("?"),
                e.message.trim_start_matches("the settings: ")
            ),
        )
    })?;
    Ok(map)
}

/// Collapses a message onto one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The key a serde "unknown field" message names.
fn unknown_key(message: &str) -> Option<String> {
    let rest = message.split("unknown field `").nth(1)?;
    Some(rest.split('`').next()?.to_string())
}

/// The 1-based line where `key:` is set in the `ask:` section of `text`.
fn line_of(text: &str, key: &str) -> Option<u64> {
    let mut in_ask = false;
    for (i, line) in text.lines().enumerate() {
        if !line.starts_with([' ', '\t']) && !line.trim().is_empty() {
            in_ask = line.trim_end().starts_with("ask:");
            continue;
        }
        let t = line.trim_start();
        if in_ask
            && t.strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with(':'))
        {
            return Some(i as u64 + 1);
        }
    }
    None
}
