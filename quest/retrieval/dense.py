"""Dense search: FAISS inner product over L2-normalized vectors (= cosine similarity).

Vectors live in a FAISS `IndexFlatIP` (its file format is what is saved). Searching is an exact
matrix-vector product over FAISS's own buffer through numpy (BLAS sgemv): measured at 100k x
1024 on 2 cores, ~9-13 ms against ~19-41 ms for `IndexFlatIP.search` with one query, and
exact, so no recall is lost (docs/bench/README.md has the numbers and the approximate indexes tried).

Search restricted to one problem is the product over that problem's rows only: a problem has
tens to hundreds of chunks, so this is both exact and far cheaper than searching everything
and filtering afterwards (an approximate index with a selective filter would lose recall).
A restriction to most of the base (hint tier: everything but official solutions) scores
every row once and picks from the allowed ones, instead of copying most of the matrix.
"""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np

LARGE_SUBSET = 4  # a restriction to more than 1/4 of the rows scores all rows once
# Below this many matrix elements, numpy's own single-threaded loop (einsum) does the product:
# multi-threaded BLAS gains nothing there, and on a busy 2-core machine waking its second
# thread was measured to stall a 1,000 x 1,024 product for ~8 ms instead of ~0.1 ms.
SINGLE_THREAD_MAX = 4_000_000


def _matvec(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    if matrix.size <= SINGLE_THREAD_MAX:
        return np.einsum("ij,j->i", matrix, q)
    return matrix @ q


def _best(sims: np.ndarray, k: int, ids: np.ndarray | None = None) -> np.ndarray:
    """Positions of the k highest values, best first, ties by id (row) ascending; negatives included."""
    n = sims.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-sims, k - 1)[:k] if n > k else np.arange(n)
    keys = ids[part] if ids is not None else part
    return part[np.lexsort((keys, -sims[part]))]


class DenseIndex:
    def __init__(self, index: faiss.Index) -> None:
        self.index = index
        self.dim = index.d
        self._vectors: np.ndarray | None = None

    @classmethod
    def from_vectors(cls, vectors: np.ndarray) -> DenseIndex:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        index = faiss.IndexFlatIP(vectors.shape[1])
        if len(vectors):
            index.add(vectors)
        return cls(index)

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    @property
    def vectors(self) -> np.ndarray:
        """The stored vectors as a read-only numpy view of FAISS's own buffer (no copy)."""
        if self._vectors is None or len(self._vectors) != self.size:
            if self.size == 0:
                self._vectors = np.zeros((0, self.dim), dtype=np.float32)
            else:
                flat = faiss.rev_swig_ptr(self.index.get_xb(), self.size * self.dim)
                self._vectors = np.asarray(flat).reshape(self.size, self.dim)
        return self._vectors

    def with_rows(self, keep: np.ndarray, new_vectors: np.ndarray) -> DenseIndex:
        keep = np.asarray(keep, dtype=np.int64)
        new_vectors = np.asarray(new_vectors, dtype=np.float32).reshape(-1, self.dim)
        # One gather into the final buffer (no vstack copy), then FAISS's own copy on add.
        out = np.empty((keep.size + len(new_vectors), self.dim), dtype=np.float32)
        np.take(self.vectors, keep, axis=0, out=out[: keep.size])
        out[keep.size:] = new_vectors
        return DenseIndex.from_vectors(out)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Global top-k (row, cosine similarity)."""
        if self.size == 0 or k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        sims = _matvec(self.vectors, q)
        return [(int(i), float(sims[i])) for i in _best(sims, k)]

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact top-k among `rows` only."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0 or k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        # A large subset: one pass over the whole matrix beats copying most of it.
        if rows.size * LARGE_SUBSET >= self.size:
            sims = _matvec(self.vectors, q)[rows]
        else:
            sims = _matvec(self.vectors[rows], q)
        return [(int(rows[i]), float(sims[i])) for i in _best(sims, k, rows)]

    def save(self, path: Path) -> None:
        faiss.write_index(self.index, str(path))

    @classmethod
    def load(cls, path: Path) -> DenseIndex:
        return cls(faiss.read_index(str(path)))
