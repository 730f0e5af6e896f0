"""The slowest 5% of a tail.py output, by each question's least time over its passes (its own cost; a pass's time
also carries the other helpers' load), against the median question, stage by stage; and how well the passes agree
on which questions are slow (Spearman's rank correlation between passes, per stage).

    python docs/bench/scale-1m-round20/least.py /tmp/tail.json          # tail.py's full output (with "passes")
"""

import json
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

STAGES = ("no_embed", "bm25_general", "lexical_general", "dense_general", "dense_global", "fusion", "other",
          "tokenize")


def main(path: Path) -> None:
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    passes = len(rows[0]["passes"])
    out = {"questions": len(rows), "passes": passes, "per_pass_p50_p95": [], "agreement": {}, "least": {}}
    for p in range(passes):
        t = [r["passes"][p]["no_embed"] for r in rows]
        out["per_pass_p50_p95"].append([round(float(np.percentile(t, 50)), 1), round(float(np.percentile(t, 95)), 1)])
    for k in STAGES:
        m = np.array([[r["passes"][p].get(k, 0.0) for r in rows] for p in range(passes)])
        out["agreement"][k] = round(float(np.median([spearmanr(m[a], m[b]).statistic for a in range(passes)
                                                     for b in range(a + 1, passes)])), 2)
    least = {k: np.array([min(p.get(k, 0.0) for p in r["passes"]) for r in rows]) for k in STAGES}
    order = np.argsort(-least["no_embed"])
    tail = order[:len(rows) // 20]
    out["least_p50_p95"] = [round(float(np.percentile(least["no_embed"], q)), 1) for q in (50, 95)]
    out["tail_questions"] = sorted(int(rows[i]["i"]) for i in tail)
    for k in STAGES:
        out["least"][k] = {"tail_median": round(float(np.median(least[k][tail])), 2),
                           "all_median": round(float(np.median(least[k])), 2)}
    sys.stdout.write(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
