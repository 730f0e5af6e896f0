"""Helpers shared by the command modules."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from quest.encoding import MAX_INPUT_BYTES, decode_text, read_text_file


def read_code(path: Path | None) -> str:
    """The student's code from a file, or stdin for '-', in any common encoding (UTF-8, GBK,
    Big5, UTF-16, ...: see quest.encoding); a clear InputError when unreadable or binary."""
    if path is None:
        return ""
    if str(path) == "-":
        stream = getattr(sys.stdin, "buffer", None)
        return decode_text(stream.read(MAX_INPUT_BYTES + 1)).text if stream is not None else sys.stdin.read()
    return read_text_file(path).text


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    """The fields of a student's request, shared by `search` and `ask`."""
    parser.add_argument("--problem", help="problem id, e.g. 239")
    parser.add_argument("--code", type=Path, help="file with the student's code ('-' for stdin)")
    parser.add_argument("--language", default="auto",
                        help="programming language of the code (default: auto, detected from the code)")
    parser.add_argument("--error", default="", help="the judge's verdict or error message")
