"""bge-m3-shaped stand-ins: 1024-d clustered unit vectors and lexical weights, plus a lookup embedder.

The tiny test model gives 32-d vectors, which make dense search look 32 times cheaper than it
is in production. These stand-ins have bge-m3's shape so the dense stages are measured at the
real cost:

- dense: every problem has a random unit centre; a chunk is its problem's centre plus noise
  (cosine ~0.78 to its centre, ~0.6 to a query about its problem, as bge-m3 gives relevant
  pairs; ~0 across problems), FAQ chunks are pure noise; a query is
  its target problem's centre plus noise. Problem-restricted search is therefore meaningful
  and the global top-10 is mostly the target problem's chunks.
- lexical: the chunk's BM25 tokens hashed into bge-m3's 250,002 token ids with weights
  0.05..0.35, as many entries per chunk as bge-m3 gives (one per distinct token).

`LookupEmbedder` returns precomputed query vectors for known query texts (embedding cost ~0,
reported separately from the real model's query embedding time).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from quest.retrieval.chunktable import IndexChunks
from quest.retrieval.dense import DenseIndex
from quest.retrieval.embedder import Embeddings
from quest.retrieval.index import Index, with_approximate
from quest.retrieval.segments import Segment
from quest.retrieval.sparse import LexicalIndex
from quest.retrieval.tokenize import tokenize

DIM = 1024
LEXICAL_VOCAB = 250_002
NOISE = 0.8  # norm of the noise against the unit centre: cosine(chunk, centre) ~0.78, (query, chunk) ~0.6


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (rows / norms).astype(np.float32)


def problem_centres(problem_ids: Sequence[str], dim: int = DIM, seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = _unit(rng.standard_normal((len(problem_ids), dim), dtype=np.float32))
    return {pid: centres[i] for i, pid in enumerate(sorted(problem_ids, key=str))}


def chunk_vectors(problem_ids: Sequence[str | None], centres: Mapping[str, np.ndarray], dim: int = DIM,
                  seed: int = 11, batch: int = 8192) -> np.ndarray:
    """(n, dim) float32 unit rows for chunks of these problems, generated in batches to keep the peak small."""
    rng = np.random.default_rng(seed)
    out = np.empty((len(problem_ids), dim), dtype=np.float32)
    zero = np.zeros(dim, dtype=np.float32)
    for start in range(0, len(problem_ids), batch):
        part = problem_ids[start:start + batch]
        noise = rng.standard_normal((len(part), dim), dtype=np.float32)
        noise *= NOISE / np.sqrt(dim)
        base = np.stack([centres.get(pid, zero) if pid else zero for pid in part])
        out[start:start + len(part)] = _unit(base + noise)
    return out


def problem_ids_of(chunks: IndexChunks) -> list[str | None]:
    """Each row's problem id, from the index's columns (no chunk decoded)."""
    names = [*chunks.problems, None]  # code -1 (no problem) picks the last entry
    return [names[c] for c in chunks.problem.tolist()]


def query_vector(problem_id: str, centres: Mapping[str, np.ndarray], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dim = next(iter(centres.values())).shape[0]
    noise = rng.standard_normal(dim).astype(np.float32) * (NOISE / np.sqrt(dim))
    return _unit((centres[problem_id] + noise).reshape(1, -1))[0]


def lexical_weights(tokens: Sequence[str]) -> dict[str, float]:
    weights: dict[str, float] = {}
    for token in tokens:
        h = zlib.crc32(token.encode("utf-8"))
        key = str(5 + h % (LEXICAL_VOCAB - 5))
        weights[key] = max(weights.get(key, 0.0), 0.05 + (h >> 20) % 300 / 1000)
    return weights


class LookupEmbedder:
    """An Embedder with bge-m3's shape whose query vectors were decided in advance.

    Known query texts get their precomputed vector; any other text (a document edited during
    the update measurement, an unplanned query) gets a deterministic random unit vector
    seeded by its CRC-32, and lexical weights from its BM25 tokens. Costs ~nothing: the real
    model's embedding time is measured separately with the configured or tiny model.
    """

    def __init__(self, name: str, dim: int, queries: Mapping[str, tuple[np.ndarray, dict[str, float] | None]],
                 *, lexical: bool) -> None:
        self.name = name
        self.dim = dim
        self.has_lexical = lexical
        self._queries = dict(queries)

    def _one(self, text: str) -> tuple[np.ndarray, dict[str, float]]:
        if text in self._queries:
            vec, lex = self._queries[text]
            return vec, lex or {}
        rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))
        return _unit(rng.standard_normal((1, self.dim), dtype=np.float32))[0], query_lexical(text)

    def _encode(self, texts: Sequence[str]) -> Embeddings:
        pairs = [self._one(t) for t in texts]
        dense = np.stack([p[0] for p in pairs]) if pairs else np.zeros((0, self.dim), np.float32)
        return Embeddings(dense=dense, lexical=[p[1] for p in pairs] if self.has_lexical else None)

    def encode_documents(self, texts: Sequence[str], *, progress: bool = False) -> Embeddings:
        return self._encode(texts)

    def encode_queries(self, texts: Sequence[str]) -> Embeddings:
        return self._encode(texts)


def query_lexical(text: str) -> dict[str, float]:
    return lexical_weights(tokenize(text))


def lexical_from_terms(tf: sp.csc_matrix, terms: Sequence[str]) -> LexicalIndex:
    """The same stand-in lexical weights as `lexical_weights`, from a BM25 term matrix (no re-tokenizing)."""
    ids = np.empty(len(terms), dtype=np.int64)
    values = np.empty(len(terms), dtype=np.float32)
    for i, term in enumerate(terms):
        h = zlib.crc32(term.encode("utf-8"))
        ids[i] = 5 + h % (LEXICAL_VOCAB - 5)
        values[i] = 0.05 + (h >> 20) % 300 / 1000
    csr = tf.tocsr()
    matrix = sp.csr_matrix((values[csr.indices], ids[csr.indices], csr.indptr.copy()),
                           shape=(csr.shape[0], LEXICAL_VOCAB))
    del csr
    matrix.sum_duplicates()
    return LexicalIndex(matrix)


def shaped_float32(problem_ids: Sequence[str | None], centres: Mapping[str, np.ndarray],
                   batch: int = 16384) -> np.ndarray:
    """The float32 originals of `shaped_dense` (same batches, same seeds), for the float16 recall check."""
    return np.vstack([chunk_vectors(problem_ids[s:s + batch], centres, seed=11 + s // batch)
                      for s in range(0, len(problem_ids), batch)])


def shaped_dense(problem_ids: Sequence[str | None], centres: Mapping[str, np.ndarray],
                 batch: int = 16384) -> DenseIndex:
    """bge-m3-shaped vectors added batch by batch: the float32 matrix never exists whole (1M x 1024 = 4 GB)."""
    dense = DenseIndex.from_vectors(np.zeros((0, DIM), dtype=np.float32))
    for start in range(0, len(problem_ids), batch):
        part = chunk_vectors(problem_ids[start:start + batch], centres, seed=11 + start // batch)
        dense.index.add(part)
    return dense


def shaped_index(index: Index, centres: Mapping[str, np.ndarray]) -> Index:
    """`index` (one BM25-only or model segment) with 1024-d vectors and lexical weights of bge-m3's shape."""
    (seg,) = index.segments
    terms = sorted(index.bm25.vocab, key=index.bm25.vocab.__getitem__)
    dense = with_approximate(shaped_dense(problem_ids_of(index.chunks), centres))  # IVF at the sizes that use it
    # The sparse parts stay in the segment's scope order (no copy back to row order and again).
    shaped = Segment(name=seg.name, chunks=seg.chunks, postings=seg.postings, order=seg.order, terms=seg.terms,
                     doc_len=seg.doc_len, dense=dense,
                     lexical=lexical_from_terms(seg.postings, terms).placed(seg.order))
    return Index(segments=[shaped], deleted=index.deleted.copy(), model="synthetic-bge-m3-shape",
                 doc_hashes=index.doc_hashes, chunk_max_chars=index.chunk_max_chars, dim=DIM)


def query_lookup(prepared: Sequence, centres: Mapping[str, np.ndarray]) -> dict[str, tuple[np.ndarray, dict]]:
    """Each prepared bench query's text -> (its bge-m3-shaped vector, its lexical weights), deterministically."""
    return {p.text.strip(): (query_vector(p.query.target_problem, centres, seed=i), query_lexical(p.text))
            for i, p in enumerate(prepared)}
