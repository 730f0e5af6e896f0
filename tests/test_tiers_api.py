"""The `/ask` API's sources_json follows the tier (issue 11), through the app launched in this process."""

from __future__ import annotations

import json

import pytest

from quest.policy import held_back_note
from tests.fakes.app_server import RunningApp

pytestmark = pytest.mark.slow

SLIDING_CODE = "def maxSlidingWindow(nums, k):\n    w = []\n    for x in nums:\n        w.append(x)\n        w.pop(0)\n"
# Lines of the real knowledge base's programs for problem 239 (the official solution, the error
# patterns' slow and fixed versions): none may reach a student below the solution tier.
PROGRAM_LINES = ("while dq and nums[dq[-1]] <= x:", "res.append(nums[dq[0]])", "window = nums[:k]")


def _final(app: RunningApp, tier: str) -> tuple[str, list[dict]]:
    job = app.client().submit(api_name="/ask", question="Why is my sliding window too slow?", problem="239",
                              language="python", code=SLIDING_CODE, verdict="TLE", error="", tier=tier, lang="en")
    answer, sources, _ = job.result()
    return answer, json.loads(sources)


def test_ask_api_sources_hold_code_back_in_explain_and_show_it_in_solution(live_app: RunningApp) -> None:
    _, explain = _final(live_app, "explain")
    text = "\n".join(s["text"] for s in explain)
    assert explain and not any(line in text for line in PROGRAM_LINES)
    assert held_back_note("en") in text
    _, solution = _final(live_app, "solution")
    assert [s["title"] for s in solution] == [s["title"] for s in explain]  # the same sources, shown whole
    assert any(line in "\n".join(s["text"] for s in solution) for line in PROGRAM_LINES)
