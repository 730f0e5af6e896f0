"""The feedback store against real databases: SQLite (a file, WAL) and a real PostgreSQL server.

PostgreSQL comes from QUEST_TEST_DATABASE_URL (set by .ci/run, which installs Debian's
postgresql and creates a role and a database), else the same default URL on 127.0.0.1. When no
server answers, the PostgreSQL cases skip with the reason outside CI and fail in CI. Each test
gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import csv
import io
import logging
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from quest.cli import main
from quest.feedback import COLUMNS, MAX_COMMENT_CHARS, FeedbackRecord, FeedbackStore
from quest.settings import Settings

DEFAULT_PG = "postgresql+psycopg://quest:quest@127.0.0.1:5432/quest_test"

# The table as Quest wrote it before the comment column existed (schema 1).
SCHEMA_1 = """
CREATE TABLE feedback (
    id INTEGER PRIMARY KEY {auto},
    created_at TEXT NOT NULL, session TEXT NOT NULL, turn INTEGER NOT NULL, rating INTEGER NOT NULL,
    question TEXT NOT NULL, problem_id TEXT, language TEXT, verdict TEXT, tier TEXT, model TEXT,
    ui_lang TEXT, answer TEXT, sources TEXT NOT NULL, code TEXT, error TEXT,
    UNIQUE (session, turn)
)
"""


def _postgres_schema_url() -> Iterator[str]:
    sqlalchemy = pytest.importorskip("sqlalchemy")
    url = os.environ.get("QUEST_TEST_DATABASE_URL") or DEFAULT_PG
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect():
            pass
    except Exception as exc:
        engine.dispose()
        reason = f"no PostgreSQL server at {engine.url.render_as_string(hide_password=True)} ({type(exc).__name__})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: .ci/run installs and starts one, so this must run in CI")
        pytest.skip(f"{reason}; `bash .ci/run` sets one up")
    schema = "t_" + uuid.uuid4().hex[:12]
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as conn:
            conn.execute(sqlalchemy.text(f"DROP SCHEMA {schema} CASCADE"))
        engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'feedback.sqlite3'}"
    else:
        yield from _postgres_schema_url()


def record(**changes) -> FeedbackRecord:
    values = dict(session="s1", turn=0, rating=1, question="为什么超时？", problem_id="239", language="python",
                  verdict="TLE", tier="explain", model="qwen2.5-coder:1.5b", ui_lang="zh", answer="Use a deque [1].",
                  sources=[{"number": 1, "doc_id": "p239-official", "cited": True}], code="w.pop(0)", error="TLE")
    values.update(changes)
    return FeedbackRecord(**values)


def raw(url: str, sql: str) -> list[tuple]:
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(sqlalchemy.text(sql))
            return [tuple(r) for r in result] if result.returns_rows else []
    finally:
        engine.dispose()


def test_record_replace_withdraw_and_export(db_url: str) -> None:
    store = FeedbackStore(db_url)
    store.record(record(rating=1))
    store.record(record(rating=-1, comment="  The fix it suggests still times out.  "))  # same answer: replaced
    store.record(record(turn=1, rating=1))
    assert [(r["turn"], r["rating"], r["comment"]) for r in store.rows()] == [
        (0, -1, "The fix it suggests still times out."), (1, 1, "")]
    assert store.withdraw("s1", 1) is True and store.withdraw("s1", 1) is False
    out = io.StringIO()
    assert store.export_csv(out) == 1
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == list(COLUMNS)
    assert (rows[0]["session"], rows[0]["rating"], rows[0]["question"], rows[0]["comment"]) == (
        "s1", "-1", "为什么超时？", "The fix it suggests still times out.")
    assert rows[0]["code"] == "" and rows[0]["sources"] == '[{"number": 1, "doc_id": "p239-official", "cited": true}]'


def test_comment_is_bounded(db_url: str) -> None:
    store = FeedbackStore(db_url)
    store.record(record(rating=-1, comment="太慢" * MAX_COMMENT_CHARS))
    (row,) = store.rows()
    assert len(row["comment"]) == MAX_COMMENT_CHARS


def test_two_replicas_share_one_database(db_url: str) -> None:
    replicas = [FeedbackStore(db_url), FeedbackStore(db_url)]  # two app processes' stores, starting at once
    errors: list[BaseException] = []

    def rate(store: FeedbackStore, who: int) -> None:
        try:
            for turn in range(15):
                store.record(record(session=f"student{who}", turn=turn, rating=1))
                store.record(record(session="shared", turn=turn, rating=-1 if who else 1))
        except BaseException as exc:  # asserted below
            errors.append(exc)

    threads = [threading.Thread(target=rate, args=(replicas[i % 2], i)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    rows = replicas[0].rows()
    assert len(rows) == 4 * 15 + 15  # one row per (session, turn), whoever wrote last
    assert sorted({r["session"] for r in rows}) == ["shared", "student0", "student1", "student2", "student3"]
    assert replicas[1].rows() == rows


def test_an_older_table_is_migrated_on_start(db_url: str) -> None:
    if db_url.startswith("sqlite"):
        Path(db_url.removeprefix("sqlite:///")).parent.mkdir(parents=True)
    auto = "AUTOINCREMENT" if db_url.startswith("sqlite") else "GENERATED BY DEFAULT AS IDENTITY"
    raw(db_url, SCHEMA_1.format(auto=auto))
    raw(db_url, "INSERT INTO feedback (created_at, session, turn, rating, question, sources)"
                " VALUES ('2026-11-30T10:00:00Z', 'old', 0, 1, 'from the old version', '[]')")
    store = FeedbackStore(db_url)
    store.record(record(session="new", rating=-1, comment="wrong verdict"))
    assert [(r["session"], r["question"], r["comment"]) for r in store.rows()] == [
        ("old", "from the old version", None), ("new", "为什么超时？", "wrong verdict")]
    FeedbackStore(db_url).record(record(session="again"))  # a second start finds nothing to do


def test_password_never_shown(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    store = FeedbackStore("postgresql+psycopg://quest:hunter2-secret@db.invalid:5432/quest")
    assert "hunter2" not in repr(store) and "hunter2" not in store.where and "***" in store.where
    settings = Settings(database_url="postgresql+psycopg://quest:hunter2-secret@db.invalid/quest")
    assert "hunter2" not in repr(settings)


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "f.sqlite3"
    FeedbackStore(path).record(record())
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_export_command_reads_the_database_url(db_url: str, tmp_path: Path, monkeypatch, capsys) -> None:
    FeedbackStore(db_url).record(record(rating=-1, comment="说得不对"))
    monkeypatch.setenv("QUEST_DATABASE_URL", db_url)
    out = tmp_path / "out.csv"
    assert main(["--data-dir", str(tmp_path / "elsewhere"), "feedback", "export", "--csv", str(out)]) == 0
    assert "1 rating(s) written" in capsys.readouterr().err
    with out.open(encoding="utf-8", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["rating"], row["comment"]) == ("-1", "说得不对")
    assert FeedbackStore.for_settings(Settings.from_env()).url == db_url
