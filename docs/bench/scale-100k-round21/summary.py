"""The table of report.md from this folder's measure.py outputs: per run, retrieval without embedding p50 / p95 (ms)
for all 267 questions and for the 67 naming none, the load average at start and end; the median p95 per version.

    python docs/bench/scale-100k-round21/summary.py docs/bench/scale-100k-round21
"""

import json
import statistics
import sys
from pathlib import Path


def main(folder: Path) -> None:
    p95: dict[str, dict[str, list[float]]] = {}
    for version in ("main", "flip21"):
        for path in sorted(folder.glob(f"{version}-s0.25-*.json"), key=lambda p: int(p.stem.rsplit("-", 1)[1])):
            d = json.loads(path.read_text(encoding="utf-8"))
            st = d["run"]["probe"]["stages"]
            every, none = st["stages"]["retrieval_no_embed"], st["by_kind"]["no_problem"]["retrieval_no_embed"]
            assert every["n"] == 267 and none["n"] == 67, path
            la = d["load_average"]
            print(f"| {path.stem} | {la['start'][0]} → {la['end'][0]} | {every['p50']:.1f} / {every['p95']:.1f} "
                  f"| {none['p50']:.1f} / {none['p95']:.1f} | {st['major_faults']} |")
            p95.setdefault(version, {"all": [], "none": []})
            p95[version]["all"].append(every["p95"])
            p95[version]["none"].append(none["p95"])
    for version, v in p95.items():
        print(f"{version}: runs {len(v['all'])}, median p95 all {statistics.median(v['all']):.1f}, "
              f"no-problem {statistics.median(v['none']):.1f}; runs over 30 ms (all): {sum(x > 30 for x in v['all'])}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
