"""The contest lock fails closed (issue 11): every case here left problem 239 answerable before."""

import logging
from datetime import datetime, timezone
from pathlib import Path

import pytest

from quest.cli import main
from quest.policy import ALL, ContestLock, format_moment
from quest.schema import SchemaError, load_lock_file

NOON = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)
INSIDE = datetime(2026, 12, 1, 2, 0, tzinfo=timezone.utc)  # 10:00 at +08:00
WINDOW = "windows:\n  - start: 2026-12-01T09:00:00+08:00\n    end: 2026-12-01T12:00:00+08:00\n"
# A few hundred bytes that PyYAML's safe_load expands a thousandfold (nine levels of ten).
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(3)
) + "problems: [1]\n"

FAIL_OPEN_BEFORE = {
    "text_instead_of_list": "problems: 239, 1\n",
    "text_inside_a_window": WINDOW + "    problems: 239, 1\n",
    "misspelled_key": "problem: [239]\n",
    "capitalised_key": "Problems: [239]\n",
    "empty_file": "",
    "list_of_null": "[~]\n",
    "only_a_comment": "# contest tomorrow\n",
    "alias_bomb": ALIAS_BOMB,
    "time_without_zone": "windows:\n  - start: 2026-12-01T09:00:00\n    end: 2026-12-01T12:00:00\n",
    "date_only": "windows:\n  - start: 2026-12-01\n    end: 2026-12-02\n",
}


@pytest.mark.parametrize("text", FAIL_OPEN_BEFORE.values(), ids=FAIL_OPEN_BEFORE.keys())
def test_an_almost_right_lock_file_locks_every_problem(tmp_path: Path, text: str) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text(text, encoding="utf-8")
    lock = ContestLock(lock_file)
    for pid in ("239", "1", None):
        assert lock.check(pid, INSIDE).reason == "broken_file"
    assert lock.locked_problems(INSIDE) == ALL
    assert lock.warning() is not None and lock.warning().endswith("— all problems locked")


def test_a_lock_path_with_a_typo_locks_every_problem(tmp_path: Path) -> None:
    lock = ContestLock(tmp_path / "lokc.yaml")
    assert lock.check("239", NOON).reason == "broken_file"
    assert lock.warning() == "contest lock file invalid: file not found — all problems locked"


def test_the_reason_is_logged_at_error_once_per_change(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text("problem: [239]\n", encoding="utf-8")
    lock = ContestLock(lock_file)
    with caplog.at_level(logging.INFO, logger="quest.policy"):
        for _ in range(3):
            lock.check("239", NOON)
        lock_file.write_text("Problems: [239, 1]\n", encoding="utf-8")
        lock.check("239", NOON)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2
    assert "line 1: problem: unknown key" in errors[0] and "locking every problem" in errors[0]
    assert "line 1: Problems: unknown key" in errors[1]


def test_errors_name_the_file_the_line_and_the_key(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text("problems: [1]\n" + WINDOW + "    problems: 239, 1\n    nmae: Weekly\n", encoding="utf-8")
    with pytest.raises(SchemaError) as caught:
        load_lock_file(lock_file)
    found = [(p.line, p.key) for p in caught.value.problems]
    assert found == [(5, "windows[0].problems"), (6, "windows[0].nmae")]
    assert str(caught.value).startswith(f"{lock_file}: line 5: windows[0].problems: expected a list")


def test_a_valid_file_still_locks_exactly_what_it_says(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text("problems: [239, '#1']\n" + WINDOW + "    problems: [3]\n", encoding="utf-8")
    lock = ContestLock(lock_file)
    assert lock.warning() is None
    assert lock.locked_problems(INSIDE) == frozenset({"239", "1", "3"})
    assert lock.locked_problems(NOON) == frozenset({"239", "1"})
    assert not lock.check("5", INSIDE).locked


def test_times_are_shown_with_their_zone() -> None:
    end = datetime.fromisoformat("2026-12-01T12:00:00+08:00")
    assert format_moment(end) == "2026-12-01 12:00 UTC+08:00"
    assert format_moment(end, "Europe/Berlin") == "2026-12-01 05:00 UTC+01:00 (Europe/Berlin)"
    assert format_moment(end, "Not/AZone") == "2026-12-01 12:00 UTC+08:00"


def test_lock_check_prints_what_is_locked_now_and_at_each_boundary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text("problems: [239]\nwindows:\n  - name: Weekly 12\n    start: 2026-12-01T09:00:00+08:00\n"
                         "    end: 2026-12-01T12:00:00+08:00\n    problems: all\n", encoding="utf-8")
    assert main(["lock", "check", str(lock_file), "--at", "2026-12-01T08:30:00+08:00"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{lock_file}: valid",
        "always locked: 239",
        "window 'Weekly 12': 2026-12-01 09:00 UTC+08:00 -> 2026-12-01 12:00 UTC+08:00, locks ALL problems",
        "now (2026-12-01 08:30 UTC+08:00): 239",
        "from 2026-12-01 09:00 UTC+08:00 (Weekly 12 starts): ALL problems",
        "from 2026-12-01 12:00 UTC+08:00 (Weekly 12 ends): 239",
    ]


def test_lock_check_lists_every_problem_of_an_invalid_file(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text("problems: 239, 1\nProblems: [1]\n", encoding="utf-8")
    assert main(["lock", "check", str(lock_file)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{lock_file}: INVALID — Quest would lock every problem while this file is configured."
    assert out[1].startswith(f"  {lock_file}:1: problems: expected a list of problem ids")
    assert out[2] == f"  {lock_file}:2: Problems: unknown key (a typo?)"


def test_the_status_line_carries_the_operator_warning_and_students_are_refused(tmp_path: Path) -> None:
    from quest.assistant import Assistant
    from quest.request import Request
    from quest.settings import Settings
    from tests.fakes.retriever import FakeRetriever

    lock_file = tmp_path / "lock.yaml"
    lock_file.write_text("problems: 239, 1\n", encoding="utf-8")
    retriever = FakeRetriever()
    assistant = Assistant(Settings(contest_lock_file=lock_file), retriever, None)
    notices = assistant.status()["notices"]
    assert ("contest lock file invalid: line 1: problems: expected a list of problem ids such as [239, 1], "
            "or 'all'; got the text '239, 1' — all problems locked") in notices
    events = list(assistant.ask(Request(question="why TLE?", problem_id="239", ui_lang="en")))
    assert events[0].code == "locked" and events[-1].stats["mode"] == "refused"
    assert retriever.searches == []
