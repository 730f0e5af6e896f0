"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
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


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    """The fields of a student's request, shared by `search` and `ask`."""
    parser.add_argument("--problem", help="problem id, e.g. 239")
    parser.add_argument("--code", type=Path, help="file with the student's code ('-' for stdin)")
    parser.add_argument("--language", default="python", help="programming language of the code (default: python)")
    parser.add_argument("--error", default="", help="the judge's verdict or error message")
