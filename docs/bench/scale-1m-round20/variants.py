"""This round's before/after retrievers, for paired runs in one process (paired_all.py).

`before` is the library's Retriever with main's (2e66107) rules for `SegmentedBM25.scores_for` over a few rows put
back for the length of each of its searches: rows are looked up in each term's postings only up to FEW_ROWS (64),
and the binary searches (`scopes.sorted_cuts`, main's, loaded from git as a module of its own) take the int64
positions as they are, so numpy converts the whole int32 posting list on each. `after` is the library. Both share
one index; everything else runs the very same code on the very same arrays (one thread: nothing else runs while a
search has main's rules in place).
"""

import contextlib
import importlib.util
import subprocess
import tempfile
from pathlib import Path

from quest.retrieval import scopes, segments
from quest.retrieval.retriever import Retriever

BASE = "2e66107"  # main when this round began


def module_at(rev: str, path: str, name: str):
    """`path` at git revision `rev` as a module of its own."""
    text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    where = Path(tempfile.mkdtemp()) / f"{name}.py"
    where.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, where)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_MAIN_SCOPES = module_at(BASE, "quest/retrieval/scopes.py", "main_scopes")


def _mains_looked_up(self, rows) -> bool:
    return rows.size <= self.few_rows


@contextlib.contextmanager
def mains_rules():
    saved = (segments.sorted_cuts, scopes.sorted_cuts, segments.SegmentedBM25._looked_up)
    segments.sorted_cuts = scopes.sorted_cuts = _MAIN_SCOPES.sorted_cuts
    segments.SegmentedBM25._looked_up = _mains_looked_up
    try:
        yield
    finally:
        segments.sorted_cuts, scopes.sorted_cuts, segments.SegmentedBM25._looked_up = saved


class Before(Retriever):
    def search(self, *args, **kwargs):
        with mains_rules():
            return super().search(*args, **kwargs)


class After(Retriever):
    pass


VARIANTS = {"before": Before, "after": After}
