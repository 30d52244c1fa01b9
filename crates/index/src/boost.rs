//! How much does each page count? Weights a docs team gives to parts of its
//! docs by path glob (`{"api-ref/**": 0.5, "gen1/**": 0.6}`): a page's
//! search score is multiplied by the weight of the most specific (longest)
//! glob that matches its path (relative to the corpus root), 1 when none
//! does.

use crate::index::Index;

/// Why a boost list is refused.
#[derive(Debug, thiserror::Error)]
pub enum BoostError {
    /// Not a glob.
    #[error("boost glob {glob:?}: {message}")]
    Glob {
        /// The glob.
        glob: String,
        /// What is wrong with it.
        message: String,
    },
    /// A weight that is not a positive number up to 10.
    #[error("boost weight {weight} of {glob:?} is not between 0 (excluded) and 10")]
    Weight {
        /// The glob.
        glob: String,
        /// The weight.
        weight: f32,
    },
}

/// Compiled path-glob weights.
#[derive(Clone, Debug, Default)]
pub struct Boosts {
    rules: Vec<(String, globset::GlobMatcher, f32)>,
}

impl PartialEq for Boosts {
    fn eq(&self, other: &Boosts) -> bool {
        self.rules.len() == other.rules.len()
            && self
                .rules
                .iter()
                .zip(&other.rules)
                .all(|(a, b)| a.0 == b.0 && a.2 == b.2)
    }
}

impl Boosts {
    /// Compiles `(glob, weight)` pairs.
    pub fn new(pairs: &[(String, f32)]) -> Result<Boosts, BoostError> {
        let mut rules = Vec::with_capacity(pairs.len());
        for (glob, weight) in pairs {
            if !(*weight > 0.0 && *weight <= 10.0) {
                return Err(BoostError::Weight {
                    glob: glob.clone(),
                    weight: *weight,
                });
            }
            let g = globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|e| BoostError::Glob {
                    glob: glob.clone(),
                    message: e.kind().to_string(),
                })?;
            rules.push((glob.clone(), g.compile_matcher(), *weight));
        }
        Ok(Boosts { rules })
    }

    /// The weight of a page path.
    pub fn weight(&self, path: &str) -> f32 {
        self.rules
            .iter()
            .filter(|(_, g, _)| g.is_match(path))
            .max_by_key(|(glob, _, _)| glob.len())
            .map_or(1.0, |(_, _, w)| *w)
    }

    /// Every page's weight, by page id; empty when no rule applies to any
    /// page (so retrieval skips the re-ranking).
    pub fn page_weights(&self, index: &Index) -> Vec<f32> {
        let weights: Vec<f32> = (0..index.meta.pages)
            .map(|i| self.weight(index.page(i).path))
            .collect();
        if weights.iter().all(|w| *w == 1.0) {
            Vec::new()
        } else {
            weights
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_specific_glob_wins() {
        let b = Boosts::new(&[
            ("pages/gen1/**".into(), 0.6),
            ("**/api-ref/**".into(), 0.5),
            ("**".into(), 1.0),
            ("pages/gen1/react/**".into(), 0.9),
        ])
        .unwrap();
        assert_eq!(b.weight("pages/gen1/vue/start.mdx"), 0.6);
        assert_eq!(b.weight("pages/gen1/react/start.mdx"), 0.9);
        assert_eq!(b.weight("docs/api-ref/x.mdx"), 0.5);
        assert_eq!(b.weight("pages/[platform]/start/index.mdx"), 1.0);
        assert!(Boosts::new(&[("a/**".into(), 0.0)]).is_err());
        assert!(Boosts::new(&[("a/[".into(), 1.0)]).is_err());
    }
}
