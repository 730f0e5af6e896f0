"""The compiled heap merge that skips blocks of positions (quest/retrieval/_sparse_numba.py `_select`, round 18)
leaves both heaps exactly as round 17's merge, kept here word for word, left them: the same entries, float32 bits
and heap layout, over several segments, ties, NaN, negative and subnormal scores, deleted and disallowed rows, and
subsets clustered in a few blocks or spread over all. And the blocks each segment's subset rows fall in
(`subset_blocks`) are kept by the kernel only while they cannot change."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from quest.retrieval import kernels
from quest.retrieval.retriever import Retriever
from tests.retrieval.test_kernels import hits, loaded  # noqa: F401 (a fixture)

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed: pip install -e \".[fast]\"")

if HAVE_NUMBA:
    import numba

    from quest.retrieval import _sparse_numba as module

    # round 17's `_select` reads these by name, as in its own module
    _gate, _push, _replace_root, _worse = module._gate, module._push, module._replace_root, module._worse
    BLOCK = module.BLOCK
else:
    BLOCK = 128


def _select(acc, order, identity, start, deleted, allowed, use_allowed, vals, ids, size, subset, use_subset, sub_vals,
            sub_ids, sub_size):
    """Merge one segment's scores (by position) into the heap, and the rows of `subset` (with `use_subset`) into a
    second heap as well: the same scores' top k among those rows. The two heaps' new sizes.

    One test per position decides whether it is looked at: `v >= gate`, where gate is the least score a heap can still
    take (any positive score while a heap is not full; else the lower of the heaps' roots, ties included, as a tie can
    enter on its row). A position below the gate would be refused by both heaps anyway, so the heaps end exactly as
    without the gate. Why: half the positions at 1M score 0, so the old first test (v > 0) was mispredicted about
    every other position; the gate is passed by few positions once the heaps fill, and the loop over 1M positions
    went from 2.5 to 0.8 ms (docs/bench/scale-1m-round17)."""
    k = vals.size
    gate = _gate(vals, size, use_subset, sub_vals, sub_size)  # heaps filled by an earlier segment gate it at once
    for p in range(acc.size):
        v = acc[p]
        if not v >= gate:  # (a NaN fails it: every comparison with a NaN is False)
            continue
        if not v > 0:  # the top-k keeps positive scores only; never true here unless subnormals are read as 0 (DAZ)
            continue
        row = (p if identity else np.int64(order[p])) + start
        if deleted[row] or (use_allowed and not allowed[row]):
            continue
        if size < k:
            _push(vals, ids, size, v, row)
            size += 1
        elif _worse(vals[0], ids[0], v, row):
            _replace_root(vals, ids, size, v, row)
        if use_subset and subset[row]:
            if sub_size < k:
                _push(sub_vals, sub_ids, sub_size, v, row)
                sub_size += 1
            elif _worse(sub_vals[0], sub_ids[0], v, row):
                _replace_root(sub_vals, sub_ids, sub_size, v, row)
        gate = _gate(vals, size, use_subset, sub_vals, sub_size)
    return size, sub_size


old_select = numba.njit(nogil=True, error_model="numpy")(_select) if HAVE_NUMBA else None

TINY = float(np.nextafter(np.float32(0), np.float32(1)))
# Scores that tie often (so ties at a heap's root, across blocks, are common), and the odd ones.
TIED = np.asarray([0.0, 0.0, 0.0, -1.0, np.nan, TINY, 0.5, 1.0, 1.0, 2.0, 2.0, 3.0, np.inf], dtype=np.float32)


def scores_of(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "tied":
        return rng.choice(TIED, n)
    # continuous, half zeros, as at 1M; rising along the positions ("rising"), so the heaps keep taking late rows
    values = np.where(rng.random(n) < 0.5, 0.0, rng.exponential(1.0, n))
    if kind == "rising":
        values = values * np.linspace(0.1, 3.0, n)
    return values.astype(np.float32)


def subset_of(rng: np.random.Generator, size: int, layout: str) -> np.ndarray:
    subset = np.zeros(size, dtype=bool)
    if layout == "clustered" and size:  # one run of rows, as the general documents are in a scope-ordered base
        lo = int(rng.integers(0, size))
        subset[lo:lo + int(rng.integers(1, 3 * BLOCK))] = True
    elif layout == "spread":
        subset = rng.random(size) < 0.05
    elif layout == "all":
        subset[:] = True
    return subset


@hyp_settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 5 * BLOCK + 7), min_size=1, max_size=3), k=st.integers(1, 40),
       seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["tied", "continuous", "rising"]),
       layout=st.sampled_from(["clustered", "spread", "none", "all"]), use_subset=st.booleans(),
       use_allowed=st.booleans(), identity=st.booleans())
def test_the_blocked_merge_leaves_the_heaps_exactly_as_round_17s(sizes, k, seed, kind, layout, use_subset,
                                                                 use_allowed, identity):
    rng = np.random.default_rng(seed)
    total = sum(sizes)
    deleted, allowed = rng.random(total) < 0.1, rng.random(total) < 0.85
    subset = subset_of(rng, total, layout)
    old = [np.empty(k, np.float32), np.empty(k, np.int64), 0, np.empty(k, np.float32), np.empty(k, np.int64), 0]
    new = [np.empty(k, np.float32), np.empty(k, np.int64), 0, np.empty(k, np.float32), np.empty(k, np.int64), 0]
    start = 0
    for n in sizes:  # segments merged into the same heaps: a later one starts gated by what the earlier left
        acc = scores_of(rng, n, kind)
        order = np.arange(n, dtype=np.int32) if identity else rng.permutation(n).astype(np.int32)
        blocks = module.subset_blocks(order, identity, start, n, subset)
        old[2], old[5] = old_select(acc, order, identity, start, deleted, allowed, use_allowed, old[0], old[1],
                                    old[2], subset, use_subset, old[3], old[4], old[5])
        new[2], new[5] = module._select(acc, order, identity, start, deleted, allowed, use_allowed, new[0], new[1],
                                        new[2], subset, use_subset, blocks, new[3], new[4], new[5])
        start += n
    assert (new[2], new[5]) == (old[2], old[5])
    for a, b, size in ((0, 1, 2), (3, 4, 5)):  # the heaps' arrays as laid out: the same pushes in the same order
        assert new[a][:new[size]].view(np.uint32).tolist() == old[a][:old[size]].view(np.uint32).tolist()
        assert new[b][:new[size]].tolist() == old[b][:old[size]].tolist()


@hyp_settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 4 * BLOCK + 3), start=st.integers(0, 50), seed=st.integers(0, 2**32 - 1),
       identity=st.booleans(), layout=st.sampled_from(["clustered", "spread", "none", "all"]))
def test_subset_blocks_says_which_blocks_hold_a_row_of_the_subset(n, start, seed, identity, layout):
    rng = np.random.default_rng(seed)
    subset = subset_of(rng, start + n, layout)
    order = np.arange(n, dtype=np.int64) if identity else rng.permutation(n).astype(np.int64)
    in_subset = subset[order + start]  # by position
    expected = [bool(in_subset[lo:lo + BLOCK].any()) for lo in range(0, n, BLOCK)]
    assert module.subset_blocks(order, identity, start, n, subset).tolist() == expected


class CountingModule:
    """The compiled module, counting `subset_blocks` calls (a recording fake around the real function)."""

    def __init__(self) -> None:
        self.calls = 0

    def subset_blocks(self, *args):
        self.calls += 1
        return module.subset_blocks(*args)


def test_the_kernel_keeps_blocks_only_for_the_same_read_only_subset_and_order():
    counting = CountingModule()
    kernel = kernels.Kernel(counting)
    order = np.arange(300, dtype=np.int32)[::-1].copy()
    subset = np.zeros(300, dtype=bool)
    subset[:5] = True
    subset.flags.writeable = False
    first = kernel.subset_blocks(subset, order, 0, 300)
    assert first.tolist() == [False, False, True]  # rows 0-4 sit at the last positions
    assert kernel.subset_blocks(subset, order, 0, 300) is first and counting.calls == 1
    kernel.subset_blocks(subset, order.copy(), 0, 300)  # another order array: not the kept one
    assert counting.calls == 2
    writable = subset.copy()
    kernel.subset_blocks(writable, order, 0, 300)
    writable[:] = False  # a writable mask may change in place: it is scanned again on every call
    assert kernel.subset_blocks(writable, order, 0, 300).tolist() == [False, False, False]
    assert counting.calls == 4
    view = writable.view()  # read-only, but a view of a writable mask: it changes with it
    view.flags.writeable = False
    assert kernel.subset_blocks(view, order, 0, 300).tolist() == [False, False, False]
    writable[299] = True
    assert kernel.subset_blocks(view, order, 0, 300).tolist() == [True, False, False]
    assert counting.calls == 6


def test_the_kernel_keeps_at_most_keep_blocks_entries_dropping_the_oldest():
    counting = CountingModule()
    kernel = kernels.Kernel(counting)
    masks = []
    for _ in range(kernels.KEEP_BLOCKS + 1):
        mask = np.ones(10, dtype=bool)
        mask.flags.writeable = False
        masks.append(mask)
        kernel.subset_blocks(mask, None, 0, 10)
    assert len(kernel._blocks) == kernels.KEEP_BLOCKS
    kernel.subset_blocks(masks[-1], None, 0, 10)  # the newest is kept
    assert counting.calls == kernels.KEEP_BLOCKS + 1
    kernel.subset_blocks(masks[0], None, 0, 10)  # the oldest was dropped
    assert counting.calls == kernels.KEEP_BLOCKS + 2


class CountingProxy:
    """The compiled module as the retriever's kernel uses it, counting `subset_blocks` calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __getattr__(self, name):
        return getattr(module, name)

    def subset_blocks(self, *args):
        self.calls += 1
        return module.subset_blocks(*args)


def test_the_retriever_makes_each_segments_blocks_once_and_ranks_as_the_numpy_path(loaded, settings):  # noqa: F811
    """The general documents' mask is read-only, so the whole-base searches of every later question reuse the blocks
    made by the first (a scan of every row per search would cost more than the merge saves)."""
    index, kb, embedder = loaded
    numpy_hits = hits(Retriever(settings.replace(sparse_kernel="numpy"), index, kb, embedder))
    retriever = Retriever(settings, index, kb, embedder)
    counting = CountingProxy()
    retriever._kernel._m = counting
    assert hits(retriever) == numpy_hits
    made = counting.calls
    # at most one per segment, BM25's and lexical's (one when the two share the segment's row order, as here)
    assert 1 <= made <= len(index.bm25.segments) + len(index.lexical.parts)
    assert hits(retriever) == numpy_hits
    assert counting.calls == made
