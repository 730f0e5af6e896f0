"""Command-line flags that mean the same thing in `python app.py` and `python -m quest`.

Each flag sets the Settings field of the same meaning (`--llm-model` -> `ollama_model`,
`--embedding-model` -> `embedding_model`); None (or argparse.SUPPRESS) leaves the environment's
value in place. Old spellings stay as hidden aliases that warn once on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

#: A parser or one of its argument groups: both have add_argument.
Parser = argparse.ArgumentParser | argparse._ArgumentGroup


class _DeprecatedAlias(argparse.Action):
    """Stores like a plain option, and says on stderr which flag to use instead."""

    def __init__(self, option_strings: list[str], dest: str, *, replacement: str, **kwargs: Any) -> None:
        self.replacement = replacement
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"warning: {option_string} is deprecated; use {self.replacement}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_deprecated_alias(parser: Parser, old: str, replacement: str, dest: str,
                         default: Any = None) -> None:
    """`old` still works, hidden from --help, warning that `replacement` is the flag's name now."""
    parser.add_argument(old, dest=dest, action=_DeprecatedAlias, replacement=replacement, default=default,
                        help=argparse.SUPPRESS)


def add_knowledge_flags(parser: Parser, default: Any = None) -> None:
    """--kb, --data-dir, --embedding-model: where the knowledge and the index live, how it is embedded."""
    parser.add_argument("--kb", dest="kb_dir", default=default, metavar="DIR",
                        help="knowledge folder (default: knowledge)")
    parser.add_argument("--data-dir", default=default, metavar="DIR",
                        help="where the index and feedback live (default: .quest)")
    parser.add_argument("--embedding-model", dest="embedding_model", default=default, metavar="MODEL",
                        help="embedding model name or local folder; 'none' for BM25 only (default: BAAI/bge-m3)")


def add_llm_flags(parser: argparse.ArgumentParser, default: Any = None) -> None:
    """--llm-model, --ollama-host: which chat model answers, and where it runs."""
    parser.add_argument("--llm-model", dest="ollama_model", default=default, metavar="MODEL",
                        help="Ollama chat model (default: qwen2.5-coder:1.5b)")
    parser.add_argument("--ollama-host", default=default, metavar="URL",
                        help="Ollama address (default: OLLAMA_HOST or http://127.0.0.1:11434)")
