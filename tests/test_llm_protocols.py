"""One table of cases, run through the whole assistant against both fake servers: the fake Ollama
(official `ollama` client) and the fake OpenAI-compatible server (official `openai` client).

Each case sets the same behaviour on either server and expects the same events: the same
tokens, thinking, notices, fallback and failure code. Only the wording of a failure line differs
(it names `ollama serve` or the configured OpenAI-compatible server), so the retrieval-only
answer is compared without its first line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from quest.assistant import Assistant
from quest.events import Done, Event, Notice, Sources, Thinking, Token
from quest.hosts import build_chat_model
from quest.request import Request
from quest.settings import Settings
from quest.testing.ollama_server import FakeOllama
from quest.testing.openai_server import FakeOpenAI
from tests.fakes.retriever import FakeRetriever
from tests.fakes.samples import TLE_CODE

# Healthy fakes answer at once, but a loaded CI machine can take a while to start a stream: they get
# a long first-token wait. Only the stalled case waits briefly (STALL_WAIT), for the test's own speed.
TIMEOUTS = {"connect_timeout": 2.0, "first_token_timeout": 10.0, "total_timeout": 30.0}
STALL_WAIT = 1.0


@dataclass
class Backend:
    name: str
    fake: Any
    settings: Settings


@pytest.fixture(params=["ollama", "openai"])
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    if request.param == "ollama":
        fake: Any = FakeOllama().start()
        settings = Settings(ollama_host=fake.url, **TIMEOUTS)
    else:
        fake = FakeOpenAI().start()
        settings = Settings(llm_backend="openai", openai_base_url=fake.url, **TIMEOUTS)
    try:
        yield Backend(request.param, fake, settings)
    finally:
        fake.stop()


def ask(backend: Backend, **changes: Any) -> list[Event]:
    assistant = Assistant(backend.settings, FakeRetriever(), build_chat_model(backend.settings))
    values = {"question": "Why does my sliding window get TLE?", "problem_id": "239", "code": TLE_CODE,
              "error": "Time Limit Exceeded on test 12", "tier": "explain", "ui_lang": "en"}
    values.update(changes)
    return list(assistant.ask(Request(**values)))


def shape(events: list[Event]) -> list[tuple[str, str]]:
    """Events as (kind, what matters): token text, thinking text, notice code, outcome."""
    out: list[tuple[str, str]] = []
    fallback = isinstance(events[-1], Done) and events[-1].fallback
    for e in events:
        if isinstance(e, Token) and fallback:
            out.append(("Token", "*"))  # the retrieval-only answer; compared in its own test
        elif isinstance(e, Token | Thinking):
            out.append((type(e).__name__, e.text))
        elif isinstance(e, Notice):
            out.append(("Notice", e.code))
        elif isinstance(e, Sources):
            out.append(("Sources", ",".join(str(s.number) for s in e.sources)))
        elif isinstance(e, Done):
            out.append(("Done", f"fallback={e.fallback} incomplete={e.incomplete} "
                                f"failure={e.stats.get('failure')} cited={e.cited}"))
    return out


def retrieval_part(events: list[Event]) -> str:
    """A fallback's answer without its first line (the line that names the server)."""
    return events[-1].answer.split("\n\n", 1)[1]


def configure(backend: Backend, **behaviour: Any) -> None:
    for key, value in behaviour.items():
        setattr(backend.fake, key, value)


STREAMED = [("Token", "Use "), ("Token", "a "), ("Token", "deque"), ("Token", " [1]"), ("Token", ".")]


def stall(backend: Backend) -> None:
    """The server accepts the request but sends nothing; the assistant waits STALL_WAIT for a first token."""
    configure(backend, mode="stall", stall_seconds=5.0)
    backend.settings = replace(backend.settings, first_token_timeout=STALL_WAIT)


def fallback_done(code: str) -> tuple[str, str]:
    return ("Done", f"fallback=True incomplete=False failure={code} cited=(3,)")


CASES: dict[str, tuple[Callable[[Backend], None], list[tuple[str, str]]]] = {
    "answer": (lambda b: None,
               [("Sources", "1,2,3"), *STREAMED,
                ("Done", "fallback=False incomplete=False failure=None cited=(1,)")]),
    "thinking field": (lambda b: configure(b, thinking=["pop(0) ", "is O(k)"], tokens=["Use a deque [1]."]),
                       [("Sources", "1,2,3"), ("Thinking", "pop(0) "), ("Thinking", "is O(k)"),
                        ("Token", "Use a deque [1]."),
                        ("Done", "fallback=False incomplete=False failure=None cited=(1,)")]),
    "think tags in content": (lambda b: configure(b, tokens=["<think>pop(0)", " is slow</think>", "Use a deque [1]."]),
                              [("Sources", "1,2,3"), ("Thinking", "pop(0)"), ("Thinking", " is slow"),
                               ("Token", "Use a deque [1]."),
                               ("Done", "fallback=False incomplete=False failure=None cited=(1,)")]),
    "server down": (lambda b: b.fake.stop(),
                    [("Sources", "1,2,3"), ("Notice", "llm_unavailable"), ("Token", "*"),
                     fallback_done("llm_unavailable")]),
    "model missing": (lambda b: configure(b, models=["other:7b"]),
                      [("Sources", "1,2,3"), ("Notice", "model_not_found"), ("Token", "*"),
                       fallback_done("model_not_found")]),
    "stalled": (stall,
                [("Sources", "1,2,3"), ("Notice", "llm_timeout"), ("Token", "*"), fallback_done("llm_timeout")]),
    "dropped mid-stream": (lambda b: configure(b, mode="drop", drop_after=3),
                           [("Sources", "1,2,3"), ("Token", "Use "), ("Token", "a "), ("Token", "deque"),
                            ("Notice", "stream_broken"),
                            ("Done", "fallback=False incomplete=True failure=None cited=()")]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_events_through_both_protocols(backend: Backend, case: str) -> None:
    setup, expected = CASES[case]
    setup(backend)
    assert shape(ask(backend)) == expected


@pytest.mark.parametrize("case", ["server down", "model missing", "stalled"])
def test_fallback_answers_agree_apart_from_the_line_naming_the_server(case: str) -> None:
    answers = {}
    for name in ("ollama", "openai"):
        fake: Any = FakeOllama().start() if name == "ollama" else FakeOpenAI().start()
        settings = (Settings(ollama_host=fake.url, **TIMEOUTS) if name == "ollama"
                    else Settings(llm_backend="openai", openai_base_url=fake.url, **TIMEOUTS))
        b = Backend(name, fake, settings)
        try:
            CASES[case][0](b)
            answers[name] = ask(b)
        finally:
            fake.stop()
    assert retrieval_part(answers["ollama"]) == retrieval_part(answers["openai"])
    first = {name: events[-1].answer.split("\n\n", 1)[0] for name, events in answers.items()}
    assert "ollama" in first["ollama"].lower() and "ollama" not in first["openai"].lower()


def test_same_prompt_reaches_both_servers() -> None:
    ollama, openai = FakeOllama().start(), FakeOpenAI().start()
    try:
        ask(Backend("ollama", ollama, Settings(ollama_host=ollama.url, **TIMEOUTS)))
        ask(Backend("openai", openai, Settings(llm_backend="openai", openai_base_url=openai.url, **TIMEOUTS)))
    finally:
        ollama.stop()
        openai.stop()
    assert ollama.chat_bodies[0]["messages"] == openai.chat_bodies[0]["messages"]
    body = openai.chat_bodies[0]
    assert body["model"] == "qwen2.5-coder:1.5b" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.9, 1024)


def test_reasoning_model_by_backend() -> None:
    fake = FakeOpenAI(models=["Qwen/Qwen2.5-Coder-7B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"]).start()
    settings = Settings(llm_backend="openai", openai_base_url=fake.url, openai_model="Qwen/Qwen2.5-Coder-7B-Instruct",
                        openai_reasoning_model="deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", **TIMEOUTS)
    try:
        plain = ask(Backend("openai", fake, settings))
        deep = ask(Backend("openai", fake, settings), reasoning=True)
    finally:
        fake.stop()
    assert [b["model"] for b in fake.chat_bodies] == ["Qwen/Qwen2.5-Coder-7B-Instruct",
                                                       "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"]
    assert plain[-1].stats["model"] == "Qwen/Qwen2.5-Coder-7B-Instruct"
    assert deep[-1].stats["model"] == "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"


@pytest.mark.parametrize(("status", "code", "words"), [
    (401, "llm_auth", "the operator should check QUEST_OPENAI_API_KEY"),
    (403, "llm_auth", "the operator should check QUEST_OPENAI_API_KEY"),
    (429, "rate_limited", "rate limiting requests, so there is no generated answer. Fix: wait a moment"),
    (503, "llm", "The model server failed (The model server at"),
])
def test_openai_only_failures_have_their_own_friendly_line(status: int, code: str, words: str) -> None:
    fake = FakeOpenAI(mode="status", status=status, retry_after=20).start()
    settings = Settings(llm_backend="openai", openai_base_url=fake.url, openai_api_key="sk-never-shown", **TIMEOUTS)
    try:
        events = ask(Backend("openai", fake, settings))
    finally:
        fake.stop()
    notice = next(e for e in events if isinstance(e, Notice))
    done = events[-1]
    assert notice.code == code and done.fallback and done.stats["failure"] == code
    assert words in done.answer.split("\n\n", 1)[0]
    assert "sk-never-shown" not in done.answer and "ollama" not in done.answer.lower()
