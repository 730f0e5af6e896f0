"""A real retriever over a small fixture base (tests/data/kb_*), and what it shows for a request.

The ranking tests of each round build one per module: the base is copied (indexing writes next to it), searched
BM25-only, and a request goes through the same plan and search as every entry point.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.retriever import Retriever, build_retriever
from quest.settings import Settings


def retriever_over(kb: Path, tmp_path_factory: pytest.TempPathFactory, **settings: Any) -> Retriever:
    """A BM25-only retriever over a copy of the fixture base `kb` (`settings` override the defaults)."""
    root = tmp_path_factory.mktemp(kb.name)
    shutil.copytree(kb, root / "kb")
    return build_retriever(Settings(kb_dir=root / "kb", data_dir=root / "data", show_progress=False,
                                    embedding_model="none", **settings))


def with_settings(retriever: Retriever, changes: dict[str, Any] | None) -> Retriever:
    """The same index searched with some settings changed (a rule turned off, a floor moved)."""
    if not changes:
        return retriever
    return Retriever(retriever.settings.replace(**changes), retriever.index, retriever.kb)


def shown(retriever: Retriever, changes: dict[str, Any] | None = None, **request: Any) -> list[str]:
    """The documents shown for the request, in order, as every entry point plans and searches it."""
    searcher = with_settings(retriever, changes)
    found = retrieve(searcher, plan(Request(**request), searcher))[1]
    return [h.chunk.doc_id for h in found.hits]
