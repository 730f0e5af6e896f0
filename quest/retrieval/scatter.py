"""`acc[positions] += weights` in one compiled pass, for the whole-base sparse scores (issue 14).

numpy's `acc[at] += w` over a posting list is three passes (gather, add, scatter) with two temporaries the size
of the list. A posting list is one column of a sparse matrix, so scipy's CSC matrix-vector product over that
single column (times 1.0) does the same additions in one C loop, writing into `acc` itself: scipy is already a
dependency, and no new one is needed. The sums are bit-equal to numpy's: each `acc[i] + w * 1.0` is the float32
addition `acc[i] + w`, and a column's positions are distinct, so every position gets one addition per list, in
the order the lists are added (tests/retrieval/test_scatter.py).

scipy's kernels live in a private module (`scipy.sparse._sparsetools`); where it is missing or refuses the
arrays, numpy's own indexing does the same additions.
"""

from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)

try:  # the private kernel behind csc_matrix @ vector (scipy 1.x)
    from scipy.sparse import _sparsetools
    _MATVEC = getattr(_sparsetools, "csc_matvec", None)
except ImportError:  # pragma: no cover - a scipy without it
    _MATVEC = None

_ONE = np.ones(1, dtype=np.float32)


def add_at(acc: np.ndarray, positions: np.ndarray, weights: np.ndarray) -> None:
    """`acc[positions] += weights` for distinct `positions` (float32 `acc` and `weights`), in place.

    A position outside `acc` raises IndexError, as numpy's indexing does: the compiled loop does not check, so the
    positions' range is checked first (two reductions, a small share of the loop's time), and a damaged posting
    list cannot write outside the accumulator.
    """
    if positions.size == 0:
        return
    if positions.shape != weights.shape:
        raise ValueError(f"{positions.size} positions but {weights.size} weights")
    if int(positions.min()) < 0 or int(positions.max()) >= acc.size:
        raise IndexError(f"a position outside the {acc.size} rows")
    if (_MATVEC is not None and acc.dtype == np.float32 and acc.flags.c_contiguous and acc.flags.writeable
            and weights.dtype == np.float32 and positions.dtype.kind == "i"):
        try:
            pointers = np.array([0, positions.size], dtype=positions.dtype)
            _MATVEC(acc.size, 1, pointers, positions, weights, _ONE, acc)
            return
        except (TypeError, ValueError) as exc:  # a scipy whose kernel takes other arguments: numpy below
            log.debug("scipy's csc_matvec refused the arrays (%s); numpy indexing instead", exc)
    acc[positions] += weights
