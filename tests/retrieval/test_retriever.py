"""The hybrid retriever: problem restriction, fill-up, floor and widening, exact match, tiers."""

from __future__ import annotations

import pytest

from quest.errors import InputError
from quest.plan import plan
from quest.request import Request, validate_request
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder


@pytest.fixture
def retriever(settings, embedder) -> Retriever:
    return build_retriever(settings, embedder=embedder)


def doc_ids(result) -> list[str]:
    return [h.chunk.doc_id for h in result.hits]


def test_problem_results_come_first(retriever):
    result = retriever.search("deque popleft TLE window", problem_id="239")
    assert result.mode == "hybrid"
    assert len(result.hits) >= 3
    assert {h.scope for h in result.hits} == {"problem"}
    assert {h.chunk.problem_id for h in result.hits} == {"239"}
    assert doc_ids(result)[0] == "p239-error-pop0-en"


def test_fill_up_from_the_whole_base_when_the_problem_has_too_little(retriever):
    result = retriever.search("二分查找 超时 时间复杂度", problem_id="704")
    scopes = [h.scope for h in result.hits]
    assert scopes[0] == "problem" and doc_ids(result)[0] == "p704-official-zh"
    assert "global" in scopes
    assert scopes == sorted(scopes, key=lambda s: s != "problem")  # problem hits before fill-up
    ids = [h.chunk.id for h in result.hits]
    assert len(ids) == len(set(ids))
    assert "faq-tle-zh" in doc_ids(result)


def test_no_problem_searches_everything(retriever):
    result = retriever.search("RecursionError maximum recursion depth")
    assert doc_ids(result)[0] == "pitfall-recursion-en"
    assert {h.scope for h in result.hits} == {"all"}


def test_off_topic_question_gets_an_honest_empty_result_after_one_widening(retriever, embedder):
    result = retriever.search("best recipe for baking sourdough bread at home")
    assert result.hits == ()
    assert result.widened is True
    assert len(embedder.query_calls) == 1  # the query is embedded once, not once per attempt


def test_widening_lowers_the_floor_once(settings, embedder):
    probe = build_retriever(settings.replace(bm25_floor=0.0, dense_floor=2.0), embedder=embedder)
    best = max(h.score for h in probe.search("two sum hash").hits)
    # A floor just above the best score fails the first attempt; 0.6x of it passes the second.
    strict = build_retriever(settings.replace(bm25_floor=best * 1.05, dense_floor=2.0,
                                              widen_floor_ratio=0.6), embedder=HashingEmbedder())
    result = strict.search("two sum hash")
    assert result.widened is True and result.hits
    assert doc_ids(result)[0] == "p1-official-en"
    too_strict = build_retriever(settings.replace(bm25_floor=best * 2, dense_floor=2.0,
                                                  widen_floor_ratio=0.6), embedder=HashingEmbedder())
    assert too_strict.search("two sum hash").hits == ()


def test_companions_fill_the_top_k_only_after_a_hit_clears_the_whole_floor(settings, embedder):
    query, bm25 = "time limit exceeded slow input", {"signals": ["bm25"]}
    plain = settings.replace(widen_floor_ratio=1.0, general_lead=0)
    probe = build_retriever(plain.replace(bm25_floor=0.0), embedder=embedder)
    scores = sorted({h.score for h in probe.search(query, **bm25).hits}, reverse=True)
    floor = scores[1] * 1.2  # the best clears it, the next ones do not, but clear 0.6 of it
    assert scores[0] > floor
    alone = build_retriever(plain.replace(bm25_floor=floor, companion_floor_ratio=1.0), embedder=embedder)
    assert [h.score for h in alone.search(query, **bm25).hits] == [scores[0]]
    with_companions = build_retriever(plain.replace(bm25_floor=floor, companion_floor_ratio=0.6), embedder=embedder)
    hits = with_companions.search(query, **bm25).hits
    assert hits[0].score == scores[0] and hits[1].score == scores[1]
    assert all(0.6 * floor <= h.score < floor for h in hits[1:])
    # Companions never answer on their own: with the floor above the best score, nothing is shown.
    too_strict = build_retriever(plain.replace(bm25_floor=scores[0] * 1.05, companion_floor_ratio=0.6),
                                 embedder=embedder)
    assert too_strict.search(query, **bm25).hits == ()
    # With a problem named, its own hits and the fill-up decide: no weaker companions from elsewhere.
    named = with_companions.search(query, problem_id="1", **bm25).hits
    assert all(h.score >= floor for h in named if h.scope == "global")


@pytest.mark.parametrize("spelling", [
    "239", "#239", "P239", "p239", " 239 ", "# 239", "LC239", "leetcode 239",
    "滑动窗口最大值", "sliding window maximum", "Sliding Window Maximum", "SLIDING  WINDOW   MAXIMUM",
    "sliding-window maximum", "滑动窗口 最大值",
])
def test_exact_match_on_id_or_title_without_touching_the_model(retriever, embedder, spelling):
    result = retriever.search(spelling)
    assert result.mode == "exact" and result.problem_id == "239"
    assert set(doc_ids(result)) == {"p239-official-zh", "p239-error-pop0-en", "p239-explain-en"}
    assert doc_ids(result)[0] == "p239-official-zh"
    assert embedder.query_calls == []
    assert all(h.score == 1.0 and h.scope == "exact" for h in result.hits)


def test_exact_match_is_not_fooled_by_longer_questions(retriever):
    assert retriever.exact_match("why does 239 time out") is None
    assert retriever.exact_match("2390") is None
    assert retriever.exact_match("") is None


def test_hint_tier_exclusion_applies_everywhere(retriever):
    for query in ("239", "滑动窗口 单调队列 deque 最大值", "list.pop(0) TLE"):
        for pid in ("239", None):
            result = retriever.search(query, problem_id=pid, exclude_kinds={"official_solution"})
            assert result.hits, query
            assert all(h.chunk.kind != "official_solution" for h in result.hits), (query, pid)


def test_unknown_problem_id_searches_the_whole_base_and_says_so(retriever):
    result = retriever.search("RecursionError", problem_id="99999")
    assert result.problem_id is None
    assert any("99999" in n for n in result.notices)
    assert doc_ids(result)[0] == "pitfall-recursion-en"


@pytest.mark.parametrize("query", ["", "   ", "\n\t "])
def test_empty_query_gives_an_empty_result(retriever, embedder, query):
    result = retriever.search(query)
    assert result.hits == () and result.mode == "empty"
    assert embedder.query_calls == []


def test_a_megabyte_of_code_becomes_a_bounded_query(retriever, settings):
    code = "for i in range(n):\n    window.pop(0)\n" + "x = 1\n" * 170_000
    assert len(code) > 1_000_000
    request = Request(question="为什么超时", problem_id="239", code=code, error="TLE on test 45")
    with pytest.raises(InputError) as info:  # the UI refuses it with a clear message...
        validate_request(request, settings)
    assert info.value.field == "code" and info.value.reason == "too_long"
    parts = plan(request, retriever).parts  # ...and each part of the query stays bounded
    assert all(len(text) <= 1500 for text in parts.as_dict().values()) and "window.pop(0)" in parts.code
    assert retriever.search(parts.text(), parts=parts.as_dict(), problem_id="239").hits


def test_binary_junk_is_refused_with_a_clear_error(settings):
    junk = bytes(range(256)).decode("latin-1") * 10
    with pytest.raises(InputError) as info:
        validate_request(Request(question="help", code=junk), settings)
    assert info.value.reason == "binary" and info.value.field == "code"


def test_bm25_only_when_there_is_no_embedder(settings):
    retriever = build_retriever(settings.replace(embedding_model="none"))
    assert retriever.status.embedding_mode == "bm25-only"
    assert any("BM25 only" in n for n in retriever.status.notices)
    result = retriever.search("list.pop(0) TLE", problem_id="239")
    assert result.mode == "bm25"
    assert doc_ids(result)[0] == "p239-error-pop0-en"
    assert all(set(h.signals) == {"bm25"} for h in result.hits)


def test_an_unloadable_model_falls_back_to_bm25_with_the_reason(settings, tmp_path):
    retriever = build_retriever(settings.replace(embedding_model=str(tmp_path / "no-such-model")))
    status = retriever.status
    assert status.embedding_mode == "bm25-only" and status.embedding_model is None
    assert any("no-such-model" in n and "BM25" in n for n in status.notices)
    assert retriever.search("two sum hash").hits


def test_lexical_weights_are_a_third_signal(settings):
    retriever = build_retriever(settings, embedder=HashingEmbedder(lexical=True))
    assert retriever.status.embedding_mode == "dense + lexical + bm25"
    hit = retriever.search("popleft deque window", problem_id="239").hits[0]
    assert set(hit.signals) == {"bm25", "dense", "lexical"}


def test_a_broken_knowledge_file_is_reported_and_the_rest_still_load(settings, kb_dir):
    (kb_dir / "docs" / "broken.md").write_text("---\nid: [unclosed\n---\ntext\n", encoding="utf-8")
    retriever = build_retriever(settings, embedder=HashingEmbedder())
    assert retriever.status.documents == 7
    assert any("broken.md" in e for e in retriever.status.kb_errors)
    assert any("could not be loaded" in n for n in retriever.status.notices)


def test_status_counts(retriever):
    status = retriever.status
    assert (status.documents, status.problems) == (7, 3)
    assert status.chunks >= 7
    assert status.embedding_mode == "dense + bm25"


def test_settings_from_env_reads_quest_variables():
    s = Settings.from_env({"QUEST_TOP_K": "4", "OLLAMA_HOST": "http://h:1", "QUEST_EMBEDDING_MODEL": "none"})
    assert (s.top_k, s.ollama_host, s.embeddings_enabled) == (4, "http://h:1", False)


def test_signals_can_be_limited_for_evaluation(retriever):
    dense = retriever.search("deque popleft window", problem_id="239", signals={"dense"})
    assert dense.mode == "dense" and dense.hits
    assert all(set(h.signals) == {"dense"} for h in dense.hits)
    bm25 = retriever.search("deque popleft window", problem_id="239", signals={"bm25"})
    assert bm25.mode == "bm25" and all(set(h.signals) == {"bm25"} for h in bm25.hits)


def test_a_document_and_its_translation_count_as_one():
    from quest.kb.documents import Chunk
    from quest.retrieval.retriever import _diversify, translation_key
    from quest.retrieval.types import Hit

    def hit(doc_id: str, ordinal: int) -> Hit:
        chunk = Chunk(id=f"{doc_id}#{ordinal}", doc_id=doc_id, ordinal=ordinal, section="", text="t", kind="faq",
                      title="t", lang="zh")
        return Hit(chunk=chunk, score=0.5)

    ranked = [hit("p239-error-pop0-zh", 0), hit("p239-error-pop0-en", 0), hit("p239-error-pop0-zh", 2),
              hit("p239-official-zh", 1), hit("p239-error-pop0-zh", 3), hit("faq-tle-en", 0)]
    assert [h.chunk.id for h in _diversify(ranked, 10)] == [
        "p239-error-pop0-zh#0", "p239-official-zh#1", "faq-tle-en#0", "p239-error-pop0-zh#2",
    ]
    assert [h.chunk.id for h in _diversify(ranked, 2)] == ["p239-error-pop0-zh#0", "p239-official-zh#1"]
    assert translation_key("p239-error-pop0-en") == translation_key("p239-error-pop0-zh") == "p239-error-pop0"
    assert translation_key("faq-zh-input") == "faq-zh-input"


def test_with_no_problem_named_general_documents_lead(settings, embedder):
    question = "滑动窗口 单调队列 超时"
    plain = build_retriever(settings.replace(general_lead=0), embedder=HashingEmbedder()).search(question)
    assert doc_ids(plain)[:2] == ["p239-official-zh", "faq-tle-zh"]
    lead = build_retriever(settings, embedder=embedder).search(question)
    assert doc_ids(lead)[:2] == ["faq-tle-zh", "p239-official-zh"]
    named = build_retriever(settings, embedder=HashingEmbedder()).search(question, problem_id="239")
    assert doc_ids(named)[0] == "p239-official-zh"  # a named problem still comes first


def test_equal_fused_scores_go_to_the_stronger_match_then_by_chunk(retriever):
    table = retriever.index.chunks
    a, b, c = sorted(range(3), key=lambda row: (table.doc_id(row), int(table.ordinal[row])))
    fused = [(a, 0.5), (b, 0.5), (c, 0.4)]
    # b leads list one (4/4) and trails list two (0.25/1): 1.25 against a's 2/4 + 1/1 = 1.5.
    lists = {"bm25:question": [(b, 4.0), (a, 2.0)], "bm25:error": [(a, 1.0), (b, 0.25)]}
    assert retriever._by_chunk_on_ties(fused, lists) == [(a, 0.5), (b, 0.5), (c, 0.4)]
    lists["bm25:error"] = [(b, 1.0), (a, 0.25)]  # now b is the stronger match
    assert retriever._by_chunk_on_ties(fused, lists) == [(b, 0.5), (a, 0.5), (c, 0.4)]
    even = {"bm25:question": [(b, 2.0), (a, 1.0)], "bm25:error": [(a, 2.0), (b, 1.0)]}
    assert retriever._by_chunk_on_ties([(b, 0.5), (a, 0.5)], even) == [(a, 0.5), (b, 0.5)]  # by chunk
