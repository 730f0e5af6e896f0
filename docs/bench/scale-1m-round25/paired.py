"""Paired in one process at 1M: this round's changes against the code without them (issue 14).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round25/paired.py INDEX CHUNKS SHARE OUT.json \
        KIND BEFORE [PASSES]

Round 24's paired.py (the same measure: each question on both Retrievers, the order alternating per question) with
this round's variants standing for the code before a change.
"""
import importlib.util
import sys
from pathlib import Path

from quest.retrieval import retriever as retriever_module
from quest.retrieval.retriever import Retriever

HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("paired24", HERE.parent / "scale-1m-round24" / "paired.py")
paired24 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(paired24)


def _round24_searches(self, queries, rows, k, scope, whole=None, signals=("bm25", "dense", "lexical")):
    """Round 24's rule: a sparse search runs outside the GIL (is offered to the pool) only in the whole-base kernels."""
    whole_base = whole is not None or rows is None or rows.size * retriever_module.SMALL_SCOPE > self.index.size
    return [search._replace(off_gil=search.off_gil and (search.signal == "dense" or whole_base))
            for search in Retriever._searches(self, queries, rows, k, scope, whole, signals)]


class NumpyScopes(Retriever):
    """Before the compiled scope sums: a scope's sparse sums and a named problem's word-by-word weights by numpy, the
    sums held by the asking thread."""

    def _scope_kernel(self, model):
        return None

    _searches = _round24_searches


class NumpyWords(Retriever):
    """The compiled scope sums, but a named problem's word-by-word weights (WithinProblem) by numpy."""

    def _by_local_idf(self, queries, rows, ordering):
        kernel, self._kernel = self._kernel, None
        try:
            super()._by_local_idf(queries, rows, ordering)
        finally:
            self._kernel = kernel


class CompiledHere(Retriever):
    """The compiled scope sums, still run by the asking thread (not offered to the pool)."""

    _searches = _round24_searches


paired24.VARIANTS.update({"numpy-scopes": NumpyScopes, "compiled-here": CompiledHere, "numpy-words": NumpyWords})

if __name__ == "__main__":
    paired24.main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]), sys.argv[5],
                  sys.argv[6], int(sys.argv[7]) if len(sys.argv) > 7 else 3)
