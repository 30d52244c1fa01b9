//! Which docs does a page belong to? A docs team divides one index into
//! named sites (`ask.sites`: versions, products, platforms), each by path
//! globs and page metadata. `build-index` applies the rules ([`SiteRules`])
//! to every page and stores the page's sites as the bits of a `u32`
//! ([`PageSites`]); at serve time a request's sites are a mask of those
//! bits ([`Scope`]) that retrieval admits sections by, and a page's links
//! have their dynamic segments (`[platform]`) filled from a site that
//! holds it ([`Segments`]).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::arrays::U32s;

/// Most sites one index divides into: a page's sites are the bits of a
/// `u32`.
pub const MAX_SITES: usize = 32;

/// One site as a docs team defines it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiteDef {
    /// Its name, sent as `site`.
    pub name: String,
    /// Path globs relative to the corpus root (`pages/gen1/**`); a glob
    /// that starts with `!` leaves pages out. No glob but `!` ones: every
    /// page but those.
    pub paths: Vec<String>,
    /// Page metadata (frontmatter or `export const meta`) a page must
    /// have: key and value, the page's value equal to it or its list
    /// holding it (`platforms: react`).
    pub meta: BTreeMap<String, String>,
}

/// Why a site's rules are refused.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum SiteError {
    /// Not a glob.
    #[error("site {site:?}: {glob:?} is not a glob: {message}")]
    Glob {
        /// The site.
        site: String,
        /// The glob.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// A glob that matches no page: a typo, or docs that moved.
    #[error("site {site:?}: the glob {glob:?} matches no page of the corpus")]
    Unmatched {
        /// The site.
        site: String,
        /// The glob.
        glob: String,
    },
    /// A site no page belongs to.
    #[error("site {site:?} holds no page: check its paths and meta")]
    Empty {
        /// The site.
        site: String,
    },
    /// More sites than a page's bits hold.
    #[error("{0} sites; one index holds at most {MAX_SITES}")]
    TooMany(usize),
}

/// A glob, compiled.
#[derive(Clone, Debug)]
struct Glob {
    text: String,
    matcher: globset::GlobMatcher,
}

#[derive(Clone, Debug)]
struct Rule {
    name: String,
    include: Vec<Glob>,
    exclude: Vec<Glob>,
    meta: Vec<(String, String)>,
}

/// The sites' rules, compiled: which sites a page belongs to.
#[derive(Clone, Debug, Default)]
pub struct SiteRules {
    rules: Vec<Rule>,
}

fn compile(site: &str, glob: &str) -> Result<Glob, SiteError> {
    let g = globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map_err(|e| SiteError::Glob {
            site: site.to_string(),
            glob: glob.to_string(),
            message: e.kind().to_string(),
        })?;
    Ok(Glob {
        text: glob.to_string(),
        matcher: g.compile_matcher(),
    })
}

impl SiteRules {
    /// Compiles the sites' rules, in order (site `i` is bit `i`).
    pub fn new(defs: &[SiteDef]) -> Result<SiteRules, SiteError> {
        if defs.len() > MAX_SITES {
            return Err(SiteError::TooMany(defs.len()));
        }
        let mut rules = Vec::with_capacity(defs.len());
        for d in defs {
            let (mut include, mut exclude) = (Vec::new(), Vec::new());
            for p in &d.paths {
                match p.strip_prefix('!') {
                    Some(out) => exclude.push(compile(&d.name, out)?),
                    None => include.push(compile(&d.name, p)?),
                }
            }
            rules.push(Rule {
                name: d.name.clone(),
                include,
                exclude,
                meta: d.meta.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            });
        }
        Ok(SiteRules { rules })
    }

    /// The sites' names, in bit order.
    pub fn names(&self) -> Vec<String> {
        self.rules.iter().map(|r| r.name.clone()).collect()
    }

    /// Whether there are no sites.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The sites of the page at `path` (relative to the corpus root) whose
    /// metadata is `meta` (each key's value, or its list's values): bit
    /// `i` for site `i`.
    pub fn bits(&self, path: &str, meta: &BTreeMap<String, Vec<String>>) -> u32 {
        let mut bits = 0u32;
        for (i, r) in self.rules.iter().enumerate() {
            let included =
                r.include.is_empty() || r.include.iter().any(|g| g.matcher.is_match(path));
            let excluded = r.exclude.iter().any(|g| g.matcher.is_match(path));
            let has_meta = r.meta.iter().all(|(k, v)| {
                meta.get(k)
                    .is_some_and(|values| values.iter().any(|x| x == v))
            });
            if included && !excluded && has_meta {
                bits |= 1 << i;
            }
        }
        bits
    }

    /// Checks the rules against the corpus's page `paths` and the `bits`
    /// [`SiteRules::bits`] gave them: every glob matches a page and every
    /// site holds one. Returns each site's page count.
    pub fn check(&self, paths: &[&str], bits: &[u32]) -> Result<Vec<usize>, SiteError> {
        for r in &self.rules {
            for g in r.include.iter().chain(&r.exclude) {
                if !paths.iter().any(|p| g.matcher.is_match(p)) {
                    return Err(SiteError::Unmatched {
                        site: r.name.clone(),
                        glob: g.text.clone(),
                    });
                }
            }
        }
        let counts: Vec<usize> = (0..self.rules.len())
            .map(|i| bits.iter().filter(|b| *b & (1 << i) != 0).count())
            .collect();
        if let Some(i) = counts.iter().position(|n| *n == 0) {
            return Err(SiteError::Empty {
                site: self.rules[i].name.clone(),
            });
        }
        Ok(counts)
    }
}

/// What an index stores of its sites: their names (bit order) and each
/// page's bits; both empty when the docs have no sites.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PageSites {
    /// The sites' names; site `i` is bit `i`.
    pub names: Vec<String>,
    /// Per page: its sites' bits (empty when there are no sites).
    pub bits: U32s,
}

/// The sections a request searches: those of pages with a bit of the
/// mask. `None`: every section (no sites, or `all`).
pub type Scope = Option<u32>;

/// The mask of every site in `names` (each a site's name, in any case);
/// the names it does not know, if any.
pub fn mask_of<'a>(
    sites: &[String],
    names: impl IntoIterator<Item = &'a str>,
) -> Result<u32, Vec<String>> {
    let mut mask = 0u32;
    let mut unknown = Vec::new();
    for n in names {
        match sites.iter().position(|s| s.eq_ignore_ascii_case(n)) {
            Some(i) => mask |= 1 << i,
            None => unknown.push(n.to_string()),
        }
    }
    if unknown.is_empty() {
        Ok(mask)
    } else {
        Err(unknown)
    }
}

/// The scope a request's `site` names among the sites `names`: one name
/// or several, comma-separated (the pages of any of them). A name for which
/// `whole` holds (`all`, the index's own name), unless a site has it,
/// means every page (`None`), as does a list of no name; a name not served
/// is refused, whatever comes with it (the names not served).
pub fn scope_of(
    names: &[String],
    site: &str,
    whole: impl Fn(&str) -> bool,
) -> Result<Scope, Vec<String>> {
    let is_site = |n: &str| names.iter().any(|s| s.eq_ignore_ascii_case(n));
    let (whole_names, named): (Vec<&str>, Vec<&str>) = site
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .partition(|n| whole(n) && !is_site(n));
    match mask_of(names, named)? {
        _ if !whole_names.is_empty() => Ok(None),
        0 => Ok(None),
        mask => Ok(Some(mask)),
    }
}

/// The values of dynamic route segments (`[platform]`): each site's own
/// (`ask.sites[].segments`), and the defaults (`ask.segments`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segments {
    /// Per site (bit order): segment name → value.
    pub per_site: Vec<BTreeMap<String, String>>,
    /// Segment name → the value when no site fills it.
    pub defaults: BTreeMap<String, String>,
}

/// A dynamic segment as it stands in a stored route: `[name]`,
/// percent-encoded.
const OPEN: &str = "%5B";
const CLOSE: &str = "%5D";

impl Segments {
    /// Whether any segment is filled.
    pub fn is_empty(&self) -> bool {
        self.defaults.is_empty() && self.per_site.iter().all(BTreeMap::is_empty)
    }

    /// The value of segment `name` in a link to a page in the sites
    /// `page`, answered for the sites `asked`: the first asked site that
    /// holds the page and names a value; else the default, if a site
    /// holding the page has it or none names one; else the first site
    /// holding the page that names one; else the default.
    pub fn value(&self, name: &str, page: u32, asked: u32) -> Option<&str> {
        let of = |i: usize| self.per_site.get(i).and_then(|m| m.get(name));
        let holding = |mask: u32| {
            (0..self.per_site.len())
                .filter(move |i| mask & (1 << i) != 0)
                .filter_map(move |i| of(i).map(String::as_str))
        };
        if let Some(v) = holding(page & asked).next() {
            return Some(v);
        }
        let default = self.defaults.get(name).map(String::as_str);
        let mut held = holding(page).peekable();
        if held.peek().is_none() {
            return default;
        }
        let held: Vec<&str> = held.collect();
        match default {
            Some(d) if held.contains(&d) => Some(d),
            _ => held.first().copied().or(default),
        }
    }

    /// `url` with each dynamic segment filled ([`Segments::value`]); a
    /// segment with no value stays as it is.
    pub fn fill<'a>(&self, url: &'a str, page: u32, asked: u32) -> Cow<'a, str> {
        if self.is_empty() || !url.contains(OPEN) {
            return Cow::Borrowed(url);
        }
        let mut out = String::with_capacity(url.len());
        let mut rest = url;
        while let Some(at) = rest.find(OPEN) {
            let after = &rest[at + OPEN.len()..];
            let Some(end) = after.find(CLOSE) else {
                break;
            };
            let name = &after[..end];
            out.push_str(&rest[..at]);
            match self.value(name, page, asked) {
                Some(v) => out.push_str(v),
                None => out.push_str(&rest[at..at + OPEN.len() + end + CLOSE.len()]),
            }
            rest = &after[end + CLOSE.len()..];
        }
        out.push_str(rest);
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, paths: &[&str], meta: &[(&str, &str)]) -> SiteDef {
        SiteDef {
            name: name.into(),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            meta: meta
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    fn meta(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    #[test]
    fn a_page_belongs_to_every_site_whose_rules_it_meets() {
        let rules = SiteRules::new(&[
            def("gen1", &["pages/gen1/**"], &[]),
            def("gen2", &["!pages/gen1/**"], &[]),
            def("react", &["!pages/gen1/**"], &[("platforms", "react")]),
        ])
        .unwrap();
        let react = meta(&[("platforms", &["react", "vue"])]);
        assert_eq!(
            rules.bits("pages/[platform]/start/index.mdx", &react),
            0b110
        );
        assert_eq!(
            rules.bits("pages/gen1/[platform]/start/index.mdx", &react),
            0b001
        );
        assert_eq!(rules.bits("pages/[platform]/x.mdx", &meta(&[])), 0b010);
        let paths = ["pages/gen1/a.mdx", "pages/b.mdx"];
        assert_eq!(rules.check(&paths, &[0b001, 0b110]).unwrap(), vec![1, 1, 1]);
        assert_eq!(
            rules.check(&paths, &[0b001, 0b010]).unwrap_err(),
            SiteError::Empty {
                site: "react".into()
            }
        );
        let typo = SiteRules::new(&[def("v2", &["pages/v2/**"], &[])]).unwrap();
        assert!(matches!(
            typo.check(&paths, &[0, 0]),
            Err(SiteError::Unmatched { .. })
        ));
        assert!(SiteRules::new(&[def("x", &["a/["], &[])]).is_err());
        let many: Vec<SiteDef> = (0..33).map(|i| def(&format!("s{i}"), &[], &[])).collect();
        assert_eq!(SiteRules::new(&many).unwrap_err(), SiteError::TooMany(33));
    }

    #[test]
    fn names_make_a_mask_and_unknown_ones_are_named() {
        let sites = vec!["gen1".to_string(), "gen2".into(), "react".into()];
        assert_eq!(mask_of(&sites, ["gen2", "React"]), Ok(0b110));
        assert_eq!(mask_of(&sites, ["gen3", "gen1"]), Err(vec!["gen3".into()]));
        let all = |n: &str| n.eq_ignore_ascii_case("all");
        assert_eq!(scope_of(&sites, " gen1 ,react", all), Ok(Some(0b101)));
        assert_eq!(scope_of(&sites, "gen1,ALL", all), Ok(None));
        assert_eq!(scope_of(&sites, "all,gen3", all), Err(vec!["gen3".into()]));
    }

    #[test]
    fn a_dynamic_segment_is_filled_from_a_site_that_holds_the_page() {
        let s = Segments {
            per_site: vec![
                BTreeMap::new(),
                [("platform".to_string(), "react".to_string())].into(),
                [("platform".to_string(), "swift".to_string())].into(),
            ],
            defaults: [("platform".to_string(), "javascript".to_string())].into(),
        };
        let url = "https://d.dev/%5Bplatform%5D/start#x";
        // Asked for react, the page in react and swift: react.
        assert_eq!(s.fill(url, 0b111, 0b010), "https://d.dev/react/start#x");
        // Asked for gen2 alone: no default site holds it, the first that does.
        assert_eq!(s.fill(url, 0b101, 0b001), "https://d.dev/swift/start#x");
        // In no platform's site: the default.
        assert_eq!(
            s.fill(url, 0b001, 0b001),
            "https://d.dev/javascript/start#x"
        );
        assert_eq!(s.fill("https://d.dev/a", 0b111, 0), "https://d.dev/a");
        assert_eq!(
            s.fill("https://d.dev/%5Bother%5D/a", 0b111, 0),
            "https://d.dev/%5Bother%5D/a"
        );
    }
}
