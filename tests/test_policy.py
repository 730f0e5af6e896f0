import dataclasses
import os
from datetime import datetime, timezone
from pathlib import Path

from quest.policy import (
    ALL,
    MAX_CODE_LINES,
    CodeGate,
    ContestLock,
    code_blocks,
    code_removed_note,
    filter_hits,
    held_back_note,
    leak_check,
    remove_all_code,
    strip_code_blocks,
    visible_text,
)
from quest.retrieval.types import Hit
from tests.fakes.retriever import OFFICIAL_239_CODE, default_chunks

NOON = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)


def hits() -> list[Hit]:
    return [Hit(chunk=c, score=0.5) for c in default_chunks()]


def test_hint_tier_drops_official_solutions_and_locked_problems() -> None:
    assert [h.chunk.doc_id for h in filter_hits(hits(), "hint")] == ["err-list-pop0", "p239-explain", "faq-io"]
    assert [h.chunk.doc_id for h in filter_hits(hits(), "solution")] == [
        "p239-official", "err-list-pop0", "p239-explain", "faq-io"]
    assert [h.chunk.doc_id for h in filter_hits(hits(), "explain", frozenset({"239"}))] == ["err-list-pop0", "faq-io"]
    assert [h.chunk.doc_id for h in filter_hits(hits(), "solution", ALL)] == ["err-list-pop0", "faq-io"]


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_lock_by_problem_and_by_window(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock.yaml"
    write(lock_file, "problems: [239, '#1']\n"
                     "windows:\n"
                     "  - name: Weekly 12\n"
                     "    start: 2026-12-01T17:00:00+08:00\n"
                     "    end: 2026-12-01T19:00:00+08:00\n"
                     "    problems: [3]\n")
    lock = ContestLock(lock_file)
    assert lock.check("239", NOON).locked and lock.check("239", NOON).reason == "problem"
    assert lock.check("P1", NOON).locked
    after = datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc)  # 19:00 +08:00: the window has ended
    assert not lock.check("3", after).locked
    inside = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)  # 17:30 +08:00
    decision = lock.check("3", inside)
    assert decision.locked and decision.reason == "window" and decision.window == "Weekly 12"
    assert decision.until == datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc)
    assert not lock.check("5", inside).locked
    assert not lock.check(None, inside).locked
    assert lock.locked_problems(inside) == frozenset({"239", "1", "3"})


def test_window_for_all_problems_locks_requests_without_a_problem(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock.yaml"
    write(lock_file, "windows:\n  - start: 2026-12-01T09:00:00Z\n    end: 2026-12-01T12:00:00Z\n    problems: all\n")
    lock = ContestLock(lock_file)
    assert lock.check(None, NOON.replace(hour=11)).locked
    assert lock.locked_problems(NOON.replace(hour=11)) == ALL
    assert not lock.check(None, NOON.replace(hour=12)).locked  # the end is exclusive


def test_a_lock_on_the_judges_id_locks_the_imported_problem(tmp_path: Path) -> None:
    # Operators copy a contest's problem numbers from their judge; Quest stores an imported
    # problem as '<source>:<judge id>'. Before this, `problems: [1007]` left 'hustoj-main:1007'
    # and its accepted code open during the contest.
    lock_file = tmp_path / "lock.yaml"
    write(lock_file, "problems: [1007, P1000, A]\n"
                     "windows:\n"
                     "  - start: 2026-12-01T09:00:00Z\n"
                     "    end: 2026-12-01T12:00:00Z\n"
                     "    problems: [hydro:P7]\n")
    lock = ContestLock(lock_file)
    assert lock.check("hustoj-main:1007", NOON).reason == "problem"
    assert lock.check("1007", NOON).locked
    assert lock.check("school:P1000", NOON).locked  # P1000 and 1000 are one id, as for starter problems
    assert lock.check("qduoj:A", NOON).locked
    assert lock.check("hydro:P7", NOON).reason == "window"
    assert not lock.check("other:P7", NOON).locked  # a qualified entry names that set only
    assert not lock.check("hustoj-main:1008", NOON).locked
    assert not lock.check("hustoj-main:10070", NOON).locked
    assert not lock.check("Weird:1007", NOON).locked  # not a source name: the id is taken whole
    assert not lock.check(None, NOON).locked


def test_filter_hits_drops_an_imported_problem_locked_by_its_judge_id() -> None:
    chunks = [dataclasses.replace(c, problem_id="hustoj-main:239") if c.problem_id == "239" else c
              for c in default_chunks()]
    found = [Hit(chunk=c, score=0.5) for c in chunks]
    assert [h.chunk.doc_id for h in filter_hits(found, "solution", frozenset({"239"}))] == ["err-list-pop0", "faq-io"]
    assert [h.chunk.doc_id for h in filter_hits(found, "solution", frozenset({"hustoj-main:239"}))] == [
        "err-list-pop0", "faq-io"]
    assert len(filter_hits(found, "solution", frozenset({"other:239"}))) == len(found)


def test_lock_file_is_reread_when_it_changes(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock.yaml"
    lock = ContestLock(lock_file)
    assert lock.check("239", NOON).reason == "broken_file"  # configured but missing: fail closed
    write(lock_file, "problems: [1]\n")
    assert not lock.check("239", NOON).locked
    write(lock_file, "problems: [1, 239]\n")
    os.utime(lock_file, ns=(1, 2_000_000_000))  # a different mtime even on coarse clocks
    assert lock.check("239", NOON).locked
    lock_file.unlink()
    assert lock.check("1000", NOON).reason == "broken_file"  # removed during the contest: still closed


def test_broken_lock_file_locks_everything(tmp_path: Path) -> None:
    lock_file = tmp_path / "lock.yaml"
    write(lock_file, "windows:\n  - start: tomorrow\n")
    lock = ContestLock(lock_file)
    decision = lock.check("5", NOON)
    assert decision.locked and decision.reason == "broken_file"
    assert lock.locked_problems(NOON) == ALL


def feed_chars(gate: CodeGate, text: str) -> str:
    return "".join(gate.feed(ch) for ch in text) + gate.flush()


LONG_BLOCK = "```python\n" + "".join(f"line_{i} = {i}\n" for i in range(MAX_CODE_LINES + 2)) + "```\n"
SHORT_BLOCK = "```python\nq = deque()\nq.popleft()\n```\n"


def test_code_gate_removes_long_blocks_even_streamed_char_by_char() -> None:
    text = "Use a deque:\n" + LONG_BLOCK + "Short one:\n" + SHORT_BLOCK + "Done."
    gate = CodeGate(enabled=True, lang="en")
    out = feed_chars(gate, text)
    assert out == "Use a deque:\n" + code_removed_note("en") + "\nShort one:\n" + SHORT_BLOCK + "Done."
    assert gate.removed == 1


def test_code_gate_never_emits_a_line_of_a_long_block() -> None:
    gate = CodeGate(enabled=True, lang="zh")
    emitted = [gate.feed(ch) for ch in "看这里：\n" + LONG_BLOCK[:-4]]  # unterminated at the end
    emitted.append(gate.flush())
    assert not any("line_" in piece for piece in emitted)
    assert "".join(emitted) == "看这里：\n" + code_removed_note("zh") + "\n"


def test_code_gate_passes_prose_through_at_once_and_is_a_no_op_when_disabled() -> None:
    gate = CodeGate(enabled=True)
    assert gate.feed("Hello wor") == "Hello wor"
    assert gate.feed("ld\n`") == "ld\n"  # a line starting with a backtick might open a fence
    assert gate.feed("x` is inline\n") == "`x` is inline\n"
    assert CodeGate(enabled=False).feed(LONG_BLOCK) == LONG_BLOCK
    assert strip_code_blocks("a\n" + LONG_BLOCK, lang="en") == ("a\n" + code_removed_note("en") + "\n", 1)


def test_code_gate_emits_text_before_a_block_at_once_and_says_while_it_holds_one() -> None:
    gate = CodeGate(enabled=True, lang="en")
    assert gate.feed("Before the code:\n```python\n") == "Before the code:\n"
    assert gate.holding is True
    assert gate.feed("q = deque()\n") == ""
    assert gate.feed("```\nafter") == "```python\nq = deque()\n```\nafter"
    assert gate.holding is False
    assert CodeGate(enabled=False).holding is False


def test_code_gate_follows_commonmark_a_backtick_in_the_info_string_opens_no_block() -> None:
    gate = CodeGate(enabled=True, max_lines=1)
    assert gate.feed("```a`b\nx\ny\nz\n") == "```a`b\nx\ny\nz\n"  # an inline code span, not a fence
    assert not gate.holding
    assert gate.feed("~~~a`b\n") == "" and gate.holding  # a tilde fence may have one


def test_code_blocks_and_remove_all_code_see_blocks_in_lists_and_quotes() -> None:
    text = "1. Step:\n\n   ```python\n   x = 1\n   ```\n> ```\n> y\n> ```\n"
    assert code_blocks(text) == ["x = 1\n", "y\n"]
    shown = visible_text("- Fix:\n  ```python\n  x = 1\n  ```\nend\n", "error_pattern", "hint")
    assert "x = 1" not in shown and shown.startswith("- Fix:\n> (Code held back") and shown.endswith("\nend\n")
    assert remove_all_code("a\n```\nx\n```", "[held]\n") == "a\n[held]\n"  # at the end: no extra line


def test_explain_removes_a_long_block_nested_in_a_list_the_streaming_gate_cannot_see() -> None:
    text = "1. Fix:\n\n   - like this:\n\n     ```python\n" + "     x = 1\n" * 6 + "     ```\n2. Done\n"
    shown = visible_text(text, "error_pattern", "explain")
    assert shown == "1. Fix:\n\n   - like this:\n\n" + held_back_note("en") + "\n2. Done\n"
    assert strip_code_blocks(text, max_lines=6) == (text, 0)  # six lines: short enough to stay


def test_leak_check_flags_copies_of_official_code_only() -> None:
    copied = "Here is how:\n" + "\n\n".join(
        "```python\n" + "\n".join(OFFICIAL_239_CODE.splitlines()[i:i + 3]) + "\n```"
        for i in range(0, len(OFFICIAL_239_CODE.splitlines()), 3))
    report = leak_check(copied, [OFFICIAL_239_CODE])
    assert report.leaked and report.shared_lines >= 8 and report.containment > 0.8
    prose = ("Line 5 calls `w.pop(0)`, which is O(k) [1]. Keep indices in a `deque`, pop smaller values from the "
             "back, and `popleft()` expired ones: O(n) overall instead of O(n·k).\n```python\nwindow.popleft()\n```")
    report = leak_check(prose, [OFFICIAL_239_CODE])
    assert not report.leaked and report.shared_lines <= 1
    assert not leak_check("anything", []).leaked
