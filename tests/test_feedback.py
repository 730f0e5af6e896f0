"""The feedback store (SQLite) and `python -m quest feedback export --csv FILE`."""

from __future__ import annotations

import csv
import json
import sqlite3

from quest.cli import main
from quest.feedback import COLUMNS, FeedbackRecord, FeedbackStore
from quest.settings import Settings


def _record(**changes) -> FeedbackRecord:
    values = dict(
        session="s1", turn=0, rating=1, question="为什么超时？", problem_id="239", language="python", verdict="TLE",
        tier="explain", model="qwen2.5-coder:1.5b", ui_lang="zh", answer="Use a deque [1].",
        sources=[{"number": 1, "doc_id": "p239-official", "cited": True}], code="window.pop(0)", error="TLE on 14",
    )  # fmt: skip
    values.update(changes)
    return FeedbackRecord(**values)


def test_record_and_read_back_without_code(tmp_path):
    store = FeedbackStore(tmp_path / "data" / "feedback.sqlite3")
    assert store.rows() == []
    store.record(_record())
    (row,) = store.rows()
    assert {k: row[k] for k in ("session", "turn", "rating", "question", "problem_id", "verdict", "tier", "model")} == {
        "session": "s1", "turn": 0, "rating": 1, "question": "为什么超时？", "problem_id": "239", "verdict": "TLE",
        "tier": "explain", "model": "qwen2.5-coder:1.5b",
    }  # fmt: skip
    assert json.loads(row["sources"]) == [{"number": 1, "doc_id": "p239-official", "cited": True}]
    assert row["code"] is None and row["error"] is None  # the operator did not enable storing code


def test_code_is_stored_only_when_enabled(tmp_path):
    store = FeedbackStore(tmp_path / "f.sqlite3", store_code=True)
    store.record(_record())
    (row,) = store.rows()
    assert row["code"] == "window.pop(0)" and row["error"] == "TLE on 14"


def test_for_settings_uses_data_dir_and_policy(tmp_path):
    store = FeedbackStore.for_settings(Settings(data_dir=tmp_path / "d", store_code_in_feedback=True))
    assert store.path == tmp_path / "d" / "feedback.sqlite3" and store.store_code


def test_rating_again_replaces_and_withdraw_deletes(tmp_path):
    store = FeedbackStore(tmp_path / "f.sqlite3")
    store.record(_record(rating=1))
    store.record(_record(rating=-1))
    store.record(_record(turn=1, rating=1))
    assert [(r["turn"], r["rating"]) for r in store.rows()] == [(0, -1), (1, 1)]
    assert store.withdraw("s1", 1) is True
    assert store.withdraw("s1", 1) is False
    assert [(r["turn"], r["rating"]) for r in store.rows()] == [(0, -1)]


def test_the_file_is_plain_sqlite(tmp_path):
    path = tmp_path / "f.sqlite3"
    FeedbackStore(path).record(_record())
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT rating, question FROM feedback").fetchall() == [(1, "为什么超时？")]


def test_export_command_writes_csv(tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    store = FeedbackStore.for_settings(Settings(data_dir=data))
    store.record(_record())
    store.record(_record(session="s2", rating=-1, question='He said "hi", then, left'))
    out = tmp_path / "out.csv"
    monkeypatch.delenv("QUEST_DATA_DIR", raising=False)
    assert main(["--data-dir", str(data), "feedback", "export", "--csv", str(out)]) == 0
    assert "2 rating(s) written" in capsys.readouterr().err
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(COLUMNS)
    assert [(r["session"], r["rating"], r["question"]) for r in rows] == [
        ("s1", "1", "为什么超时？"),
        ("s2", "-1", 'He said "hi", then, left'),
    ]


def test_export_with_no_feedback_yet(tmp_path, capsys):
    assert main(["--data-dir", str(tmp_path / "none"), "feedback", "export", "--csv", "-"]) == 0
    assert capsys.readouterr().out.strip() == ",".join(COLUMNS)
    assert not (tmp_path / "none").exists()  # exporting creates nothing
