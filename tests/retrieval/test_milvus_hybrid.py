"""One server-side RRF call per search scope gives every list as the local store ranks it; sync diffs documents.

Runs against Milvus Lite in process (CI installs it; elsewhere the module skips with the reason).
The retriever over Milvus is compared hit for hit with the local store in test_milvus.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from quest.evaluation import load_queries
from quest.kb.markdown import load_knowledge_base
from quest.retrieval.chunktable import ChunkTable
from quest.retrieval.fusion import reciprocal_rank_fusion
from quest.retrieval.index import open_index
from quest.retrieval.sparse import top_k
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]

# requirements-dev.txt installs both; in CI a skip fails the run (tests/ci_skips.py).
for _module in ("pymilvus", "milvus_lite"):
    pytest.importorskip(_module, reason="pymilvus / milvus-lite not installed (pip install -r requirements-milvus.txt)")

from pymilvus import MilvusClient  # noqa: E402

from quest.retrieval.milvus import MilvusStore  # noqa: E402
from quest.retrieval.milvus_hybrid import TIE_MARGIN, ListQuery, scope_lists  # noqa: E402
from quest.retrieval.milvus_sparse import bm25_query, lexical_query  # noqa: E402
from tests.retrieval.test_milvus import Recording  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("kb") / "knowledge"
    shutil.copytree(ROOT / "knowledge", folder)
    return folder


@pytest.fixture(scope="module")
def pair(kb_dir, tmp_path_factory):
    """(embedder, local index, index over Milvus Lite, eval texts) on the starter base."""
    data = tmp_path_factory.mktemp("pair")
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    settings = Settings(kb_dir=kb_dir, data_dir=data / "d", show_progress=False)
    local, _ = open_index(kb, settings, embedder)
    remote, _ = open_index(kb, settings.replace(vector_store=str(data / "m.db")), embedder)
    queries = load_queries(kb_dir / "eval" / "queries.jsonl")
    return embedder, local, remote, [" ".join(filter(None, (q.question, q.error, q.code))) for q in queries]


def scopes(index) -> list[np.ndarray | None]:
    """The whole base, the general documents, and three problems' rows."""
    general = np.flatnonzero(index.chunks.problem == -1).astype(np.int64)
    return [None, general, *(index.rows_by_problem[p] for p in sorted(index.rows_by_problem)[:3])]


def tied_at_cut(scores: np.ndarray, k: int, rows: np.ndarray | None) -> int:
    """How many rows of the scope score exactly as the k-th best (0 when fewer than k match)."""
    ranked = top_k(scores, k, rows)
    if len(ranked) < k:
        return 0
    cut = scores if rows is None else scores[rows]
    return int((cut == ranked[-1][1]).sum())


def test_sparse_lists_equal_the_local_top_k_with_ties_at_the_cut(pair):
    """BM25 and lexical scores tie often (equal term counts and lengths); the cut-off keeps the
    lowest rows among the tied, as locally, because ties no list returned are range-searched."""
    embedder, local, remote, texts = pair
    store = remote.bm25.store
    ties_cut = two_calls = 0
    for text in texts[:12]:
        for token in tokenize(text)[:3]:  # one-term queries: many rows share a score
            weights = dict.fromkeys(embedder.encode_queries([token]).lexical[0], 1.0)
            asked = [ListQuery("bm25", "bm25", bm25_query(local.bm25, [token]), [token]),
                     ListQuery("lexical", "lexical", lexical_query(weights), weights)]
            for rows in scopes(local):
                for k in (1, 3, 8):
                    found = scope_lists(store, asked, k, rows, 60)
                    scores = {"bm25": local.bm25.scores([token]), "lexical": local.lexical.scores(weights)}
                    if found is None:  # a tie longer than the margin: the retriever asks list by list
                        assert max(tied_at_cut(want, k, rows) for want in scores.values()) >= k + TIE_MARGIN
                        continue
                    for name, want in scores.items():
                        expected = top_k(want, k, rows)
                        assert [r for r, _ in found.lists[name]] == [r for r, _ in expected], (token, name, k)
                        # The local scorers' own float32 numbers (milvus_hybrid._Found._score).
                        assert [s for _, s in found.lists[name]] == [float(s) for _, s in expected]
                        ties_cut += tied_at_cut(want, k, rows) > 1
                    two_calls += found.calls == 2
    assert ties_cut > 20 and two_calls > 20  # the cut fell inside a tie many times, and the ties were fetched


def rank_ranges(ranked: list[tuple[int, float]], k: int) -> dict[int, tuple[int | None, int]]:
    """Each row's possible ranks when tied rows may come in any order: (best, worst); worst None
    when its tie reaches the cut of a full list (Milvus may have kept another of the tied rows)."""
    out = {}
    for row, score in ranked:
        tied = [i for i, (_, s) in enumerate(ranked) if s == pytest.approx(score, rel=1e-6, abs=1e-9)]
        worst = None if len(ranked) == k and tied[-1] == k - 1 else tied[-1] + 1
        out[row] = (tied[0] + 1, worst)
    return out


def test_server_fused_scores_are_rrf_over_the_lists_up_to_the_order_of_ties(pair):
    """The server's RRF score of each row is RRF (k = 60) over the rebuilt lists, with each rank
    anywhere inside the row's tie (Milvus orders tied rows its own way); exactly so for untied rows."""
    embedder, local, remote, texts = pair
    store = remote.bm25.store
    exact = 0
    for i, text in enumerate(texts):
        emb = embedder.encode_queries([text])
        asked = [ListQuery("bm25:all", "bm25", bm25_query(local.bm25, tokenize(text)), tokenize(text)),
                 ListQuery("dense:all", "dense", emb.dense[0].astype(np.float32).tolist()),
                 ListQuery("lexical:all", "lexical", lexical_query(emb.lexical[0]), emb.lexical[0])]
        found = scope_lists(store, asked, 30, scopes(local)[i % 5], 60)
        ranges = [rank_ranges(ranked, 30) for ranked in found.lists.values()]
        here = dict(reciprocal_rank_fusion({n: [r for r, _ in ranked] for n, ranked in found.lists.items()}, k=60))
        assert set(here) <= {r for r, _ in found.fused} | {r for rr in ranges for r, (_, w) in rr.items() if w is None}
        # A row Milvus kept from a tie at a full list's cut, where the local order keeps a lower row:
        # ranked anywhere in that tie.
        cut = [(rr[ranked[-1][0]][0], None) if rr and rr[ranked[-1][0]][1] is None else None
               for rr, ranked in zip(ranges, found.lists.values(), strict=True)]
        for row, score in found.fused:
            spans = [span for span in (rr.get(row, cut[i]) for i, rr in enumerate(ranges)) if span is not None]
            high = sum(1 / (60 + best) for best, _ in spans)
            low = sum(1 / (60 + worst) for _, worst in spans if worst is not None)
            assert low - 1e-6 <= score <= high + 1e-6, (text, row)
            if row in here and all(best == worst for best, worst in spans):
                assert score == pytest.approx(here[row], abs=1e-6)
                exact += 1
    assert exact > 500


def test_sync_compares_document_hashes_first_and_decodes_no_chunk(kb_dir, tmp_path, monkeypatch):
    embedder = HashingEmbedder(lexical=True)
    settings = Settings(kb_dir=kb_dir, data_dir=tmp_path / "d", show_progress=False)
    index, _ = open_index(load_knowledge_base(kb_dir), settings, embedder)
    db = str(tmp_path / "m.db")
    client = MilvusClient(db)

    def refuse(*_args, **_kwargs):
        raise AssertionError("a chunk record was decoded")

    monkeypatch.setattr(ChunkTable, "__getitem__", refuse)
    monkeypatch.setattr(ChunkTable, "__iter__", refuse)
    first = Recording(client)
    MilvusStore.attach(db, index, client=first)
    assert first.calls.count("insert") == -(-index.size // 2000)  # every live row, in batches

    again = Recording(client)  # the same index: one look at the recorded state, nothing read or written
    MilvusStore.attach(db, index, client=again)
    assert not {"query_iterator", "insert", "upsert", "delete", "flush"} & set(again.calls)
    monkeypatch.undo()

    edited = tmp_path / "kb2"
    shutil.copytree(kb_dir, edited)
    doc = next(p for p in sorted(edited.rglob("*.md")) if p.read_text(encoding="utf-8").startswith("---\nid:"))
    doc.write_text(doc.read_text(encoding="utf-8") + "\n\nA deque keeps indices, not values.\n", encoding="utf-8")
    doc_id = doc.read_text(encoding="utf-8").split("\n")[1].removeprefix("id:").strip()
    updated, _ = open_index(load_knowledge_base(edited), settings.replace(kb_dir=edited), embedder)
    sent: list = []
    inserting = Recording(client)
    original = client.insert
    monkeypatch.setattr(client, "insert", lambda name, entities: (sent.extend(entities), original(name, entities))[1])
    MilvusStore.attach(db, updated, client=inserting)
    # Only the edited document's rows were encoded and sent (its old entities deleted).
    assert sorted(e["key"] for e in sent) == sorted(k for k in MilvusStore(client, "", updated).live_keys()
                                                   if k.startswith(doc_id + "#"))
    assert inserting.calls.count("delete") == 1
