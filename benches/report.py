"""Runs every benchmark and writes BENCHMARKS.md (called by scripts/bench.sh).

Each figure sits next to its peer, measured in the same run on the same data:
tantivy (a dev-dependency, English stemming) for query latency and indexing,
bm25s for SciFact throughput, a plain copy of the same bytes for index load,
the smallest index for cold start, index format 3 for the format table.
The hand-kept sections (HAND_KEPT, and benches/hybrid.md) are copied as they
are, with the header's table of their commands and dates.
"""
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ["CARGO_TARGET_DIR"]
CORPORA = os.environ.get("ASK_CORPORA", os.path.join(REPO, "..", "shared", "corpora"))
BENCH_PY = os.environ["BENCH_PYTHON"]
MEASURE = os.environ.get("BENCH_MEASUREMENT_TIME", "3")
MDX = ["fumadocs", "shadcn-ui", "prefect", "aws-amplify"]


def sh(cmd, **kw):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=REPO, **kw)


def median_ns(group, fn):
    d = os.path.join(TARGET, "criterion", group.replace("/", "_"), fn, "new", "estimates.json")
    return json.load(open(d))["median"]["point_estimate"]


def bench(package, name):
    out = sh(["cargo", "bench", "--locked", "-p", package, "--bench", name, "--",
              "--warm-up-time", "1", "--measurement-time", MEASURE])
    return out.stdout


def main():
    # Read first, so a missing hand-kept section fails before the long run.
    kept = hand_kept()
    # Index format 4 against format 3, side by side (benches/compare_index.sh),
    # first: its worktrees share the target directory, and the builds below
    # then make this tree's own artifacts again.
    head = sh(["git", "rev-parse", "--short", "HEAD"]).stdout.strip()
    formats = [json.loads(l) for l in sh(["bash", "benches/compare_index.sh", INDEX_BASELINE, head, "3"]).stdout.splitlines()
               if l.startswith("{")]

    sh(["cargo", "build", "--release", "--locked", "--workspace"])
    bi = os.path.join(TARGET, "release", "build-index")
    ask = os.path.join(TARGET, "release", "ask")
    os.makedirs(os.path.join(TARGET, "bench"), exist_ok=True)

    # Indexes of every corpus, with build-index's own summary line.
    builds = {}
    for name in MDX + ["beir-scifact"]:
        out = os.path.join(TARGET, "bench", f"{name}.idx")
        if name == "beir-scifact":
            args = [bi, "--jsonl", os.path.join(CORPORA, name, "corpus.jsonl"), "--out", out]
        else:
            args = [bi, "--corpus", os.path.join(CORPORA, name), "--out", out]
        line = sh(args).stdout.strip()
        m = re.search(r"built (\d+) pages(?: \([^)]*\))?, (\d+) sections, (\d+) terms, (\d+) postings, (\d+) bytes in ([\d.]+) s", line)
        builds[name] = dict(zip(["pages", "sections", "terms", "postings", "bytes", "seconds"],
                                [float(x) for x in m.groups()]), path=out)

    # Criterion benches.
    search_out = bench("build-index", "search")
    ndcg = re.search(r"scifact nDCG@10: ours ([\d.]+), tantivy ([\d.]+)", search_out).groups()
    counts = {m[0]: int(m[1]) for m in re.findall(r"queries (\S+) (\d+)", search_out)}
    bench("build-index", "load")
    bench("build-index", "build")
    handler_out = bench("nlweb-ask", "handler")
    p50, p99 = re.search(r"p50 ([\d.]+) µs, p99 ([\d.]+) µs", handler_out).groups()

    # SciFact throughput end to end, one core: `build-index search` over the
    # 300 test queries ×20 minus ×1 (index load and process start cancel),
    # JSON lines in and out, vs bm25s (tokenise + retrieve), alternating.
    qrels = {l.split("\t")[0] for l in open(os.path.join(CORPORA, "beir-scifact/qrels/test.tsv")).read().splitlines()[1:]}
    queries = [l for l in open(os.path.join(CORPORA, "beir-scifact/queries.jsonl")) if json.loads(l)["_id"] in qrels]
    qfiles = {}
    for times in (1, 20):
        qfiles[times] = os.path.join(TARGET, "bench", f"scifact-queries-x{times}.jsonl")
        open(qfiles[times], "w").write("".join(queries) * times)

    def ours_wall(times):
        t = time.perf_counter()
        subprocess.run(["taskset", "-c", "0", bi, "search", "--index", builds["beir-scifact"]["path"],
                        "--top-k", "10"], stdin=open(qfiles[times]), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t

    ours_qps, bm25s_qps, bm25s_ndcg = [], [], None
    for _ in range(3):
        one, twenty = min(ours_wall(1) for _ in range(3)), ours_wall(20)
        ours_qps.append(19 * len(queries) / (twenty - one))
        r = sh(["taskset", "-c", "0", BENCH_PY, os.path.join(REPO, "benches/peers/bm25s_scifact.py"),
                os.path.join(CORPORA, "beir-scifact"), "20"])
        j = json.loads(r.stdout)
        bm25s_qps.append(j["qps"])
        bm25s_ndcg = j["ndcg10"]
        bm25s_version = j["engine"]

    # How cost grows: both engines at 1×, 10× and 50× aws-amplify's sections,
    # one process each (build-index/benches/scale.rs).
    sh(["cargo", "bench", "--locked", "-p", "build-index", "--bench", "scale", "--no-run"])
    scale_bin = max((os.path.join(TARGET, "release", "deps", f) for f in os.listdir(os.path.join(TARGET, "release", "deps"))
                     if f.startswith("scale-") and not f.endswith(".d")), key=os.path.getmtime)
    scale = []
    for factor in (1, 10, 50):
        for engine in ("ours", "tantivy"):
            r = sh([scale_bin], env=dict(os.environ, SCALE_FACTOR=str(factor), SCALE_ENGINE=engine))
            scale.append(json.loads(r.stdout.strip().splitlines()[-1]))
    plot_scale(scale)

    # Cold start and peak RSS, index from moto through the Runtime API emulator.
    specs = ["smallest=" + os.path.join(REPO, "tests/data/index-v4.idx")]
    specs += [f"{n}={builds[n]['path']}" for n in MDX + ["beir-scifact"]]
    # The deployed build (profile dist: fat LTO, one codegen unit, no
    # symbols) of ask and of a hello-world Lambda, timed the same way; the
    # release binary (what the tests run) on the smallest and largest index.
    sh(["cargo", "build", "--profile", "dist", "--locked", "-p", "nlweb-ask", "--bin", "ask",
        "--example", "hello_lambda"])
    dist_ask = os.path.join(TARGET, "dist", "ask")
    hello = os.path.join(TARGET, "dist", "examples", "hello_lambda")
    amplify = f"aws-amplify={builds['aws-amplify']['path']}"
    cold = {j["name"]: j for j in cold_start(dist_ask, specs + [f"hello-world=exec:{hello}"])}
    cold_release = {f"{j['name']}, release": j for j in cold_start(ask, [specs[0], amplify])}
    cold_release["aws-amplify, dist, 8 MiB ranged GETs"] = cold_start(
        dist_ask, [amplify], ASK_S3_PART_BYTES=str(8 << 20))[-1]
    binary_bytes = {"release ask": os.path.getsize(ask), "dist ask": os.path.getsize(dist_ask),
                    "dist hello-world": os.path.getsize(hello)}

    write(builds, ndcg, counts, p50, p99, ours_qps, bm25s_qps, bm25s_ndcg, bm25s_version, cold, scale,
          binary_bytes, cold_release, formats, head, kept)


# The last commit that writes index format 3: the baseline of the format table.
INDEX_BASELINE = "6cc7838"

# The hand-kept sections of BENCHMARKS.md, in order, by the start of their
# headings: each is measured by the command it names, on the date it gives,
# and copied from the current BENCHMARKS.md as it is. The hybrid section is
# hand-kept too, in benches/hybrid.md.
HAND_KEPT = [
    "Answers: nugget recall",
    "Can't answer",
    "Stored-text codecs",
    "The router against a hand-written handler",
    "Ranking rules",
    "Sites",
    "The processor (arm64 and x86_64)",
]


def hand_kept():
    """From the current BENCHMARKS.md: the header's table of hand-kept
    sections (its commands and dates) and each section of HAND_KEPT."""
    text = open(os.path.join(REPO, "BENCHMARKS.md")).read()
    table = re.search(r"^\| hand-kept section \|.*?(?=\n\n|\Z)", text, re.S | re.M)
    sections = {}
    for part in re.split(r"(?m)^(?=## )", text):
        for name in HAND_KEPT:
            if part.startswith("## " + name):
                sections[name] = part.rstrip("\n") + "\n"
    missing = [name for name in HAND_KEPT if name not in sections]
    if table is None or missing:
        sys.exit(f"BENCHMARKS.md lacks the table of hand-kept sections or these sections: {missing}")
    return table.group(0), [sections[name] for name in HAND_KEPT]


def format_section(formats, head):
    """The table of benches/compare_index.sh's JSON lines: format 3 (INDEX_BASELINE) against HEAD's."""
    revs = [INDEX_BASELINE, head]
    L = ["## Index format 4 against format 3 (`benches/compare_index.sh`)\n"]
    L.append(f"Both revisions built in worktrees and run in one go, alternating: {INDEX_BASELINE} (format 3, the "
             f"last revision that writes it) and {head}. Index bytes as each one's `build-index --no-model` writes them; "
             "the scaling bench at 50× aws-amplify's sections (one process each; peak RSS is the process's growth "
             "after the corpus was generated: build, encode, decode, queries); the dist `ask`'s cold start from "
             "moto on loopback, 20 starts a round, over each revision's own smallest index and aws-amplify's (the "
             "S3 bytes fetched are the index's bytes); the handler's single list-mode requests over prefect "
             "(event to response bytes: the served path, with the text of each hit shown).\n")
    L.append("| measure | format 3 | format 4 | format 4 / format 3 | goal |")
    L.append("|---|---|---|---|---|")
    size = {(f["rev"], f["corpus"]): f["index_bytes"] for f in formats if "corpus" in f}
    for corpus in MDX + ["beir-scifact"]:
        a, b = size[(revs[0], corpus)], size[(revs[1], corpus)]
        L.append(f"| {corpus} index bytes | {a:,} | {b:,} | **{b / a:.3f}** | ≤ 0.40: {'met' if b / a <= 0.40 else 'missed'} |")
    scale = {r: [f for f in formats if f.get("scale") and f["rev"] == r] for r in revs}
    med = lambda xs: statistics.median(xs)
    rss = [med([f["peak_rss_mb"] for f in scale[r]]) for r in revs]
    L.append(f"| peak RSS at 50× (MB, median of {len(scale[revs[0]])}) | {rss[0]:.0f} | {rss[1]:.0f} | **{rss[1] / rss[0]:.3f}** | "
             f"≤ 0.45: {'met' if rss[1] / rss[0] <= 0.45 else 'missed'} |")
    for key, name in [("bytes", "index bytes at 50×"), ("p50_us", "query p50 at 50× (µs)"), ("p99_us", "query p99 at 50× (µs)")]:
        v = [med([f[key] for f in scale[r]]) for r in revs]
        L.append(f"| {name} | {v[0]:,.0f} | {v[1]:,.0f} | {v[1] / v[0]:.3f} | – |")
    cold = {(f["rev"], f["name"]): [] for f in formats if "cold_ms_median" in f}
    for f in formats:
        if "cold_ms_median" in f:
            cold[(f["rev"], f["name"])].append(f)
    inc, fetch, cold_p50, nbytes = [], [], [], []
    for r in revs:
        amp = med([f["cold_ms_median"] for f in cold[(r, "aws-amplify")]])
        small = med([f["cold_ms_median"] for f in cold[(r, "smallest")]])
        inc.append(amp - small)
        cold_p50.append(amp)
        fetch.append(med([f["phases_p50"]["s3_fetch"] for f in cold[(r, "aws-amplify")]]))
        nbytes.append(cold[(r, "aws-amplify")][0]["index_bytes"])
    rounds = len(cold[(revs[0], "aws-amplify")])
    L.append(f"| cold start over aws-amplify, p50 (ms, median of {rounds} rounds) | {cold_p50[0]:.1f} | {cold_p50[1]:.1f} | {cold_p50[1] / cold_p50[0]:.3f} | – |")
    L.append(f"| of which over the smallest index (ms) | {inc[0]:.1f} | {inc[1]:.1f} | **{inc[1] / inc[0]:.3f}** | "
             f"≤ 0.55: {'met' if inc[1] / inc[0] <= 0.55 else 'missed'} |")
    L.append(f"| S3 bytes fetched / fetch p50 (ms) | {nbytes[0]:,} / {fetch[0]:.1f} | {nbytes[1]:,} / {fetch[1]:.1f} | {nbytes[1] / nbytes[0]:.3f} / {fetch[1] / fetch[0]:.3f} | – |")
    hl = {r: [re.search(r"p50 ([\d.]+) µs, p99 ([\d.]+) µs", f["handler_list"]).groups() for f in formats
              if f.get("handler_list") and f["rev"] == r] for r in revs}
    for i, name in [(0, "p50"), (1, "p99")]:
        v = [med([float(x[i]) for x in hl[r]]) for r in revs]
        L.append(f"| handler, one list request, {name} (µs, median of {len(hl[revs[0]])} rounds) | {v[0]:.1f} | {v[1]:.1f} | "
                 f"**{v[1] / v[0]:.3f}** | ≤ 1.10: {'met' if v[1] / v[0] <= 1.10 else 'missed'} |")
    L.append("")
    return L


def cold_start(binary, specs, **env):
    """benches/cold_start.py: `binary` started 20 times on each index spec, a JSON line per spec."""
    r = sh([sys.executable, os.path.join(REPO, "benches/cold_start.py"), binary, "20"] + specs,
           env=dict(os.environ, **env))
    return [json.loads(line) for line in r.stdout.splitlines()]


def plot_scale(scale):
    """benches/scaling.png, drawn by benches/plot_scale.py in the bench venv (matplotlib)."""
    subprocess.run([BENCH_PY, os.path.join(REPO, "benches", "plot_scale.py"), os.path.join(REPO, "benches", "scaling.png")],
                   input=json.dumps(scale), text=True, check=True)


def growth(scale, engine, key):
    """Exponent of key ~ sections^e between the smallest and largest scale."""
    import math
    pts = sorted((j["sections"], j[key]) for j in scale if j["engine"] == engine)
    (x0, y0), (x1, y1) = pts[0], pts[-1]
    return math.log(y1 / y0) / math.log(x1 / x0)


def write(builds, ndcg, counts, p50, p99, ours_qps, bm25s_qps, bm25s_ndcg, bm25s_version, cold, scale,
          binary_bytes, cold_release, formats, head, kept):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    table, sections = kept
    L = []
    L.append("## Query latency, top 10 (criterion, `build-index/benches/search.rs`)\n")
    L.append("The whole query set per iteration: SciFact's 300 test claims; for prefect and aws-amplify, page")
    L.append("descriptions (up to 300). Ours is `search::retrieve`, the Lambda's path, analysis included;")
    L.append("tantivy's includes query parsing.\n")
    L.append("| corpus | sections | queries | ours µs/query | tantivy µs/query | ours / tantivy |")
    L.append("|---|---|---|---|---|---|")
    worst = 0
    for name in ["prefect", "aws-amplify", "beir-scifact"]:
        g = f"search/{name}"
        n = counts[name]
        o, t = median_ns(g, "ours") / n / 1e3, median_ns(g, "tantivy") / n / 1e3
        worst = max(worst, o / t)
        L.append(f"| {name} | {int(builds[name]['sections']):,} | {n} | {o:.1f} | {t:.1f} | **{o / t:.2f}** |")
    L.append(f"\nSciFact nDCG@10 in the same bench: ours **{float(ndcg[0]):.4f}**, tantivy {float(ndcg[1]):.4f}"
             f" (bm25s {bm25s_ndcg:.4f}).")
    L.append(f"Goal ≤ 0.5× tantivy on every corpus: worst ratio {worst:.2f}.\n")

    L.append("## SciFact throughput, one core, end to end (`build-index search` vs bm25s)\n")
    L.append("Ours: the `build-index search` process pinned to one core (`taskset -c 0`), JSON lines in and out,")
    L.append("wall time of the 300 test queries ×20 minus ×1 (best of 3), so process start and index load cancel.")
    L.append("bm25s, pinned the same way: tokenization + `retrieve(k=10, n_threads=1)` of the 300 queries ×20,")
    L.append("timed in process. Three alternated rounds.\n")
    o, b = statistics.median(ours_qps), statistics.median(bm25s_qps)
    L.append("| engine | queries/s (rounds) | median |")
    L.append("|---|---|---|")
    L.append(f"| ours | {', '.join(f'{x:,.0f}' for x in ours_qps)} | {o:,.0f} |")
    L.append(f"| bm25s | {', '.join(f'{x:,.0f}' for x in bm25s_qps)} | {b:,.0f} |")
    L.append(f"\nRatio: **{o / b:.1f}×** bm25s (goal ≥ 10×: {'met' if o / b >= 10 else 'missed'}).\n")

    L.append("## Scaling (`build-index/benches/scale.rs`)\n")
    L.append("Every section of the shared MDX corpora and SciFact (about 31,800), then copies in which a quarter")
    L.append("of the words of four letters or more carry a copy-specific suffix (vocabulary and rare terms grow")
    L.append("with each copy, common words' postings in proportion), cut at 1×, 10× and 50× aws-amplify's 9,306")
    L.append("sections. One process per engine and scale; both use every core to build (ours through rayon,")
    L.append("tantivy with one indexing thread a core); queries are every golden question and SciFact's 300")
    L.append("test claims, one at a time, top 10, three passes, each query's fastest (ours: the served path with")
    L.append("typo correction; tantivy: parse + search). Index bytes: ours is the file (with every section's text), tantivy's the in-RAM segments")
    L.append("(no stored text). Peak RSS is the process's growth after the corpus was generated.\n")
    L.append("![scaling](benches/scaling.png)\n")
    L.append("| sections | engine | build s | index bytes | load GB/s | p50 µs | p99 µs | peak RSS MB |")
    L.append("|---|---|---|---|---|---|---|---|")
    for j in scale:
        load = f"{j['load_gbs']:.2f}" if j["load_gbs"] else "–"
        L.append(f"| {j['sections']:,} | {j['engine']} | {j['build_s']:.2f} | {j['bytes']:,} | {load} | "
                 f"{j['p50_us']:.0f} | {j['p99_us']:.0f} | {j['peak_rss_mb']:.0f} |")
    L.append("")
    for key, what in (("p50_us", "p50 latency"), ("p99_us", "p99 latency"), ("build_s", "build time"),
                      ("bytes", "index bytes")):
        L.append(f"- {what} grows as sections^{growth(scale, 'ours', key):.2f} for ours, "
                 f"^{growth(scale, 'tantivy', key):.2f} for tantivy (1× to 50×).")
    eb, ei = growth(scale, "ours", "build_s"), growth(scale, "ours", "bytes")
    L.append(f"- Where growth is not sub-linear: build time (^{eb:.2f}) and index bytes (^{ei:.2f}) grow faster "
             "than sections because the sections get longer: 1× holds the short-section corpora (fumadocs, "
             "shadcn-ui, part of prefect), larger scales add aws-amplify's and SciFact's longer ones. Per index "
             f"byte, build time grows as ^{eb - ei:.2f} (sorting terms and postings, larger hash maps).")
    by = {(j["engine"], j["factor"]): j for j in scale}
    L.append("- Ours / tantivy at 1×, 10×, 50×: build "
             + ", ".join(f"{by[('ours', f)]['build_s'] / by[('tantivy', f)]['build_s']:.2f}" for f in (1, 10, 50))
             + "; p99 "
             + ", ".join(f"{by[('ours', f)]['p99_us'] / by[('tantivy', f)]['p99_us']:.2f}" for f in (1, 10, 50))
             + ".\n")

    L.append("## Index load (criterion, `build-index/benches/load.rs`)\n")
    L.append("Bytes in memory → searchable index (checksum, bincode decode, validation; the index's arrays and")
    L.append("text are slices of those bytes, as in the Lambda, not copies), next to `to_vec()` of the same bytes.\n")
    L.append("| corpus | index bytes | load GB/s | plain copy GB/s | load time / copy time |")
    L.append("|---|---|---|---|---|")
    for name in MDX + ["beir-scifact"]:
        g = f"load/{name}"
        by = builds[name]["bytes"]
        d, c = median_ns(g, "decode index"), median_ns(g, "plain copy")
        L.append(f"| {name} | {int(by):,} | {by / d:.2f} | {by / c:.2f} | **{d / c:.2f}** |")
    L.append("\nGoal: ≥ 1 GB/s and within 3× of a plain copy.\n")

    L.append("## Building (criterion, `build-index/benches/build.rs`)\n")
    o, t = median_ns("build/aws-amplify", "ours"), median_ns("build/aws-amplify", "tantivy")
    L.append("aws-amplify's sections (MDX parsing excluded from both), both on every core: ours (analysis,")
    L.append(f"postings, encoding) {o / 1e6:.0f} ms, tantivy (an indexing thread a core, in RAM, commit)"
             f" {t / 1e6:.0f} ms: **{o / t:.2f}×** (goal ≤ 1×: {'met' if o <= t else 'missed'}).\n")
    L.append("Whole `build-index` runs (release, parsing and writing included):\n")
    L.append("| corpus | pages | sections | terms | postings | index bytes | bytes/page | seconds |")
    L.append("|---|---|---|---|---|---|---|---|")
    for name in MDX + ["beir-scifact"]:
        b = builds[name]
        L.append(f"| {name} | {int(b['pages']):,} | {int(b['sections']):,} | {int(b['terms']):,} | "
                 f"{int(b['postings']):,} | {int(b['bytes']):,} | {b['bytes'] / b['pages'] / 1024:.1f} KB | {b['seconds']:.2f} |")
    L.append("\nEach index carries every section's full text, which the Lambda returns in")
    L.append("`text`, cuts snippets from and summarizes (deflated in blocks); a posting is a varint section-id gap and a one-byte impact.\n")

    L.append("## Cold start and memory (`benches/cold_start.py`)\n")
    L.append("The deployed build of `ask` (profile `dist`: fat LTO, one codegen unit, symbols stripped; panics")
    L.append("still unwind) under cargo-lambda's Runtime API emulator; its index fetched from moto (a real")
    L.append("S3-protocol server) on loopback, in one GET. Time from exec to the")
    L.append("first `/ask` answer over 20 runs; peak RSS (VmHWM) after that answer. The phases (medians) come from")
    L.append("the binary's own \"index loaded\" log line: runtime start (exec to main), setup (config, S3 client),")
    L.append("S3 fetch, verify + decode, then the first query. `hello-world` is `examples/hello_lambda.rs`")
    L.append("(lambda_http, one fixed answer), built and timed the same way.\n")
    L.append("| binary | bytes |")
    L.append("|---|---|")
    for name, size in binary_bytes.items():
        L.append(f"| {name} | {size:,} |")
    L.append("")
    L.append("| index | index bytes | p50 ms | p90 ms | over the smallest (p50) | runtime start | setup | S3 fetch | "
             "verify + decode | first query | peak RSS MB | goal RSS ≤ 2×bytes+30 MB |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = cold["smallest"]["cold_ms_median"]
    for name, j in cold.items():
        goal = 2 * j["index_bytes"] / 1e6 + 30
        rss = j["peak_rss_kb"] / 1024
        ph = j["phases_p50"]
        phases = (f"{ph['runtime_start']:.1f} | {ph['setup']:.1f} | {ph['s3_fetch']:.1f} | {ph['decode']:.1f} | "
                  f"{ph['first_query']:.1f}") if ph else "– | – | – | – | –"
        L.append(f"| {name} | {j['index_bytes']:,} | {j['cold_ms_median']:.1f} | {j['cold_ms_p90']:.1f} | "
                 f"{j['cold_ms_median'] - base:+.1f} | {phases} | "
                 f"{rss:.1f} | {goal:.1f} ({'met' if rss <= goal else 'missed'}) |")
    L.append("\nIn the same run, the release binary (what the tests run: no LTO, 16 codegen units), and the dist")
    L.append("binary fetching in 8 MiB ranged GETs (`ASK_S3_PART_BYTES`, off by default): "
             + "; ".join(f"{n} p50 {j['cold_ms_median']:.1f} ms, p90 {j['cold_ms_p90']:.1f} ms, S3 fetch "
                         f"{j['phases_p50']['s3_fetch']:.1f} ms" for n, j in cold_release.items()) + ".")
    largest = max((j for n, j in cold.items() if n != "hello-world"), key=lambda j: j["index_bytes"])
    over = largest["cold_ms_median"] - base
    L.append(f"\nGoal: the largest corpus adds ≤ 30 ms over the smallest (S3 fetch included, loopback): "
             f"+{over:.1f} ms ({'met' if over <= 30 else 'missed'}).\n")

    L.append("## Handler in process (criterion, `benches/handler.rs`)\n")
    L.append("A saved HTTP API event → response bytes, over prefect's index, 8 questions per iteration.\n")
    L.append("| mode | µs/request |")
    L.append("|---|---|")
    for fn in ["list", "summarize", "generate", "generate-sse"]:
        L.append(f"| {fn} | {median_ns('handler/prefect', fn) / 8 / 1e3:.0f} |")
    L.append(f"\nSingle list-mode requests, timed one by one (4,000): p50 **{p50} µs**, p99 **{p99} µs** (goal p99 ≤ 1 ms).")
    L.append("")
    L.extend(abuse_section(bench("nlweb-ask", "abuse")))
    L.extend(format_section(formats, head))
    L.extend(relevance())
    generated = [re.sub(r" \(.*", "", l[3:]).strip() for l in L if l.startswith("## ")]

    H = []
    H.append("# Benchmarks\n")
    H.append("Each figure with the command that makes it, the peer or baseline beside it where there is one,")
    H.append("and the date of its run.\n")
    H.append("**From `scripts/bench.sh`** (about 45 minutes; it writes this file through `benches/report.py`), "
             "all from one run, each peer measured in the same run on the same data: "
             + "; ".join(f"\"{name}\"" for name in generated) + ".\n")
    H.append(f"- Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} (revision {head})")
    H.append(f"- Machine: {cpu}, {os.cpu_count()} cores, Linux {platform.release()}; {rustc}")
    H.append(f"- Peers: tantivy 0.27 (Rust, `en_stem`, one text field, in RAM, a dev-dependency), {bm25s_version} "
             "(Python; English stop words + PyStemmer, Lucene k1=1.5 b=0.75, one thread)")
    H.append("- Timings are medians; this is a shared 2-core VM, so expect ±10–30 % between runs.\n")
    H.append("**Hand-kept**, each measured by the command it names, on the date it gives; `scripts/bench.sh` "
             "copies them as they are (the hybrid section from `benches/hybrid.md`, the others from this file). "
             "Records of the experiments behind these figures: `benches/experiments/benchmarks-*.md`.\n")
    H.append(table)
    H.append("")

    # Hand-kept: the hybrid retriever's relevance and cost rows
    # (benches/hybrid.md), then the sections of HAND_KEPT.
    L.append(open(os.path.join(REPO, "benches", "hybrid.md")).read())
    L.extend(sections)
    open(os.path.join(REPO, "BENCHMARKS.md"), "w").write("\n".join(H + L).rstrip("\n") + "\n")


def abuse_section(out):
    """The cost table that benches/abuse.rs prints."""
    table = [l for l in out.splitlines() if l.startswith("|")]
    after = [l for l in out.splitlines() if l.startswith("That batch:")]
    return [
        "## Cost per token (`benches/abuse.rs`)\n",
        "The costliest request of each kind an anonymous client can send, beside a typical `/ask`,",
        "through the handler in process over this project's docs: this thread's CPU time per request",
        "(200 runs; 5 for the batch that waits on its deadline), the tokens the `RateLimit` header",
        "says it took, and the response bytes.\n",
        *table,
        "",
        *after,
        "",
    ]


def relevance():
    """The golden-set relevance table, as the gate in build-index/tests/cli/ prints it."""
    out = subprocess.run(
        ["cargo", "test", "--release", "--locked", "-p", "build-index", "--test", "cli",
         "golden_questions_relevance", "--", "--nocapture"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stderr
    table = [l for l in out.splitlines() if l.startswith("|")]
    typos = [l for l in out.splitlines() if l.startswith("typo correction on")]
    return [
        "## Relevance on the golden sets (`build-index/tests/cli/`)\n",
        "Answerable questions only; grades 2 = answers, 1 = partly answers "
        "(`tests/golden/*.jsonl`). Each set is measured with the rules its docs team would set "
        "(`--boost` for `ask.boost`, `--synonyms` for `ask.synonyms`), and without them in the last "
        "column. Page level counts a page that answers; section level counts the sections labelled as "
        "answering in `tests/golden/sections/*.jsonl` (gain 2, any other section 0). The test fails when "
        "a figure drops about 0.03 below these.\n",
        *table,
        "",
        *[t + "." for t in typos],
        "",
    ]


if __name__ == "__main__":
    main()
