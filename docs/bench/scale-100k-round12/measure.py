"""One cold, uncapped run of the fresh-process probe on a kept 100k index, as scale-1m-fusion measured 100k.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-100k-round12/measure.py INDEX OUT.json [SHARE]

INDEX is the saved index `python -m quest bench --sizes 100000 --queries 200 --model-up-to 0 --keep-index DIR`
leaves in DIR/100000-shape. The probe (`quest.bench.capped.cold_run`, no memory cap) evicts the index files from
the page cache, loads the index memory-mapped in a new process and runs the bench's 200 problem questions twice
(the second pass is the one reported); SHARE > 0 mixes in questions that name no problem (0.25: 67 more).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from quest.bench import capped, cgroup

if __name__ == "__main__":
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    share = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    start = [round(x, 2) for x in os.getloadavg()]
    run = capped.cold_run(folder, (100_000, 400, 200), None, cgroup.find_hierarchy(), share)
    end = [round(x, 2) for x in os.getloadavg()]
    out.write_text(json.dumps({"global_share": share, "load_average": {"start": start, "end": end}, "run": run},
                              indent=1), encoding="utf-8")
