"""Floors calibrated per model: a model whose similarities sit higher gets a higher dense floor."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from quest.calibration import (
    Calibration,
    _choose,
    apply_calibration,
    calibrate,
    load_calibration,
    save_calibration,
)
from quest.evaluation import load_queries, parse_query
from quest.retrieval.embedder import Embeddings
from quest.retrieval.retriever import build_retriever
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]

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


def test_at_equal_recall_the_floor_that_handles_more_no_answer_questions_wins():
    # (answerable Recall@5, no-answer handled, bm25 floor, dense floor): the shipped tuning split's shape.
    grid = [(0.973, 0.750, 0.05, None), (0.973, 0.911, 0.10, None), (0.968, 0.946, 0.15, None),
            (0.973, 0.982, 0.20, None), (0.959, 1.000, 0.25, None)]
    assert _choose(grid, "bm25-only", 0.9, 278) == Calibration(
        model="bm25-only", bm25_floor=0.2, dense_floor=None, recall_at_5=0.973, rejection=0.982,
        target_rejection=0.9, queries=278, met=True)


def test_one_question_of_recall_does_not_buy_a_less_honest_floor():
    # The shipped tuning split after round 12: 0.1 finds one more answerable question (of 222) than 0.2.
    grid = [(0.97297, 0.911, 0.10, None), (0.96847, 0.946, 0.15, None), (0.96847, 0.982, 0.20, None),
            (0.95946, 1.000, 0.25, None)]
    assert _choose(grid, "bm25-only", 0.9, 278).bm25_floor == 0.2


def test_a_recall_gap_beyond_the_tolerance_keeps_the_better_recall():
    grid = [(0.973, 0.911, 0.10, None), (0.959, 1.000, 0.25, None)]
    assert _choose(grid, "bm25-only", 0.9, 278).bm25_floor == 0.1


def test_at_equal_recall_and_rejection_the_lowest_floors_win():
    grid = [(1.0, 1.0, 0.3, 0.6), (1.0, 1.0, 0.2, 0.6), (1.0, 1.0, 0.2, 0.5), (1.0, 0.8, 0.1, 0.4)]
    chosen = _choose(grid, "m", 0.9, 4)
    assert (chosen.bm25_floor, chosen.dense_floor, chosen.met) == (0.2, 0.5, True)


def test_out_of_reach_target_rejects_as_many_as_possible():
    grid = [(1.0, 0.5, 0.1, None), (0.6, 0.8, 0.4, None), (0.7, 0.8, 0.3, None)]
    chosen = _choose(grid, "bm25-only", 0.9, 3)
    assert (chosen.bm25_floor, chosen.rejection, chosen.recall_at_5, chosen.met) == (0.3, 0.8, 0.7, False)


def test_the_shipped_bm25_floor_is_what_calibration_picks_on_the_tuning_split(tmp_path):
    # The README and the calibration module promise the shipped BM25-only default was calibrated the same way.
    settings = Settings(kb_dir=ROOT / "knowledge", data_dir=tmp_path, embedding_model="none", show_progress=False)
    retriever = build_retriever(settings)
    queries = load_queries(ROOT / "knowledge" / "eval" / "queries.jsonl")
    assert calibrate(retriever, queries).bm25_floor == Settings().bm25_floor
