"""A hand-written stand-in for `quest.assistant.Assistant`: scripted events, recorded requests.

`FakeAssistant(script)` yields the events of `script(request)` (or a fixed list), one per
`next()`, optionally pausing `delay` seconds before each token so a test can watch an
answer grow or stop it halfway. It records every request it got, how many events each
consumer took, and whether the consumer closed the stream early.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from quest.context import Source
from quest.events import Done, Event, Notice, Sources, Thinking, Token
from quest.request import Request


def make_source(number: int, kind: str = "official_solution", *, title: str = "滑动窗口最大值 - 官方题解",
                problem_id: str | None = "239", score: float = 0.83, text: str = "Use a deque.",
                section: str = "", label: str = "") -> Source:
    return Source(
        number=number,
        chunk_id=f"doc{number}#0",
        doc_id=f"doc{number}",
        kind=kind,
        label=label or kind,
        title=title,
        section=section,
        problem_id=problem_id,
        score=score,
        text=text,
        lang="zh",
    )


def answer_script(tokens: Sequence[str], *, sources: Sequence[Source] = (), cited: Sequence[int] = (),
                  notices: Sequence[Notice] = (), thinking: Sequence[str] = (), stats: dict[str, Any] | None = None,
                  fallback: bool = False) -> list[Event]:
    events: list[Event] = list(notices)
    events.append(Sources(tuple(sources)))
    events.extend(Thinking(x) for x in thinking)
    events.extend(Token(x) for x in tokens)
    events.append(Done(answer="".join(tokens), stats=dict(stats or {}), cited=tuple(cited), fallback=fallback))
    return events


class FakeAssistant:
    def __init__(
        self,
        script: Sequence[Event] | Callable[[Request], Sequence[Event]] = (),
        *,
        delay: float = 0.0,
        status: dict[str, Any] | None = None,
        fail_with: Exception | None = None,
        pause_after: int | None = None,
    ) -> None:
        self.script = script
        self.delay = delay
        # After this many events the answer waits until `proceed` is set: a test's checkpoint.
        self.pause_after = pause_after
        self.proceed = threading.Event()
        self.fail_with = fail_with
        self.requests: list[Request] = []
        self.closed_early: list[bool] = []  # per request: True when the consumer stopped before the end
        self.events_taken: list[int] = []
        self._status = status or {
            "model": "fake-model:1b",
            "ollama_reachable": True,
            "embedding_mode": "bm25-only",
            "documents": 12,
            "chunks": 34,
            "problems": 3,
            "notices": [],
        }
        self.status_calls = 0
        self.lock = threading.Lock()

    def status(self) -> dict[str, Any]:
        self.status_calls += 1
        return dict(self._status)

    def ask(self, request: Request) -> Iterator[Event]:
        with self.lock:
            self.requests.append(request)
            index = len(self.requests) - 1
            self.closed_early.append(False)
            self.events_taken.append(0)
        events = list(self.script(request) if callable(self.script) else self.script)
        finished = False
        try:
            for event in events:
                if self.fail_with is not None and isinstance(event, Token):
                    raise self.fail_with
                if self.delay and isinstance(event, Token):
                    time.sleep(self.delay)
                if self.events_taken[index] == self.pause_after:
                    self.proceed.wait(30)
                self.events_taken[index] += 1
                yield event
            finished = True
        finally:
            if not finished:
                self.closed_early[index] = True
