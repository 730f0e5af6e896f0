"""The whole-base sparse top-k as compiled loops: an optional accelerator (numba, `pip install -e ".[fast]"`).

A question that names no problem ranks BM25 (once per query part) and the lexical weights over every row. In
numpy that is MaxScore (maxscore.py): hundreds of short numpy steps a call, which hold the GIL between them. Here the
same lists come from one compiled loop per segment: every posting of every query term is added into a float32
accumulator, in query order, with the numpy path's float32 operations, and one pass keeps the k best in a heap
ordered as `top_k_among` orders them; so the lists are bit-equal to the numpy path's (rows, float32 scores, ties:
tests/retrieval/test_kernels.py). The loop reads every posting, with no pruning: at 1.5-6 ns a posting (1M rows) it
beats numpy MaxScore, measured per call in docs/bench/scale-1m-kernel (the rule, and why no
list size picks MaxScore instead, is in docs/retrieval.md).

A question naming a problem ranks that problem's rows and the general documents, each by scope sums (scopes.py): the
same sums, bit-equal, come from one compiled call per segment and scope (`Kernel.scope_bm25`, `scope_lexical`), which
lets go of the GIL too, so those searches run beside the question's others (docs/bench/scale-1m-round25).

`QUEST_SPARSE_KERNEL` (`Settings.sparse_kernel`) chooses: `auto` (the default) and `numba` use numba when it is
installed, `numpy` never loads it. Without numba the numpy path runs, unchanged (one INFO line under `auto`, one
WARNING when `numba` was asked for by name); when numba is installed but fails to load, compile or run, one WARNING
is logged and the numpy path runs: search never breaks on the accelerator.

The first call of a compiled function compiles it (seconds), or loads it from numba's cache (`cache=True`: next to
this package, else the user's cache folder): `warm` does that for the loaded index's own array types when the
retriever is made, so no student's question pays for it.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

CHOICES = ("auto", "numba", "numpy")
# Every float16 as float32, exactly (indexed by the float16's bits): the lexical weights' upcast.
HALF = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
HALF.flags.writeable = False

_lock = threading.Lock()
_loaded: dict[str, Any] = {}  # "module": the compiled functions, or None once they could not be had
_failed = threading.Event()  # set after a kernel failed at search time: the numpy path from then on


class KernelUnavailable(RuntimeError):
    """The compiled kernels cannot run here (numba missing or failing); the numpy path is used."""


def _compiled(choice: str = "numba") -> Any | None:
    """The compiled module, imported once per process; None when numba is missing or broken (said once, see
    `_report`)."""
    with _lock:
        if "module" not in _loaded:
            try:
                _loaded["module"] = importlib.import_module("quest.retrieval._sparse_numba")
            except Exception as exc:  # ImportError, or numba failing as it loads (llvmlite, an old numpy)
                _loaded["module"], _loaded["error"] = None, exc
        if _loaded["module"] is None:
            _report(choice, _loaded["error"])
        return _loaded["module"]


def _report(choice: str, exc: BaseException) -> None:
    """Say once why the numpy path runs. The extra not installed under the default `auto` is an operator's choice,
    not a fault: INFO (a WARNING at every start would train operators to ignore warnings). Asked for by name
    (`numba`), or installed but failing to load: one WARNING."""
    missing = isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] in ("numba", "llvmlite")
    level = logging.INFO if missing and choice == "auto" else logging.WARNING
    if _loaded.get("reported", logging.NOTSET) >= level:
        return
    _loaded["reported"] = level
    log.log(level, "the compiled sparse search is unavailable (%s: %s); the numpy path is used. "
            "`pip install -e \".[fast]\"` installs numba", type(exc).__name__, exc)


def load(choice: str) -> Kernel | None:
    """The kernel for `Settings.sparse_kernel`, or None for the numpy path."""
    choice = (choice or "auto").strip().lower()
    if choice not in CHOICES:
        raise ValueError(f"sparse_kernel must be one of {CHOICES}, not {choice!r}")
    if choice == "numpy" or _failed.is_set():
        return None
    module = _compiled(choice)
    return Kernel(module) if module is not None else None


def _fixed(array: Any) -> np.ndarray:
    """A read-only view, so a mapped (read-only) list and a writable one of the same types share one compiled
    specialisation. Types still differ between a loaded segment (uint16 counts, int64 lexical offsets) and one built
    in memory (float32 counts, int32 offsets): `warm` runs every segment, so each is compiled before any question."""
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


_NO_ORDER = _fixed(np.zeros(1, dtype=np.int32))
# Each float16 bit pattern's float32 bits, as numpy casts it (exact; NaN payloads and -0.0 kept): Kernel.half_rows.
HALF_BITS = _fixed(np.arange(2**16, dtype=np.uint16).view(np.float16).astype(np.float32).view(np.uint32))
_NO_MASK = _fixed(np.zeros(1, dtype=bool))
_NO_BITS = _fixed(np.zeros(1, dtype=np.uint16))  # lexical_scope's unused weights: float16 bits, or float32 values
_NO_VALUES = _fixed(np.zeros(1, dtype=np.float32))


class Kernel:
    """The compiled whole-base top-k of SegmentedBM25 and SegmentedLexical (their `kernel_search`)."""

    def __init__(self, module: Any) -> None:
        self._m = module
        # (subset, order, start, rows) -> which blocks of the segment's positions hold a row of the subset
        # (`subset_blocks`), for read-only subsets (the retriever's general documents): one pass over a segment's
        # rows, made once instead of on every search.
        self._blocks: dict[tuple[int, int, int, int], tuple[np.ndarray, Any, np.ndarray]] = {}
        self._blocks_lock = threading.Lock()  # searches side by side (QUEST_SEARCH_THREADS) share the kept blocks

    # The two searches take each segment's arrays as the numpy path reads them (see segments.py). With `subset` (a
    # mask over the rows), the same pass also keeps the top k among those rows: `search(query, k, subset rows)`,
    # which a scope's own scoring would give (tests/retrieval/test_kernels.py), at the cost of a second small heap.

    def bm25(self, parts: Sequence[tuple[int, Any, Any, Any, np.ndarray, Any, int]], cols: np.ndarray,
             coefs: np.ndarray, k: int, deleted: np.ndarray, allowed: np.ndarray | None,
             subset: np.ndarray | None = None) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        """`parts`: per segment (rows, indptr, indices, data, norm by position, order or None, first row). The top k
        among the allowed rows, and among those of them in `subset` (empty without it)."""
        cols = _fixed(np.asarray(cols, dtype=np.int64))
        coefs = _fixed(np.asarray(coefs, dtype=np.float32))

        def run(part, heaps):
            rows, indptr, indices, data, norm, order, start = part
            return self._m.bm25_segment(rows, _fixed(indptr), _fixed(indices), _fixed(data),
                                        _fixed(np.asarray(norm, dtype=np.float32)), cols, coefs, *self._where(
                                            order, start, deleted, allowed), *heaps)
        return self._top(parts, k, run, subset)

    def lexical(self, parts: Sequence[tuple[int, Any, Any, Any, Any, int]], cols: np.ndarray, weights: np.ndarray,
                k: int, deleted: np.ndarray, allowed: np.ndarray | None,
                subset: np.ndarray | None = None) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        """`parts`: per segment (rows, indptr, indices, data (float16 or float32), order or None, first row); the
        two lists as `bm25` gives them."""
        cols = _fixed(np.asarray(cols, dtype=np.int64))
        weights = _fixed(np.asarray(weights, dtype=np.float32))

        def run(part, heaps):
            rows, indptr, indices, data, order, start = part
            data = np.asarray(data)
            where = self._where(order, start, deleted, allowed)
            if data.dtype == np.float16:
                return self._m.lexical_segment(rows, _fixed(indptr), _fixed(indices), _fixed(data.view(np.uint16)),
                                               HALF, cols, weights, *where, *heaps)
            return self._m.lexical_segment_f32(rows, _fixed(indptr), _fixed(indices),
                                               _fixed(np.asarray(data, dtype=np.float32)), cols, weights, *where,
                                               *heaps)
        return self._top(parts, k, run, subset)

    # A scope's sums (one problem's rows, the general documents: scopes.scope_sums) in one call per segment that lets
    # go of the GIL, so a named problem's scoped searches can run beside its other searches. `runs` is the scope's
    # exact runs of positions (scopes.ScopeRuns); the sums per index into the scope are bit-equal to scope_sums'.

    def scope_bm25(self, indptr: Any, indices: Any, data: Any, norm: np.ndarray, cols: np.ndarray, coefs: np.ndarray,
                   runs: Any, *, by_column: bool = False) -> np.ndarray:
        """Per index into the scope: the sum over the columns (in order) of tf * coef / (tf + norm[position]); with
        `by_column`, each column's own weight instead, a (scope, columns) float32 matrix."""
        out = np.zeros((runs.size, len(cols) if by_column else 1), dtype=np.float32)
        norm, cols, coefs = (_fixed(np.asarray(x, dtype=t)) for x, t in ((norm, np.float32), (cols, np.int64),
                                                                           (coefs, np.float32)))
        if self._m.bm25_scope(_fixed(indptr), _fixed(indices), _fixed(data), norm, cols, coefs, *_runs(runs), out,
                              by_column) < 0:
            raise IndexError("a posting list names a row outside its segment or scope")
        return out if by_column else out[:, 0]

    def scope_lexical(self, indptr: Any, indices: Any, data: Any, cols: np.ndarray, weights: np.ndarray,
                      runs: Any) -> np.ndarray:
        """Per index into the scope: the sum over the columns (in order) of the stored weight times the query's."""
        acc = np.zeros(runs.size, dtype=np.float32)
        cols = _fixed(np.asarray(cols, dtype=np.int64))
        weights = _fixed(np.asarray(weights, dtype=np.float32))
        data = np.asarray(data)
        half = data.dtype == np.float16
        bits = _fixed(data.view(np.uint16)) if half else _NO_BITS
        values = _NO_VALUES if half else _fixed(np.asarray(data, dtype=np.float32))
        status = self._m.lexical_scope(_fixed(indptr), _fixed(indices), bits, HALF, values, half, cols, weights,
                                       *_runs(runs), acc)
        if status < 0:
            raise IndexError("a posting list names a row outside its segment or scope")
        return acc

    def compact_scores(self, codes: np.ndarray, lo: int, hi: int, weights: np.ndarray) -> np.ndarray:
        """Rows lo..hi-1 of the 8-bit codes (dense.CompactRun) times `weights`, one float32 per row."""
        out = np.empty(hi - lo, dtype=np.float32)
        self._m.compact_scores(codes, lo, hi, _fixed(np.asarray(weights, dtype=np.float32)), out)
        return out

    def half_rows(self, vectors: np.ndarray, rows: np.ndarray) -> np.ndarray | None:
        """`vectors[rows].astype(np.float32)` for a C-contiguous float16 (n, dim) matrix and 1-d integer rows, value for
        value (every float16 is a float32: `HALF_BITS` holds numpy's own cast of each of the 65,536 patterns), or None
        when a row is outside the matrix or the matrix is not such (the caller's numpy path then answers, raising or
        wrapping as numpy does). numpy
        casts float16 one element at a time, ~2 ns each: 0.3 ms for the 150 fused rows of a question at 1M, which
        this lookup does in a quarter of that (docs/bench/scale-1m-round21)."""
        if vectors.dtype != np.float16 or vectors.ndim != 2 or not vectors.flags.c_contiguous:
            return None
        rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
        out = np.empty((rows.size, vectors.shape[1]), dtype=np.float32)
        if self._m.half_rows(_fixed(vectors.view(np.uint16)), _fixed(rows), HALF_BITS, out.view(np.uint32)) < 0:
            return None
        return out

    @staticmethod
    def _where(order: Any, start: int, deleted: np.ndarray, allowed: np.ndarray | None) -> tuple:
        return (_NO_ORDER if order is None else _fixed(order), order is None, int(start), _fixed(deleted),
                _NO_MASK if allowed is None else _fixed(allowed), allowed is not None)

    def _top(self, parts: Sequence[tuple], k: int, run: Callable[[tuple, tuple], tuple[int, int]],
             subset: np.ndarray | None) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        # Each call allocates its own accumulator (inside the compiled loop): one kept per thread and cleared by the
        # merge measured 1.09x (BM25) and 1.11x (lexical) slower at 1M (docs/bench/scale-1m-kernel).
        if k <= 0:
            return [], []
        vals, ids, size = np.empty(k, dtype=np.float32), np.empty(k, dtype=np.int64), 0
        sub_vals, sub_ids, sub_size = np.empty(k, dtype=np.float32), np.empty(k, dtype=np.int64), 0
        mask = _NO_MASK if subset is None else _fixed(subset)
        for part in parts:
            blocks = _NO_MASK if subset is None else self.subset_blocks(subset, part[-2], part[-1], part[0])
            size, sub_size = (int(x) for x in run(part, (vals, ids, size, mask, subset is not None, blocks, sub_vals,
                                                         sub_ids, sub_size)))
            if size < 0:
                raise IndexError(f"a posting list names a row outside its segment's {part[0]} rows")
        return _ranked(vals[:size], ids[:size]), _ranked(sub_vals[:sub_size], sub_ids[:sub_size])

    def subset_blocks(self, subset: np.ndarray, order: Any, start: int, rows: int) -> np.ndarray:
        """Which blocks of a segment's positions (`_sparse_numba.BLOCK` each) hold a row of `subset`. Kept for a
        read-only subset (the retriever's general documents), as long as it and the segment's order are the very same
        arrays; a mask that could change in place (writable, or a view of a writable array) is scanned on every call.
        At most KEEP_BLOCKS are kept, the oldest dropped first."""
        key = (id(subset), id(order), int(start), int(rows))
        kept = self._blocks.get(key)
        if kept is not None and kept[0] is subset and kept[1] is order:
            return kept[2]
        blocks = _fixed(self._m.subset_blocks(_NO_ORDER if order is None else _fixed(order), order is None,
                                              int(start), int(rows), _fixed(subset)))
        if frozen(subset):
            with self._blocks_lock:
                while len(self._blocks) >= KEEP_BLOCKS:
                    self._blocks.pop(next(iter(self._blocks)))
                self._blocks[key] = (subset, order, blocks)
        return blocks


KEEP_BLOCKS = 16


def _runs(runs: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A scope's runs as the compiled sums take them: first positions, ends (exclusive), shifts (position - index)."""
    return tuple(_fixed(np.asarray(x, dtype=np.int64)) for x in (runs.starts, runs.ends, runs.shifts))


def frozen(array: Any) -> bool:
    """Whether `array` and every array it is a view of are read-only: nothing in this process can change it."""
    while isinstance(array, np.ndarray):
        if array.flags.writeable:
            return False
        array = array.base
    return True


def _ranked(vals: np.ndarray, ids: np.ndarray) -> list[tuple[int, float]]:
    """A heap's entries best first: score descending, row ascending (the order `sparse.top_k_among` gives)."""
    order = np.lexsort((ids, -vals))
    # (tolist gives the same Python ints and floats as int() and float() of each element, in one call)
    return list(zip(ids[order].tolist(), vals[order].tolist(), strict=True))


def warm(kernel: Kernel | None, index: Any) -> float | None:
    """Compile (or load from numba's cache) the kernels for `index`'s own array types, with no query term, so the
    first question does not pay for it; the seconds it took, or None when the numpy path is in use. A failure
    logs one WARNING and turns the kernel off for the process."""
    if kernel is None:
        return None
    started = time.perf_counter()
    try:
        _warm(kernel, index)
    except Exception as exc:
        module = getattr(kernel, "_m", None)
        if module is None or not module.cache_fault(exc):  # a compile error: numba refused the index's arrays
            disable(exc)
            return None
        # numba's cache could not be read (a file cut short by a crash or a full disk, or left unreadable by another
        # user): every call would fail on it from now on, at every start. Compiled again without the cache instead.
        log.warning("numba's cache of the sparse kernels cannot be read (%s: %s); compiled without it. Deleting "
                    "the cached files (*.nbi, *.nbc) or setting NUMBA_CACHE_DIR brings the cache back",
                    type(exc).__name__, exc)
        module.without_cache()
        try:
            _warm(kernel, index)
        except Exception as again:
            disable(again)
            return None
    seconds = time.perf_counter() - started
    log.info("compiled sparse search ready in %.2f s", seconds)
    return seconds


def _warm(kernel: Kernel, index: Any) -> None:
    bm25 = index.bm25
    # With a subset (a writable mask: not kept), as the retriever's whole-base searches pass the general documents.
    if getattr(bm25, "segments", None) is not None:
        bm25.kernel_lists(kernel, (), 1, None, np.zeros(bm25.deleted.size, dtype=bool), warm=True)
        bm25.kernel_scores_for(kernel, (), np.zeros(0, dtype=np.int64), warm=True)
    lexical = getattr(index, "lexical", None)
    if lexical is not None and getattr(lexical, "parts", None) is not None:
        lexical.kernel_lists(kernel, {}, 1, None, np.zeros(lexical.deleted.size, dtype=bool), warm=True)
        lexical.kernel_scores_for(kernel, {}, np.zeros(0, dtype=np.int64), warm=True)
    kernel.compact_scores(_fixed(np.zeros((1, 1), dtype=np.uint8)), 0, 1, np.zeros(1, dtype=np.float32))
    kernel.half_rows(np.zeros((1, 1), dtype=np.float16), np.zeros(1, dtype=np.int64))


def disable(exc: BaseException) -> None:
    """Turn the compiled path off for this process after `exc` (one WARNING): the numpy path answers from now on."""
    with _lock:  # check and set at once: two searches failing side by side (QUEST_SEARCH_THREADS) warn once
        if _failed.is_set():
            return
        _failed.set()
    log.warning("the compiled sparse search failed (%s: %s); the numpy path is used from now on",
                type(exc).__name__, exc)


def failed() -> bool:
    return _failed.is_set()
