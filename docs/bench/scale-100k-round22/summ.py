"""Per run and median: the probe's p50 / p95 for all 267 questions and for the 67 naming none, per version.

    python docs/bench/scale-100k-round22/summ.py FOLDER      # FOLDER holds <version>-<run>.json from measure.py
"""

import json
import re
import statistics
import sys
from pathlib import Path


def rows_of(folder: Path) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    for path in sorted(folder.glob("*.json")):
        version, run = re.fullmatch(r"(\w+)-(\d+)\.json", path.name).groups()
        data = json.loads(path.read_text(encoding="utf-8"))
        probe = data["run"]["probe"]["stages"]
        stages, none = probe["stages"], probe["by_kind"]["no_problem"]["retrieval_no_embed"]
        rows.setdefault(version, []).append({
            "run": int(run), "load": (data["load_average"]["start"][0], data["load_average"]["end"][0]),
            "all": (stages["retrieval_no_embed"]["p50"], stages["retrieval_no_embed"]["p95"]),
            "none": (none["p50"], none["p95"]),
            "dense_global": stages["dense_global"]["p50"], "bm25": stages["bm25"]["p50"],
            "lexical": stages["lexical"]["p50"], "faults": probe.get("major_faults")})
    return rows


def main(folder: Path) -> None:
    for version, runs in rows_of(folder).items():
        runs.sort(key=lambda r: r["run"])
        print(version)
        for r in runs:
            print(f"  run {r['run']} load {r['load'][0]:.2f}→{r['load'][1]:.2f} "
                  f"all p50/p95 {r['all'][0]:.1f} / {r['all'][1]:.1f}  none p50/p95 {r['none'][0]:.1f} / "
                  f"{r['none'][1]:.1f}  dense_g {r['dense_global']:.1f} bm25 {r['bm25']:.1f} "
                  f"lex {r['lexical']:.1f} faults {r['faults']}")
        med = {key: [statistics.median(r[key][i] for r in runs) for i in (0, 1)] for key in ("all", "none")}
        under = sum(r["all"][1] <= 30 for r in runs)
        print(f"  MEDIAN all p50/p95 {med['all'][0]:.1f} / {med['all'][1]:.1f} none {med['none'][0]:.1f} / "
              f"{med['none'][1]:.1f}; runs with p95<=30: {under}/{len(runs)}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
