//! Which words mean the same in these docs? A docs team's synonym groups
//! (`ask.synonyms`: `[["cancel", "stop"], ["sign out", "log out"]]`), used
//! to search the docs' word when the user typed another.
//!
//! Each member of a group is analyzed like any text (`"sign out"` gives
//! `sign`; `"API key"` gives `api`, `key`). When every term of a member is
//! among the question's own terms, the terms of the group's other members
//! are added to the query with weight [`SYNONYM_WEIGHT`] (unless the
//! question already has them), so the docs' word counts without outweighing
//! what was typed. Earlier questions (`prev`) do not expand.

use crate::analyzer::Analyzer;

/// Weight of a term added because it is a synonym of the question's.
pub const SYNONYM_WEIGHT: f32 = 0.6;
/// Groups, at most.
pub const MAX_GROUPS: usize = 1000;
/// Members of a group, at most.
pub const MAX_MEMBERS: usize = 16;

/// Synonym groups, analyzed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Synonyms {
    /// Per group, per member, its terms.
    groups: Vec<Vec<Vec<String>>>,
}

/// A synonym list that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SynonymError {
    /// More groups than [`MAX_GROUPS`].
    #[error("{0} synonym groups, at most {MAX_GROUPS}")]
    TooManyGroups(usize),
    /// A group with fewer than two members or more than [`MAX_MEMBERS`].
    #[error("synonym group {0} has {1} members: give 2 to {MAX_MEMBERS}")]
    GroupSize(usize, usize),
    /// A member with no searchable word (empty, or only stop words).
    #[error("synonym group {0}: {1:?} has no searchable word")]
    Empty(usize, String),
}

impl Synonyms {
    /// Analyzes `groups` (each a list of words or phrases).
    pub fn new(groups: &[Vec<String>], analyzer: &Analyzer) -> Result<Synonyms, SynonymError> {
        if groups.len() > MAX_GROUPS {
            return Err(SynonymError::TooManyGroups(groups.len()));
        }
        let mut out = Vec::with_capacity(groups.len());
        for (g, group) in groups.iter().enumerate() {
            if group.len() < 2 || group.len() > MAX_MEMBERS {
                return Err(SynonymError::GroupSize(g + 1, group.len()));
            }
            let mut members = Vec::with_capacity(group.len());
            for m in group {
                let mut terms = analyzer.analyze(m);
                terms.dedup();
                if terms.is_empty() {
                    return Err(SynonymError::Empty(g + 1, m.clone()));
                }
                members.push(terms);
            }
            out.push(members);
        }
        Ok(Synonyms { groups: out })
    }

    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Adds to `terms` the synonyms of the question's own terms (those of
    /// weight 1.0) at [`SYNONYM_WEIGHT`]; returns the terms added.
    pub fn expand(&self, terms: &mut Vec<(String, f32)>) -> Vec<String> {
        let mut added = Vec::new();
        if self.groups.is_empty() {
            return added;
        }
        let own: Vec<String> = terms
            .iter()
            .filter(|(_, w)| *w >= 1.0)
            .map(|(t, _)| t.clone())
            .collect();
        for group in &self.groups {
            let matched = |m: &Vec<String>| m.iter().all(|t| own.contains(t));
            if !group.iter().any(matched) {
                continue;
            }
            for member in group.iter().filter(|m| !matched(m)) {
                for t in member {
                    match terms.iter_mut().find(|(x, _)| x == t) {
                        Some((_, w)) => *w = w.max(SYNONYM_WEIGHT),
                        None => {
                            terms.push((t.clone(), SYNONYM_WEIGHT));
                            added.push(t.clone());
                        }
                    }
                }
            }
        }
        added
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(g: &[&[&str]]) -> Vec<Vec<String>> {
        g.iter()
            .map(|m| m.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn a_member_in_the_question_adds_the_others() {
        let a = Analyzer::new();
        let s = Synonyms::new(
            &groups(&[&["cancel", "stop"], &["sign out", "log out"]]),
            &a,
        )
        .unwrap();
        let mut terms: Vec<(String, f32)> = a
            .analyze("how do I stop a run")
            .into_iter()
            .map(|t| (t, 1.0))
            .collect();
        let added = s.expand(&mut terms);
        assert_eq!(added, vec!["cancel".to_string()]);
        assert!(terms.contains(&("cancel".into(), SYNONYM_WEIGHT)));
        // Context terms (weight < 1) do not expand.
        let mut terms = vec![("log".to_string(), 0.5)];
        assert!(s.expand(&mut terms).is_empty());
        let mut terms = vec![("log".to_string(), 1.0)];
        assert_eq!(s.expand(&mut terms), vec!["sign".to_string()]);
    }

    #[test]
    fn bad_lists_are_refused() {
        let a = Analyzer::new();
        assert_eq!(
            Synonyms::new(&groups(&[&["alone"]]), &a),
            Err(SynonymError::GroupSize(1, 1))
        );
        assert_eq!(
            Synonyms::new(&groups(&[&["stop", "the"]]), &a),
            Err(SynonymError::Empty(1, "the".into()))
        );
        assert!(Synonyms::new(&[], &a).unwrap().is_empty());
    }
}
