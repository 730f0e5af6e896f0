"""Write an import into the knowledge base: all of it, or nothing.

Layout of the target folder:

    <into>/problems.yaml                     the imported problems' catalogue
    <into>/<pid>/<document id>.md            one file per document (front matter + Markdown)
    <into>/.quest-import.json                marker: what was imported, from where

Everything is written into a hidden temp folder beside the target, then renamed into
place, so a failed import leaves no half-written folder for the loader to pick up. An
existing target is replaced only when it carries the marker (it is an earlier import,
so re-importing is idempotent: the same export gives byte-identical files) or when the
operator passes `force`; any other folder is refused, because replacing it would delete
hand-written knowledge.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

import yaml

from quest.errors import ImportError_, KnowledgeBaseError
from quest.kb.documents import Document, Problem
from quest.kb.importers.common import ImportResult, slug
from quest.kb.markdown import CATALOGUE_NAME, parse_document

log = logging.getLogger(__name__)

MARKER = ".quest-import.json"


def _dump(data: object) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000, default_flow_style=None)


def render_document(doc: Document) -> str:
    """The document as a knowledge file; `parse_document` reads it back unchanged."""
    meta: dict[str, object] = {"id": doc.id}
    if doc.problem_id is not None:
        meta["problem_id"] = doc.problem_id
    meta.update(kind=doc.kind, lang=doc.lang, title=doc.title)
    for key in ("tags", "verdicts", "languages"):
        if getattr(doc, key):
            meta[key] = list(getattr(doc, key))
    if doc.source:
        meta["source"] = doc.source
    text = f"---\n{_dump(meta)}---\n\n{doc.text.strip()}\n"
    # Never write a file the loader would refuse (a title YAML cannot hold, an empty body).
    try:
        parse_document(text, doc.id)
    except KnowledgeBaseError as exc:
        raise ImportError_(f"{doc.source}: cannot be stored as a knowledge document ({exc.reason})") from exc
    return text


def render_catalogue(problems: Iterable[Problem]) -> str:
    entries = []
    for p in problems:
        entry: dict[str, object] = {"id": p.id}
        if p.title_zh:
            entry["title_zh"] = p.title_zh
        if p.title_en:
            entry["title_en"] = p.title_en
        if p.tags:
            entry["tags"] = list(p.tags)
        if p.limits:
            entry["limits"] = dict(p.limits)
        entries.append(entry)
    return "# Written by `python -m quest kb import`; re-importing replaces this folder.\n" + _dump(entries)


def planned_files(result: ImportResult) -> dict[str, str]:
    """Relative path -> content for everything the import writes (marker excepted)."""
    files = {CATALOGUE_NAME: render_catalogue(result.problems)}
    for doc in result.documents:
        files[f"{slug(doc.problem_id or 'general')}/{doc.id}.md"] = render_document(doc)
    return files


def is_import_folder(path: Path) -> bool:
    return (path / MARKER).is_file()


def write_import(result: ImportResult, into: Path, *, source: str, force: bool = False) -> list[str]:
    """Put the import's files at `into`, atomically; return the relative paths written."""
    into = Path(into)
    if into.exists() and not into.is_dir():
        raise ImportError_(f"{into}: exists and is not a folder")
    if into.is_dir() and any(into.iterdir()) and not is_import_folder(into) and not force:
        raise ImportError_(
            f"{into}: folder exists and was not created by an import",
            hint="choose another --into folder, or pass --force to replace it",
        )
    files = planned_files(result)
    marker = {
        "format": result.format,
        "source": source,
        "problems": len(result.problems),
        "documents": len(result.documents),
        "files": sorted(files),
    }
    into.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{into.name}.importing-", dir=into.parent))
    placed = False
    try:
        for rel, content in files.items():
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        (tmp / MARKER).write_text(json.dumps(marker, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp makes it private; the knowledge folder is not
        _swap_into_place(tmp, into)
        placed = True
    except OSError as exc:
        raise ImportError_(f"{into}: cannot write the import ({exc.strerror or exc})") from exc
    finally:
        if not placed:
            shutil.rmtree(tmp, ignore_errors=True)
    log.info("import: wrote %d files into %s", len(files), into)
    return sorted(files)


def _swap_into_place(tmp: Path, into: Path) -> None:
    if not into.exists():
        os.replace(tmp, into)
        return
    # Two renames: the old folder steps aside, the new one takes its name. If the second
    # fails the old one is put back, so the target is never left missing or mixed.
    old = Path(tempfile.mkdtemp(prefix=f".{into.name}.replaced-", dir=into.parent))
    os.rmdir(old)
    os.replace(into, old)
    try:
        os.replace(tmp, into)
    except OSError:
        os.replace(old, into)
        raise
    shutil.rmtree(old, ignore_errors=True)
