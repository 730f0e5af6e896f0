"""Rows gathered for their cosines are cast to float32 by a compiled lookup (round 21): the very values numpy's cast
gives, for every float16 bit pattern, any rows, and every place that reads them (the IVF candidates' re-score, a run's
kept rows, the fused rows' similarities). The reference is numpy's `vectors[rows].astype(np.float32)`, as the code
read them before; floats are compared by their bits (NaN payloads, -0.0)."""

from __future__ import annotations

import importlib.util
import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quest.retrieval import kernels
from quest.retrieval.dense import DenseIndex, cosines
from quest.retrieval.segments import SegmentedDense

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed: pip install -e \".[fast]\"")

EVERY_HALF = np.arange(2**16, dtype=np.uint16).view(np.float16)


@pytest.fixture(scope="module")
def kernel() -> kernels.Kernel:
    loaded = kernels.load("numba")
    assert loaded is not None
    return loaded


def bits(array: np.ndarray) -> np.ndarray:
    return np.asarray(array, dtype=np.float32).view(np.uint32)


def dense_of(halves: np.ndarray) -> DenseIndex:
    """A DenseIndex holding exactly these float16 rows (their codes written as they are, NaN and inf included)."""
    dense = DenseIndex.from_vectors(np.zeros((0, halves.shape[1]), dtype=np.float32))
    dense.index.add_sa_codes(np.ascontiguousarray(halves).view(np.uint8))
    assert np.array_equal(dense.vectors.view(np.uint16), halves.view(np.uint16))
    return dense


class Recording:
    """The compiled gather, its calls counted (or failing, with `fail`)."""

    def __init__(self, real, fail: Exception | None = None) -> None:
        self.real, self.fail, self.calls = real, fail, 0

    def __call__(self, vectors, rows):
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        return self.real(vectors, rows)


@needs_numba
def test_every_float16_pattern_is_cast_as_numpy_casts_it(kernel):
    """All 65,536: zeros of both signs, subnormals, normals, infinities and NaNs with their payloads."""
    matrix = EVERY_HALF.reshape(64, 1024)
    got = kernel.half_rows(matrix, np.arange(64))
    assert got.dtype == np.float32 and got.shape == (64, 1024)
    assert np.array_equal(bits(got), bits(matrix.astype(np.float32)))


@needs_numba
@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 40), dim=st.integers(1, 70), data=st.data())
def test_any_rows_of_any_matrix_are_numpys_cast(kernel, n, dim, data):
    """Rows in any order, repeated, none; any width; raw bit patterns anywhere in the matrix."""
    raw = data.draw(st.lists(st.integers(0, 2**16 - 1), min_size=n * dim, max_size=n * dim))
    matrix = np.asarray(raw, dtype=np.uint16).view(np.float16).reshape(n, dim)
    rows = np.asarray(data.draw(st.lists(st.integers(0, n - 1), max_size=60)), dtype=np.int64)
    got = kernel.half_rows(matrix, rows)
    assert got.shape == (rows.size, dim)
    assert np.array_equal(bits(got), bits(matrix[rows].astype(np.float32)))
    assert np.array_equal(bits(kernel.half_rows(matrix, rows.astype(np.int32))), bits(got))


@needs_numba
def test_rows_outside_the_matrix_or_other_arrays_are_left_to_numpy(kernel):
    """None, so that the caller's numpy indexing raises (or wraps a negative row) as it did."""
    matrix = np.ones((5, 3), dtype=np.float16)
    assert kernel.half_rows(matrix, np.array([0, 5])) is None
    assert kernel.half_rows(matrix, np.array([-1])) is None
    assert kernel.half_rows(matrix.astype(np.float32), np.array([0])) is None
    assert kernel.half_rows(np.ones((5, 6), dtype=np.float16)[:, ::2], np.array([0])) is None


@needs_numba
def test_the_dense_index_reads_rows_through_the_lookup_with_the_same_values(kernel):
    rng = np.random.default_rng(3)
    halves = rng.standard_normal((300, 24)).astype(np.float16)
    halves[7, :6] = EVERY_HALF[[0x0001, 0x8001, 0x7C00, 0xFC00, 0x7E01, 0x8000]]  # subnormal, inf, NaN, -0.0
    dense = dense_of(halves)
    rows = rng.integers(0, 300, 90)
    rows[:3] = 7
    plain = dense.float32_rows(rows)
    assert np.array_equal(bits(plain), bits(halves[rows].astype(np.float32)))
    gather = Recording(kernel.half_rows)
    dense.convert_with(gather)
    assert np.array_equal(bits(dense.float32_rows(rows)), bits(plain)) and gather.calls == 1
    # the IVF candidates' re-score and a run's kept rows: the cosines numpy's cast gave
    q = rng.standard_normal((1, 24)).astype(np.float32)
    assert np.array_equal(bits(dense.rescore(rows, q)), bits(cosines(halves[rows], q))) and gather.calls == 2
    dense.convert_with(None)
    expected = dense.search_range(q, 10, 290, 20)
    dense.convert_with(gather)
    assert dense.search_range(q, 10, 290, 20) == expected and gather.calls == 3
    with pytest.raises(IndexError):
        dense.float32_rows(np.array([300]))  # numpy's error, as before


@needs_numba
def test_a_failing_lookup_is_dropped_once_and_numpy_casts(kernel, caplog):
    halves = np.random.default_rng(4).standard_normal((20, 8)).astype(np.float16)
    dense = dense_of(halves)
    broken = Recording(kernel.half_rows, fail=RuntimeError("no matching definition"))
    dense.convert_with(broken)
    rows = np.array([3, 1, 3])
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.dense"):
        assert np.array_equal(bits(dense.float32_rows(rows)), bits(halves[rows].astype(np.float32)))
        assert np.array_equal(bits(dense.float32_rows(rows)), bits(halves[rows].astype(np.float32)))
    assert broken.calls == 1 and len(caplog.records) == 1 and "numpy casts" in caplog.records[0].getMessage()


@needs_numba
@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 40), min_size=1, max_size=3), data=st.data())
def test_segments_gather_as_their_rows_did(kernel, sizes, data):
    """`SegmentedDense.float32_rows` against the float16 rows its `vectors[rows]` gave, cast by numpy: one segment or
    several, rows in any order, repeated, a negative one (located as before)."""
    rng = np.random.default_rng(len(sizes) * 100 + sum(sizes))
    parts = [dense_of(rng.standard_normal((n, 12)).astype(np.float16)) for n in sizes]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    seg = SegmentedDense(parts, offsets, np.zeros(int(offsets[-1]), dtype=bool), 12)
    total = int(offsets[-1])
    rows = np.asarray(data.draw(st.lists(st.integers(-1 if len(sizes) == 1 else 0, total - 1), max_size=50)),
                      dtype=np.int64)
    try:
        expected = seg.vectors[rows].astype(np.float32)
    except IndexError:  # a negative row lands outside its segment: the same error
        for convert in (None, kernel.half_rows):
            seg.convert_with(convert)
            with pytest.raises(IndexError):
                seg.float32_rows(rows)
        return
    assert np.array_equal(bits(seg.float32_rows(rows)), bits(expected))
    seg.convert_with(kernel.half_rows)
    assert np.array_equal(bits(seg.float32_rows(rows)), bits(expected))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 400), parts=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_float16_rows_times_float32_parts_is_the_float32_rows_product(n, parts, seed):
    """What `Retriever._fused_rows` relies on: numpy multiplies float16 rows by float32 parts by casting the rows to
    float32 first (whole: past numpy's 8,192-element buffer too), so handing it the rows already cast gives the same
    product, bit for bit, at any count of rows."""
    rng = np.random.default_rng(seed)
    halves = rng.standard_normal((n, 1024)).astype(np.float16)
    stacked = rng.standard_normal((parts, 1024)).astype(np.float32)
    assert np.array_equal(bits((halves @ stacked.T).max(axis=1)),
                          bits((halves.astype(np.float32) @ stacked.T).max(axis=1)))
