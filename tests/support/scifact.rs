//! SciFact's judged test queries and nDCG@10 with trec_eval's definition
//! (gains from the qrels, ideal ranking from the qrels), shared by the
//! relevance gate and the search bench.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

/// Query id → (document id → relevance).
pub type Qrels = HashMap<String, HashMap<String, u32>>;

pub fn qrels(root: &Path) -> Qrels {
    let mut q: Qrels = HashMap::new();
    for line in std::fs::read_to_string(root.join("qrels/test.tsv"))
        .unwrap()
        .lines()
        .skip(1)
    {
        let f: Vec<&str> = line.split('\t').collect();
        q.entry(f[0].to_string())
            .or_default()
            .insert(f[1].to_string(), f[2].parse().unwrap());
    }
    q
}

/// The judged queries as (id, text, the JSONL line as stored).
pub fn test_queries(root: &Path, qrels: &Qrels) -> Vec<(String, String, String)> {
    std::fs::read_to_string(root.join("queries.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = v["_id"].as_str().unwrap().to_string();
            qrels
                .contains_key(&id)
                .then(|| (id, v["text"].as_str().unwrap().to_string(), l.to_string()))
        })
        .collect()
}

/// nDCG@10 of one ranking (document ids, best first).
pub fn ndcg_at_10(ranked: &[&str], rel: &HashMap<String, u32>) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, id)| *rel.get(*id).unwrap_or(&0) as f64 / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = rel.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, &g)| g as f64 / ((i + 2) as f64).log2())
        .sum();
    dcg / idcg
}
