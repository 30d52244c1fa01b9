"""bm25s on SciFact, single thread, the configuration of bm25-benchmarks
(English stop words + PyStemmer, Lucene BM25 k1=1.5 b=0.75): queries/s for
top-10 retrieval including query tokenization, and nDCG@10 as a check.

    python bm25s_scifact.py CORPUS_DIR REPEAT
Prints one JSON line.
"""
import json
import math
import sys
import time

import bm25s
import Stemmer

root, repeat = sys.argv[1], int(sys.argv[2])
docs, ids = [], []
for line in open(f"{root}/corpus.jsonl"):
    d = json.loads(line)
    ids.append(d["_id"])
    docs.append(d["title"] + " " + d["text"])
qrels = {}
for line in open(f"{root}/qrels/test.tsv").read().splitlines()[1:]:
    q, d, s = line.split("\t")
    qrels.setdefault(q, {})[d] = int(s)
queries = [json.loads(l) for l in open(f"{root}/queries.jsonl")]
queries = [q for q in queries if q["_id"] in qrels]

stemmer = Stemmer.Stemmer("english")
retriever = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
retriever.index(bm25s.tokenize(docs, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)

def run(texts):
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    return retriever.retrieve(tokens, k=10, n_threads=1, show_progress=False)

texts = [q["text"] for q in queries]
run(texts)  # warm up
start = time.perf_counter()
for _ in range(repeat):
    results, _ = run(texts)
elapsed = time.perf_counter() - start
ndcg = 0.0
for qi, q in enumerate(queries):
    rel = qrels[q["_id"]]
    dcg = sum(rel.get(ids[d], 0) / math.log2(i + 2) for i, d in enumerate(results[qi]))
    idcg = sum(v / math.log2(i + 2) for i, v in enumerate(sorted(rel.values(), reverse=True)[:10]))
    ndcg += dcg / idcg
print(json.dumps({
    "engine": f"bm25s {bm25s.__version__}",
    "queries": len(texts) * repeat,
    "seconds": elapsed,
    "qps": len(texts) * repeat / elapsed,
    "ndcg10": ndcg / len(queries),
}))
