"""The block size of the merge (`_sparse_numba.BLOCK`): round 15's 821 recorded BM25 calls (general documents' mask
passed) through this branch's loops compiled with BLOCK 32, 64, 128, 256 and 512, paired per call (rotating order):
median call time and identical heaps. PYTHONPATH=. flock /work/bench.lock python \
docs/bench/scale-1m-round18/block_sizes.py /tmp/bm/1m"""
# ruff: noqa: E402
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-kernel"))
from common import accept_tokenizer_3

accept_tokenizer_3()
import numpy as np

from quest.retrieval import kernels
from quest.retrieval.chunktable import NO_PROBLEM
from quest.retrieval.index import load_index

SOURCE = (HERE.parents[2] / "quest" / "retrieval" / "_sparse_numba.py").read_text(encoding="utf-8")
SIZES = (32, 64, 128, 256, 512)


def with_block(size: int):
    text = SOURCE.replace("\nBLOCK = 128\n", f"\nBLOCK = {size}\n")
    path = Path(tempfile.mkdtemp()) / f"block{size}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"block{size}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULES = {size: with_block(size) for size in SIZES}
idx = load_index(Path(sys.argv[1]))
bm = idx.bm25
seg = bm.segments[0]
f = kernels._fixed
args = (seg.rows, f(seg.postings.indptr), f(seg.postings.indices), f(seg.postings.data), f(bm._norms_by_position[0]))
where = kernels.Kernel._where(seg.order.order, 0, bm.deleted, None)
subset = np.zeros(bm.deleted.size, dtype=bool)
subset[idx.chunks.problem == NO_PROBLEM] = True
subset = f(subset)
BLOCKS = {size: f(m.subset_blocks(*where[:3], seg.rows, subset)) for size, m in MODULES.items()}
RECORDED = (HERE.parent / "scale-1m-round15" / "calls.json").read_text(encoding="utf-8")
calls = [c for q in json.loads(RECORDED) for c in q]
times = {size: [] for size in SIZES}
identical = 0
for rep in range(2):
    for i, (cols, coefs, k, _) in enumerate(calls):
        cols = np.asarray(cols, np.int64)
        scaled = np.asarray([np.float32(c * (bm.k1 + 1)) for c in coefs], np.float32)
        got = {}
        turn = SIZES[i % len(SIZES):] + SIZES[:i % len(SIZES)]
        for size in turn:
            h = (np.empty(k, np.float32), np.empty(k, np.int64), 0, subset, True, BLOCKS[size],
                 np.empty(k, np.float32), np.empty(k, np.int64), 0)
            t = time.perf_counter()
            n, sub = MODULES[size].bm25_segment(*args, cols, scaled, *where, *h)
            if rep:
                times[size].append((time.perf_counter() - t) * 1000)
            got[size] = (h[0][:n].tolist(), h[1][:n].tolist(), h[6][:sub].tolist(), h[7][:sub].tolist())
        identical += rep and all(g == got[128] for g in got.values())
base = np.array(times[128])
print(json.dumps({"calls": len(calls), "identical_all_sizes": int(identical),
                  **{str(s): {"p50_ms": round(float(np.median(v)), 3),
                              "ratio_to_128": round(float(np.median(np.array(v) / base)), 3)}
                     for s, v in times.items()}}))
