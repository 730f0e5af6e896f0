"""A paired.py output split by tier: the hint tier's no-problem questions (the whole-base search over "every row but
official solutions") and the others. Per group: questions, per-question median ratio of the whole question and of the
whole-base dense stage (after / before), and p50 / p95 of each variant.

    python docs/bench/scale-1m-round19/split.py PAIRED.json CHUNKS SHARE
"""

import json
import sys
from pathlib import Path

import numpy as np

from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase


def main(path: Path, chunks: int, share: float) -> None:
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=chunks, seed=SEED), 200, share)
    tiers = [q.request.tier for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    assert len(rows) == len(tiers)
    out = {}
    for name, keep in (("hint tier", lambda t: t == "hint"), ("other tiers", lambda t: t != "hint"),
                       ("all", lambda t: True)):
        mine = [r for r, t in zip(rows, tiers, strict=True) if keep(t)]
        group = {"questions": len(mine)}
        for stage in ("no_embed", "dense_global", "dense_general"):
            a = np.array([r["before"].get(stage, 0.0) for r in mine])
            b = np.array([r["after"].get(stage, 0.0) for r in mine])
            group[stage] = {"median_ratio": round(float(np.median(b[a > 0] / a[a > 0])), 3),
                            "median_diff_ms": round(float(np.median(b - a)), 2),
                            "before_p50_p95": np.percentile(a, [50, 95]).round(1).tolist(),
                            "after_p50_p95": np.percentile(b, [50, 95]).round(1).tolist()}
        out[name] = group
    sys.stdout.write(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]))
