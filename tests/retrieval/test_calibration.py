"""Floors calibrated per model: a model whose similarities sit higher gets a higher dense floor."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from quest.calibration import (
    Calibration,
    apply_calibration,
    calibrate,
    load_calibration,
    save_calibration,
)
from quest.evaluation import parse_query
from quest.retrieval.embedder import Embeddings
from quest.retrieval.retriever import build_retriever
from tests.fakes.embedder import HashingEmbedder

QUERIES = [
    {"id": "a1", "question": "list.pop(0) is slow in my sliding window", "problem_id": "239", "lang": "en",
     "relevant": {"p239-error-pop0-en": 3}, "answerable": True},
    {"id": "a2", "question": "RecursionError maximum recursion depth exceeded", "lang": "en",
     "relevant": {"pitfall-recursion-en": 3}, "answerable": True},
    {"id": "a3", "question": "two sum hash map solution", "lang": "en", "relevant": {"p1-official-en": 3},
     "answerable": True},
    {"id": "n1", "question": "best recipe for sourdough bread at home", "lang": "en", "relevant": {},
     "answerable": False},
    {"id": "n2", "question": "which football team won the league yesterday", "lang": "en", "relevant": {},
     "answerable": False},
]


class ShiftedEmbedder(HashingEmbedder):
    """The same vectors pulled toward one shared direction: every cosine similarity is higher."""

    def _encode(self, texts: Sequence[str]) -> Embeddings:
        base = super()._encode(texts)
        shared = np.ones(self.dim, dtype=np.float32) / np.sqrt(self.dim)
        dense = base.dense + shared
        dense /= np.linalg.norm(dense, axis=1, keepdims=True)
        return Embeddings(dense=dense.astype(np.float32), lexical=base.lexical)


def floors(settings, embedder, tmp_path, name: str) -> Calibration:
    s = settings.replace(data_dir=tmp_path / name)
    retriever = build_retriever(s, embedder=embedder)
    return calibrate(retriever, [parse_query(q) for q in QUERIES])


def test_a_shifted_similarity_distribution_gets_a_shifted_dense_floor(settings, tmp_path):
    plain = floors(settings, HashingEmbedder(name="plain"), tmp_path, "plain")
    shifted = floors(settings, ShiftedEmbedder(name="shifted"), tmp_path, "shifted")
    assert plain.met and shifted.met
    assert plain.recall_at_5 == shifted.recall_at_5 == 1.0
    assert plain.dense_floor is not None and shifted.dense_floor is not None
    assert shifted.dense_floor > plain.dense_floor


def test_bm25_only_calibrates_the_bm25_floor(settings, tmp_path):
    result = calibrate(build_retriever(settings.replace(embedding_model="none", data_dir=tmp_path / "b")),
                       [parse_query(q) for q in QUERIES])
    assert result.model == "bm25-only" and result.dense_floor is None
    assert result.met and result.recall_at_5 == 1.0 and result.rejection == 1.0


def test_stored_per_model_and_applied_by_the_retriever(settings, tmp_path):
    stored = Calibration(model="fake-hashing", bm25_floor=0.3, dense_floor=0.55, recall_at_5=1.0, rejection=1.0,
                         target_rejection=0.9, queries=5, met=True)
    save_calibration(tmp_path / "d", stored)
    assert load_calibration(tmp_path / "d", "fake-hashing") == stored
    assert load_calibration(tmp_path / "d", "another-model") is None
    retriever = build_retriever(settings.replace(data_dir=tmp_path / "d"), embedder=HashingEmbedder())
    assert (retriever.settings.bm25_floor, retriever.settings.dense_floor) == (0.3, 0.55)
    assert apply_calibration(settings, None) is settings


def test_a_broken_calibration_file_is_ignored(settings, tmp_path):
    path = tmp_path / "d" / "calibration" / "fake-hashing.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    assert load_calibration(tmp_path / "d", "fake-hashing") is None
