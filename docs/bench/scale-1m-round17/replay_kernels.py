"""Replay round 15's recorded whole-base BM25 calls (calls.json) through the library loop and prototypes, paired per
call. SUBSET=1 PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round17/replay_kernels.py /tmp/bm/1m \
        main gated lib
(SUBSET=1: the general documents' mask is passed, as the retriever passes it.) Variants: main (3abd4b9), gated (the
gated merge alone, 726a0f8), lib (the library now); split/nodiv/nonorm/noacc/v2/v3 are the measurement-only loops of
proto.py, timed in two steps (scoring, merge)."""
# ruff: noqa: E402, SIM115
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "scale-1m-kernel"))
from common import accept_tokenizer_3

accept_tokenizer_3()
import numpy as np
import proto

from quest.retrieval import kernels
from quest.retrieval.chunktable import NO_PROBLEM
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever  # noqa: F401

lib = kernels._compiled()
old = proto.main_module("3abd4b9")  # main's loops (git show 3abd4b9:quest/retrieval/_sparse_numba.py), compiled apart
gated = proto.main_module("726a0f8")  # this round's first commit: the gated merge alone
idx = load_index(Path(sys.argv[1]))
bm = idx.bm25
calls = [c for q in json.load(open(str(HERE.parent / "scale-1m-round15" / "calls.json"))) for c in q]
seg = bm.segments[0]
f = kernels._fixed
args0 = (seg.rows, f(seg.postings.indptr), f(seg.postings.indices), f(seg.postings.data), f(bm._norms_by_position[0]))
where = kernels.Kernel._where(seg.order.order, 0, bm.deleted, None)
print("identity", where[1], "rows", seg.rows, "postings", seg.postings.indices.size, seg.postings.indices.dtype,
      seg.postings.data.dtype, file=sys.stderr)
# the general documents' mask, as the retriever passes it
subset = np.zeros(bm.deleted.size, dtype=bool)
subset[idx.chunks.problem == NO_PROBLEM] = True
USE_SUBSET = os.environ.get("SUBSET") == "1"
print("subset rows", int(subset.sum()), "used", USE_SUBSET, file=sys.stderr)

subset = f(subset)
buf = np.empty(1024, np.float32)


def heaps(k):
    return (np.empty(k, np.float32), np.empty(k, np.int64), 0, subset if USE_SUBSET else kernels._NO_MASK,
            USE_SUBSET, np.empty(k, np.float32), np.empty(k, np.int64), 0)


def ranked(h, size, sub_size=0):
    o = np.lexsort((h[1][:size], -h[0][:size]))
    so = np.lexsort((h[6][:sub_size], -h[5][:sub_size]))
    return h[1][o].tolist(), h[0][o].tolist(), h[6][so].tolist(), h[5][so].tolist()


def v_lib(cols, coefs, k, mod=lib):
    h = heaps(k)
    size, sub_size = mod.bm25_segment(*args0, cols, coefs, *where, *h)
    return ranked(h, size, sub_size), {}


def v_split(cols, coefs, k, acc_fn=proto.accumulate, sel=lib._select):
    h = heaps(k)
    t0 = time.perf_counter()
    acc = acc_fn(*args0, cols, coefs, buf) if acc_fn in (proto.accumulate2, proto.acc_v4) else acc_fn(*args0, cols,
                                                                                                       coefs)
    t1 = time.perf_counter()
    size, sub_size = sel(acc, *where, *h)
    t2 = time.perf_counter()
    return ranked(h, size, sub_size), {"acc": t1 - t0, "sel": t2 - t1}


VARS = {"main": lambda c, w, k: v_lib(c, w, k, old), "gated": lambda c, w, k: v_lib(c, w, k, gated), "lib": v_lib,
        "main_split": lambda c, w, k: v_split(c, w, k, sel=old._select), "split": v_split,
        "nodiv": lambda c, w, k: v_split(c, w, k, acc_fn=proto.acc_nodiv),
        "nonorm": lambda c, w, k: v_split(c, w, k, acc_fn=proto.acc_nonorm),
        "noacc": lambda c, w, k: v_split(c, w, k, acc_fn=proto.acc_noacc),
        "v2": lambda c, w, k: v_split(c, w, k, acc_fn=proto.acc_v2),
        "v3": lambda c, w, k: v_split(c, w, k, acc_fn=proto.acc_v3),
        "v4": lambda c, w, k: v_split(c, w, k, acc_fn=proto.acc_v4)}
names = [a for a in sys.argv[2:]] or list(VARS)
res = {n: [] for n in names}
parts = {n: {} for n in names}
same = 0
postings = []
for rep in range(2):
    for i, (cols, coefs, k, _rows) in enumerate(calls):
        c = f(np.asarray(cols, dtype=np.int64))
        w = f(np.asarray([np.float32(x * (bm.k1 + 1)) for x in coefs], dtype=np.float32))
        got = {}
        turn = names[i % len(names):] + names[:i % len(names)]
        for n in turn:
            t = time.perf_counter()
            got[n], sub = VARS[n](c, w, k)
            dt = time.perf_counter() - t
            if rep:
                res[n].append(dt * 1000)
                for key, v in sub.items():
                    parts[n].setdefault(key, []).append(v * 1000)
        if rep:
            same += all(got[n] == got[names[0]] for n in names if n not in ("nodiv", "nonorm", "noacc"))
            ip = seg.postings.indptr
            postings.append(sum(int(ip[x + 1] - ip[x]) for x in cols))
base = np.array(res[names[0]])
out = {"calls": len(calls), "identical": same, "load": os.getloadavg(),
       "postings_p50": float(np.median(postings))}
for n in names:
    a = np.array(res[n])
    out[n] = {"p50": round(float(np.median(a)), 3), "mean": round(float(a.mean()), 3),
              "ratio": round(float(np.median(a / base)), 3),
              **{k: round(float(np.median(v)), 3) for k, v in parts[n].items()}}
sys.stdout.write(json.dumps(out, indent=1) + "\n")
