"""`python -m quest <command>`: each command lives in `quest/commands/<name>.py`.

A command module defines `register(subparsers)`, which adds its parser and sets
`func(args, settings) -> int` as the parser's default. Heavy imports happen inside `func`,
so `python -m quest --help` stays instant.

The global options (--kb, --data-dir, --embedding-model, -v) are accepted before or after the
command: every command's parser gets them too, with defaults suppressed, so a value given after
the command wins and one given before it is not overwritten.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from quest.errors import QuestError
from quest.flags import add_deprecated_alias, add_knowledge_flags
from quest.settings import Settings

COMMANDS = ("index", "search", "ask", "kb", "eval", "bench", "feedback", "lock")


def add_global_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup, default: object = None) -> None:
    add_knowledge_flags(parser, default)
    add_deprecated_alias(parser, "--model", "--embedding-model", "embedding_model", default)
    parser.add_argument("-v", "--verbose", action="count", default=0 if default is None else default,
                        help="more logging (-vv: debug)")


def _subcommand_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """Every parser below `parser` (commands, and subcommands such as `kb check`)."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases map to the same parser
                found += [child, *_subcommand_parsers(child)]
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m quest", description="Quest: an OJ help desk.")
    add_global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"quest.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"quest.commands.{name}":
                raise
            continue
        module.register(sub)
    for child in _subcommand_parsers(parser):
        add_global_options(child.add_argument_group("global options (also accepted before the command)"),
                           argparse.SUPPRESS)
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
