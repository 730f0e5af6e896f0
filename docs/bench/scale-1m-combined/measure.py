"""The capped probe on a kept 1M index, as the merged code reads it (issue 14, fifth round).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-combined/measure.py INDEX_DIR OUT.json

INDEX_DIR is a 1M bench index in the current format (8-bit IVF, float16 lexical weights); OUT.json gets
`capped.measure`'s two cold runs (uncapped, then capped at 3,072 B per chunk), each two passes of 200 queries.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from quest.bench import capped

if __name__ == "__main__":
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.write_text(json.dumps(capped.measure(folder, (1_000_000, 400, 200), 3072), indent=1), encoding="utf-8")
