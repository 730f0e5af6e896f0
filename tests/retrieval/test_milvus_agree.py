"""Why Milvus's ranked lists could differ from the local store's, reduced to a few rows.

The local store adds a sparse score's terms in float32; two rows whose float32 sums are equal
are ordered by row. The Milvus path rebuilt each list from the rows one `hybrid_search` returns
by summing the returned weights in float64, and a list asked alone took Milvus's own scores
(float64 sums rounded to float32): both can split such a tie the other way. Here two general
documents tie in float32 on their lexical weights, the lower row has the larger exact sum, and
the lists over Milvus Lite must still put the lower row first, with the local scores.

Runs against Milvus Lite in process (CI installs it; elsewhere the module skips with the reason).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from quest.kb.documents import Document, KnowledgeBase
from quest.retrieval.embedder import Embeddings
from quest.retrieval.index import open_index
from quest.retrieval.sparse import top_k
from quest.settings import Settings

# requirements-dev.txt installs both; in CI a skip fails the run (tests/ci_skips.py).
for _module in ("pymilvus", "milvus_lite"):
    pytest.importorskip(_module, reason="pymilvus / milvus-lite not installed (pip install -r requirements-milvus.txt)")

pytestmark = pytest.mark.slow

F = np.float32
# Numbers found by search (document weights float16, as the index stores them; query weights float32):
# a*q1 rounds to the same float32 as b1*q1 + b2*q2 summed as the local store sums (each product
# rounded, then the sum), while the exact sum is larger: by 8e-10 in float64, and by one float32
# step when rounded once at the end, as Milvus Lite scores.
A, B1, B2 = F(0.1419677734375), F(0.0888671875), F(0.2548828125)
Q1, Q2 = F(0.19631685316562653), F(0.04089934751391411)
assert all(float(np.float16(w)) == float(w) for w in (A, B1, B2))  # stored as they are
LEXICAL = {  # marker word in the text -> its lexical weights (token id -> weight)
    "alder": {"11": float(A)},
    "birch": {"11": float(B1), "12": float(B2)},
    "cedar": {"13": 0.2},
    "oak": {"13": 0.1},
    "elm": {"21": 0.3},
    "query": {"11": float(Q1), "12": float(Q2)},
    "pair": {"21": 0.5},
}


class MarkerEmbedder:
    """Dense and lexical vectors chosen per marker word (first match in the text)."""

    name, dim, has_lexical = "fake-marker", len(LEXICAL), True

    def _one(self, text: str) -> tuple[np.ndarray, dict[str, float]]:
        marker = next(m for m in LEXICAL if m in text)
        dense = np.zeros(self.dim, dtype=np.float32)
        dense[list(LEXICAL).index(marker)] = 1.0
        return dense, dict(LEXICAL[marker])

    def _encode(self, texts: Sequence[str]) -> Embeddings:
        pairs = [self._one(t) for t in texts]
        return Embeddings(dense=np.stack([d for d, _ in pairs]), lexical=[w for _, w in pairs])

    def encode_documents(self, texts: Sequence[str], *, progress: bool = False) -> Embeddings:
        return self._encode(texts)

    def encode_queries(self, texts: Sequence[str]) -> Embeddings:
        return self._encode(texts)


def knowledge() -> KnowledgeBase:
    words = {"alder": "wood", "birch": "wood", "cedar": "wood", "oak": "acorns", "elm": "wood"}  # rows in this order
    docs = [Document(id=f"faq-{m}", kind="faq", title=f"{m} notes", text=f"Notes about {m} trees and their {word}.")
            for m, word in words.items()]
    return KnowledgeBase(documents=tuple(docs), problems={})


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """(local index, index over Milvus Lite, embedder) for the three documents."""
    data = tmp_path_factory.mktemp("agree")
    embedder, kb = MarkerEmbedder(), knowledge()
    settings = Settings(kb_dir=data / "kb", data_dir=data / "d", show_progress=False)
    local, _ = open_index(kb, settings, embedder)
    remote, _ = open_index(kb, settings.replace(vector_store=str(data / "m.db")), embedder)
    return local, remote, embedder, kb, settings


def test_the_case_is_a_float32_tie_that_float64_splits_against_row_order(stores):
    local, _, embedder, _, _ = stores
    query = embedder.encode_queries(["query"]).lexical[0]
    scores = local.lexical.scores(query)
    alder, birch = (int(local.rows_by_doc[f"faq-{m}"][0]) for m in ("alder", "birch"))
    assert alder < birch and scores[alder] == scores[birch] > 0  # tied: the local list puts alder first
    exact = float(B1) * float(Q1) + float(B2) * float(Q2)
    assert float(A) * float(Q1) < exact and F(float(A) * float(Q1)) < F(exact)  # float64 and Milvus: birch first
    assert [r for r, _ in top_k(scores, 5)] == [alder, birch]


def test_the_lists_from_one_hybrid_search_keep_the_local_order_of_a_float32_tie(stores):
    local, remote, embedder, _, _ = stores
    emb = embedder.encode_queries(["query"])
    asked = [("lexical:question", "lexical", emb.lexical[0]), ("dense:question", "dense", emb.dense[0])]
    for k in (2, 5):  # a full list (its tie at the cut range-searched too) and a short one
        lists = remote.bm25.scope_lists(asked, None, k)
        want = top_k(local.lexical.scores(emb.lexical[0]), k)
        assert lists["lexical:question"] == [(r, float(s)) for r, s in want]  # rows and float32 scores, exactly
        # The list asked alone (the retriever's path where one call cannot be exact): the same.
        assert remote.lexical.search(emb.lexical[0], k) == [(r, float(s)) for r, s in want]


def test_the_servers_own_fused_order_puts_equal_fused_scores_by_key(stores):
    """Inherent in Milvus's RRF, and why Quest does not rank by it: oak is first in one list, elm
    in another, so their fused scores are equal; the local fusion orders them by row (oak's is
    lower), Milvus by primary key ("faq-elm#0@..." before "faq-oak#0@...")."""
    from quest.bench.milvus_bench import _server_causes
    from quest.retrieval.fusion import reciprocal_rank_fusion
    from quest.retrieval.milvus_hybrid import ListQuery, scope_lists
    from quest.retrieval.milvus_sparse import bm25_query, lexical_query

    local, remote, embedder, _, _ = stores
    oak, elm = (int(local.rows_by_doc[f"faq-{m}"][0]) for m in ("oak", "elm"))
    weights = embedder.encode_queries(["pair"]).lexical[0]
    asked = [ListQuery("bm25", "bm25", bm25_query(local.bm25, ["acorns"]), ["acorns"]),
             ListQuery("lexical", "lexical", lexical_query(weights), weights)]
    found = scope_lists(remote.bm25.store, asked, 5, None, 60)
    assert [r for r, _ in found.lists["bm25"]] == [oak] and [r for r, _ in found.lists["lexical"]] == [elm]
    here = reciprocal_rank_fusion({n: [r for r, _ in v] for n, v in found.lists.items()})
    assert oak < elm and [r for r, _ in here] == [oak, elm]  # equal scores, by row
    assert [r for r, _ in found.fused] == [elm, oak]  # equal scores, by key
    assert [s for _, s in found.fused] == [float(F(1 / 61))] * 2  # float32 on the wire
    assert _server_causes([(here, found.fused)]) == {"ranks": 0, "equal fused scores": 1}  # as the bench counts it
