"""The bench's stages count the first, confirming search of a weak name (issue 9, round 12 review)."""

from __future__ import annotations

from quest.bench.corpus import BenchQuery
from quest.bench.stages import STAGES, run_stages
from quest.request import Request
from tests.fakes.retriever import FakeRetriever


def test_a_confirmed_weak_name_adds_its_first_search_to_the_retrieval_stages():
    # The fake's every search reports 1.0 ms in all: the confirmed question searched twice, the named one once.
    confirmed = BenchQuery(Request(question="deque popleft solution for 239 is still slow, 单调队列 窗口"), "239")
    named = BenchQuery(Request(question="why is my deque solution slow", problem_id="239"), "239")
    retriever = FakeRetriever()
    out = run_stages(retriever, [confirmed, named] * 3, context_chars=4000)  # six: more than the warm-up's five
    assert [s.problem_id for s in retriever.searches[-3:]] == [None, "239", "239"]
    stages = out["stages"]
    assert set(stages) == set(STAGES)
    assert stages["confirm_search"] == {"n": 3, "p50": 1.0, "p95": 1.0, "mean": 1.0, "max": 1.0}
    both = {"n": 6, "p50": 1.5, "p95": 2.0, "mean": 1.5, "max": 2.0}  # 1.0 + 1.0, then 1.0, three times
    assert stages["retrieval"] == both and stages["retrieval_no_embed"] == both
    assert out["paths"] == {"problem_only": 6, "with_global": 0, "widened": 0, "empty": 0, "confirmed": 3}
    assert stages["request"]["n"] == 6 and stages["request"]["max"] >= 2.0
