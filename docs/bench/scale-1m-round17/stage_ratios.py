"""Per-question paired differences of a paired.py output, by stage (the after variant against the before one):
median difference (ms) and median ratio, the sparse stages summed over scopes (the after variant ranks both scopes
in the general documents' stage).

    python docs/bench/scale-1m-round17/stage_ratios.py paired-1.json
"""

import json
import sys
from pathlib import Path

import numpy as np


def main(path: str) -> None:
    rows = json.loads(Path(path).read_text(encoding="utf-8"))["rows"]
    groups = {"bm25 (general + whole base)": ("bm25_general", "bm25_global"),
              "lexical (general + whole base)": ("lexical_general", "lexical_global"),
              "dense, general documents": ("dense_general",), "dense, whole base": ("dense_global",),
              "fusion": ("fusion",), "other": ("other",), "no_embed": ("no_embed",)}
    out = {}
    for name, keys in groups.items():
        a = np.array([sum(r["before"].get(k, 0.0) for k in keys) for r in rows])
        b = np.array([sum(r["after"].get(k, 0.0) for k in keys) for r in rows])
        out[name] = {"median_diff_ms": round(float(np.median(b - a)), 2),
                     "median_ratio": round(float(np.median(b[a > 0] / a[a > 0])), 3)}
    sys.stdout.write(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
