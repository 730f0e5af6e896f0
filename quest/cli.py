"""`python -m quest <command>`: each command lives in `quest/commands/<name>.py`.

A command module defines `register(subparsers)`, which adds its parser and sets
`func(args, settings) -> int` as the parser's default. Heavy imports happen inside `func`,
so `python -m quest --help` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from quest.errors import QuestError
from quest.settings import Settings

COMMANDS = ("index", "search", "ask", "kb", "eval", "bench", "feedback", "lock")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m quest", description="Quest: an OJ help desk.")
    parser.add_argument("--kb", dest="kb_dir", help="knowledge folder (default: knowledge)")
    parser.add_argument("--data-dir", help="where the index and feedback live (default: .quest)")
    parser.add_argument("--embedding-model", "--model", dest="embedding_model",
                        help="embedding model name or path; 'none' for BM25 only (default: BAAI/bge-m3)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv: debug)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"quest.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"quest.commands.{name}":
                raise
            continue
        module.register(sub)
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    overrides = {k: getattr(args, k, None) for k in ("kb_dir", "data_dir", "embedding_model")}
    return Settings.from_env(**overrides)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = settings_from_args(args)
        return int(args.func(args, settings) or 0)
    except QuestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # bad settings from the environment or flags
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
