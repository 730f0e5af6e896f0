"""acc[at] += w over one sorted posting list at 1M rows: numpy indexing, np.add.at, np.bincount, scipy's csc_matvec.

    flock /work/bench.lock python docs/bench/scale-1m-round12/scatter_micro.py

Synthetic lists of 30k, 300k and 700k distinct sorted positions (the range of the 1M whole-base lists); median ms
of 15 runs each. Also: float16 -> float32 conversion times a weight, marking the positions seen, the range check,
and top-k selection over all 1M rows vs over a 100k candidate set.
"""

import functools
import time

import numpy as np
from scipy.sparse import _sparsetools

N = 1_000_000


def timed(fn, reps: int = 15) -> float:
    spent = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        spent.append((time.perf_counter() - t) * 1000)
    return round(float(np.median(spent)), 3)


def fancy(acc, at, w):
    acc[at] += w


def add_at(acc, at, w):
    np.add.at(acc, at, w)


def bincount(acc, at, w):  # sums in float64: not bit-equal to float32 additions in general
    np.add(acc, np.bincount(at, w, minlength=acc.size), out=acc, casting="unsafe")


def matvec(acc, at, w):
    _sparsetools.csc_matvec(acc.size, 1, np.array([0, at.size], np.int64), at, w, np.ones(1, np.float32), acc)


def seen(acc, at, w):
    mask = np.zeros(acc.size, dtype=bool)
    mask[at] = True


def main() -> None:
    rng = np.random.default_rng(0)
    for m in (30_000, 300_000, 700_000):
        at = np.sort(rng.choice(N, m, replace=False)).astype(np.int32)
        w = rng.random(m, dtype=np.float32)
        half = w.astype(np.float16)
        acc = np.zeros(N, np.float32)
        row = {name: timed(functools.partial(fn, acc, at, w))
               for name, fn in (("numpy_index", fancy), ("np_add_at", add_at), ("np_bincount", bincount),
                                ("scipy_csc_matvec", matvec), ("mark_seen", seen))}
        row["f16_to_f32_times_weight"] = timed(lambda half=half: np.asarray(half, dtype=np.float32) * np.float32(0.3))
        row["range_check"] = timed(lambda at=at: (int(at.min()), int(at.max())))
        print(m, row)
    scores = rng.random(N, dtype=np.float32)
    candidates = np.sort(rng.choice(N, 100_000, replace=False))
    print({"argpartition_1M": timed(lambda: np.argpartition(-scores, 29)[:30]),
           "flatnonzero_1M": timed(lambda: np.flatnonzero(scores > 0.5)),
           "partition_100k_candidates": timed(lambda: np.partition(scores[candidates], candidates.size - 30))})


if __name__ == "__main__":
    main()
