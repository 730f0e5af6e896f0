"""Thumbs up / down on answers, kept with the request's context in SQLite in the data directory.

One row per rated answer: rating again replaces the earlier rating, withdrawing it deletes
the row. The student's code (and the judge's message, which often quotes it) is stored only
when the operator enables `store_code_in_feedback`.
"""

from __future__ import annotations

import csv
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from quest.settings import Settings

log = logging.getLogger(__name__)

FILE_NAME = "feedback.sqlite3"

COLUMNS = (
    "id",
    "created_at",
    "session",
    "turn",
    "rating",
    "question",
    "problem_id",
    "language",
    "verdict",
    "tier",
    "model",
    "ui_lang",
    "answer",
    "sources",
    "code",
    "error",
    "comment",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    session TEXT NOT NULL,
    turn INTEGER NOT NULL,
    rating INTEGER NOT NULL,
    question TEXT NOT NULL,
    problem_id TEXT,
    language TEXT,
    verdict TEXT,
    tier TEXT,
    model TEXT,
    ui_lang TEXT,
    answer TEXT,
    sources TEXT NOT NULL,
    code TEXT,
    error TEXT,
    comment TEXT NOT NULL DEFAULT '',
    UNIQUE (session, turn)
)
"""


@dataclass(frozen=True)
class FeedbackRecord:
    session: str
    turn: int
    rating: int  # +1 thumbs up, -1 thumbs down
    question: str
    problem_id: str | None = None
    language: str = ""
    verdict: str | None = None
    tier: str = ""
    model: str = ""
    ui_lang: str = ""
    answer: str = ""
    sources: Sequence[dict[str, Any]] = field(default_factory=tuple)
    code: str | None = None
    error: str | None = None
    comment: str = ""  # the student's optional one-line note on a thumbs down


class FeedbackStore:
    def __init__(self, path: Path | str, *, store_code: bool = False) -> None:
        self.path = Path(path)
        self.store_code = store_code
        self._lock = threading.Lock()
        self._ready = False

    @classmethod
    def for_settings(cls, settings: Settings) -> FeedbackStore:
        return cls(Path(settings.data_dir) / FILE_NAME, store_code=settings.store_code_in_feedback)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path, timeout=10)) as conn:
            if not self._ready:
                conn.execute(_SCHEMA)
                known = {row[1] for row in conn.execute("PRAGMA table_info(feedback)")}
                if "comment" not in known:  # a store made before comments existed
                    conn.execute("ALTER TABLE feedback ADD COLUMN comment TEXT NOT NULL DEFAULT ''")
                self._ready = True
            with conn:  # commit or roll back
                yield conn

    def record(self, rec: FeedbackRecord) -> None:
        """Store (or replace) the rating of one answer."""
        code = rec.code if self.store_code else None
        error = rec.error if self.store_code else None
        row = (
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            rec.session,
            rec.turn,
            1 if rec.rating > 0 else -1,
            rec.question,
            rec.problem_id,
            rec.language,
            rec.verdict,
            rec.tier,
            rec.model,
            rec.ui_lang,
            rec.answer,
            json.dumps(list(rec.sources), ensure_ascii=False),
            code,
            error,
            rec.comment[:500],
        )
        with self._lock, self._connect() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO feedback (created_at, session, turn, rating, question, problem_id, language,"
                " verdict, tier, model, ui_lang, answer, sources, code, error, comment)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        log.info("feedback %+d stored (problem %s, tier %s)", row[3], rec.problem_id, rec.tier)

    def withdraw(self, session: str, turn: int) -> bool:
        with self._lock, self._connect() as conn:
            cur = conn.execute("DELETE FROM feedback WHERE session = ? AND turn = ?", (session, turn))
            return cur.rowcount > 0

    def rows(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        with self._lock, self._connect() as conn:
            cur = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM feedback ORDER BY id")
            return [dict(zip(COLUMNS, r, strict=True)) for r in cur.fetchall()]

    def export_csv(self, out: IO[str]) -> int:
        """Write every row as CSV (with a header) and return how many rows were written."""
        rows = self.rows()
        writer = csv.DictWriter(out, fieldnames=list(COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
        return len(rows)
