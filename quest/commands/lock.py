"""`python -m quest lock check FILE [--at TIME] [--tz ZONE]`: is this contest lock file valid, and what does it lock?

Prints every problem in the file (file, line, key, what is wrong) and exits 1 when it is not
valid — Quest would then lock every problem. A valid file exits 0 and prints what is locked
now and at each window boundary, with times in their zone (or in `--tz`).
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from quest.settings import Settings

EXIT_INVALID = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("lock", help="check a contest lock file")
    sub = parser.add_subparsers(dest="lock_command", required=True, metavar="ACTION")
    check = sub.add_parser("check", help="validate a lock file and print what it locks, now and at each boundary")
    check.add_argument("file", type=Path, help="the lock file (YAML)")
    check.add_argument("--at", help="check at this time instead of now (ISO 8601 with a zone)")
    check.add_argument("--tz", help="show times in this IANA zone, e.g. Asia/Shanghai")
    check.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from quest.policy import read_lock_file
    from quest.schema import SchemaError

    out = sys.stdout
    try:
        config = read_lock_file(args.file)
    except SchemaError as exc:
        print(f"{exc.path}: INVALID — Quest would lock every problem while this file is configured.", file=out)
        for problem in exc.problems:
            print(f"  {exc.path}:{problem.line or '?'}: {problem.key or '(file)'}: {problem.message}", file=out)
        return EXIT_INVALID
    now = _moment(args.at) if args.at else datetime.now(timezone.utc)
    print(f"{args.file}: valid", file=out)
    print_schedule(config, now, args.tz, out)
    return 0


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text.strip())
    if moment.tzinfo is None:
        raise ValueError(f"--at needs a time zone, e.g. {text}+08:00")
    return moment


def print_schedule(config: object, now: datetime, zone: str | None, out: TextIO) -> None:
    """What the lock locks at `now` and just after each window starts or ends."""
    from quest.policy import ALL, LockConfig, format_moment

    assert isinstance(config, LockConfig)

    def names(locked: frozenset[str] | str) -> str:
        if locked == ALL:
            return "ALL problems"
        return ", ".join(sorted(locked, key=lambda p: (len(p), p))) if locked else "nothing"

    windows = [w for w in config.windows if w.start.year > 1]  # `problems: all` is a window without end
    if len(windows) < len(config.windows):
        print("always locked: ALL problems", file=out)
    elif config.problems:
        print(f"always locked: {names(config.problems)}", file=out)
    for i, window in enumerate(windows):
        label = window.name or f"window {i + 1}"
        print(f"window {label!r}: {format_moment(window.start, zone)} -> {format_moment(window.end, zone)}, "
              f"locks {names(window.problems)}", file=out)
    print(f"now ({format_moment(now, zone)}): {names(config.locked_at(now))}", file=out)
    boundaries = sorted({(w.start, f"{w.name or 'window'} starts") for w in windows}
                        | {(w.end, f"{w.name or 'window'} ends") for w in windows})
    for moment, what in boundaries:
        print(f"from {format_moment(moment, zone)} ({what}): {names(config.locked_at(moment))}", file=out)
