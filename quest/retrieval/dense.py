"""Dense search: FAISS inner product over L2-normalized vectors (= cosine similarity).

Global search uses an exact `IndexFlatIP`. Search restricted to one problem is an exact
matrix-vector product over that problem's rows only: a problem has tens of chunks, so this
is both exact and far cheaper than searching everything and filtering afterwards (and an
approximate index with a selective filter would lose recall). See DESIGN.md.
"""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np

from quest.retrieval.sparse import top_k


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
        kept = self.vectors[np.asarray(keep, dtype=np.int64)]
        new_vectors = np.asarray(new_vectors, dtype=np.float32).reshape(-1, self.dim)
        return DenseIndex.from_vectors(np.vstack([kept, new_vectors]))

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Global top-k (row, cosine similarity)."""
        if self.size == 0 or k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(1, -1)
        scores, ids = self.index.search(q, min(k, self.size))
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def search_rows(self, query: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Exact top-k among `rows` only."""
        rows = np.asarray(rows, dtype=np.int64)
        if rows.size == 0 or k <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        sims = self.vectors[rows] @ q
        # Cosine can be negative; shift so top_k's "positive only" rule keeps every row.
        best = top_k(sims + 2.0, k)
        return [(int(rows[i]), s - 2.0) for i, s in best]

    def save(self, path: Path) -> None:
        faiss.write_index(self.index, str(path))

    @classmethod
    def load(cls, path: Path) -> DenseIndex:
        return cls(faiss.read_index(str(path)))
