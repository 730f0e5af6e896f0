"""This round's before/after retrievers, for paired runs in one process (paired.py, hits.py).

`before` is the library's Retriever with main's (1ebd674) `SegmentedDense.search_rows` (loaded as a module of its own)
for the dense lists over a row set: one kept read-only set (the general documents, or their hint-tier subset, the last
one asked), and the hint tier's "every row but these kinds" passed writable, as main's `_allowed` made it, so its
live rows and its 1M mask are made on every search. `after` is the library (ad4ec84 on): up to KEEP_SCOPES read-only
sets kept, with the filtered scan's mask. Both share one index; the sparse searches get the very same arrays in both
(maxscore.AllowedRows keeps the last one by identity), so only the dense side differs.
"""

import importlib.util
import subprocess
import tempfile
from pathlib import Path
from typing import ClassVar

import numpy as np

from quest.retrieval.retriever import Retriever

BASE = "1ebd674"  # main when this round began


def module_at(rev: str, path: str, name: str):
    """`path` at git revision `rev` as a module of its own."""
    text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    where = Path(tempfile.mkdtemp()) / f"{name}.py"
    where.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, where)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_MAIN = module_at(BASE, "quest/retrieval/segments.py", "main_segments")


class Before(Retriever):
    """main's dense search over a row set."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not hasattr(self.index.dense, "_shared"):
            self.index.dense._shared = None  # main's one kept set (the library's is `_scopes`)
        self._writable: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _dense_list(self, q, rows, k):
        if rows is None:
            return self.index.dense.search(q.dense, k)
        if any(rows is every for every in self._everything_but.values()):  # main made these writable
            kept = self._writable.get(id(rows))
            if kept is None or kept[0] is not rows:
                kept = self._writable[id(rows)] = (rows, rows.copy())
            rows = kept[1]
        return _MAIN.SegmentedDense.search_rows(self.index.dense, q.dense, rows, k)

    def _allowed(self, rows, excluded):
        return Shared.allowed(self, rows, excluded)


class Shared:
    """One dict of "every row but these kinds" arrays for both variants (the sparse side's AllowedRows keeps the
    last array by identity: two variants' own arrays would make both rebuild its mask on every question)."""

    every: ClassVar[dict] = {}

    @staticmethod
    def allowed(retriever: Retriever, rows, excluded):
        retriever._everything_but = Shared.every
        return Retriever._allowed(retriever, rows, excluded)


class After(Retriever):
    def _allowed(self, rows, excluded):
        return Shared.allowed(self, rows, excluded)


VARIANTS = {"before": Before, "after": After}
