"""`python -m quest` against hostile input and a data folder it cannot write (red-team round of 2026-12-03)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.cli import main
from quest.testing.app_server import small_knowledge_base
from tests.fakes.ollama_server import FakeOllama
from tests.test_ask_command import ask_argv, code_file, fake_kb

__all__ = ["code_file", "fake_kb"]


def test_ask_with_argv_bytes_that_are_not_utf8_still_asks_the_model(fake_ollama: FakeOllama, fake_kb, code_file,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # Python hands argv bytes that are not UTF-8 over as lone surrogates ("\xff" -> "\udcff"); the model call could
    # not encode them and the student got the sources with "the AI helper is not available".
    argv = ask_argv(fake_ollama, code_file)
    argv[1] = "Why TLE \udcff?"
    assert main(argv) == 0
    answer, _ = capsys.readouterr().out.split("\nSources:\n")
    assert answer == "Use a deque [1].\n"
    assert "Why TLE \ufffd?" in fake_ollama.chat_bodies[0]["messages"][-1]["content"]


@pytest.mark.parametrize("where", ["file", "dangling link loop"])
def test_a_data_folder_that_cannot_be_written_is_one_error_line(tmp_path: Path, where: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    kb = small_knowledge_base(tmp_path / "kb")
    data = tmp_path / "data"
    if where == "file":
        data.write_text("not a folder\n", encoding="utf-8")
        folder, why = data / "index" / "bm25-only", "Not a directory"
    else:  # the index folder is a link to itself
        (data / "index").mkdir(parents=True)
        (data / "index" / "bm25-only").symlink_to("bm25-only")
        folder, why = data / "index" / "bm25-only", "File exists"
    code = main(["--kb", str(kb), "--data-dir", str(data), "--embedding-model", "none", "search", "why TLE"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines()[-1] == (
        f"error: Could not write the search index to {folder}: {why}. (make the data folder writable (--data-dir or "
        "QUEST_DATA_DIR), or set QUEST_INDEX_READ_ONLY=1 to keep the index in memory only)")
    assert "Traceback" not in err
