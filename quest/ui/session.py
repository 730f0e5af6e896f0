"""One browser tab's conversation: its turns (messages, sources, form), the answer streaming now,
and the copy kept in the browser's own storage so a reload brings it back.

The browser copy (`gr.BrowserState`, encrypted in localStorage) is the only place the
conversation is kept between page loads: nothing student-written is stored on the server.
It comes back from the browser, so it is read defensively and bounded.
"""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.request import Turn
from quest.settings import Settings
from quest.ui.desk import TurnControl, TurnView
from quest.ui.form import FormValues
from quest.ui.render import SourceGroup, without_bidi_controls

log = logging.getLogger(__name__)

MAX_CONVERSATIONS = 8
MAX_TURNS = 30
TITLE_CHARS = 60


@dataclass
class TurnRecord:
    """One question and its answer, as shown, with the sources it used."""

    question: str
    answer: str
    messages: list[dict[str, Any]]  # the chat messages of this turn: the student's, then the assistant's
    sources: list[dict[str, Any]] = field(default_factory=list)
    cited: tuple[int, ...] = ()
    form: FormValues = field(default_factory=FormValues)
    view: TurnView | None = None  # the live answer (feedback needs it); None once restored from the browser

    @property
    def rateable(self) -> bool:
        """A finished, real answer: not an error message, not stopped, not half-written."""
        v = self.view
        return bool(v and v.request is not None and v.done and not v.error and not v.stopped and v.answer.strip())

    def to_browser(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.answer, "messages": self.messages,
                "sources": self.sources, "cited": list(self.cited), "form": self.form.to_dict()}  # fmt: skip

    @classmethod
    def from_browser(cls, data: Mapping[str, Any]) -> TurnRecord | None:
        messages = [m for m in data.get("messages") or () if _is_message(m)]
        if not messages:
            return None
        sources = [s for s in data.get("sources") or () if isinstance(s, Mapping)]
        cited = tuple(int(n) for n in data.get("cited") or () if isinstance(n, int))
        return cls(question=str(data.get("question") or ""), answer=str(data.get("answer") or ""),
                   messages=messages, sources=[dict(s) for s in sources], cited=cited,
                   form=FormValues.from_mapping(data.get("form")))  # fmt: skip


def _is_message(m: object) -> bool:
    return (isinstance(m, Mapping) and m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
            and (m.get("metadata") is None or isinstance(m.get("metadata"), Mapping)))  # fmt: skip


@dataclass
class Session:
    """The page's server-side state for one tab (a `gr.State`)."""

    conversation_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    turns: list[TurnRecord] = field(default_factory=list)
    control: TurnControl | None = None  # the answer streaming now, if any
    turns_pending: int = 0  # answers asked for whose Send-to-finish chain has not ended (Regenerate can overlap one)
    writing: TurnRecord | None = None  # the turn that answer is being written into (None while it waits in the queue)
    last_stats: dict[str, Any] = field(default_factory=dict)
    history_store: dict[str, Any] = field(default_factory=dict)  # the browser's copy, as last read or written

    def __deepcopy__(self, memo: dict[int, Any]) -> Session:
        return Session()  # Gradio copies the initial value per tab: each tab starts empty

    def messages(self) -> list[dict[str, Any]]:
        return [m for turn in self.turns for m in turn.messages]

    def history(self, turns: int) -> tuple[Turn, ...]:
        done = [Turn(r.question, r.answer) for r in self.turns if r.question and r.answer]
        return tuple(done[-turns:]) if turns > 0 else ()

    def source_groups(self) -> list[SourceGroup]:
        return [
            SourceGroup(number, turn.question, tuple(turn.sources), turn.cited)
            for number, turn in enumerate(self.turns, start=1)
            if turn.view is None or turn.view.request is not None
        ]

    def streaming_turn(self) -> TurnRecord | None:
        """The last turn if its answer is being written now; None with no answer or one waiting in the queue."""
        live = self.writing
        return live if self.control is not None and self.turns and self.turns[-1] is live else None

    def stop_streaming(self, reason: str) -> None:
        if self.control is not None:
            self.control.cancel(reason)
            self.control = None

    def start_new(self) -> None:
        # The conversation is emptied before a streaming answer is stopped: the stream's last update (its
        # "stopped" view) then shows the empty chat too. Stopped first, that update could carry the old
        # turns and, arriving after Clear's own update, put the chat back.
        self.conversation_id = uuid.uuid4().hex[:12]
        self.turns = []
        self.last_stats = {}
        self.stop_streaming("clear")

    # ------------------------------------------------------------------ the browser's copy

    def save(self, form: FormValues) -> dict[str, Any]:
        """The browser's copy with this conversation (if it has turns) first, and the form."""
        others = [c for c in _conversations(self.history_store) if c.get("id") != self.conversation_id]
        mine = []
        if self.turns:
            title = next((t.question for t in self.turns if t.question), "")[:TITLE_CHARS]
            mine = [{"id": self.conversation_id, "title": title, "updated": int(time.time()),
                     "turns": [t.to_browser() for t in self.turns[-MAX_TURNS:]]}]  # fmt: skip
        self.history_store = {"version": 1, "current": self.conversation_id,
                              "conversations": (mine + others)[:MAX_CONVERSATIONS], "form": form.to_dict()}  # fmt: skip
        return self.history_store

    def restore(self, stored: Any, conversation_id: str | None = None) -> FormValues:
        """Load a conversation from the browser's copy (the current one unless named); returns the saved form."""
        self.history_store = stored if isinstance(stored, dict) else {}
        wanted = conversation_id or self.history_store.get("current")
        for conversation in _conversations(self.history_store):
            if conversation.get("id") == wanted:
                self.conversation_id = str(wanted)
                stored_turns = [t for t in conversation.get("turns") or () if isinstance(t, Mapping)]
                records = (TurnRecord.from_browser(t) for t in stored_turns)
                self.turns = [r for r in records if r is not None][-MAX_TURNS:]
                self.stop_streaming("clear")  # after the switch, as in start_new
                break
        return FormValues.from_mapping(self.history_store.get("form"))

    def recent(self, untitled: str) -> list[tuple[str, str]]:
        """(title, id) of the stored conversations, newest first, for the picker (a title is the first question, shown
        without its bidi controls)."""
        return [(without_bidi_controls(str(c.get("title") or "")).strip() or untitled, str(c.get("id")))
                for c in _conversations(self.history_store)]  # fmt: skip


def _conversations(store: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = store.get("conversations") if isinstance(store, Mapping) else None
    return [c for c in found or () if isinstance(c, Mapping) and c.get("id")][:MAX_CONVERSATIONS]


def browser_secret(settings: Settings) -> str:
    """The key the browser's copy is encrypted with, kept in the data folder so a restart can still read it."""
    path = Path(settings.data_dir) / "browser-secret"
    try:
        if path.exists():
            return path.read_text(encoding="utf-8").strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_urlsafe(24)
        path.write_text(secret, encoding="utf-8")
        path.chmod(0o600)
        return secret
    except OSError as exc:  # a read-only folder: conversations then last until the server restarts
        log.warning("could not keep the browser-storage key in %s: %s", path, exc)
        return secrets.token_urlsafe(24)
