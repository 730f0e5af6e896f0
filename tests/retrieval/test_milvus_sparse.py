"""Milvus's sparse fields score exactly as the local BM25 and lexical weights; hybrid RRF; upserts by document hash.

Runs against Milvus Lite in process (CI installs it from requirements-milvus.txt; elsewhere the
module skips with the reason). The standalone-server variant of the same collection code is in
test_milvus.py.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import numpy as np
import pytest

from quest.evaluation import load_queries
from quest.kb.markdown import load_knowledge_base
from quest.retrieval.fusion import reciprocal_rank_fusion
from quest.retrieval.index import open_index
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]

# requirements-dev.txt installs both; in CI a skip fails the run (tests/ci_skips.py).
for _module in ("pymilvus", "milvus_lite"):
    pytest.importorskip(_module, reason="pymilvus / milvus-lite not installed (pip install -r requirements-milvus.txt)")

from quest.retrieval import milvus as milvus_module  # noqa: E402
from quest.retrieval.milvus_sparse import bm25_query, lexical_query  # noqa: E402

pytestmark = pytest.mark.slow
REL = 1e-5  # float32 sums in Milvus against float32 weights summed locally: ~1e-7 measured, 1e-5 allowed


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("kb") / "knowledge"
    shutil.copytree(ROOT / "knowledge", folder)
    return folder


@pytest.fixture(scope="module")
def texts(kb_dir) -> list[str]:
    queries = load_queries(kb_dir / "eval" / "queries.jsonl")
    return [" ".join(filter(None, (q.question, q.error, q.code))) for q in queries]


def open_pair(kb_dir: Path, data: Path, store: str):
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    settings = Settings(kb_dir=kb_dir, data_dir=data, show_progress=False)
    local, _ = open_index(kb, settings, embedder)
    remote, _ = open_index(kb, settings.replace(vector_store=store), embedder)
    return embedder, local, remote


def every_hit(remote, field: str, query: dict) -> dict[int, float]:
    """All rows Milvus scores above zero for `query`, with their scores."""
    return dict(remote.dense.store._raw(field, query, milvus_module.MAX_LIMIT))


def assert_scores_match(remote_scores: dict[int, float], local_scores: np.ndarray, rel: float) -> None:
    positive = set(np.flatnonzero(local_scores > 0).tolist())
    assert set(remote_scores) == positive  # the same rows match: deleted rows in neither
    for row, score in remote_scores.items():
        assert score == pytest.approx(float(local_scores[row]), rel=rel), row


def test_bm25_and_lexical_fields_score_every_row_as_the_local_index(kb_dir, texts, tmp_path):
    embedder, local, remote = open_pair(kb_dir, tmp_path / "d", str(tmp_path / "m.db"))
    assert len(texts) >= 20
    for text in texts:
        tokens = tokenize(text)
        assert_scores_match(every_hit(remote, "bm25", bm25_query(local.bm25, tokens)), local.bm25.scores(tokens), REL)
        weights = embedder.encode_queries([text]).lexical[0]
        assert_scores_match(every_hit(remote, "lexical", lexical_query(weights)), local.lexical.scores(weights), REL)


def shrink(kb_dir: Path, dest: Path) -> Path:
    """A copy of the base without its longest documents: the average chunk length drops by several %."""
    shutil.copytree(kb_dir, dest)
    docs = sorted(dest.rglob("*.md"), key=lambda p: p.stat().st_size, reverse=True)
    for path in [p for p in docs if p.read_text(encoding="utf-8").startswith("---\nid:")][:40]:
        path.unlink()
    return dest


def test_bm25_after_avgdl_drift_is_within_the_stated_bound_then_rewritten(kb_dir, texts, tmp_path, monkeypatch):
    store = str(tmp_path / "m.db")
    _, _, before = open_pair(kb_dir, tmp_path / "d", store)
    edited = shrink(kb_dir, tmp_path / "kb2")
    # Updates that keep the written rows' weights (no rewrite): scores stay within |1 - A/A'|.
    monkeypatch.setattr(milvus_module, "BM25_DRIFT", float("inf"))
    _, local, stale = open_pair(edited, tmp_path / "d", store)  # the same index folder: updated, vocabulary kept
    drift = abs(1 - before.bm25.avgdl / local.bm25.avgdl)
    assert 0.01 < drift < 0.5  # the edit moved the average length by more than the rewrite threshold
    worst = 0.0
    for text in texts:
        tokens = tokenize(text)
        got, want = every_hit(stale, "bm25", bm25_query(local.bm25, tokens)), local.bm25.scores(tokens)
        assert_scores_match(got, want, drift + REL)
        worst = max([worst, *(abs(s / want[r] - 1) for r, s in got.items())])
    assert worst > REL  # the stale rows really are off (so the exact check below proves the rewrite)
    # The default threshold (1%) rewrites every row written at the old average: exact again.
    monkeypatch.setattr(milvus_module, "BM25_DRIFT", 0.01)
    _, local, fresh = open_pair(edited, tmp_path / "d", store)
    for text in texts:
        tokens = tokenize(text)
        assert_scores_match(every_hit(fresh, "bm25", bm25_query(local.bm25, tokens)), local.bm25.scores(tokens), REL)


def keys_in(remote) -> set[str]:
    store = remote.dense.store
    return set(store._existing())


def test_upserts_and_deletes_follow_the_document_hash_both_ways(kb_dir, tmp_path):
    store = str(tmp_path / "m.db")
    _, _, first = open_pair(kb_dir, tmp_path / "d", store)
    original = keys_in(first)
    assert original == set(first.dense.store.live_keys())
    edited = tmp_path / "kb2"
    shutil.copytree(kb_dir, edited)
    doc = next(p for p in sorted(edited.rglob("*.md")) if p.read_text(encoding="utf-8").startswith("---\nid:"))
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\nA monotonic deque keeps indices, not values.\n",
                   encoding="utf-8")
    _, _, second = open_pair(edited, tmp_path / "d", store)
    changed = keys_in(second)
    assert changed == set(second.dense.store.live_keys())
    gone, added = original - changed, changed - original
    doc_id = doc.read_text(encoding="utf-8").split("\n")[1].removeprefix("id:").strip()
    assert gone and added  # the edited document's chunks, under its old and its new hash
    assert {k.split("#")[0] for k in gone | added} == {doc_id}
    assert len({k.split("@")[1] for k in gone}) == 1 and len({k.split("@")[1] for k in added}) == 1
    client, name = second.dense.client, second.dense.collection
    assert client.get(name, ids=sorted(gone)) == []
    assert sorted(r["key"] for r in client.get(name, ids=sorted(added), output_fields=["key"])) == sorted(added)
    _, _, third = open_pair(kb_dir, tmp_path / "d", store)  # the edit reverted: the first keys exactly
    assert keys_in(third) == original


def test_server_side_rrf_equals_a_local_rrf_over_the_same_lists(kb_dir, texts, tmp_path):
    embedder, local, remote = open_pair(kb_dir, tmp_path / "d", str(tmp_path / "m.db"))
    store = remote.dense.store
    problems = sorted(local.rows_by_problem)
    for i, text in enumerate(texts):
        emb = embedder.encode_queries([text])
        requests = [("dense", emb.dense[0].astype(np.float32).tolist()),
                    ("bm25", bm25_query(local.bm25, tokenize(text))), ("lexical", lexical_query(emb.lexical[0]))]
        rows = local.rows_by_problem[problems[i % len(problems)]] if i % 2 else None
        expr = "" if rows is None else store.restriction(rows)
        lists = [[r for r, _ in store._raw(field, data, 30, expr)] for field, data in requests]
        server = store.hybrid(requests, 30, rows)
        here = reciprocal_rank_fusion(lists, k=60)
        exact = dict(here)
        assert {r for r, _ in server} == set(exact)  # every row of the lists, nothing else
        for row, score in server:
            assert score == pytest.approx(exact[row], abs=1e-6)  # float32 on the server
        # Served best first: the order is the local one up to rows whose fused scores are equal.
        order = [exact[r] for r, _ in server]
        assert all(a >= b - 1e-6 for a, b in itertools.pairwise(order))
