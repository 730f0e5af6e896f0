"""Every probe question (naming a problem or not) through `before` and `after` (variants.py): the hits (chunk ids,
fused and shown scores) must be identical.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round19/hits.py INDEX CHUNKS SHARE OUT.json
"""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from paired import setup, timed  # noqa: E402
from variants import VARIANTS  # noqa: E402

from quest.bench.corpus import NO_PROBLEM  # noqa: E402
from quest.settings import Settings  # noqa: E402


def main(folder: Path, chunks: int, share: float, out: Path) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    before, after = (VARIANTS[n](Settings(show_progress=False), index, kb, embedder) for n in ("before", "after"))
    assert before._kernel is not None and after._kernel is not None, "numba is not installed"
    same = {"names_problem": [0, 0], "no_problem": [0, 0]}
    differ = []
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        key = "no_problem" if kind == NO_PROBLEM else "names_problem"
        a, b = timed(before, query)[0], timed(after, query)[0]
        same[key][0] += a == b
        same[key][1] += 1
        if a != b:
            differ.append(i)
    result = {"index": str(folder), "chunks": chunks, "share": share, "load": [round(x, 2) for x in os.getloadavg()],
              "identical_of": same, "differ": differ,
              "after_compact_bytes": after.compact_bytes}
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
