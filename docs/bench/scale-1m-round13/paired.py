"""Paired A/B at 1M, in one process: each no-problem question retrieved by every variant, the order rotating per
question, after a first (warm-up) pass of all of them.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round13/paired.py INDEX SHARE OUT.json A B [..]

Variants:
  seq          search_threads=1 (one search after another: main)
  threads2     search_threads=2 (the asking thread + one pool thread)
  threads3     search_threads=3
  aside2       search_threads=2, only the dense searches on the pool thread (measured with the round's 2nd commit)
  cand6        CANDIDATES_PER_RESULT = 6 (instead of 8), one thread
  lexscan      the whole-base lexical list by the exhaustive scan (scipy scatter) instead of MaxScore, one thread
  lexfbNN      the whole-base lexical MaxScore falls back to the scan above NN% of the postings
               (maxscore.FALLBACK_SHARE, 0.6 for both signals on main), one thread
  noahead      dense.READ_AHEAD_GATHERS off (main: a page fault per gathered row), one thread
With QUEST_BENCH_COLD=1, before every run the pages of every dense row outside the general documents' run are given
back (pages.release), as the recent-problems bound gives back other problems' rows: the IVF's candidates and the
fused rows are then read from the file, as after other questions pushed them out.
Every variant's hits (chunk ids, fused and shown scores) are compared with the first variant's; per variant the
per-question latency excluding embedding and each stage are summarized (p50 / p95 / mean), and the median
per-question ratio against the first variant.
"""

import contextlib
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from breakdown import percentiles, setup, timed

from quest.retrieval import dense, maxscore, pages
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

COLD = os.environ.get("QUEST_BENCH_COLD") == "1"


def variant(name: str, index, kb, embedder):
    threads = {"threads2": 2, "threads3": 3, "aside2": 2}.get(name, 1)
    retriever = Retriever(Settings(show_progress=False, search_threads=threads), index, kb, embedder)

    @contextlib.contextmanager
    def patched():
        saved = dense.CANDIDATES_PER_RESULT, dense.READ_AHEAD_GATHERS
        if name == "cand6":
            dense.CANDIDATES_PER_RESULT = 6
        if name == "noahead":
            dense.READ_AHEAD_GATHERS = False
        if name == "lexscan":
            index.lexical.pruned_search = index.lexical.search  # an instance attribute, removed below
        if name.startswith("lexfb"):
            pruned = type(index.lexical).pruned_search

            def lexical_falls_back(query, k, rows=None):
                kept = maxscore.FALLBACK_SHARE
                maxscore.FALLBACK_SHARE = int(name[5:]) / 100
                try:
                    return pruned(index.lexical, query, k, rows)
                finally:
                    maxscore.FALLBACK_SHARE = kept
            index.lexical.pruned_search = lexical_falls_back
        try:
            yield
        finally:
            dense.CANDIDATES_PER_RESULT, dense.READ_AHEAD_GATHERS = saved
            index.lexical.__dict__.pop("pruned_search", None)

    part = index.dense.parts[0]
    general = retriever._general_rows
    lo, hi = int(general.min()), int(general.max()) + 1
    assert len(index.dense.parts) == 1 and hi - lo == general.size  # one base, the general rows one run

    def run(query):
        if COLD:
            pages.release(part.vectors[:lo])
            pages.release(part.vectors[hi:])
        with patched():
            return timed(retriever, query)
    return run


def main(folder: Path, share: float, out: Path, names: list[str]) -> None:
    index, kb, embedder, chosen = setup(folder, share)
    runs = {name: variant(name, index, kb, embedder) for name in names}
    for query in chosen:  # the first pass: every page the probe reads becomes resident
        for name in names:
            runs[name](query)
    load = [os.getloadavg()]
    rows = []
    for i, query in enumerate(chosen):
        turn = names[i % len(names):] + names[:i % len(names)]
        got = {name: runs[name](query) for name in turn}
        rows.append({"identical": {n: got[n][0] == got[names[0]][0] for n in names[1:]},
                     **{n: got[n][1] for n in names}})
    load.append(os.getloadavg())
    summary = {"questions": len(rows), "cold": COLD, "load": [[round(x, 2) for x in v] for v in load],
               "columns": "p50, p95, mean (ms)"}
    for n in names:
        summary[n] = {"stages": percentiles([r[n] for r in rows])}
        if n != names[0]:
            summary[n]["identical_hits"] = sum(r["identical"][n] for r in rows)
            summary[n]["ratio_median"] = round(float(np.median([r[n]["no_embed"] / r[names[0]]["no_embed"]
                                                                for r in rows])), 3)
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
