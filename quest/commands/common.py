"""Helpers shared by the command modules."""

from __future__ import annotations

import sys
from pathlib import Path

from quest.errors import InputError


def read_code(path: Path | None) -> str:
    """The student's code from a file, or stdin for '-'; a clear InputError when unreadable."""
    if path is None:
        return ""
    if str(path) == "-":
        return sys.stdin.read()
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read code file {path}: {exc}", field="code") from exc
