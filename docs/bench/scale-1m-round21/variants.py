"""This round's before/after retrievers, for paired runs in one process (paired_all.py).

`before` is main's (ad4731f) code for what this round changes, put back for the length of each of its searches: the
fused rows' cosines (`Retriever._fused_rows`: float16 rows gathered, copied into place and cast by numpy inside the
product), fusion's tie keys (`Retriever._fused_on_ties`), the IVF candidates' and a run's kept rows' cosines
(`DenseIndex.rescore`, `DenseIndex.search_range`, `SegmentedDense.search_rows`: numpy's cast), the ranked lists'
conversion per element (those three, `DenseIndex.search`, `SegmentedDense.search` and `kernels._ranked`), each
loaded from git as a module of its own, and the index's columns as np.memmap objects again (a shallow copy of the
index whose chunk table holds the mapped arrays themselves, not plain views of them). `after` is the library. Both
share one index: everything else runs the very same code on the very same arrays (one thread: nothing else runs while
a search has main's code in place).
"""

import contextlib
import copy
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from quest.retrieval import kernels
from quest.retrieval.dense import DenseIndex
from quest.retrieval.retriever import Retriever
from quest.retrieval.segments import SegmentedDense

BASE = "ad4731f"  # main when this round began


def module_at(rev: str, path: str, name: str):
    """`path` at git revision `rev` as a module of its own."""
    text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    where = Path(tempfile.mkdtemp()) / f"{name}.py"
    where.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, where)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


_MAIN_RETRIEVER = module_at(BASE, "quest/retrieval/retriever.py", "main_retriever")
_MAIN_DENSE = module_at(BASE, "quest/retrieval/dense.py", "main_dense")
_MAIN_SEGMENTS = module_at(BASE, "quest/retrieval/segments.py", "main_segments")


_MAIN_KERNELS = module_at(BASE, "quest/retrieval/kernels.py", "main_kernels")
# (class, attribute, main's) put back during a `before` search
_PUT_BACK = [(DenseIndex, n, getattr(_MAIN_DENSE.DenseIndex, n)) for n in ("rescore", "search_range", "search")]
_PUT_BACK += [(SegmentedDense, n, getattr(_MAIN_SEGMENTS.SegmentedDense, n)) for n in ("search_rows", "search")]
_PUT_BACK += [(kernels, "_ranked", _MAIN_KERNELS._ranked)]


@contextlib.contextmanager
def mains_dense():
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in _PUT_BACK]
    for owner, name, main in _PUT_BACK:
        setattr(owner, name, main)
    try:
        yield
    finally:
        for owner, name, kept in saved:
            setattr(owner, name, kept)


def with_mapped_columns(index):
    """A shallow copy of `index` whose chunk table's columns are the np.memmap objects main read rows from."""
    chunks = copy.copy(index.chunks)
    for name in ("kind", "problem", "doc", "ordinal"):
        column = getattr(chunks, name)
        mapped = column if isinstance(column, np.memmap) else column.base
        assert isinstance(mapped, np.memmap) and mapped.shape == column.shape, name
        setattr(chunks, name, mapped)
    twin = copy.copy(index)
    twin.chunks = chunks
    return twin


class Before(Retriever):
    _fused_rows = _MAIN_RETRIEVER.Retriever._fused_rows
    _fused_on_ties = _MAIN_RETRIEVER.Retriever._fused_on_ties

    def __init__(self, settings, index, *args, **kwargs):
        super().__init__(settings, with_mapped_columns(index), *args, **kwargs)

    def search(self, *args, **kwargs):
        with mains_dense():
            return super().search(*args, **kwargs)


class After(Retriever):
    pass


VARIANTS = {"before": Before, "after": After}
