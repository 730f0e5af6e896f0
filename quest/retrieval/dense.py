"""Dense search: FAISS inner product over L2-normalized vectors (= cosine similarity).

Vectors are stored as float16 in a FAISS `IndexScalarQuantizer` (QT_fp16): half the memory and
disk of float32, and a saved index is memory-mapped on load (`IO_FLAG_MMAP_IFC`), so loading
takes the same ~milliseconds at any size and only the pages a search touches become resident.
FAISS scans the float16 codes with SIMD, computing each product in float32; the final top-k
is re-scored in float32 from the stored rows with numpy, so every score a caller sees is the
same number whichever path found the row (the bench measures recall against float32 exact).

Search restricted to one problem is the product over that problem's rows only: a problem has
tens to hundreds of chunks, so this is both exact and far cheaper than searching everything
and filtering afterwards (an approximate index with a selective filter would lose recall).
A restriction to most of the base (hint tier: everything but official solutions) is one FAISS
scan with a bitmap of the allowed rows.

The general documents' rows (one long run, searched by every question) can also be kept as 8-bit codes
(`CompactRun`): a compiled pass over those, half the bytes of float16, bounds every row's float16 score, and FAISS's
own scanner then runs over the few rows that can reach the top, so the result is the same as the full scan's.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import faiss
import numpy as np

from quest.retrieval import pages
from quest.retrieval.memory import usable_memory
from quest.retrieval.sparse import first_k

log = logging.getLogger(__name__)

LARGE_SUBSET = 4  # a restriction to more than 1/4 of the rows is one filtered scan of all rows
# FAISS searches on one thread. Measured on the shared 2-vCPU machine under load (load average 6):
# with 2 OpenMP threads, an exact scan of 2,500 contiguous rows took 20 ms and a 200k-row scan 72 ms;
# with one, 0.55 ms and 33 ms (a parallel region waits for a core another process holds). A server
# answers several requests at once anyway. Training and filling an IVF index use every core.
SEARCH_THREADS = 1
READ_AHEAD_RUNS_UP_TO = 8192  # a run of at most this many rows (16 MB of 1024-d codes) is read ahead (search_range)
# The rows of the problems searched most recently stay resident, up to this many bytes of codes; the pages of an
# older one are given back (pages.release) when a newer one pushes it out. A problem's exact scan reads all its
# rows (~5 MB at 1M in the bench: 2,500 rows), and the 1M probe's 200 questions naming a problem left 581 MiB of
# such pages resident (most read by one question a pass): the largest share of the 1M memory budget, which it broke
# (docs/bench/scale-1m-round12). A problem asked again after it was pushed out reads its rows again, in one request
# (READ_AHEAD_RUNS_UP_TO): that read is the price of the budget.
RECENT_RUN_BYTES = 64 * 2**20
# ... but only in a base whose codes are larger than this: at 100k chunks (200 MiB of codes) everything fits in any
# machine that runs Quest, and giving pages back would only make named-problem questions read their rows again
# (at 1M, uncapped, the bound costs named-problem p50 40 -> 110 ms; under a 2,930 MiB limit it is faster).
RELEASE_ABOVE_BYTES = 2**30
# ... and only where the codes are more than 1/KEEP_SHARE of the memory the process may use (memory.usable_memory:
# the RAM, or its cgroup's limit where lower): at 1M (2 GB of codes) under the 3 KB-a-chunk budget's 2,930 MiB limit
# they are given back as before, while on a machine with RAM to spare (24 GiB here) the kernel keeps them, and a
# problem asked again is not read from the disk again (docs/bench/scale-1m-round23: named-problem p95 62.6-68.6 ->
# 31.2-33.5 ms there).
KEEP_SHARE = 4
# ... and there, rows gathered for a re-score are asked of the disk together first (`gather`).
READ_AHEAD_GATHERS = True
# FAISS ranks by its float16 arithmetic, which orders rows whose float32 scores are equal its own way. It
# is asked for this many rows beyond k, so that a tie at the k-th score is cut by row after the float32
# re-score, as every other list is cut (and as the Milvus store reproduces: milvus_hybrid.py).
TIE_EXTRA = 16
# OpenMP keeps its thread count per OS thread: the call below holds only for the importing thread, and any other
# (Gradio's workers, the quest-search pool) would start its searches with a team the machine's size. So every
# search sets it in its own thread once (`limit_search_threads`), and the pool's threads set it when they start.
_limited = threading.local()


def limit_search_threads() -> None:
    """FAISS on SEARCH_THREADS OpenMP threads in the calling thread (once per thread: a thread-local check after)."""
    if getattr(_limited, "threads", None) != SEARCH_THREADS:
        faiss.omp_set_num_threads(SEARCH_THREADS)
        _limited.threads = SEARCH_THREADS


limit_search_threads()
# Global search over a segment this large goes through an IVF index (4-bit codes, memory-mapped)
# instead of the exact scan; NPROBE lists are visited. Both chosen by `python -m quest bench`
# (docs/bench/README.md): the smallest size where the exact scan passes ~15 ms on 2 cores, and
# an nprobe whose recall@30 against exact is >= 0.99 on the bench's queries (at 1M it was the same
# from 8 to 32 probes: docs/bench/scale-1m-global7; 16 reads half the lists 32 did). The scan was
# 10-13 ms per 100k rows in round 12 (150k then) and 16.6 ms on the quiet machine of round 22, so
# from 100k rows, the size where the sparse search changes path too (retriever.PRUNE_FROM). At 100k
# the IVF gave recall@30 1.000 and the same hits on all 267 of the bench's questions
# (docs/bench/scale-100k-round22). A question far from every cluster loses recall at 16 probes
# (0.93 on the first 65k of those rows, which lack many questions' problems; 0.73 for random
# directions, whose exact top 30 are all below any floor): one more reason not to go lower.
APPROXIMATE_FROM = 100_000
NPROBE = 16
# The IVF lists hold 4-bit codes (512 B per 1024-d row, a quarter of float16). Questions that name no
# problem visit every list over time, so the whole IVF file joins the working set: with 8-bit codes
# (988 MiB at 1M) the mixed bench (25% of questions) broke the 3 KB/chunk budget by 355 MiB; with
# 4-bit (500 MiB) it ran 159 MiB under it (at 60%, still 223 MiB over: docs/bench/scale-1m-global7).
# The IVF's own order is approximate: it proposes CANDIDATES_PER_RESULT x k rows and those are
# re-scored exactly from the float16 rows (a few hundred single-page reads). With 4-bit codes, 4 x k
# gave recall@30 0.978 at 1M and 8 x k 0.9987. An 8-bit or float16 IVF written before still loads
# and is searched the same way (its code size is in its own file).
IVF_CODES = faiss.ScalarQuantizer.QT_4bit
CANDIDATES_PER_RESULT = 8
TRAIN_PER_LIST = 40
ADD_BATCH = 65536  # rows assigned to lists at once (a streamed compaction assigns in the same batches)
# A run of rows searched on every request (the general documents: 51,600 rows at 1M, 105 MB of float16 read per
# question) gets 8-bit codes when it has at least this many rows (below it the float16 scan is a few ms at most)...
COMPACT_FROM = 16_384
# ... and a segment's codes cover at most 1/COMPACT_SHARE of its rows (they are kept in memory: 1 byte a dimension).
COMPACT_SHARE = 8
_UNIT = 2.0**-24  # float32's unit roundoff


class CompactRun:
    """Rows lo..hi-1 of one segment as 8-bit codes, for a first pass that bounds every row's float16 score.

    Each dimension d is quantized on its own range over the run: x ~ low[d] + code * step[d]. So the query's
    product with a row is a constant plus sum_d (q[d] * step[d]) * code[d] (`approx`), within `bound(q)` of what
    FAISS's float16 scanner computes for that row. The bound adds up, for any summation order: the worst coding
    error of each dimension over the run (measured when encoding), the float32 rounding of FAISS's sum and of the
    compiled pass, and that of the weights. If tau is the kk-th highest approximate score, every row among the kk
    highest float16 scores has an approximate score of at least tau - 2 * bound: those rows (~650 of 51,600 at 1M)
    are the candidates, and FAISS's scanner run over them in row order keeps what it keeps over the whole run, ties
    included (a row below the kk-th score never changes which tied rows the heap keeps).
    """

    def __init__(self, lo: int, hi: int, codes: np.ndarray, low: np.ndarray, step: np.ndarray, error: np.ndarray,
                 largest: np.ndarray) -> None:
        self.lo, self.hi, self.codes = lo, hi, codes
        self.low, self.step = low, step  # float32, per dimension
        self.error = error  # float64: the largest |x - (low + code * step)| per dimension over the run
        self.largest = largest  # float64: the largest |x| per dimension (for FAISS's rounding)

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes)

    @classmethod
    def encode(cls, vectors: np.ndarray, lo: int, hi: int, block: int = 4096) -> CompactRun:
        """Codes for vectors[lo:hi] (float16), read in blocks: two passes, ranges then codes."""
        dim = vectors.shape[1]
        low = np.full(dim, np.inf, dtype=np.float32)
        high = np.full(dim, -np.inf, dtype=np.float32)
        for a in range(lo, hi, block):
            rows = np.asarray(vectors[a:min(a + block, hi)], dtype=np.float32)
            np.minimum(low, rows.min(axis=0), out=low)
            np.maximum(high, rows.max(axis=0), out=high)
        step = ((high - low) / np.float32(255)).astype(np.float32)
        step[~(step > 0)] = 1  # a constant dimension: every code 0, no error
        codes = np.empty((hi - lo, dim), dtype=np.uint8)
        error = np.zeros(dim, dtype=np.float64)
        largest = np.maximum(np.abs(low), np.abs(high)).astype(np.float64)
        for a in range(lo, hi, block):
            rows = np.asarray(vectors[a:min(a + block, hi)], dtype=np.float32)
            c = np.clip(np.rint((rows - low) / step), 0, 255).astype(np.uint8)
            codes[a - lo:a - lo + len(c)] = c
            decoded = low.astype(np.float64) + c * step.astype(np.float64)
            np.maximum(error, np.abs(rows.astype(np.float64) - decoded).max(axis=0), out=error)
        codes.flags.writeable = False
        return cls(lo, hi, codes, low, step, error, largest)

    def weights(self, query: np.ndarray) -> np.ndarray:
        return (np.asarray(query, dtype=np.float32).reshape(-1) * self.step).astype(np.float32)

    def bound(self, query: np.ndarray, weights: np.ndarray) -> float:
        """The largest |FAISS's float16 score - constant - approximate score| any row of the run can have."""
        n = self.codes.shape[1]
        gamma = n * _UNIT / (1 - n * _UNIT)  # a float32 sum of n products, in any order (with or without FMA)
        q = np.abs(np.asarray(query, dtype=np.float64).reshape(-1))
        w = float(np.abs(weights.astype(np.float64)).sum())
        coding = float(q @ self.error)
        faiss_sum = gamma * float(q @ self.largest)
        our_sum = gamma * 255 * w
        our_weights = 255 * _UNIT * w * 1.01  # each weight is q * step rounded to float32
        return (coding + faiss_sum + our_sum + our_weights) * 1.001 + 1e-7  # (the bound's own float64 rounding)

    def candidates(self, query: np.ndarray, lo: int, hi: int, kk: int, scores: Callable) -> np.ndarray:
        """The rows of lo..hi-1 (inside this run) that can be among the kk highest float16 scores, ascending.
        `scores(codes, lo, hi, weights)` is the compiled pass (kernels.Kernel.compact_scores)."""
        if hi - lo <= kk:
            return np.arange(lo, hi, dtype=np.int64)
        weights = self.weights(query)
        approx = scores(self.codes, lo - self.lo, hi - self.lo, weights)
        tau = float(np.partition(approx, approx.size - kk)[approx.size - kk])
        floor = tau - 2 * self.bound(query, weights)
        if not np.isfinite(floor):  # a query with NaN or inf in it: no bound, every row (as the full scan)
            return np.arange(lo, hi, dtype=np.int64)
        cut = np.float32(floor)
        if float(cut) > floor:  # compared in float32: rounded down, never up
            cut = np.nextafter(cut, np.float32(-np.inf))
        return np.flatnonzero(approx >= cut).astype(np.int64) + lo


def _best(sims: np.ndarray, k: int, ids: np.ndarray | None = None) -> np.ndarray:
    """Positions of the k highest values, best first, ties by id (row) ascending; negatives included."""
    n = sims.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    part = first_k(sims, k, ids) if n > k else np.arange(n)
    keys = ids[part] if ids is not None else part
    return part[np.lexsort((keys, -sims[part]))]


def _pairs(rows: np.ndarray, values: np.ndarray, order: np.ndarray) -> list[tuple[int, float]]:
    """[(int(rows[i]), float(values[i])) for i in order]: tolist gives those very ints and floats, in one call each."""
    return list(zip(rows[order].tolist(), values[order].tolist(), strict=True))


def cosines(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's inner product with the query in float32, a number that depends on that row alone.

    A BLAS matrix-vector product rounds a row differently depending on where it falls in the
    batch (the last rows of a count not divisible by the kernel's block take another path), so
    the same row would score differently in a problem's 30 hits, the IVF's 120 candidates and
    Milvus's returned rows; einsum sums each row on its own.
    """
    return np.einsum("ij,j->i", np.asarray(rows, dtype=np.float32),
                     np.asarray(query, dtype=np.float32).reshape(-1))


def bitmap_selector(mask: np.ndarray) -> tuple[faiss.IDSelector, np.ndarray]:
    """A FAISS selector admitting the rows where `mask` is true (keep the bits alive with it)."""
    bits = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return faiss.IDSelectorBitmap(int(mask.shape[0]), faiss.swig_ptr(bits)), bits


@contextmanager
def all_cores() -> Iterator[None]:
    """FAISS on every core for a build (k-means, encoding), back to SEARCH_THREADS after."""
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    _limited.threads = None  # (in this thread only, as OpenMP's count)
    try:
        yield
    finally:
        limit_search_threads()


def _empty_index(dim: int) -> faiss.Index:
    return faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)


class DenseIndex:
    def __init__(self, index: faiss.Index, ivf: faiss.Index | None = None) -> None:
        self.index = index
        self.ivf = ivf  # optional approximate index over the same rows (ids = row numbers)
        self.dim = index.d
        self._vectors: np.ndarray | None = None
        self._scanners = threading.local()  # one FAISS scanner per thread (_scanner)
        self.mapped = False  # the rows are a mapped file's pages (load), which `_keep_recent` may give back
        self._recent: OrderedDict[tuple[int, int], int] = OrderedDict()  # (lo, hi) -> bytes, least recent first
        self._recent_bytes = 0
        self._recent_lock = threading.Lock()
        self._compact: tuple[CompactRun, ...] = ()  # 8-bit codes of long runs (`compact_run`)
        self._compact_scores = None  # their compiled pass (kernels.Kernel.compact_scores)
        self._half_rows: Callable | None = None  # the compiled float16 -> float32 gather (`convert_with`), or numpy's

    def convert_with(self, half_rows: Callable | None) -> None:
        """Gather rows as float32 with `half_rows(vectors, rows)` (kernels.Kernel.half_rows: the same values as numpy's
        cast, which takes ~2 ns an element); None: numpy's cast."""
        self._half_rows = half_rows

    def float32_rows(self, rows: np.ndarray, read_ahead: bool = False) -> np.ndarray:
        """`vectors[rows]` as float32, the very values numpy's cast gives (every float16 is a float32); `read_ahead`:
        their pages asked for first where pages are given back (`gather`)."""
        rows = np.asarray(rows)
        if read_ahead and READ_AHEAD_GATHERS and rows.size > 1 and self._releases():
            pages.will_need_rows(self.vectors, rows)
        convert = self._half_rows
        if convert is not None and rows.ndim == 1 and rows.dtype.kind in "iu":
            try:
                out = convert(self.vectors, rows)
            except Exception as exc:  # the compiled gather failing: numpy's cast from now on
                log.warning("the compiled float16 gather failed (%s: %s); numpy casts the rows",
                            type(exc).__name__, exc)
                self._half_rows = None
            else:
                if out is not None:
                    return out
        return self.vectors[rows].astype(np.float32)

    def compact_run(self, lo: int, hi: int, scores: Callable) -> bool:
        """Keep 8-bit codes of rows lo..hi-1 (a run searched by every request: the general documents), for
        `search_range` over it or any run inside it; `scores` is the compiled pass. Whether the run is covered:
        not when it is shorter than COMPACT_FROM or the codes would pass 1/COMPACT_SHARE of the segment's rows."""
        if self._covering(lo, hi) is not None:
            return True
        if hi - lo < COMPACT_FROM or sum(c.hi - c.lo for c in self._compact) + hi - lo > self.size // COMPACT_SHARE:
            return False
        run = CompactRun.encode(self.vectors, lo, hi)
        with self._recent_lock:
            self._compact_scores = scores
            self._compact = (*self._compact, run)
        return True

    def _covering(self, lo: int, hi: int) -> CompactRun | None:
        for run in self._compact:
            if run.lo <= lo and hi <= run.hi:
                return run
        return None

    def build_approximate(self, nlist: int | None = None, seed: int = 0) -> None:
        """Train and fill an IVF index (IVF_CODES) over these rows, for approximate global search."""
        ivf = self.trained_approximate(nlist, seed)
        with all_cores():
            for start in range(0, self.size, ADD_BATCH):  # float32 batches: the whole matrix is never copied
                ivf.add(self.block(start, start + ADD_BATCH).astype(np.float32))
        self.ivf = ivf

    def trained_approximate(self, nlist: int | None = None, seed: int = 0) -> faiss.IndexIVFScalarQuantizer:
        """An empty IVF index trained on a sample of these rows (compaction.py fills one list by list on disk)."""
        n = self.size
        # ~sqrt(n) lists: at 1M rows, 4 x sqrt(n) (as measured at 100k) made training and every compaction's
        # k-means several minutes on two cores; recall at NPROBE is measured by the bench either way.
        nlist = min(nlist or max(16, int(np.sqrt(n)) // 16 * 16), n)  # k-means needs a point per list
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(n, min(n, nlist * TRAIN_PER_LIST), replace=False))
        quantizer = faiss.IndexFlatIP(self.dim)
        ivf = faiss.IndexIVFScalarQuantizer(quantizer, self.dim, nlist, IVF_CODES, faiss.METRIC_INNER_PRODUCT)
        ivf.referenced_objects = [quantizer]  # the quantizer must live as long as the index
        with all_cores():
            ivf.train(self.vectors[sample].astype(np.float32))
        return ivf

    @classmethod
    def from_vectors(cls, vectors: np.ndarray) -> DenseIndex:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2:
            raise ValueError(f"expected a (rows, dim) matrix, got shape {vectors.shape}")
        index = _empty_index(vectors.shape[1])
        if len(vectors):
            index.add(vectors)
        return cls(index)

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    @property
    def vectors(self) -> np.ndarray:
        """The stored float16 rows as a read-only numpy view of FAISS's own (possibly mapped) buffer."""
        if self._vectors is None or len(self._vectors) != self.size:
            if self.size == 0:
                self._vectors = np.zeros((0, self.dim), dtype=np.float16)
            else:
                flat = faiss.rev_swig_ptr(self.index.codes.data(), self.size * self.index.code_size)
                self._vectors = np.asarray(flat).view(np.float16).reshape(self.size, self.dim)
        return self._vectors

    def block(self, lo: int, hi: int) -> np.ndarray:
        """Rows lo..hi-1 for a bulk reader (build, compaction), asked of the disk in one request."""
        rows = self.vectors[lo:hi]
        pages.will_need(rows)
        return rows

    def advise_random(self) -> None:
        """Served to queries: a page fault reads its own page only, no read-around (see pages.py)."""
        pages.advise_array(self.vectors, pages.MADV_RANDOM)
        lists = self._mapped_lists()
        if lists is not None:
            pages.advise(int(lists.ptr), int(lists.totsize), pages.MADV_RANDOM)

    def _mapped_lists(self):
        """The IVF's inverted lists when they are a mapped file (`load_approximate`), else None."""
        if self.ivf is None:
            return None
        lists = faiss.downcast_InvertedLists(self.ivf.invlists)
        return lists if isinstance(lists, faiss.OnDiskInvertedLists) and lists.ptr is not None else None

    def _ivf_candidates(self, q: np.ndarray, k: int, selector: faiss.IDSelector | None) -> np.ndarray:
        """The IVF's top-k row ids for one query: the NPROBE nearest lists, each read in one request."""
        params = faiss.SearchParametersIVF(nprobe=NPROBE)
        if selector is not None:
            params.sel = selector
        nprobe = min(NPROBE, self.ivf.nlist)
        centroid_sims, probed = self.ivf.quantizer.search(q, nprobe)
        lists = self._mapped_lists()
        if lists is not None:
            for list_no in probed[0][probed[0] >= 0].tolist():
                entry = lists.lists.at(list_no)
                size = int(entry.size)
                if size:  # codes, then ids, one after the other in the file
                    pages.advise(int(lists.ptr) + int(entry.offset), size * (lists.code_size + 8),
                                 pages.MADV_WILLNEED)
        sims = np.empty((1, k), dtype=np.float32)
        ids = np.empty((1, k), dtype=np.int64)
        # FAISS's Python wrapper of search_preassigned takes no parameters (the selector): the C++ call does.
        self.ivf.search_preassigned_c(1, faiss.swig_ptr(q), k, faiss.swig_ptr(probed), faiss.swig_ptr(centroid_sims),
                                      faiss.swig_ptr(sims), faiss.swig_ptr(ids), False, params)
        return ids

    def rescore(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosine of `rows` against the query, computed in float32 (the rows read ahead as `gather` reads them)."""
        return cosines(self.float32_rows(rows, read_ahead=True), query)

    def gather(self, rows: np.ndarray) -> np.ndarray:
        """The float16 `rows` (any order). Where the file's pages may have been given back (`_releases`), they are
        first asked for together (pages.will_need_rows): the IVF's candidates and the fused rows of a question are
        spread over the file, and one synchronous page fault each was what made the global search slow after
        other problems' rows were given back (docs/bench/scale-1m-round12)."""
        if READ_AHEAD_GATHERS and rows.size > 1 and self._releases():
            pages.will_need_rows(self.vectors, rows)
        return self.vectors[rows]

    def _releases(self) -> bool:
        """Whether searched runs' pages are given back: a mapped file above RELEASE_ABOVE_BYTES of codes and above
        1/KEEP_SHARE of the memory this process may use."""
        if not self.mapped:
            return False
        codes = self.index.ntotal * int(self.index.code_size)
        return codes > RELEASE_ABOVE_BYTES and codes * KEEP_SHARE > (usable_memory() or 0)

    def with_rows(self, keep: np.ndarray, new_vectors: np.ndarray) -> DenseIndex:
        keep = np.asarray(keep, dtype=np.int64)
        old = self.vectors[keep].astype(np.float32)
        new = np.asarray(new_vectors, dtype=np.float32).reshape(-1, self.dim)
        return DenseIndex.from_vectors(np.vstack([old, new]))

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray | None = None, *,
               exact: bool = False) -> list[tuple[int, float]]:
        """Global top-k (row, cosine); `allowed` is an optional boolean mask over the rows; `exact` skips the IVF."""
        if self.size == 0 or k <= 0:
            return []
        limit_search_threads()
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        selector, _bits = bitmap_selector(allowed) if allowed is not None else (None, None)
        if self.ivf is not None and not exact:
            ids = self._ivf_candidates(q, min(k * CANDIDATES_PER_RESULT + TIE_EXTRA, self.size), selector)
        else:
            params = faiss.SearchParameters(sel=selector) if selector is not None else None
            _, ids = self.index.search(q, min(k + TIE_EXTRA, self.size), params=params)
        rows = ids[0][ids[0] >= 0].astype(np.int64)
        sims = self.rescore(rows, q)
        return _pairs(rows, sims, _best(sims, k, rows))

    def search_range(self, query: np.ndarray, lo: int, hi: int, k: int) -> list[tuple[int, float]]:
        """Exact top-k among rows lo..hi-1 (one problem's rows, or the general documents': stored together,
        see layout.py).

        FAISS's own float16 scanner runs over those rows' codes where they lie: no copy and no
        per-row selector check over the whole index (`_scan_run`).
        """
        if hi <= lo or k <= 0:
            return []
        limit_search_threads()  # (the scanner itself is one loop; set here as before every FAISS search)
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        if hi - lo <= READ_AHEAD_RUNS_UP_TO:  # a problem's rows: read in one request, not a fault per 4 KB page
            pages.will_need(self.vectors[lo:hi])  # (a long run, the general documents, is read by every query)
        kk = min(k + TIE_EXTRA, hi - lo)
        compact = self._covering(lo, hi) if hi - lo > kk else None
        if compact is not None:
            try:
                rows = self._scan_rows(q, compact.candidates(q, lo, hi, kk, self._compact_scores), kk)
            except Exception as exc:  # the compiled pass failing: the float16 scan from now on
                log.warning("the 8-bit first pass failed (%s: %s); the float16 scan is used", type(exc).__name__, exc)
                self._compact = ()
                compact = None
        if compact is None:
            rows = self._scan_run(q, lo, hi, kk)
        # The scan just read these rows, so `rescore`'s read-ahead (`gather`: one request for all their pages, ~0.1-0.35
        # ms at 1M) would only ask for resident pages.
        sims = cosines(self.float32_rows(rows), q)
        if hi - lo <= READ_AHEAD_RUNS_UP_TO:
            self._keep_recent(lo, hi)
        return _pairs(rows, sims, _best(sims, k, rows))

    def _keep_recent(self, lo: int, hi: int) -> None:
        """Count rows lo..hi-1 among the recently searched runs; give back the pages of those pushed out past
        RECENT_RUN_BYTES (only for a mapped file: released pages are read again from it when next touched)."""
        if not self._releases():
            return
        pushed_out = []
        with self._recent_lock:  # requests may search from several threads
            if (lo, hi) in self._recent:
                self._recent.move_to_end((lo, hi))
                return
            self._recent[(lo, hi)] = size = (hi - lo) * int(self.index.code_size)
            self._recent_bytes += size
            while self._recent_bytes > RECENT_RUN_BYTES and len(self._recent) > 1:
                run, size = self._recent.popitem(last=False)
                self._recent_bytes -= size
                pushed_out.append(run)
        for a, b in pushed_out:  # a run another thread is scanning right now is only read again
            pages.release(self.vectors[a:b])

    def _scan_run(self, q: np.ndarray, lo: int, hi: int, k: int) -> np.ndarray:
        """The rows FAISS's search would keep among lo..hi-1: the same scanner, arithmetic and heap.

        `index.search` with a range selector scans every row of the index and checks the selector for
        each (~1.7 ms of ~6.7 at 1M rows for the general documents' 51,600), and a scratch index
        copies the codes. The scanner is handed the run's codes in place instead: each row's product
        is computed by the same code on the same bytes, and rows enter the heap in the same (row)
        order, so the kept rows are the same, ties included (tests/retrieval/test_dense_runs.py).
        """
        scanner = self._scanner()
        scanner.set_query(faiss.swig_ptr(q))
        sims = np.full(k, -np.inf, dtype=np.float32)  # an all-equal min-heap: what FAISS's search starts from
        ids = np.full(k, -1, dtype=np.int64)
        codes = self.vectors[lo:hi].view(np.uint8)
        scanner.scan_codes(hi - lo, faiss.swig_ptr(codes), None, faiss.swig_ptr(sims), faiss.swig_ptr(ids), k)
        return ids[ids >= 0] + lo  # (store_pairs with list 0: the label is the position in the run)

    def _scan_rows(self, q: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
        """The rows FAISS's scanner keeps among `rows` (ascending): their codes gathered in row order, so each row
        enters the heap as it would in `_scan_run` over a run holding them. Not `gather`: its read-ahead is one
        system call a row (1.6 ms for 650 rows at 1M), for pages given back, and a compact run's never are."""
        codes = np.ascontiguousarray(self.vectors[rows]).view(np.uint8)
        scanner = self._scanner()
        scanner.set_query(faiss.swig_ptr(q))
        sims = np.full(k, -np.inf, dtype=np.float32)
        ids = np.full(k, -1, dtype=np.int64)
        scanner.scan_codes(rows.size, faiss.swig_ptr(codes), None, faiss.swig_ptr(sims), faiss.swig_ptr(ids), k)
        return rows[ids[ids >= 0]]

    def _scanner(self) -> faiss.InvertedListScanner:
        """This thread's scanner of the float16 codes (set_query mutates it; FAISS's wrapper never frees one)."""
        scanner = getattr(self._scanners, "scanner", None)
        if scanner is None:
            scanner = self.index.sq.select_InvertedListScanner(faiss.METRIC_INNER_PRODUCT, None, True, None, False)
            scanner.list_no = 0
            self._scanners.scanner = scanner
        return scanner

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact top-k among `rows` only."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0 or k <= 0:
            return []
        if rows.size * LARGE_SUBSET >= self.size:
            mask = np.zeros(self.size, dtype=bool)
            mask[rows] = True
            return self.search(query, k, mask)
        sims = self.rescore(rows, query)
        return _pairs(rows, sims, _best(sims, k, rows))

    def save(self, path: Path) -> None:
        faiss.write_index(self.index, str(path))

    def save_approximate(self, path: Path) -> None:
        faiss.write_index(self.ivf, str(path))

    def load_approximate(self, path: Path) -> None:
        """Memory-mapped inverted lists: only the lists a query visits are read."""
        ivf = faiss.read_index(str(path), faiss.IO_FLAG_MMAP)
        if not isinstance(ivf, faiss.IndexIVFScalarQuantizer) or ivf.ntotal != self.size or ivf.d != self.dim:
            raise ValueError(f"{path}: not an IVF index over this segment's {self.size} rows")
        self.ivf = ivf

    @classmethod
    def load(cls, path: Path) -> DenseIndex:
        """Memory-mapped: O(1) whatever the size; pages are read as searches touch them."""
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC)
        if not isinstance(index, faiss.IndexScalarQuantizer):
            raise ValueError(f"{path}: expected a float16 scalar-quantizer index, found {type(index).__name__}")
        loaded = cls(index)
        loaded.mapped = True
        return loaded
