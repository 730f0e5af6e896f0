"""One search thread or two, at 1M, for questions that name no problem: alone, beside a busy machine, and with
several students asking at once (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round23/threads.py INDEX CHUNKS SHARE OUT.json \
        [PASSES] [HOGS] [CLIENTS] [all|none] [VARIANTS]

Round 20's probe questions (round 19's paired.setup) through the library's Retriever, as tail.py runs them. For each
variant (search-thread setting), in ABBA order after one warm-up pass of each:

- alone: PASSES passes, each question's median retrieval time excluding embedding; p50 / p95 over the questions;
- busy: the same with HOGS processes each running float32 matrix products (the shape of a local model generating an
  answer on the same cores), started before and stopped after;
- concurrent: CLIENTS threads sharing one Retriever (Gradio runs requests on several threads) each take the
  questions in turn from a shared queue, one pass: questions a second, and each question's time.

VARIANTS are the `search_threads` settings compared, "1,2" unless given ("1,0": one thread against the default).
With `all`, every probe question is run (those naming a problem too), not only the ones naming none.
Every variant's hit lists are compared with the one-thread run's (the same rows, in the same order).
"""
# ruff: noqa: E402
import json
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "scale-1m-round19"))
sys.path.insert(0, str(HERE.parent / "scale-1m-round20"))
from paired import setup
from tail import one

from quest.bench.corpus import NO_PROBLEM
from quest.plan import plan, retrieve
from quest.retrieval.retriever import Retriever
from quest.settings import Settings


def hog(stop) -> None:
    """Float32 matrix products until told to stop (one BLAS thread: one core, as a model's decoding keeps one busy)."""
    a = np.random.default_rng(0).standard_normal((512, 512), dtype=np.float32)
    while not stop.is_set():
        a = a @ a
        a /= np.abs(a).max() + 1


def hits(r: Retriever, query) -> list[str]:
    _, result = retrieve(r, plan(query.request, r))
    return [h.chunk.id for h in result.hits]


def passes(r: Retriever, chosen, n: int) -> list[float]:
    runs = [[one(r, q)["t"]["no_embed"] for q in chosen] for _ in range(n)]
    return [float(np.median(col)) for col in zip(*runs, strict=True)]


def concurrent(r: Retriever, chosen, clients: int) -> dict:
    queue = list(range(len(chosen)))
    lock = threading.Lock()
    times: list[float] = []

    def client() -> None:
        while True:
            with lock:
                if not queue:
                    return
                i = queue.pop()
            t = one(r, chosen[i])["t"]["no_embed"]
            with lock:
                times.append(t)

    workers = [threading.Thread(target=client) for _ in range(clients)]
    start = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - start
    return {"per_second": round(len(chosen) / wall, 2), "p50": round(float(np.percentile(times, 50)), 2),
            "p95": round(float(np.percentile(times, 95)), 2)}


def main(folder: Path, chunks: int, share: float, out: Path, n: int, hogs: int, clients: int, every: bool,
         variants: tuple[int, ...]) -> None:
    index, kb, embedder, queries, kinds = setup(folder, chunks, share)
    chosen = [q for q, kind in zip(queries, kinds, strict=True) if every or kind == NO_PROBLEM]
    named = [kind != NO_PROBLEM for kind in kinds if every or kind == NO_PROBLEM]

    def summary(times: list[float]) -> dict:
        out = {"p50": round(float(np.percentile(times, 50)), 2), "p95": round(float(np.percentile(times, 95)), 2)}
        if any(named):  # each kind of question apart too
            for label, want in (("none", False), ("named", True)):
                part = [t for t, n in zip(times, named, strict=True) if n == want]
                out[label] = [round(float(np.percentile(part, 50)), 2), round(float(np.percentile(part, 95)), 2)]
        return out

    runs = {t: Retriever(Settings(show_progress=False, search_threads=t), index, kb, embedder) for t in variants}
    reference = [hits(runs[variants[0]], q) for q in chosen]
    same = {t: sum(hits(r, q) == ref for q, ref in zip(chosen, reference, strict=True)) for t, r in runs.items()}
    result: dict = {"questions": len(chosen), "passes": n, "hogs": hogs, "clients": clients, "same_hits": same,
                    "load": [round(x, 2) for x in os.getloadavg()], "alone": {}, "busy": {}, "concurrent": {}}
    for order in (variants, variants[::-1]):
        for t in order:
            result["alone"].setdefault(str(t), []).append(summary(passes(runs[t], chosen, n)))
    if hogs:
        stop = multiprocessing.Event()
        procs = [multiprocessing.Process(target=hog, args=(stop,)) for _ in range(hogs)]
        for p in procs:
            p.start()
        time.sleep(1.0)
        for order in (variants, variants[::-1]):
            for t in order:
                result["busy"].setdefault(str(t), []).append(summary(passes(runs[t], chosen, n)))
        stop.set()
        for p in procs:
            p.join()
    if clients > 1:
        for order in (variants, variants[::-1]):
            for t in order:
                result["concurrent"].setdefault(str(t), []).append(concurrent(runs[t], chosen, clients))
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]),
         int(sys.argv[5]) if len(sys.argv) > 5 else 3, int(sys.argv[6]) if len(sys.argv) > 6 else 2,
         int(sys.argv[7]) if len(sys.argv) > 7 else 4, len(sys.argv) > 8 and sys.argv[8] == "all",
         tuple(int(v) for v in (sys.argv[9] if len(sys.argv) > 9 else "1,2").split(",")))
