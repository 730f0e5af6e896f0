"""Hostile exports: each is refused with one line naming the file, quickly, and nothing is written."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import import_export

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "exports"


def refused(fmt: str, export: Path, tmp_path: Path) -> str:
    """Import `export`, expect a refusal; check nothing was written; return the message."""
    into = tmp_path / "kb" / "imported"
    with pytest.raises(ImportError_) as exc:
        import_export(fmt, export, into)
    assert not into.exists()
    assert not (tmp_path / "kb").exists() or list((tmp_path / "kb").iterdir()) == []  # no temp folder left
    message = str(exc.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_a_corrupt_deflate_stream_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted((EXPORTS / "qduoj_cn").rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(EXPORTS / "qduoj_cn").as_posix())
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("1/problem.json")
    data = bytearray(archive.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start:start + 40] = b"\xff" * 40  # an invalid deflate block header, sizes and CRC untouched
    archive.write_bytes(bytes(data))
    message = refused("qduoj", archive, tmp_path)
    assert message.startswith(f"{archive}: cannot extract '1/problem.json' (Error -3 while decompressing data")


def test_deeply_nested_json_is_refused(tmp_path: Path) -> None:
    export = tmp_path / "qduoj"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.json").write_text('{"title": "x", "tags": ' + "[" * 200_000 + "]" * 200_000 + "}",
                                               encoding="utf-8")
    message = refused("qduoj", export, tmp_path)
    assert message == f"{export}/1/problem.json:1: JSON nested deeper than 64 levels"


def test_a_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    export = tmp_path / "hydro"
    (export / "1").mkdir(parents=True)
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]")
    (export / "1" / "problem.yaml").write_text("pid: P1\ntitle: bomb\n" + "\n".join(lines) + "\n", encoding="utf-8")
    (export / "1" / "problem.md").write_text("text", encoding="utf-8")
    message = refused("hydro", export, tmp_path)
    assert message == (f"{export}/1/problem.yaml:3: YAML refused "
                       "(anchors and aliases (&name / *name) are not allowed)")


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links on this system")
@pytest.mark.parametrize("link", ["file", "folder"])
def test_a_symlink_inside_a_folder_export_is_refused_not_followed(tmp_path: Path, link: str) -> None:
    export = tmp_path / "hydro"
    shutil.copytree(EXPORTS / "hydro_set" / "1", export / "1")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "passwd.png").write_text("root:x:0:0", encoding="utf-8")
    target = export / "1" / "additional_file" / "ab.png"
    if link == "file":
        target.unlink()
        target.symlink_to(secret / "passwd.png")
    else:
        (export / "2").symlink_to(secret, target_is_directory=True)
        target = export / "2"
    message = refused("hydro", export, tmp_path)
    assert message == f"{target}: is a symbolic link; links inside an export are refused"


def test_a_broken_pdf_statement_is_refused(tmp_path: Path) -> None:
    export = tmp_path / "hydro"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P1\ntitle: T\n", encoding="utf-8")
    (export / "1" / "problem.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ngarbage")
    message = refused("hydro", export, tmp_path)
    assert message.startswith(f"{export}/1/problem.pdf: not a readable PDF (")


def test_a_source_name_that_is_not_a_slug_is_refused(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "x"
    with pytest.raises(ImportError_) as exc:
        import_export("fps", EXPORTS / "fps.xml", into, source_name="My Judge")
    assert str(exc.value) == "--source 'My Judge': use lowercase letters, digits, '-' and '_' (e.g. hustoj-main)"
    assert not into.exists()
