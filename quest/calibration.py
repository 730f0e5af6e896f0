"""Floors calibrated on labelled questions, per embedding model (`python -m quest eval --calibrate`).

A floor is the confidence a hit needs to count as relevant: normalized BM25 (`bm25_floor`) or
cosine similarity (`dense_floor`). Cosine similarities of two models live on different scales
(one model's 0.45 is another's 0.7), so the dense floor is picked for the model in use, from the
tuning split:

    maximise the answerable questions' Recall@5
    subject to: at least `target_rejection` (90%) of the no-answer questions are handled
    honestly: they come back empty or weak (only the single widened retry found anything), or
    the student is told the problem they named is not in the base

over a grid of candidate floors. Recalls within RECALL_TOLERANCE of the best (half a point: one question in two
hundred) count as equal, and among those the floor that handles the most no-answer questions wins, then the higher
recall, then the lowest floors. One borderline question should not buy a floor that answers more off-topic questions
with unrelated pages: on the shipped tuning split 0.1 finds one more answerable question's page in the top five than
0.2 (R@5 0.973 vs 0.968) but handles 91% of the no-answer questions where 0.2 handles 98%, so 0.2 is shipped. The
result is stored in
the data folder beside the index, one file per model (`calibration/<model>.json`), and
`build_retriever` applies it to that model only. BM25-only keeps its shipped defaults, which
were calibrated the same way.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

TARGET_REJECTION = 0.9
RECALL_TOLERANCE = 0.005  # recalls this close to the best count as equal (see the module docstring)
BM25_GRID = tuple(round(x, 3) for x in np.arange(0.05, 0.61, 0.05))
DENSE_GRID = tuple(round(x, 3) for x in np.arange(0.2, 0.91, 0.05))
BM25_ONLY = "bm25-only"


@dataclass(frozen=True)
class Calibration:
    model: str  # embedding model name, or "bm25-only"
    bm25_floor: float
    dense_floor: float | None  # None in BM25-only mode
    recall_at_5: float  # answerable questions, at these floors
    rejection: float  # no-answer questions rejected, at these floors
    target_rejection: float
    queries: int
    met: bool  # whether any candidate reached the target rejection


class _CachedEmbedder:
    """The model's query embeddings computed once for the whole grid (encoding is the slow part)."""

    def __init__(self, embedder: Any) -> None:
        self.inner = embedder
        self.name = embedder.name
        self._cache: dict[tuple[str, ...], Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def encode_queries(self, texts: Sequence[str]) -> Any:
        key = tuple(texts)
        if key not in self._cache:
            self._cache[key] = self.inner.encode_queries(texts)
        return self._cache[key]


def model_key(retriever: Any) -> str:
    has_dense = retriever.embedder is not None and retriever.index.dense is not None
    return retriever.embedder.name if has_dense else BM25_ONLY


def calibrate(retriever: Any, queries: Sequence[Any], *, target_rejection: float = TARGET_REJECTION) -> Calibration:
    """Pick the floors for the retriever's model from labelled queries (see the module docstring)."""
    from quest.evaluation import doc_ids, handled_honestly, plan_query, score_ranking
    from quest.plan import retrieve
    from quest.retrieval.retriever import Retriever

    model = model_key(retriever)
    embedder = _CachedEmbedder(retriever.embedder) if model != BM25_ONLY else None
    base = retriever.settings
    plans = [(q, plan_query(retriever, q, base)) for q in queries]
    dense_grid: tuple[float | None, ...] = DENSE_GRID if embedder is not None else (None,)
    results: list[tuple[float, float, float, float | None]] = []
    for bm25_floor in BM25_GRID:
        for dense_floor in dense_grid:
            # A dense floor above every similarity switches the dense signal's own admission off.
            settings = base.replace(bm25_floor=bm25_floor, dense_floor=dense_floor if dense_floor is not None else 2.0)
            probe = Retriever(settings, retriever.index, retriever.kb, embedder)
            recalls, rejected = [], []
            for query, planned in plans:
                after, result = retrieve(probe, planned, top_k=10)
                if query.answerable:
                    recalls.append(score_ranking(tuple(doc_ids(result.hits)), query.relevant, 10)["recall@5"])
                else:
                    rejected.append(1.0 if handled_honestly(after, result) else 0.0)
            results.append((_mean(recalls), _mean(rejected), bm25_floor, dense_floor))
    return _choose(results, model, target_rejection, len(queries))


def _choose(results: list[tuple[float, float, float, float | None]], model: str, target: float,
            n: int) -> Calibration:
    ok = [r for r in results if r[1] >= target]
    met = bool(ok)
    if met:
        # Recall within the tolerance of the best; there the most no-answer questions handled, then the
        # higher recall, then the lowest floors, which sit just above where the no-answer questions'
        # similarities end, which is what moves with the model.
        best_recall = max(r[0] for r in ok)
        near = [r for r in ok if r[0] >= best_recall - RECALL_TOLERANCE]
        best = max(near, key=lambda r: (r[1], r[0], -(r[3] or 0.0), -r[2]))
    else:  # the target is out of reach: reject as many as possible, then keep the best recall
        best = max(results, key=lambda r: (r[1], r[0], -(r[3] or 0.0), -r[2]))
    return Calibration(model=model, bm25_floor=float(best[2]),
                       dense_floor=None if best[3] is None else float(best[3]),
                       recall_at_5=round(best[0], 4), rejection=round(best[1], 4), target_rejection=target,
                       queries=n, met=met)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def calibration_path(data_dir: Path | str, model: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"
    return Path(data_dir) / "calibration" / f"{safe}.json"


def save_calibration(data_dir: Path | str, calibration: Calibration) -> Path:
    path = calibration_path(data_dir, calibration.model)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(calibration), indent=2), encoding="utf-8")
    tmp.replace(path)
    return path


def load_calibration(data_dir: Path | str, model: str) -> Calibration | None:
    """The stored calibration for `model`, or None (missing or unreadable: the defaults apply)."""
    path = calibration_path(data_dir, model)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        calibration = Calibration(**data)
    except (OSError, ValueError, TypeError) as exc:
        log.warning("ignoring the calibration file %s: %s", path, exc)
        return None
    return calibration if calibration.model == model else None


def apply_calibration(settings: Any, calibration: Calibration | None) -> Any:
    """Settings with the calibrated floors (the dense floor only when one was calibrated)."""
    if calibration is None:
        return settings
    changes: dict[str, float] = {"bm25_floor": calibration.bm25_floor}
    if calibration.dense_floor is not None:
        changes["dense_floor"] = calibration.dense_floor
    return settings.replace(**changes)
