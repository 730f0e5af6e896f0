"""A paired_all.py output's slowest 5% of no-problem questions (by `before`): their time and their verdict checks'
(`best_match`) before and after, and how many of them spent over 2 ms in the checks before.

    python docs/bench/scale-1m-round20/tail_ratios.py docs/bench/scale-1m-round20/paired-1.json
"""

import json
import sys
from pathlib import Path

import numpy as np


def main(path: Path) -> None:
    rows = [r for r in json.loads(path.read_text(encoding="utf-8"))["rows"] if r["no_problem"]]
    before = np.array([r["before"]["no_embed"] for r in rows])
    tail = np.argsort(-before)[:len(rows) // 20]
    pick = [rows[i] for i in tail]

    def med(key, variant):
        return round(float(np.median([r[variant][key] for r in pick])), 2)

    out = {"tail_questions": len(pick),
           "no_embed_before_after": [med("no_embed", "before"), med("no_embed", "after")],
           "median_ratio": round(float(np.median([r["after"]["no_embed"] / r["before"]["no_embed"] for r in pick])), 3),
           "best_match_before_after": [med("best_match", "before"), med("best_match", "after")],
           "best_match_over_2ms_before": sum(r["before"]["best_match"] > 2 for r in pick),
           "all_300_best_match_over_2ms_before_after": [sum(r["before"]["best_match"] > 2 for r in rows),
                                                        sum(r["after"]["best_match"] > 2 for r in rows)]}
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
