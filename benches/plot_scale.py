"""Draws the scaling curves (build seconds, p50 and p99 latency, peak RSS by
sections, ours beside tantivy) from the JSON list that benches/report.py
passes on stdin.

    python plot_scale.py OUT.png < scale.json
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

scale = json.load(sys.stdin)
fig, axes = plt.subplots(1, 4, figsize=(16, 4))
panels = [("build_s", "build seconds"), ("p50_us", "p50 µs (top 10)"), ("p99_us", "p99 µs (top 10)"),
          ("peak_rss_mb", "peak RSS MB (engine's own)")]
for ax, (key, label) in zip(axes, panels):
    for engine, style in (("ours", "o-"), ("tantivy", "s--")):
        pts = [(j["sections"], j[key]) for j in scale if j["engine"] == engine]
        ax.plot([x for x, _ in pts], [y for _, y in pts], style, label=engine)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sections")
    ax.set_title(label)
    ax.grid(True, which="both", alpha=0.3)
axes[0].legend()
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=80)
