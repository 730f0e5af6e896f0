"""Which searches touch which pages of the 1M index's dense files (no timing: a count of distinct pages).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round12/dense_pages.py INDEX SHARE OUT.json

The probe's mixed questions (200 that name a problem, plus SHARE that name none) run once through a Retriever,
in order, as `quest.bench.capped` sends them. Every read of a float16 row is recorded with the search that made
it: a problem's or the general documents' exact scan (`search_range`), the re-score of the global IVF's
candidates, and the fused rows' cosines (the floor and the shown score). The IVF lists each global search
visits are recorded too. Each kind's distinct 4 KiB pages are counted as the file lays the rows out today (the
FAISS header puts row r at byte 81 + 2048 r, so every other row straddles two pages), and as they would lie with
the rows at a 4 KiB boundary; then the union, adding the kinds in the order given.
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

import faiss
import numpy as np

from quest.bench import stages, vectors
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.plan import plan, retrieve
from quest.retrieval import dense as dense_mod
from quest.retrieval import retriever as retriever_mod
from quest.retrieval import segments as segments_mod
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings

PAGE = 4096
phase = ["load"]
rows_by: dict[str, list[np.ndarray]] = defaultdict(list)
lists_by: dict[str, list[int]] = defaultdict(list)


def record(rows: np.ndarray) -> None:
    rows_by[phase[0]].append(np.asarray(rows, dtype=np.int64).ravel())


def main(folder: Path, share: float, out: Path) -> None:
    index = load_index(folder)
    settings = Settings(show_progress=False)
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=1_000_000, seed=SEED), 200, share)
    centres = vectors.problem_centres(list(kb.problems))
    prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
    lookup = vectors.query_lookup(prepared, centres)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM, lookup, lexical=True)
    retriever = Retriever(settings, index, kb, embedder)
    part = index.dense.parts[0]
    base = int(part.vectors.ctypes.data) % PAGE  # the rows' offset in the file, modulo a page

    inner_range = dense_mod.DenseIndex.search_range

    def search_range(self, query, lo, hi, k):
        rows_by[phase[0] + ":scan"].append(np.arange(lo, hi, dtype=np.int64))
        saved = phase[0]
        phase[0] = saved + ":scan"
        try:
            return inner_range(self, query, lo, hi, k)
        finally:
            phase[0] = saved

    inner_rescore = dense_mod.DenseIndex.rescore

    def rescore(self, rows, query):
        if not phase[0].endswith(":scan"):
            record(rows)
        return inner_rescore(self, rows, query)

    inner_candidates = dense_mod.DenseIndex._ivf_candidates

    def ivf_candidates(self, q, k, selector):
        _, probed = self.ivf.quantizer.search(q, min(dense_mod.NPROBE, self.ivf.nlist))
        lists_by[phase[0]].extend(int(x) for x in probed[0] if x >= 0)
        return inner_candidates(self, q, k, selector)

    inner_getitem = segments_mod._Rows.__getitem__

    def getitem(self, rows):
        if not np.isscalar(rows):
            record(rows)
        return inner_getitem(self, rows)

    inner_rank = Retriever._rank
    inner_rank_part = Retriever._rank_part

    def rank(self, rows, k, queries, timings, scope):
        phase[0] = f"{scope}:fusion"
        try:
            return inner_rank(self, rows, k, queries, timings, scope)
        finally:
            phase[0] = "other"

    def rank_part(self, q, rows, k, lists, timings, scope):
        phase[0] = f"{scope}:lists"
        try:
            return inner_rank_part(self, q, rows, k, lists, timings, scope)
        finally:
            phase[0] = f"{scope}:fusion"

    dense_mod.DenseIndex.search_range = search_range
    dense_mod.DenseIndex.rescore = rescore
    dense_mod.DenseIndex._ivf_candidates = ivf_candidates
    segments_mod._Rows.__getitem__ = getitem
    Retriever._rank = rank
    Retriever._rank_part = rank_part
    assert retriever_mod.Retriever is Retriever

    per_kind_questions = defaultdict(int)
    for q, kind in zip(queries, kinds, strict=True):
        per_kind_questions[kind] += 1
        retrieve(retriever, plan(q.request, retriever))

    def pages_now(rows: np.ndarray) -> np.ndarray:
        first = (base + rows * 2048) // PAGE
        last = (base + rows * 2048 + 2047) // PAGE
        return np.unique(np.concatenate([first, last]))

    def pages_aligned(rows: np.ndarray) -> np.ndarray:
        return np.unique(rows // 2)

    report: dict = {"questions": dict(per_kind_questions), "row_offset_mod_page": base, "dense_rows": {}}
    union_now = np.zeros(0, dtype=np.int64)
    union_al = np.zeros(0, dtype=np.int64)
    order = sorted(rows_by, key=lambda name: (not name.endswith(":scan"), name))
    for name in order:
        rows = np.unique(np.concatenate(rows_by[name]))
        now, al = pages_now(rows), pages_aligned(rows)
        new_now = np.setdiff1d(now, union_now, assume_unique=True)
        new_al = np.setdiff1d(al, union_al, assume_unique=True)
        union_now = np.union1d(union_now, now)
        union_al = np.union1d(union_al, al)
        report["dense_rows"][name] = {
            "reads": int(sum(r.size for r in rows_by[name])), "distinct_rows": int(rows.size),
            "mib_now": round(now.size * PAGE / 2**20, 1), "mib_aligned": round(al.size * PAGE / 2**20, 1),
            "new_mib_now": round(new_now.size * PAGE / 2**20, 1),
            "new_mib_aligned": round(new_al.size * PAGE / 2**20, 1)}
    report["dense_union_mib"] = {"now": round(union_now.size * PAGE / 2**20, 1),
                                 "aligned": round(union_al.size * PAGE / 2**20, 1)}
    ivf = part.ivf
    invlists = faiss.downcast_InvertedLists(ivf.invlists) if ivf is not None else None
    if invlists is not None:
        for name, lists in lists_by.items():
            distinct = sorted(set(lists))
            size = sum(int(invlists.list_size(x)) for x in distinct) * (invlists.code_size + 8)
            report.setdefault("ivf_lists", {})[name] = {"visits": len(lists), "distinct": len(distinct),
                                                         "of": int(ivf.nlist), "mib": round(size / 2**20, 1)}
    out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3]))
