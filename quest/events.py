"""Typed events the `Assistant` yields and the UI and CLI render. Nothing else crosses that line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quest.context import Source


@dataclass(frozen=True)
class Notice:
    """Something the student should know: a fallback, a refusal, a trimmed history."""

    code: str  # stable identifier, e.g. "llm_unavailable", "locked", "bm25_only", "no_sources"
    text: str  # already in the student's language
    level: str = "info"  # info | warning | error


@dataclass(frozen=True)
class Sources:
    """The numbered sources of this answer, sent as soon as retrieval ends."""

    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Token:
    text: str


@dataclass(frozen=True)
class Thinking:
    """Text a reasoning model produced inside <think>...</think>, kept out of the answer."""

    text: str


@dataclass(frozen=True)
class Held:
    """A code block is being held back (`active`) or was just released: the page shows a placeholder meanwhile."""

    active: bool


@dataclass(frozen=True)
class Replace:
    """The answer text so far is replaced (post-generation policy: code removed, leak withheld)."""

    text: str
    reason: str


@dataclass(frozen=True)
class Done:
    answer: str
    stats: dict[str, Any] = field(default_factory=dict)
    cited: tuple[int, ...] = ()
    incomplete: bool = False
    fallback: bool = False  # answer built from sources without the model


Event = Notice | Sources | Token | Thinking | Held | Replace | Done
