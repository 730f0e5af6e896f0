"""Every crash or wrong answer the fuzz suite found, pinned as a plain test (issue 11, item 6).

Each was a crash or a wrong answer once; each is fixed and must stay fixed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import read_export
from quest.policy import CodeGate, code_blocks, code_removed_note, remove_all_code, visible_text


def test_a_longer_closing_fence_closes_the_block() -> None:
    """Found by the code-gate fuzz test: `code_blocks` and `remove_all_code` only closed a block on
    a fence of exactly the opening length, while CommonMark and the streaming gate accept longer."""
    text = "~~~```python\n~~~~\n~~~~\n~~~~\n"
    assert code_blocks(text) == ["", ""]
    assert remove_all_code("a\n~~~\nx = 1\n~~~~\nafter\n", "[held]\n") == "a\n[held]\n\nafter\n"


CR_BLOCK = "Here:\r\n```python\r" + "x = 1\r" * 10 + "```\r\nDone\r\n"


def test_a_block_written_with_carriage_returns_is_held_back() -> None:
    """Found by the code-gate fuzz test: with CR line ends the gate saw one line, Markdown renders
    eleven; a 10-line program went through explain mode."""
    gate = CodeGate(enabled=True, max_lines=3)
    assert gate.feed(CR_BLOCK) + gate.flush() == "Here:\n" + code_removed_note("en", 3) + "\nDone\n"
    assert "x = 1" not in visible_text(CR_BLOCK, "error_pattern", "explain")


def test_a_crlf_split_between_two_chunks_is_one_line_end() -> None:
    gate = CodeGate(enabled=True, max_lines=3)
    assert gate.feed("a\r") + gate.feed("\nb\r") + gate.feed("\r\n") + gate.flush() == "a\nb\n\n"


def test_hint_still_removes_an_unclosed_block_to_the_end() -> None:
    assert visible_text("idea\n```\nx = 1\ny = 2\n", "error_pattern", "hint").startswith("idea\n> (Code held back")
    assert "x = 1" not in visible_text("idea\n```\nx = 1\ny = 2\n", "error_pattern", "hint")


def _export(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / "export" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "export"


@pytest.mark.parametrize("samples", [True, 3])
def test_qduoj_samples_of_the_wrong_type_are_refused(tmp_path: Path, samples: object) -> None:
    root = _export(tmp_path, {"1/problem.json": json.dumps({"title": "T", "samples": samples})})
    with pytest.raises(ImportError_, match="samples"):
        read_export("qduoj", root)


@pytest.mark.parametrize("config", ["time: 1.2.3s\n", "memory: ..m\n"])
def test_hydro_limits_that_are_not_numbers_do_not_crash(tmp_path: Path, config: str) -> None:
    root = _export(tmp_path, {"P1/problem.yaml": "title: T\n", "P1/problem.md": "statement\n",
                              "P1/testdata/config.yaml": config})
    try:
        result = read_export("hydro", root)
    except ImportError_:
        return  # refusing the file, naming it, is fine too
    assert len(result.problems) == 1
