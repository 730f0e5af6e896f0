"""SegmentedDense.search_rows keeps what it derives from a large row set nothing can change (KEEP_SCOPES sets, by
identity): the live rows and their runs, or the mask of the one filtered scan. Every search must give what main's
search_rows gave (kept below word for word, without its one kept set), whatever was kept before."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quest.retrieval import segments
from quest.retrieval.dense import DenseIndex, _best, cosines
from quest.retrieval.segments import GATHER_UP_TO, KEEP_SCOPES, SegmentedDense


def reference_search_rows(dense: SegmentedDense, query: np.ndarray, rows: np.ndarray, k: int):
    """main's (1ebd674) SegmentedDense.search_rows with nothing kept."""
    rows = np.asarray(rows, dtype=np.int64)
    rows = rows[~dense.deleted[rows]] if rows.size else rows
    runs = None if rows.size * 4 >= dense.size or rows.size == 0 else dense._runs(rows)
    if rows.size == 0 or k <= 0:
        return []
    if runs is not None:
        found = [(int(dense.offsets[s]) + r, v) for s, lo, hi in runs
                 for r, v in dense.parts[s].search_range(query, lo, hi, k)]
        found_rows = np.asarray([r for r, _ in found], dtype=np.int64)
        sims = np.asarray([v for _, v in found], dtype=np.float32)
        return [(int(found_rows[i]), float(sims[i])) for i in _best(sims, k, found_rows)]
    if rows.size * 4 >= dense.size or rows.size > GATHER_UP_TO:
        mask = np.zeros(dense.size, dtype=bool)
        mask[rows] = True
        return dense.search(query, k, mask, exact=rows.size * 4 < dense.size)
    sims = cosines(dense.vectors[rows], query)
    return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]


def make_dense(rng: np.random.Generator, sizes: list[int], dim: int, distinct: int, dead: float) -> SegmentedDense:
    pool = rng.standard_normal((distinct, dim)).astype(np.float32)
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    parts = [DenseIndex.from_vectors(pool[rng.integers(0, distinct, n)]) for n in sizes]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    deleted = rng.random(int(offsets[-1])) < dead
    return SegmentedDense(parts, offsets, deleted, dim)


def row_set(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """Ascending rows: a few runs, most of the base (the filtered scan), or a scattered handful."""
    if kind == "runs":
        a, b = sorted(rng.integers(0, n, 2).tolist())
        c = int(rng.integers(0, n))
        return np.unique(np.concatenate([np.arange(a, b + 1), np.arange(c, min(n, c + 7))])).astype(np.int64)
    if kind == "most":
        return np.flatnonzero(rng.random(n) < 0.8).astype(np.int64)
    return np.unique(rng.integers(0, n, 40)).astype(np.int64)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), sizes=st.lists(st.integers(1, 700), min_size=1, max_size=3),
       distinct=st.sampled_from([3, 30, 10**6]), dead=st.sampled_from([0.0, 0.05, 0.5]),
       kinds=st.lists(st.sampled_from(["runs", "most", "few"]), min_size=1, max_size=6),
       views=st.lists(st.sampled_from(["frozen", "writable", "view_of_writable"]), min_size=6, max_size=6),
       ks=st.lists(st.sampled_from([0, 1, 5, 30, 400]), min_size=1, max_size=3))
def test_every_search_gives_mains_list_whatever_was_kept(seed, sizes, distinct, dead, kinds, views, ks):
    rng = np.random.default_rng(seed)
    dense = make_dense(rng, sizes, 16, distinct, dead)
    sets = []
    for kind, view in zip(kinds, views, strict=False):
        rows = row_set(rng, dense.size, kind)
        if view == "frozen":
            rows.flags.writeable = False
        elif view == "view_of_writable":
            rows = rows.view()
            rows.flags.writeable = False  # read-only, but its base is not: never kept
        sets.append(rows)
    for _ in range(3):  # in rotation, so sets are searched again after others (and pushed out past KEEP_SCOPES)
        query = rng.standard_normal(16).astype(np.float32)
        for rows in sets + sets[::-1]:
            for k in ks:
                assert dense.search_rows(query, rows, k) == reference_search_rows(dense, query, rows.copy(), k)


def counting(monkeypatch) -> list[int]:
    made = []
    real = SegmentedDense._scope
    monkeypatch.setattr(SegmentedDense, "_scope", lambda self, asked: made.append(asked.size) or real(self, asked))
    return made


def test_two_read_only_sets_searched_in_turn_are_each_read_once(monkeypatch):
    """The general documents and their hint-tier subset, asked in turn: neither pushes the other out (one kept set
    did: every question re-derived the live rows and runs of the set the last one had not asked)."""
    rng = np.random.default_rng(3)
    dense = make_dense(rng, [500, 300], 16, 10**6, 0.05)
    general = np.arange(100, 160, dtype=np.int64)
    general.flags.writeable = False
    subset = general[general % 3 != 0]  # a new array (boolean indexing), as the retriever's `_general_but`
    subset.flags.writeable = False
    made = counting(monkeypatch)
    for _ in range(5):
        query = rng.standard_normal(16).astype(np.float32)
        for rows in (general, subset):
            assert dense.search_rows(query, rows, 10) == reference_search_rows(dense, query, rows, 10)
    assert made == [general.size, subset.size]


def test_the_filtered_scans_mask_of_a_read_only_set_is_made_once_and_never_for_a_changeable_one(monkeypatch):
    """Most of the base ("every row but these kinds", the hint tier): the mask of the allowed live rows is made once
    for a read-only array. A writable array, or a read-only view of one, is read again on every search: changing its
    base changes the answer."""
    rng = np.random.default_rng(5)
    dense = make_dense(rng, [600], 16, 10**6, 0.1)
    most = np.flatnonzero(rng.random(600) < 0.8).astype(np.int64)
    most.flags.writeable = False
    made = counting(monkeypatch)
    query = rng.standard_normal(16).astype(np.float32)
    first = dense.search_rows(query, most, 20)
    assert dense._scopes[id(most)].mask is not None and not dense._scopes[id(most)].mask.flags.writeable
    for _ in range(3):
        assert dense.search_rows(query, most, 20) == first == reference_search_rows(dense, query, most, 20)
    assert made == [most.size]
    base = np.flatnonzero(rng.random(600) < 0.8).astype(np.int64)
    view = base.view()
    view.flags.writeable = False
    before = dense.search_rows(query, view, 20)
    best = before[0][0]
    base[np.searchsorted(base, best)] = base[np.searchsorted(base, best) - 1]  # the best row leaves the set
    after = dense.search_rows(query, view, 20)
    assert best not in [r for r, _ in after] and after == reference_search_rows(dense, query, base.copy(), 20)
    assert made == [most.size, view.size, view.size] and id(view) not in dense._scopes


def test_at_most_keep_scopes_sets_are_kept_the_oldest_dropped_first():
    rng = np.random.default_rng(9)
    dense = make_dense(rng, [640], 16, 10**6, 0.0)
    sets = []
    for i in range(KEEP_SCOPES + 2):
        rows = np.arange(i * 20, i * 20 + 15, dtype=np.int64)
        rows.flags.writeable = False
        sets.append(rows)
        dense.search_rows(rng.standard_normal(16).astype(np.float32), rows, 3)
    assert [s.asked for s in dense._scopes.values()] == sets[-KEEP_SCOPES:]
    small = np.arange(3, dtype=np.int64)  # under 1/SHARED_SCOPE of the rows: one problem's, never kept
    small.flags.writeable = False
    dense.search_rows(rng.standard_normal(16).astype(np.float32), small, 3)
    assert id(small) not in dense._scopes and len(dense._scopes) == KEEP_SCOPES
    assert segments.SHARED_SCOPE * small.size < dense.size
