"""`python -m quest kb import|check` through the real CLI entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.cli import main
from quest.kb.markdown import load_knowledge_base

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "exports"


def test_import_then_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    into = tmp_path / "kb" / "imported"
    code = main(["kb", "import", "--format", "qduoj", str(EXPORTS / "qduoj"), "--into", str(into)])
    out = capsys.readouterr().out
    assert code == 0
    assert out == (
        f"imported 2 problems, 3 documents from {EXPORTS / 'qduoj'} into {into} as source 'qduoj'\n"
        "  2 added, 0 updated, 0 unchanged, 0 removed\n"
        "  added: 1001\n"
        "  added: 1002\n"
        "  next: python -m quest kb check, then python -m quest index\n"
    )
    assert len(load_knowledge_base(tmp_path / "kb").documents) == 3

    assert main(["--kb", str(tmp_path / "kb"), "kb", "check"]) == 0
    assert capsys.readouterr().out == "4 files checked: 0 errors, 0 warnings\n"


def test_a_refused_import_prints_a_friendly_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "evil.xml"
    bad.write_text('<!DOCTYPE fps [<!ENTITY x SYSTEM "file:///etc/passwd">]><fps/>', encoding="utf-8")
    code = main(["kb", "import", "--format", "fps", str(bad), "--into", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.startswith(f"error: {bad}: XML that declares entities or references external files is refused")
    assert "Traceback" not in captured.err
    assert not (tmp_path / "out").exists()


def test_max_size_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["kb", "import", "--format", "fps", str(EXPORTS / "fps.xml"), "--into", str(tmp_path / "o"),
                 "--max-size-mb", "0.001"])
    assert code == 2
    assert "over the 1048 bytes limit" in capsys.readouterr().err


def test_force_replaces_a_handwritten_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    into = tmp_path / "notes"
    into.mkdir()
    (into / "mine.md").write_text("x", encoding="utf-8")
    argv = ["kb", "import", "--format", "fps", str(EXPORTS / "fps.xml"), "--into", str(into)]
    assert main(argv) == 2
    assert "--force" in capsys.readouterr().err
    assert main([*argv, "--force"]) == 0
    assert not (into / "mine.md").exists()


def test_check_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    warn = tmp_path / "warn"
    warn.mkdir()
    (warn / "w.md").write_text("---\nid: w\nkind: faq\ntitle: W\n---\nText.\n", encoding="utf-8")
    assert main(["kb", "check", str(warn)]) == 0  # warnings only
    assert capsys.readouterr().out == (
        f"{warn / 'w.md'}:1: warning: front matter has no 'lang' (it is read as en)\n"
        "1 file checked: 0 errors, 1 warning\n"
    )
    (warn / "e.md").write_text("---\nid: w\nkind: faq\nlang: en\ntitle: E\n---\nText.\n", encoding="utf-8")
    assert main(["kb", "check", str(warn)]) == 1
    assert capsys.readouterr().out.splitlines()[1:] == [
        f"{warn / 'w.md'}:2: error: duplicate id 'w' (also in {warn / 'e.md'})",
        "2 files checked: 1 error, 1 warning",
    ]


def test_check_of_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kb", "check", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'nope'}: knowledge folder not found\n"


def test_the_command_offers_exactly_the_importer_formats() -> None:
    from quest.commands import kb as kb_command
    from quest.kb import importers

    assert kb_command.FORMATS == importers.FORMATS
