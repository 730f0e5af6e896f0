"""What warming the compiled kernels costs when a retriever is made: in a fresh process, with numba's cache emptied
first (the first start after installing) and then with it filled (every later start).

    PYTHONPATH=. flock /work/bench.lock /tmp/nbvenv/bin/python docs/bench/scale-1m-kernel/warm_cost.py INDEX OUT.json

Each case runs in its own interpreter: import of quest.retrieval.kernels and the numba module, then `kernels.warm`
on the loaded index (one BM25 and one lexical call per segment with no query term), then one BM25 and one lexical
search with real terms, twice (the first must cost what the second does). Three fresh processes per case.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CACHE = ROOT / "quest" / "retrieval" / "__pycache__"

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from common import accept_tokenizer_3
accept_tokenizer_3()
from quest.retrieval.index import load_index
index = load_index(__import__("pathlib").Path(sys.argv[1]))
t = time.perf_counter()
from quest.retrieval import kernels
kernel = kernels.load("numba")
loaded = time.perf_counter() - t
seconds = kernels.warm(kernel, index)
total = time.perf_counter() - t
# then a first real search and the same again: the first must not pay for compiling
tokens = list(index.bm25.vocab)[:4]
lexical = {str(c): 0.2 for c in range(100, 104)}
calls = []
for _ in range(2):
    t = time.perf_counter()
    index.bm25.kernel_search(kernel, tokens, 30)
    index.lexical.kernel_search(kernel, lexical, 30)
    calls.append(round((time.perf_counter() - t) * 1000, 1))
print(json.dumps({"import_seconds": round(loaded, 3), "warm_seconds": round(seconds, 3),
                  "total_seconds": round(total, 3), "first_search_ms": calls[0], "second_search_ms": calls[1]}))
"""


def run(folder: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(Path(__file__).parent)], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(folder: Path, out: Path) -> None:
    result = {"load": [round(x, 2) for x in os.getloadavg()], "no_cache": [], "cached": []}
    for _ in range(3):
        for path in CACHE.glob("_sparse_numba.*.nb[ic]"):
            path.unlink()
        result["no_cache"].append(run(folder))
    for _ in range(3):
        result["cached"].append(run(folder))
    result["load_end"] = [round(x, 2) for x in os.getloadavg()]
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
