"""Round 19: of a named problem's error patterns that fit the failure, the student's code picks the one that leads.

Two patterns of one problem written for the same verdict repeat that verdict and the problem's words alike, so which
led was decided by the bare verdict line's list: the page that writes "Time Limit Exceeded" most often. What tells
them apart is the student's program, written like one pattern's code and not the other's (`Settings.code_pattern_lead`,
`Retriever._pattern_by_code`). The fixture base (tests/data/kb_rank19) has problem 239 with its official solution and
three error patterns: two for TLE — a list whose front is popped every step (its text repeats the verdict), and
slicing every window — and one for WA (the first window recorded one step late).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.retriever import Retriever
from quest.settings import Settings
from tests.fakes.rank_base import retriever_over, shown

KB = Path(__file__).resolve().parent / "data" / "kb_rank19"

OFFICIAL, FRONT_POP = "p239-official-en", "p239-error-front-pop-en"
SLICING, LATE = "p239-error-slice-every-window-en", "p239-error-off-by-one-en"
OFF = {"code_pattern_lead": 0}
SLOW = "Sliding Window Maximum: my solution times out on big inputs"
SLICE_CODE = ("def maxSlidingWindow(self, nums, k):\n"
              "    return [max(nums[i:i + k]) for i in range(len(nums) - k + 1)]")
CPP_CODE = ("for (int i = 0; i + k <= n; i++)\n"
            "    out.push_back(*max_element(nums.begin() + i, nums.begin() + i + k));")
POP_CODE = ("window = []\nfor i, x in enumerate(nums):\n    window.append(x)\n    if len(window) > k:\n"
            "        window.pop(0)\n    if i >= k - 1:\n        out.append(max(window))")
LATE_CODE = "for i, x in enumerate(nums):\n    if i > k - 1:\n        out.append(nums[dq[0]])"


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    return retriever_over(KB, tmp_path_factory)


def test_the_rule_is_on_by_default_and_the_environment_turns_it_off():
    assert Settings().code_pattern_lead == 1.15
    assert Settings.from_env({"QUEST_CODE_PATTERN_LEAD": "0"}).code_pattern_lead == 0.0


@pytest.mark.parametrize("code", [SLICE_CODE, CPP_CODE], ids=["python-slice", "cpp-max-element"])
def test_code_written_like_the_other_pattern_puts_that_pattern_first(retriever, code):
    request = {"question": SLOW, "code": code, "error": "Time Limit Exceeded"}
    assert shown(retriever, **request) == [SLICING, FRONT_POP, OFFICIAL, LATE, FRONT_POP, SLICING]
    # Before: the pattern that repeats the verdict led on the verdict line's vote.
    assert shown(retriever, OFF, **request) == [FRONT_POP, SLICING, OFFICIAL, LATE, FRONT_POP, SLICING]


def test_code_written_like_the_leading_pattern_keeps_it_first(retriever):
    request = {"question": SLOW, "code": POP_CODE, "error": "Time Limit Exceeded"}
    assert shown(retriever, **request) == [FRONT_POP, SLICING, OFFICIAL, LATE, FRONT_POP, SLICING]
    assert shown(retriever, **request) == shown(retriever, OFF, **request)


def test_a_pattern_for_another_verdict_never_takes_the_lead_on_code(retriever):
    # The code is the WA pattern's (recording from i > k - 1), but the student got a TLE: that page cannot explain it.
    request = {"question": SLOW, "code": LATE_CODE, "error": "Time Limit Exceeded"}
    assert shown(retriever, **request) == [FRONT_POP, SLICING, OFFICIAL, LATE, FRONT_POP, SLICING]
    assert shown(retriever, **request) == shown(retriever, OFF, **request)
    # A Wrong Answer with slicing code: the only WA pattern leads, the TLE slicing page does not.
    wrong = {"question": "Sliding Window Maximum: wrong output", "code": SLICE_CODE, "error": "Wrong Answer"}
    assert shown(retriever, **wrong) == [LATE, SLICING, FRONT_POP, OFFICIAL, LATE, SLICING]
    assert shown(retriever, **wrong) == shown(retriever, OFF, **wrong)


def test_the_official_solution_keeps_the_lead_when_it_has_it(retriever):
    # No failure reported: the official solution leads (round 17); the code's likeness to a pattern does not move it.
    request = {"question": "Sliding Window Maximum: is slicing each window fine?", "code": SLICE_CODE}
    assert shown(retriever, **request) == [OFFICIAL, SLICING, FRONT_POP, LATE, SLICING, LATE]
    assert shown(retriever, **request) == shown(retriever, OFF, **request)
