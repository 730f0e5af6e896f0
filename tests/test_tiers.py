"""Tiers apply to everything a student can see (issue 11): one policy function, a test per surface.

Before, the explain tier held long code back only in the model's answer; the Sources panel, the
`/ask` API's `sources_json` and `ask --json` carried the official solution's code and an error
pattern's complete accepted "fix" program one click away.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import quest.retrieval.retriever as retriever_module
from quest.assistant import Assistant
from quest.cli import main
from quest.events import Done, Sources
from quest.kb.documents import Chunk
from quest.llm import OllamaChatModel
from quest.policy import MAX_CODE_LINES, code_blocks, held_back_note, visible_text
from quest.request import Request
from quest.settings import Settings
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.retriever import OFFICIAL_239_CODE, FakeRetriever, default_chunks
from tests.fakes.samples import TLE_CODE

# An error pattern whose "fix" is a whole accepted program (13 lines), plus a short snippet.
FIX_PROGRAM = """from collections import deque

class Solution:
    def maxSlidingWindow(self, nums, k):
        dq, res = deque(), []
        for i, x in enumerate(nums):
            while dq and nums[dq[-1]] <= x:
                dq.pop()
            dq.append(i)
            if dq[0] <= i - k:
                dq.popleft()
            if i >= k - 1:
                res.append(nums[dq[0]])
        return res
"""
SNIPPET = "q = deque()\nq.popleft()\n"
FIX_TEXT = ("The fix: keep a monotonic deque of indices.\n\n```python\n" + FIX_PROGRAM + "```\n\n"
            "The core is two calls:\n\n```python\n" + SNIPPET + "```\n")


def chunks() -> list[Chunk]:
    base = default_chunks()
    fix = Chunk(id="p239-fix#0", doc_id="p239-fix", ordinal=0, section="The fix", text=FIX_TEXT,
                kind="error_pattern", title="Sliding window TLE: the fix", lang="en", problem_id="239",
                tags=("deque", "sliding_window"), verdicts=("TLE",))
    return [base[0], fix, *base[1:]]


def long_code_lines(text: str) -> list[str]:
    """Lines of the two solution programs that appear in `text` (should be none below solution)."""
    program_lines = [line.strip() for code in (FIX_PROGRAM, OFFICIAL_239_CODE) for line in code.splitlines()
                     if len(line.strip()) > 12 and "import" not in line]  # short snippets import deque too
    return [line for line in program_lines if line in text]


# --------------------------------------------------------------------------- the policy function


def test_explain_holds_back_long_code_from_any_document_and_all_official_code() -> None:
    shown = visible_text(FIX_TEXT, "error_pattern", "explain", "en")
    assert long_code_lines(shown) == []
    assert held_back_note("en") in shown and "The fix: keep a monotonic deque" in shown
    assert [b for b in code_blocks(shown)] == [SNIPPET]  # short snippets stay
    official = visible_text("Idea: a deque.\n\n```python\n" + SNIPPET + "```\n", "official_solution", "explain")
    assert code_blocks(official) == [] and official.startswith("Idea: a deque.")


def test_hint_shows_no_code_and_no_official_text() -> None:
    shown = visible_text(FIX_TEXT, "error_pattern", "hint", "zh")
    assert code_blocks(shown) == [] and held_back_note("zh") in shown
    assert visible_text("单调队列：" + OFFICIAL_239_CODE, "official_solution", "hint", "zh") == held_back_note("zh")
    assert visible_text(FIX_TEXT, "error_pattern", "no-such-tier") == visible_text(FIX_TEXT, "error_pattern", "hint")


def test_solution_shows_everything() -> None:
    assert visible_text(FIX_TEXT, "error_pattern", "solution") == FIX_TEXT


def test_a_block_of_exactly_the_limit_stays() -> None:
    block = "```\n" + "x\n" * MAX_CODE_LINES + "```\n"
    assert visible_text(block, "faq", "explain") == block
    longer = "```\n" + "x\n" * (MAX_CODE_LINES + 1) + "```\n"
    assert code_blocks(visible_text(longer, "faq", "explain")) == []


# --------------------------------------------------------------------------- each surface


def ask(assistant: Assistant, tier: str, **changes) -> list:
    values = {"question": "Why does my sliding window get TLE?", "problem_id": "239", "code": TLE_CODE,
              "error": "Time Limit Exceeded on test 12", "tier": tier, "ui_lang": "en", **changes}
    return list(assistant.ask(Request(**values)))


def sources_text(events: list) -> str:
    return "\n".join(s.text for e in events if isinstance(e, Sources) for s in e.sources)


@pytest.mark.parametrize("tier", ["hint", "explain"])
def test_the_sources_panel_holds_code_back(fake_ollama: FakeOllama, tier: str) -> None:
    settings = Settings(ollama_host=fake_ollama.url)
    assistant = Assistant(settings, FakeRetriever(chunks()), OllamaChatModel(settings))
    events = ask(assistant, tier)
    text = sources_text(events)
    assert "monotonic deque" in text  # the idea is there
    assert long_code_lines(text) == [] and held_back_note("en") in text
    # The model still had the material it explains from (explain tier); only what is shown changed.
    if tier == "explain":
        assert "dq.popleft()" in fake_ollama.chat_text()


def test_the_solution_tier_sources_keep_the_code(fake_ollama: FakeOllama) -> None:
    settings = Settings(ollama_host=fake_ollama.url)
    assistant = Assistant(settings, FakeRetriever(chunks()), OllamaChatModel(settings))
    assert "while dq and nums[dq[-1]] <= x:" in sources_text(ask(assistant, "solution"))


@pytest.mark.parametrize("tier", ["hint", "explain"])
def test_the_retrieval_only_answer_holds_code_back(tier: str) -> None:
    assistant = Assistant(Settings(), FakeRetriever(chunks()), None)  # no model: sources and their excerpts
    events = ask(assistant, tier)
    done = events[-1]
    assert isinstance(done, Done) and done.stats["mode"] == "fallback"
    assert long_code_lines(done.answer + sources_text(events)) == []


def test_the_direct_answer_holds_code_back() -> None:
    assistant = Assistant(Settings(), FakeRetriever(chunks()), None)
    events = ask(assistant, "explain", question="239", code="", error="")
    assert events[-1].stats["mode"] == "exact"
    assert long_code_lines(events[-1].answer + sources_text(events)) == []


@pytest.fixture
def kb_with_fix(monkeypatch: pytest.MonkeyPatch) -> FakeRetriever:
    retriever = FakeRetriever(chunks())
    monkeypatch.setattr(retriever_module, "build_retriever", lambda settings, **_: retriever)
    monkeypatch.delenv("QUEST_CONTEST_LOCK_FILE", raising=False)
    monkeypatch.delenv("QUEST_MAX_TIER", raising=False)
    return retriever


def test_ask_json_holds_code_back(fake_ollama: FakeOllama, kb_with_fix: FakeRetriever, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = tmp_path / "solution.py"
    code.write_text(TLE_CODE, encoding="utf-8")
    argv = ["ask", "Why TLE?", "--problem", "239", "--code", str(code), "--ollama-host", fake_ollama.url,
            "--lang", "en", "--tier", "explain", "--json"]
    assert main(argv) == 0
    payload = json.loads(capsys.readouterr().out)
    text = "\n".join(s["text"] for s in payload["sources"])
    assert payload["sources"] and long_code_lines(text) == [] and held_back_note("en") in text
