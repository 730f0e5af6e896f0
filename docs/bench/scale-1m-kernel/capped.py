"""The memory budget at 1M with and without the compiled lists: `python -m quest.bench.capped` on round 12's index,
whose probe process is told to accept tokenizer version 3 (common.py says why).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-kernel/capped.py /tmp/bm/1m 0.6 OUT.json
    PYTHONPATH=. flock /work/bench.lock /tmp/nbvenv/bin/python docs/bench/scale-1m-kernel/capped.py ... OUT.json

The probe runs under the interpreter that runs this script: the system one has no numba (the numpy path), the
virtual environment has it (the kernel, `QUEST_SPARSE_KERNEL=auto`). The exhaustive loop reads every posting of the
query's terms, values included, where MaxScore binary-searches the long lists' positions: the page cache it leaves
is what the cgroup charges, so the budget is measured again.
"""

import json
import os
import sys
from pathlib import Path

from quest.bench import capped, lifecycle

if __name__ == "__main__":
    folder, share, out = Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3])
    lifecycle._PROBE = "import quest.retrieval.index as _i\n_i.TOKENIZER_VERSION = 3\n" + lifecycle._PROBE
    load = [round(x, 2) for x in os.getloadavg()]
    result = capped.measure(folder, (1_000_000, 400, 200), 3072, global_share=share)
    result["load_average"] = {"start": load, "end": [round(x, 2) for x in os.getloadavg()]}
    result["interpreter"] = sys.executable
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps({k: v for k, v in result.items() if k not in ("uncapped", "capped")}) + "\n")
