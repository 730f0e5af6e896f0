"""This round's before/after retrievers, for paired runs in one process (paired.py, hits.py).

`before` is main as round 15 left it (8f8a081): the general documents' dense search scans their float16 rows
whole. Its search path is copied here from main (SegmentedDense.search_rows, DenseIndex.search_range), minus nothing
else; the kept 8-bit codes the library's retriever builds on the shared index are simply not used by it.
`after` is the library's Retriever as it stands (the 8-bit first pass over the general documents' run).
"""

import numpy as np

from quest.retrieval import pages
from quest.retrieval.dense import READ_AHEAD_RUNS_UP_TO, TIE_EXTRA, _best, limit_search_threads
from quest.retrieval.retriever import Retriever


def _old_search_range(part, query, lo, hi, k):
    """main's DenseIndex.search_range: FAISS's float16 scanner over the whole run."""
    if hi <= lo or k <= 0:
        return []
    limit_search_threads()
    q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
    if hi - lo <= READ_AHEAD_RUNS_UP_TO:
        pages.will_need(part.vectors[lo:hi])
    rows = part._scan_run(q, lo, hi, min(k + TIE_EXTRA, hi - lo))
    sims = part.rescore(rows, q)
    if hi - lo <= READ_AHEAD_RUNS_UP_TO:
        part._keep_recent(lo, hi)
    return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]


def _old_search_rows(dense, query, rows, k):
    """main's SegmentedDense.search_rows with the old search_range."""
    rows = np.asarray(rows, dtype=np.int64)
    asked = rows
    kept = dense._shared
    if kept is not None and kept[0] is rows:
        rows, runs = kept[1], kept[2]
    else:
        rows = rows[~dense.deleted[rows]] if rows.size else rows
        runs = None if rows.size * 4 >= dense.size or rows.size == 0 else dense._runs(rows)
    if rows.size == 0 or k <= 0:
        return []
    if runs is None:  # (not a run set: never compact, the library's path is main's)
        return dense.search_rows(query, asked, k)
    found = [(int(dense.offsets[s]) + r, v) for s, lo, hi in runs
             for r, v in _old_search_range(dense.parts[s], query, lo, hi, k)]
    found_rows = np.asarray([r for r, _ in found], dtype=np.int64)
    sims = np.asarray([v for _, v in found], dtype=np.float32)
    return [(int(found_rows[i]), float(sims[i])) for i in _best(sims, k, found_rows)]


class Before(Retriever):
    """main's general dense search: the float16 rows scanned whole."""

    def _dense_list(self, q, rows, k):
        if rows is None:
            return self.index.dense.search(q.dense, k)
        return _old_search_rows(self.index.dense, q.dense, rows, k)


VARIANTS = {"before": Before, "after": Retriever}
