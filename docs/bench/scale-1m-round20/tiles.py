"""Does the whole-base sparse scoring wait on its accumulator? The BM25 and lexical kernel calls of the no-problem
questions are recorded, then their scoring loops (not the merge) replayed: as main runs them (every column over all
positions in turn) against a tiled order (all columns over TILE positions, then the next TILE), which adds the same
float32 terms to each position in the same column order, so the accumulators must be bit-equal.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round20/tiles.py INDEX CHUNKS SHARE OUT.json \
        [TILE ...]
"""
# ruff: noqa: E402
import json
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
from paired import setup, timed

from quest.bench.corpus import NO_PROBLEM
from quest.retrieval import kernels
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

OPT = {"nogil": True, "error_model": "numpy"}


@numba.njit(**OPT)
def bm25_plain(rows, indptr, indices, data, norm, cols, coefs):
    acc = np.zeros(rows, dtype=np.float32)
    for j in range(cols.size):
        c = coefs[j]
        lo, hi = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
        for p in range(lo, hi):
            at = np.uint64(indices[p])
            tf = np.float32(data[p])
            acc[at] += tf * c / (tf + norm[at])
    return acc


@numba.njit(**OPT)
def bm25_tiled(rows, indptr, indices, data, norm, cols, coefs, tile):
    acc = np.zeros(rows, dtype=np.float32)
    cur = np.empty(cols.size, dtype=np.uint64)
    end = np.empty(cols.size, dtype=np.uint64)
    for j in range(cols.size):
        cur[j], end[j] = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
    for t0 in range(0, rows, tile):
        t1 = np.uint64(min(t0 + tile, rows))
        for j in range(cols.size):
            c = coefs[j]
            p, hi = cur[j], end[j]
            while p < hi:
                at = np.uint64(indices[p])
                if at >= t1:
                    break
                tf = np.float32(data[p])
                acc[at] += tf * c / (tf + norm[at])
                p += np.uint64(1)
            cur[j] = p
    return acc


@numba.njit(**OPT)
def lex_plain(rows, indptr, indices, bits, table, cols, weights):
    acc = np.zeros(rows, dtype=np.float32)
    for j in range(cols.size):
        w = weights[j]
        lo, hi = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
        for p in range(lo, hi):
            acc[np.uint64(indices[p])] += table[bits[p]] * w
    return acc


@numba.njit(**OPT)
def lex_tiled(rows, indptr, indices, bits, table, cols, weights, tile):
    acc = np.zeros(rows, dtype=np.float32)
    cur = np.empty(cols.size, dtype=np.uint64)
    end = np.empty(cols.size, dtype=np.uint64)
    for j in range(cols.size):
        cur[j], end[j] = np.uint64(indptr[cols[j]]), np.uint64(indptr[cols[j] + 1])
    for t0 in range(0, rows, tile):
        t1 = np.uint64(min(t0 + tile, rows))
        for j in range(cols.size):
            w = weights[j]
            p, hi = cur[j], end[j]
            while p < hi:
                at = np.uint64(indices[p])
                if at >= t1:
                    break
                acc[at] += table[bits[p]] * w
                p += np.uint64(1)
            cur[j] = p
    return acc


def main(folder, chunks, share, out, tiles):
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if kind == NO_PROBLEM]
    r = Retriever(Settings(show_progress=False, search_threads=1), index, kb, embedder)
    calls = []
    orig_bm25, orig_lex = kernels.Kernel.bm25, kernels.Kernel.lexical

    def rec_bm25(self, parts, cols, coefs, *a, **kw):
        calls.append(("bm25", parts, np.asarray(cols, dtype=np.int64), np.asarray(coefs, dtype=np.float32)))
        return orig_bm25(self, parts, cols, coefs, *a, **kw)

    def rec_lex(self, parts, cols, weights, *a, **kw):
        calls.append(("lexical", parts, np.asarray(cols, dtype=np.int64), np.asarray(weights, dtype=np.float32)))
        return orig_lex(self, parts, cols, weights, *a, **kw)

    kernels.Kernel.bm25, kernels.Kernel.lexical = rec_bm25, rec_lex
    for q in chosen:
        timed(r, q)
    kernels.Kernel.bm25, kernels.Kernel.lexical = orig_bm25, orig_lex

    def run(kind, parts, cols, w, tile):
        assert len(parts) == 1
        if kind == "bm25":
            rows, indptr, indices, data, norm, _, _ = parts[0]
            norm = np.asarray(norm, dtype=np.float32)
            if tile is None:
                return bm25_plain(rows, indptr, indices, data, norm, cols, w)
            return bm25_tiled(rows, indptr, indices, data, norm, cols, w, tile)
        rows, indptr, indices, data, _, _ = parts[0]
        bits = np.asarray(data).view(np.uint16)
        if tile is None:
            return lex_plain(rows, indptr, indices, bits, kernels.HALF, cols, w)
        return lex_tiled(rows, indptr, indices, bits, kernels.HALF, cols, w, tile)

    variants = [None, *tiles]
    for c in calls[:2]:
        for v in variants:
            run(c[0], c[1], c[2], c[3], v)
    load = [os.getloadavg()]
    res = []
    for i, (kind, parts, cols, w) in enumerate(calls):
        indptr = parts[0][1]
        post = int(sum(indptr[c + 1] - indptr[c] for c in cols.tolist()))
        ms, ref = {}, None
        turn = variants[i % len(variants):] + variants[:i % len(variants)]
        for v in turn:
            t = time.perf_counter()
            acc = run(kind, parts, cols, w, v)
            ms[str(v)] = (time.perf_counter() - t) * 1000
            if v is None:
                ref = acc
            else:
                ms[f"same_{v}"] = None
        for v in tiles:
            ms[f"same_{v}"] = bool(np.array_equal(run(kind, parts, cols, w, v).view(np.uint32), ref.view(np.uint32)))
        res.append({"kind": kind, "cols": int(cols.size), "postings": post, **ms})
    load.append(os.getloadavg())
    summary = {"load": load, "calls": len(res)}
    for kind in ("bm25", "lexical"):
        g = [x for x in res if x["kind"] == kind]
        s = {"calls": len(g), "postings_p50": float(np.median([x["postings"] for x in g]))}
        for v in variants:
            s[f"ms_{v}_p50_p95"] = [round(float(np.percentile([x[str(v)] for x in g], q)), 3) for q in (50, 95)]
            if v is not None:
                s[f"ratio_{v}_median"] = round(float(np.median([x[str(v)] / x["None"] for x in g])), 3)
                s[f"identical_{v}"] = sum(x[f"same_{v}"] for x in g)
        summary[kind] = s
    Path(out).write_text(json.dumps({"summary": summary, "calls": res}), encoding="utf-8")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4],
         [int(a) for a in sys.argv[5:]] or [16384, 65536])
