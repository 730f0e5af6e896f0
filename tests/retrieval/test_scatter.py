"""scatter.add_at: scipy's one-pass kernel gives numpy's float32 sums bit for bit, and refuses what numpy refuses."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quest.retrieval import scatter


@settings(max_examples=60, deadline=None)
@given(size=st.integers(1, 400), lists=st.integers(1, 5), seed=st.integers(0, 2**31 - 1),
       index_type=st.sampled_from([np.int32, np.int64]))
def test_the_sums_equal_numpys_list_after_list(size, lists, seed, index_type):
    rng = np.random.default_rng(seed)
    ours = rng.standard_normal(size).astype(np.float32)
    numpys = ours.copy()
    for _ in range(lists):
        positions = np.sort(rng.choice(size, int(rng.integers(0, size + 1)), replace=False)).astype(index_type)
        # weights of very different sizes, so that float32 rounding happens on most additions
        weights = (rng.standard_normal(positions.size) * 10.0 ** rng.integers(-6, 6, positions.size)).astype(np.float32)
        scatter.add_at(ours, positions, weights)
        numpys[positions] += weights
    assert ours.tobytes() == numpys.tobytes()


def test_the_compiled_kernel_is_the_one_used_here():
    # the equality above would hold for numpy's own fallback too: this machine's scipy has the kernel
    assert scatter._MATVEC is not None


def test_without_the_kernel_numpy_adds_the_same(monkeypatch):
    monkeypatch.setattr(scatter, "_MATVEC", None)
    acc = np.zeros(5, dtype=np.float32)
    scatter.add_at(acc, np.array([0, 3], dtype=np.int32), np.array([1.5, -2.0], dtype=np.float32))
    assert acc.tolist() == [1.5, 0.0, 0.0, -2.0, 0.0]


def test_a_kernel_that_refuses_the_arrays_falls_back_to_numpy(monkeypatch):
    def refuses(*args):
        raise TypeError("no such signature")

    monkeypatch.setattr(scatter, "_MATVEC", refuses)
    acc = np.ones(3, dtype=np.float32)
    scatter.add_at(acc, np.array([2], dtype=np.int64), np.array([0.25], dtype=np.float32))
    assert acc.tolist() == [1.0, 1.0, 1.25]


@pytest.mark.parametrize("positions", [[0, 5], [-1, 2], [1, 2, 9]])
def test_a_position_outside_the_accumulator_is_an_index_error_and_writes_nothing(positions):
    acc = np.zeros(5, dtype=np.float32)
    with pytest.raises(IndexError):
        scatter.add_at(acc, np.array(positions, dtype=np.int32), np.ones(len(positions), dtype=np.float32))
    assert not acc.any()


def test_other_dtypes_take_numpys_path_with_numpys_result():
    acc = np.zeros(4, dtype=np.float64)
    scatter.add_at(acc, np.array([1, 2], dtype=np.int32), np.array([0.1, 0.2], dtype=np.float64))
    assert acc.tolist() == [0.0, 0.1, 0.2, 0.0]


def test_mismatched_lengths_are_refused():
    with pytest.raises(ValueError):
        scatter.add_at(np.zeros(4, dtype=np.float32), np.array([1, 2], dtype=np.int32),
                       np.ones(3, dtype=np.float32))
