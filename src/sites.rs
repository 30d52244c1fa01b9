//! Which part of the docs does a request ask? The sites of the index
//! (`ask.sites`, their pages' bits stored by `build-index`), the scope a
//! request's `site` names, and the sites that hold what a scope lacks.

use ask_index::Index;
use ask_index::sites::{Scope, Segments};

use crate::config::Config;

/// The sites one index serves, built once at cold start.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sites {
    /// Their names, in the index's bit order (empty: the index is one site,
    /// `ask.site`).
    pub names: Vec<String>,
    /// Each one's description.
    pub descriptions: Vec<String>,
    /// The mask of the default site (0: none; a request that names no site
    /// then searches every page).
    pub default: u32,
    /// Each one's page and section counts.
    pub counts: Vec<(u32, u32)>,
    /// The values of the routes' dynamic segments.
    pub segments: Segments,
}

/// What a request's `site` names.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// Every page (`all`, the index's own name or its docs' address, or no
    /// site named and no default).
    All,
    /// The pages of these sites (a mask of their bits).
    Sites(u32),
}

impl Asked {
    /// The scope retrieval searches.
    pub fn scope(&self) -> Scope {
        match self {
            Asked::All => None,
            Asked::Sites(mask) => Some(*mask),
        }
    }

    /// The mask of the sites named (0 for every page).
    pub fn mask(&self) -> u32 {
        match self {
            Asked::All => 0,
            Asked::Sites(mask) => *mask,
        }
    }
}

impl Sites {
    /// Whether `config` names the sites `index` was built with, in the
    /// same order (the environment may not redraw them after the build):
    /// the cold start's check, before the state is made.
    pub fn check(config: &Config, index: &Index) -> Result<(), String> {
        let built = index.site_names();
        let named: Vec<&str> = config.sites.iter().map(|s| s.name.as_str()).collect();
        if built.iter().map(String::as_str).ne(named.iter().copied()) {
            return Err(format!(
                "the index was built with the sites [{}] and the settings name [{}]: rebuild the index with these settings (build-index --config …)",
                built.join(", "),
                named.join(", ")
            ));
        }
        Ok(())
    }

    /// The sites of `index` as `config` describes them ([`Sites::check`]
    /// holds).
    pub fn new(config: &Config, index: &Index) -> Result<Sites, String> {
        Self::check(config, index)?;
        let default = config
            .sites
            .iter()
            .position(|s| s.default)
            .map_or(0, |i| 1 << i);
        Ok(Sites {
            names: index.site_names().to_vec(),
            descriptions: config.sites.iter().map(|s| s.description.clone()).collect(),
            default,
            counts: index.site_counts(),
            segments: config.site_segments(),
        })
    }

    /// The sites of `index` with no descriptions or segments (settings that
    /// do not match the index; the cold start refuses those, tests may not).
    pub fn of_index(index: &Index) -> Sites {
        Sites {
            names: index.site_names().to_vec(),
            descriptions: vec![String::new(); index.site_names().len()],
            default: 0,
            counts: index.site_counts(),
            segments: Segments::default(),
        }
    }

    /// What `site` (one name or several, comma-separated) asks, where
    /// `whole(name)` says whether a name means the whole index; the names
    /// not served, if any.
    pub fn asked(
        &self,
        site: Option<&str>,
        whole: impl Fn(&str) -> bool,
    ) -> Result<Asked, Vec<String>> {
        let Some(site) = site.map(str::trim).filter(|s| !s.is_empty()) else {
            return Ok(match self.default {
                0 => Asked::All,
                mask => Asked::Sites(mask),
            });
        };
        match ask_index::sites::scope_of(&self.names, site, whole)? {
            Some(mask) => Ok(Asked::Sites(mask)),
            None => Ok(Asked::All),
        }
    }

    /// The names of the sites in `mask`, in bit order.
    pub fn names_in(&self, mask: u32) -> Vec<String> {
        self.names
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, n)| n.clone())
            .collect()
    }

    /// The sites of the pages of `sections` that lie outside every site
    /// of `asked`: where an answer the asked sites lack is.
    pub fn elsewhere(&self, index: &Index, sections: &[u32], asked: u32) -> Vec<String> {
        let mut mask = 0;
        for &s in sections {
            let bits = index.page_sites(index.section_page(s));
            if bits & asked == 0 {
                mask |= bits;
            }
        }
        self.names_in(mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites() -> Sites {
        Sites {
            names: vec!["gen2".into(), "gen1".into(), "react".into()],
            default: 0b001,
            ..Sites::default()
        }
    }

    #[test]
    fn a_request_names_sites_all_or_none() {
        let s = sites();
        let whole = |n: &str| n.eq_ignore_ascii_case("all") || n == "docs.example.com";
        assert_eq!(s.asked(None, whole), Ok(Asked::Sites(0b001)));
        assert_eq!(s.asked(Some(" "), whole), Ok(Asked::Sites(0b001)));
        assert_eq!(s.asked(Some("gen1, React"), whole), Ok(Asked::Sites(0b110)));
        assert_eq!(s.asked(Some("gen1,all"), whole), Ok(Asked::All));
        assert_eq!(
            s.asked(Some("all,gen3"), whole),
            Err(vec!["gen3".to_string()])
        );
        assert_eq!(s.asked(Some("docs.example.com"), whole), Ok(Asked::All));
        let named_docs = |n: &str| n == "gen1" || n.eq_ignore_ascii_case("all");
        assert_eq!(s.asked(Some("gen1"), named_docs), Ok(Asked::Sites(0b010)));
        assert_eq!(
            s.asked(Some("gen3,gen1,vue"), whole),
            Err(vec!["gen3".to_string(), "vue".into()])
        );
        let none = Sites::default();
        assert_eq!(none.asked(None, whole), Ok(Asked::All));
        assert_eq!(
            none.asked(Some("gen1"), whole),
            Err(vec!["gen1".to_string()])
        );
        assert_eq!(s.names_in(0b101), vec!["gen2".to_string(), "react".into()]);
    }
}
