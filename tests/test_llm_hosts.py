"""Several model hosts: least-in-flight routing, back-off, one retry before the first token.

Real fake servers on 127.0.0.1 (two or three at a time), driven through the official clients.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from quest.errors import LLMUnavailable, StreamBroken
from quest.hosts import HostRouter, build_chat_model, split_hosts
from quest.llm import OllamaChatModel
from quest.llm_openai import OpenAIChatModel
from quest.settings import Settings
from quest.testing.ollama_server import FakeOllama
from quest.testing.openai_server import FakeOpenAI

MESSAGES = [{"role": "user", "content": "Why TLE?"}]
MODEL = "qwen2.5-coder:1.5b"
# A generous first-token wait: on a loaded machine (the CI runs every test on two busy cores) a short one expired
# before a healthy fake's first piece, and that host was then backed off. Only a stalled host is given a short one
# (`stalled`), so that its stall is found quickly.
TIMEOUTS = {"connect_timeout": 2.0, "first_token_timeout": 10.0, "total_timeout": 30.0}
STALL_WAIT = 0.5


class Clock:
    """A hand-driven monotonic clock, so back-off periods pass without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def start(kind: str, n: int, **behaviour: Any) -> list[Any]:
    cls = FakeOllama if kind == "ollama" else FakeOpenAI
    return [cls(**behaviour).start() for _ in range(n)]


def router(
    kind: str, fakes: list[Any], clock: Clock | None = None, backoff: float = 30.0, stalled: tuple[int, ...] = (),
    **timeouts: float,
) -> HostRouter:
    """A router over `fakes`; the hosts numbered in `stalled` wait STALL_WAIT for a first token, the others long."""
    def settings(i: int, url: str) -> Settings:
        waits = {**TIMEOUTS, **timeouts, **({"first_token_timeout": STALL_WAIT} if i in stalled else {})}
        if kind == "ollama":
            return Settings(ollama_host=url, **waits)
        return Settings(llm_backend="openai", openai_base_url=url, **waits)

    model = OllamaChatModel if kind == "ollama" else OpenAIChatModel
    models = [model(settings(i, f.url)) for i, f in enumerate(fakes)]
    return HostRouter([(m.host, m) for m in models], backoff=backoff, clock=clock or Clock())


@pytest.fixture
def stop_all() -> Iterator[list[Any]]:
    fakes: list[Any] = []
    yield fakes
    for fake in fakes:
        fake.stop()


def answer(r: HostRouter) -> str:
    return "".join(chunk.content for chunk in r.stream(MESSAGES, MODEL))


def chats(fake: Any) -> int:
    return len(fake.chat_bodies)


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_each_chat_goes_to_the_host_with_fewest_in_flight(kind: str, stop_all: list[Any]) -> None:
    fakes = start(kind, 3, tokens=[f"w{i} " for i in range(40)], delay=0.01)
    stop_all += fakes
    r = router(kind, fakes)
    streams = [r.stream(MESSAGES, MODEL) for _ in range(3)]
    for s in streams:
        next(s)  # each holds its host busy
    assert [chats(f) for f in fakes] == [1, 1, 1]
    assert [h["in_flight"] for h in r.health()] == [1, 1, 1]
    streams[1].close()  # host 1 frees up: it takes the next chat
    fourth = r.stream(MESSAGES, MODEL)
    next(fourth)
    assert [chats(f) for f in fakes] == [1, 2, 1]
    for s in (streams[0], streams[2], fourth):
        s.close()
    assert [h["in_flight"] for h in r.health()] == [0, 0, 0]


def break_host(fake: Any, way: str) -> None:
    if way == "refused":
        fake.stop()
    elif way == "stalled":
        fake.mode, fake.stall_seconds = "stall", 3.0
    elif way == "dropped before the first token":
        fake.mode, fake.drop_after = "drop", 0
    elif way == "model missing":
        fake.models = ["other:7b"]
    else:  # an HTTP status, OpenAI protocol only
        fake.mode, fake.status, fake.retry_after = "status", int(way), 60


WAYS = {
    "ollama": ["refused", "stalled", "dropped before the first token", "model missing"],
    "openai": ["refused", "stalled", "dropped before the first token", "model missing", "401", "429", "500", "503"],
}
CASES = [(kind, way) for kind, ways in WAYS.items() for way in ways]
CODES = {"refused": "llm_unavailable", "stalled": "llm_timeout", "dropped before the first token": "stream_broken",
         "model missing": "model_not_found", "401": "llm_auth", "429": "rate_limited", "500": "llm", "503": "llm"}


@pytest.mark.parametrize(("kind", "way"), CASES)
def test_a_failing_host_is_retried_elsewhere_and_backed_off(kind: str, way: str, stop_all: list[Any]) -> None:
    fakes = start(kind, 2)
    stop_all += fakes
    clock = Clock()
    r = router(kind, fakes, clock, backoff=30.0, stalled=(0,) if way == "stalled" else ())
    break_host(fakes[0], way)
    assert answer(r) == "Use a deque [1]."  # host 0 first (fewest served), then the retry on host 1
    bad, good = r.health()
    assert (bad["healthy"], bad["failures"], bad["last_error"]) == (False, 1, CODES[way])
    assert bad["retry_in_s"] == (60.0 if way == "429" else 30.0)  # Retry-After wins when longer
    assert (good["healthy"], good["served"], good["failures"]) == (True, 1, 0)
    assert chats(fakes[1]) == 1
    before = chats(fakes[0])
    assert answer(r) == "Use a deque [1]."  # host 0 is backing off: not asked
    assert chats(fakes[0]) == before and chats(fakes[1]) == 2


def test_back_off_ends_and_the_host_is_tried_again(stop_all: list[Any]) -> None:
    fakes = start("openai", 2)
    stop_all += fakes
    clock = Clock()
    r = router("openai", fakes, clock, backoff=30.0)
    fakes[0].mode, fakes[0].status = "status", 503
    answer(r)
    fakes[0].mode = "normal"  # the host recovers
    clock.now += 29.0
    answer(r)
    assert chats(fakes[0]) == 1  # still backing off
    clock.now += 2.0
    answer(r)
    assert chats(fakes[0]) == 2 and r.health()[0]["healthy"] and r.health()[0]["served"] == 1


def test_no_retry_after_the_first_token(stop_all: list[Any]) -> None:
    fakes = start("openai", 2, drop_after=2)
    stop_all += fakes
    fakes[0].mode = "drop"
    r = router("openai", fakes)
    got: list[str] = []
    with pytest.raises(StreamBroken):
        for chunk in r.stream(MESSAGES, MODEL):
            got.append(chunk.content)
    assert got == ["Use ", "a "]  # the student saw these; a second host would start over
    assert [chats(f) for f in fakes] == [1, 0]


def test_retried_once_only(stop_all: list[Any]) -> None:
    fakes = start("openai", 3, mode="status", status=500)
    stop_all += fakes
    r = router("openai", fakes)
    with pytest.raises(Exception, match="HTTP 500"):
        answer(r)
    assert sorted(chats(f) for f in fakes) == [0, 1, 1]


def test_one_host_down_still_gets_asked(stop_all: list[Any]) -> None:
    fakes = start("ollama", 1)
    stop_all += fakes
    r = router("ollama", fakes)
    fakes[0].stop()
    with pytest.raises(LLMUnavailable):
        answer(r)
    fakes[0].start()  # same port: the host is back
    assert answer(r) == "Use a deque [1]."  # with one host, back-off never means "no host at all"


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_three_hosts_one_dies_mid_run_no_student_request_fails(kind: str, stop_all: list[Any]) -> None:
    fakes = start(kind, 3, tokens=["Use ", "a ", "deque", " [1]", "."], delay=0.005)
    stop_all += fakes
    # A generous first-token wait: under CI load a 0.5 s wait expired on the healthy host, which was
    # then backed off like a dead one. This test is about hosts dying, not about slow first tokens.
    r = router(kind, fakes, backoff=30.0)
    results: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    done = threading.Semaphore(0)

    def student() -> None:
        try:
            text = answer(r)
            with lock:
                results.append(text)
        except BaseException as exc:  # recorded and asserted below
            with lock:
                errors.append(exc)
        finally:
            done.release()

    def run(n: int) -> None:
        threads = [threading.Thread(target=student) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)

    run(12)
    fakes[1].mode, fakes[1].status, fakes[1].drop_after = "drop", 500, 0  # host 1 breaks for every new chat
    if kind == "openai":
        fakes[1].mode = "status"
    run(12)
    fakes[2].stop()  # host 2 goes away altogether
    run(12)
    assert errors == [] and results == ["Use a deque [1]."] * 36
    health = r.health()
    assert not health[1]["healthy"] and not health[2]["healthy"] and health[0]["healthy"]


def test_build_chat_model_reads_comma_separated_hosts() -> None:
    ollama = build_chat_model(Settings(ollama_host="http://a:11434, http://b:11434"))
    assert [h.url for h in ollama.hosts] == ["http://a:11434", "http://b:11434"]
    assert all(isinstance(h.model, OllamaChatModel) for h in ollama.hosts)
    openai = build_chat_model(Settings(llm_backend="openai", openai_base_url="http://a:8000/v1/,http://b:8000/v1"))
    assert [h.url for h in openai.hosts] == ["http://a:8000/v1", "http://b:8000/v1"]
    assert build_chat_model(Settings()).host == "http://127.0.0.1:11434"
    assert split_hosts(" a, ,b,") == ["a", "b"] and split_hosts(None) == []


def test_assistant_status_lists_each_host_without_secrets(stop_all: list[Any]) -> None:
    from quest.assistant import Assistant
    from tests.fakes.retriever import FakeRetriever

    fakes = start("openai", 2)
    stop_all += fakes
    fakes[1].stop()
    settings = Settings(llm_backend="openai", openai_base_url=f"{fakes[0].url},{fakes[1].url}",
                        openai_api_key="sk-secret-77", openai_model="qwen2.5-coder:1.5b", **TIMEOUTS)
    assistant = Assistant(settings, FakeRetriever(), build_chat_model(settings))
    status = assistant.status()
    assert status["llm_backend"] == "openai" and status["model"] == "qwen2.5-coder:1.5b"
    assert status["ollama_reachable"] is True  # one of the two answers
    hosts = status["model_hosts"]
    assert [(h["host"], h["healthy"], h["last_error"]) for h in hosts] == [
        (fakes[0].url, True, ""), (fakes[1].url, False, "not reachable")]
    assert "sk-secret-77" not in repr(status)
