"""Round 20: a named problem's error pattern that lists its bug's code constructs (front matter `signatures`) leads
only when the student's code holds one of them (`Settings.pattern_signatures`, `Retriever._pattern_by_signature`).

The fixture base (tests/data/kb_sig20) is round 19's problem 239 (official solution; TLE patterns for popping a
list's front and for slicing every window; a WA pattern), with the front-pop pattern listing `pop(0)` and `.remove(`
for Python. The other patterns list nothing and keep today's behaviour.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.retriever import Retriever
from quest.settings import Settings
from tests.fakes.rank_base import retriever_over, shown

KB = Path(__file__).resolve().parent / "data" / "kb_sig20"

OFFICIAL, FRONT_POP = "p239-official-en", "p239-error-front-pop-en"
SLICING, LATE = "p239-error-slice-every-window-en", "p239-error-off-by-one-en"
OFF = {"pattern_signatures": False}
SLOW = "Sliding Window Maximum: my solution times out on big inputs"
HEAP_CODE = ("import heapq\nheap = []\nfor i, x in enumerate(nums):\n    heapq.heappush(heap, (-x, i))\n"
             "    if i >= k - 1:\n        while heap[0][1] <= i - k:\n            heapq.heappop(heap)\n"
             "        out.append(-heap[0][0])")
POP_CODE = ("window = []\nfor i, x in enumerate(nums):\n    window.append(x)\n    if len(window) > k:\n"
            "        window.pop( 0)\n    if i >= k - 1:\n        out.append(max(window))")
CPP_CODE = ("priority_queue<pair<int, int>> pq;\nfor (int i = 0; i < n; i++) {\n    pq.push({nums[i], i});\n"
            "    while (pq.top().second <= i - k) pq.pop();\n}")


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory, pattern_signatures=True)


def test_the_rule_is_on_by_default_and_the_environment_turns_it_off():
    # On since round 21: its unseen split met the criterion fixed before it was written (docs/retrieval.md).
    assert Settings().pattern_signatures is True
    assert Settings.from_env({"QUEST_PATTERN_SIGNATURES": "0"}).pattern_signatures is False
    assert Settings.from_env({"QUEST_PATTERN_SIGNATURES": "1"}).pattern_signatures is True


def test_a_pattern_whose_signatures_the_code_does_not_hold_gives_the_lead_to_the_official_solution(retriever):
    request = {"question": SLOW, "code": HEAP_CODE, "error": "Time Limit Exceeded"}
    # The slicing pattern, next, lists no signatures: it cannot take a lead the code gives no reason for.
    assert shown(retriever, **request) == [OFFICIAL, FRONT_POP, SLICING, FRONT_POP, SLICING]
    assert shown(retriever, OFF, **request) == [FRONT_POP, SLICING, OFFICIAL, FRONT_POP, SLICING]


def test_a_question_that_names_the_patterns_bug_keeps_it_first(retriever):
    # "front", "list": words of the pattern's title that are not the problem's: the student suspects that bug.
    request = {"question": SLOW + ". Is removing the front of my list the problem?", "code": HEAP_CODE,
               "error": "Time Limit Exceeded"}
    assert shown(retriever, **request)[0] == FRONT_POP
    assert shown(retriever, **request) == shown(retriever, OFF, **request)


def test_code_that_holds_the_signature_keeps_the_pattern_first(retriever):
    # `pop( 0 )`: a literal signature is compared without whitespace.
    request = {"question": SLOW, "code": POP_CODE, "error": "Time Limit Exceeded"}
    assert shown(retriever, **request) == [FRONT_POP, SLICING, OFFICIAL, LATE, FRONT_POP, SLICING]
    assert shown(retriever, **request) == shown(retriever, OFF, **request)


def test_no_code_or_a_language_the_pattern_lists_nothing_for_keeps_todays_order(retriever):
    no_code = {"question": SLOW, "error": "Time Limit Exceeded"}
    assert shown(retriever, **no_code) == [FRONT_POP, SLICING, FRONT_POP, SLICING]
    assert shown(retriever, **no_code) == shown(retriever, OFF, **no_code)
    cpp = {"question": SLOW, "code": CPP_CODE, "error": "Time Limit Exceeded"}
    assert shown(retriever, **cpp)[0] == FRONT_POP
    assert shown(retriever, **cpp) == shown(retriever, OFF, **cpp)
