"""Thumbs up / down on answers, kept with the request's context in a database (SQLAlchemy).

By default the database is SQLite in the data directory (`feedback.sqlite3`, WAL mode so
the export can read while the app writes). Several app replicas share one database named by
`QUEST_DATABASE_URL`, e.g. `postgresql+psycopg://quest:secret@db:5432/quest`. The schema is
created on first use and migrated forward (columns added by later versions are added to an
older table), so replicas of a newer Quest can start against an older database.

One row per rated answer: rating again replaces the earlier rating (an upsert on
(session, turn)), withdrawing it deletes the row. The student's code (and the judge's message,
which often quotes it) is stored only when the operator enables `store_code_in_feedback`. A
thumbs-down may carry a short comment, cut to `MAX_COMMENT_CHARS`. A database URL may carry a
password: it is never logged (SQLAlchemy's masked rendering is).
"""

from __future__ import annotations

import csv
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from quest.settings import Settings

log = logging.getLogger(__name__)

FILE_NAME = "feedback.sqlite3"
MAX_COMMENT_CHARS = 1000

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
    comment: str = ""  # the student's optional words with a thumbs-down


def _table(metadata: Any) -> Any:
    from sqlalchemy import Column, Integer, String, Table, Text, UniqueConstraint

    return Table(
        "feedback", metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("created_at", String(32), nullable=False),
        Column("session", String(128), nullable=False),
        Column("turn", Integer, nullable=False),
        Column("rating", Integer, nullable=False),
        Column("question", Text, nullable=False),
        Column("problem_id", Text), Column("language", Text), Column("verdict", Text), Column("tier", Text),
        Column("model", Text), Column("ui_lang", Text), Column("answer", Text),
        Column("sources", Text, nullable=False),
        Column("code", Text), Column("error", Text),
        Column("comment", Text),  # added in schema 2
        UniqueConstraint("session", "turn", name="feedback_session_turn"),
    )


# Columns later versions added, with their SQL type: an older table gets them on start.
MIGRATIONS = (("comment", "TEXT"),)


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{Path(path).resolve()}"


class FeedbackStore:
    """The feedback table behind a SQLAlchemy URL (or a SQLite file path)."""

    def __init__(self, target: Path | str, *, store_code: bool = False) -> None:
        text = str(target)
        self.url = text if "://" in text else sqlite_url(Path(text))
        self.path: Path | None = Path(text) if "://" not in text else None  # the SQLite file, if a path was given
        if self.path is None and self.url.startswith("sqlite:///") and not self.url.endswith(":memory:"):
            self.path = Path(self.url.removeprefix("sqlite:///"))
        self.store_code = store_code
        self._lock = threading.Lock()
        self._engine: Any = None
        self._table: Any = None

    @classmethod
    def for_settings(cls, settings: Settings) -> FeedbackStore:
        target = settings.database_url or Path(settings.data_dir) / FILE_NAME
        return cls(target, store_code=settings.store_code_in_feedback)

    def __repr__(self) -> str:
        return f"FeedbackStore({self.where!r})"

    @property
    def where(self) -> str:
        """The database, with any password masked (for logs and the status)."""
        from sqlalchemy.engine import make_url

        return make_url(self.url).render_as_string(hide_password=True)

    # ------------------------------------------------------------------ engine and schema

    def engine(self) -> Any:
        """Connect (once) and create or migrate the schema."""
        with self._lock:
            if self._engine is None:
                self._engine, self._table = self._open()
        return self._engine

    def _open(self) -> tuple[Any, Any]:
        from sqlalchemy import MetaData, create_engine, event

        is_sqlite = self.url.startswith("sqlite")
        if is_sqlite and self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {"pool_pre_ping": True}
        if is_sqlite:
            options["connect_args"] = {"timeout": 10, "check_same_thread": False}
        engine = create_engine(self.url, **options)
        if is_sqlite:
            event.listen(engine, "connect", _sqlite_pragmas)
        metadata = MetaData()
        table = _table(metadata)
        _create(engine, metadata)
        _migrate(engine)
        log.info("feedback database ready: %s", self.where)
        return engine, table

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
            self._engine = self._table = None

    def _exists(self) -> bool:
        """False for a SQLite file not created yet (reading must not create it)."""
        return self._engine is not None or self.path is None or self.path.exists()

    # ------------------------------------------------------------------ writes

    def record(self, rec: FeedbackRecord) -> None:
        """Store (or replace) the rating of one answer."""
        row = self._row(rec)
        engine = self.engine()
        statement = _upsert(engine.dialect.name, self._table, row)
        with engine.begin() as conn:
            conn.execute(statement)
        log.info("feedback %+d stored (problem %s, tier %s)", row["rating"], rec.problem_id, rec.tier)

    def _row(self, rec: FeedbackRecord) -> dict[str, Any]:
        return {
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "session": rec.session, "turn": rec.turn, "rating": 1 if rec.rating > 0 else -1,
            "question": rec.question, "problem_id": rec.problem_id, "language": rec.language,
            "verdict": rec.verdict, "tier": rec.tier, "model": rec.model, "ui_lang": rec.ui_lang,
            "answer": rec.answer, "sources": json.dumps(list(rec.sources), ensure_ascii=False),
            "code": rec.code if self.store_code else None,
            "error": rec.error if self.store_code else None,
            "comment": (rec.comment or "").strip()[:MAX_COMMENT_CHARS],
        }

    def withdraw(self, session: str, turn: int) -> bool:
        engine = self.engine()
        t = self._table
        with engine.begin() as conn:
            result = conn.execute(t.delete().where(t.c.session == session, t.c.turn == turn))
            return result.rowcount > 0

    # ------------------------------------------------------------------ reads

    def rows(self) -> list[dict[str, Any]]:
        if not self._exists():
            return []
        engine = self.engine()
        t = self._table
        with engine.connect() as conn:
            result = conn.execute(t.select().order_by(t.c.id))
            return [{name: row._mapping[name] for name in COLUMNS} for row in result]

    def export_csv(self, out: IO[str]) -> int:
        """Write every row as CSV (with a header) and return how many rows were written."""
        rows = self.rows()
        writer = csv.DictWriter(out, fieldnames=list(COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
        return len(rows)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL: readers (the export, another process) never block the writer and vice versa.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=10000")
    # Switching a new file to WAL fails at once with "database is locked", without the busy
    # timeout, while another connection (a replica starting at the same moment) opens it: retry.
    deadline = time.monotonic() + 10.0
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)
    cursor.close()


def _upsert(dialect: str, table: Any, row: dict[str, Any]) -> Any:
    """INSERT ... ON CONFLICT (session, turn) DO UPDATE, in the dialect's own syntax."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert
    else:
        raise ValueError(f"feedback store: unsupported database {dialect!r} (use SQLite or PostgreSQL)")
    statement = insert(table).values(**row)
    changed = {k: statement.excluded[k] for k in row if k not in ("session", "turn")}
    return statement.on_conflict_do_update(index_elements=["session", "turn"], set_=changed)


def _create(engine: Any, metadata: Any) -> None:
    """Create the table unless it exists. Two replicas starting at once may race here: the
    loser's CREATE fails, and finding the table there afterwards is success."""
    from sqlalchemy import inspect
    from sqlalchemy.exc import DBAPIError

    try:
        metadata.create_all(engine)
    except DBAPIError:
        if not inspect(engine).has_table("feedback"):
            raise


def _migrate(engine: Any) -> None:
    """Add the columns an older feedback table lacks. Safe when two replicas start at once."""
    from sqlalchemy import inspect, text
    from sqlalchemy.exc import DBAPIError

    present = {c["name"] for c in inspect(engine).get_columns("feedback")}
    for name, sql_type in MIGRATIONS:
        if name in present:
            continue
        try:
            with engine.begin() as conn:
                conn.execute(text(f"ALTER TABLE feedback ADD COLUMN {name} {sql_type}"))
            log.info("feedback database: added column %s", name)
        except DBAPIError:  # another replica added it first
            if name not in {c["name"] for c in inspect(engine).get_columns("feedback")}:
                raise
