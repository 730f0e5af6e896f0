"""A deterministic embedder that records what it was asked to encode.

Texts become normalized bags of hashed BM25 tokens, so texts sharing words are similar and
unrelated texts are nearly orthogonal: good enough to test ranking, floors and fill-up
without a model, and every call is recorded so tests can count re-embedding.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from quest.retrieval.embedder import Embeddings
from quest.retrieval.tokenize import tokenize


class HashingEmbedder:
    def __init__(self, dim: int = 256, *, lexical: bool = False, name: str = "fake-hashing") -> None:
        self.name = name
        self.dim = dim
        self.has_lexical = lexical
        self.document_calls: list[list[str]] = []
        self.query_calls: list[list[str]] = []

    @property
    def documents_encoded(self) -> list[str]:
        return [t for call in self.document_calls for t in call]

    def _encode(self, texts: Sequence[str]) -> Embeddings:
        dense = np.zeros((len(texts), self.dim), dtype=np.float32)
        lexical: list[dict[str, float]] = []
        for i, text in enumerate(texts):
            weights: dict[str, float] = {}
            for token in tokenize(text):
                bucket = zlib.crc32(token.encode("utf-8")) % self.dim
                dense[i, bucket] += 1.0
                weights[str(bucket)] = min(1.0, weights.get(str(bucket), 0.0) + 0.25)
            norm = np.linalg.norm(dense[i])
            if norm:
                dense[i] /= norm
            lexical.append(weights)
        return Embeddings(dense=dense, lexical=lexical if self.has_lexical else None)

    def encode_documents(self, texts: Sequence[str], *, progress: bool = False) -> Embeddings:
        self.document_calls.append(list(texts))
        return self._encode(texts)

    def encode_queries(self, texts: Sequence[str]) -> Embeddings:
        self.query_calls.append(list(texts))
        return self._encode(texts)
