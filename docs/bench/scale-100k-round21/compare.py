"""Compares two hits.py outputs (main's and flip21's code): identical top-5 (ids, fused and shown scores) and whole
hit lists per question, and the per-question median time ratio B / A, overall and per kind.

    python docs/bench/scale-100k-round21/compare.py A.json B.json OUT.json
"""

import json
import statistics
import sys
from pathlib import Path


def main(a_path: Path, b_path: Path, out: Path) -> None:
    a = json.loads(a_path.read_text(encoding="utf-8"))["questions"]
    b = json.loads(b_path.read_text(encoding="utf-8"))["questions"]
    assert len(a) == len(b) == 267
    result: dict = {}
    for kind in ("names_problem", "no_problem", "all"):
        pairs = [(x, y) for x, y in zip(a, b, strict=True) if kind in ("all", x["kind"])]
        result[kind] = {
            "questions": len(pairs),
            "top5_identical": sum(x["top5"] == y["top5"] for x, y in pairs),
            "top5_ids_identical": sum([h[0] for h in x["top5"]] == [h[0] for h in y["top5"]] for x, y in pairs),
            "all_hits_identical": sum(x["all_hits_sha1"] == y["all_hits_sha1"] for x, y in pairs),
            "median_ratio_b_over_a": round(statistics.median(y["ms"] / x["ms"] for x, y in pairs), 3),
            "a_p50_p95": [round(statistics.quantiles([x["ms"] for x, _ in pairs], n=100)[i], 2) for i in (49, 94)],
            "b_p50_p95": [round(statistics.quantiles([y["ms"] for _, y in pairs], n=100)[i], 2) for i in (49, 94)],
        }
    result["differ"] = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x["top5"] != y["top5"]]
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
