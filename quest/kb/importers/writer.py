"""Write an import into the knowledge base: all of it, or nothing; merging with an earlier import.

Layout of the target folder:

    <into>/problems.yaml                     {source, format, problems: [...]}: the catalogue
    <into>/<slug>/<document id>.md           one file per document (front matter + Markdown)
    <into>/<slug>/images/<name>              statement images
    <into>/.quest-import.json                marker: source name, format, and per problem its
                                             folder and a hash of everything written for it

Everything is written into a hidden temp folder beside the target, then renamed into
place, so a failed import leaves no half-written folder for the loader to pick up.

Re-importing into a folder an earlier import of the SAME source created merges: problems in
the export are added or updated, problems only in the folder are kept (or removed with
`prune`), and the report says which is which. Unchanged problems are byte-identical, so
the index re-embeds only what changed. A folder of another source, or one no import
created, is refused unless the operator passes `force`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from quest.errors import ImportError_
from quest.kb.documents import Document, Problem
from quest.kb.importers.common import ImportResult, slug
from quest.kb.importers.images import IMAGE_DIR
from quest.kb.markdown import _FRONT_MATTER, CATALOGUE_NAME
from quest.safe_yaml import UnsafeYAML, load_yaml

log = logging.getLogger(__name__)

MARKER = ".quest-import.json"


@dataclass(frozen=True)
class MergeReport:
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = field(default=())  # in the folder, not in this export, not pruned

    def summary(self) -> str:
        parts = [f"{len(self.added)} added", f"{len(self.updated)} updated", f"{len(self.unchanged)} unchanged",
                 f"{len(self.removed)} removed"]
        if self.kept:
            parts.append(f"{len(self.kept)} kept from earlier imports (not in this export; --prune removes them)")
        return ", ".join(parts)


# libyaml when present: the pure-Python dumper and loader are most of a 1,000-problem import's time.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _dump(data: object) -> str:
    return yaml.dump(data, Dumper=_DUMPER, allow_unicode=True, sort_keys=False, width=1000, default_flow_style=None)


def render_document(doc: Document) -> str:
    """The document as a knowledge file; `parse_document` reads it back unchanged."""
    meta: dict[str, object] = {"id": doc.id}
    if doc.problem_id is not None:
        # Stored as the judge's own id; `source` qualifies it when the file is loaded.
        meta["problem_id"] = doc.problem_id.split(":", 1)[1] if doc.source_name else doc.problem_id
    meta.update(kind=doc.kind, lang=doc.lang, title=doc.title)
    for key in ("tags", "verdicts", "languages"):
        if getattr(doc, key):
            meta[key] = list(getattr(doc, key))
    if doc.source_name:
        meta["source"] = doc.source_name
    for key in ("url", "remote_oj"):
        if getattr(doc, key):
            meta[key] = getattr(doc, key)
    front = _dump(meta)
    text = f"---\n{front}---\n\n{doc.text.strip()}\n"
    # Never write a file the loader would refuse (a title YAML cannot hold, an empty body).
    if yaml.load(front, Loader=_LOADER) != meta or not _FRONT_MATTER.match(text):
        raise ImportError_(f"{doc.source}: cannot be stored as a knowledge document (its front matter does not "
                           "read back unchanged)")
    if not doc.text.strip():
        raise ImportError_(f"{doc.source}: cannot be stored as a knowledge document (the document has no text)")
    return text


def catalogue_entry(p: Problem) -> dict[str, object]:
    entry: dict[str, object] = {"id": p.local_id or p.id}
    if p.title_zh:
        entry["title_zh"] = p.title_zh
    if p.title_en:
        entry["title_en"] = p.title_en
    if p.tags:
        entry["tags"] = list(p.tags)
    if p.limits:
        entry["limits"] = dict(p.limits)
    if p.url:
        entry["url"] = p.url
    return entry


def render_catalogue(source_name: str, fmt: str, entries: list[dict[str, Any]]) -> str:
    head = ("# Written by `python -m quest kb import`; re-importing the same --source merges into it.\n"
            "# Ids are the judge's own; Quest shows them as `<source>:<id>` only where two sources share one.\n")
    return head + _dump({"source": source_name, "format": fmt, "problems": entries})


def planned_problems(result: ImportResult) -> dict[str, tuple[dict[str, Any], dict[str, bytes], str]]:
    """local id -> (catalogue entry, {relative path: bytes}, hash of both), in export order."""
    by_problem: dict[str, dict[str, bytes]] = {p.local_id: {} for p in result.problems}
    folders = {p.local_id: slug(p.local_id) for p in result.problems}
    for doc in result.documents:
        local = doc.problem_id.split(":", 1)[1] if doc.problem_id else ""
        by_problem[local][f"{folders[local]}/{doc.id}.md"] = render_document(doc).encode("utf-8")
    for local, images in result.images.items():
        for name, data in images.items():
            by_problem[local][f"{folders[local]}/{IMAGE_DIR}/{name}"] = data
    planned = {}
    for p in result.problems:
        entry = catalogue_entry(p)
        h = hashlib.sha256(json.dumps(entry, ensure_ascii=False, sort_keys=True).encode("utf-8"))
        for rel, data in sorted(by_problem[p.local_id].items()):
            h.update(rel.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
        planned[p.local_id] = (entry, by_problem[p.local_id], h.hexdigest()[:16])
    return planned


def is_import_folder(path: Path) -> bool:
    return (path / MARKER).is_file()


def read_marker(into: Path) -> dict[str, Any]:
    try:
        marker = json.loads((into / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return marker if isinstance(marker, dict) else {}


def _old_entries(into: Path) -> dict[str, dict[str, Any]]:
    try:
        raw = load_yaml((into / CATALOGUE_NAME).read_text(encoding="utf-8")).value
    except (OSError, UnicodeDecodeError, UnsafeYAML):
        return {}
    entries = raw.get("problems") if isinstance(raw, dict) else raw
    return {str(e["id"]).strip(): e for e in entries or () if isinstance(e, dict) and "id" in e}


def _check_target(into: Path, source_name: str, force: bool) -> dict[str, Any]:
    """The earlier import's marker when `into` may be merged into; {} for a new or forced folder."""
    if into.exists() and not into.is_dir():
        raise ImportError_(f"{into}: exists and is not a folder")
    if not into.is_dir() or not any(into.iterdir()):
        return {}
    if not is_import_folder(into):
        if force:
            return {}
        raise ImportError_(f"{into}: folder exists and was not created by an import",
                           hint="choose another --into folder, or pass --force to replace it")
    marker = read_marker(into)
    earlier = marker.get("source_name") or ""
    if not earlier:
        return {}  # made by an import before source names: replaced whole, as it always was
    if earlier != source_name and not force:
        raise ImportError_(
            f"{into}: holds the import of source {earlier or marker.get('format') or '?'!r}, not {source_name!r}",
            hint=f"pass --source {earlier} to update it, choose another --into, or --force to replace it"
            if earlier else "choose another --into, or pass --force to replace it",
        )
    return marker if earlier == source_name else {}


def write_import(result: ImportResult, into: Path, *, source: str, force: bool = False,
                 prune: bool = False) -> MergeReport:
    """Put the import's files at `into`, atomically, merging with an earlier import of the same source."""
    into = Path(into)
    marker = _check_target(into, result.source_name, force)
    old = marker.get("problems") if isinstance(marker.get("problems"), dict) else {}
    planned = planned_problems(result)
    added = tuple(k for k in planned if k not in old)
    updated = tuple(k for k in planned if k in old and old[k].get("hash") != planned[k][2])
    unchanged = tuple(k for k in planned if k in old and old[k].get("hash") == planned[k][2])
    leftover = tuple(k for k in old if k not in planned)
    report = MergeReport(added, updated, unchanged, leftover if prune else (), () if prune else leftover)
    old_entries = _old_entries(into) if report.kept else {}

    entries = [entry for entry, _, _ in planned.values()]
    problems_marker = {k: {"dir": slug(k), "hash": h} for k, (_, _, h) in planned.items()}
    for local in report.kept:
        if local in old_entries:
            entries.append(old_entries[local])
        problems_marker[local] = old[local]
    new_marker = {"format": result.format, "source_name": result.source_name, "export": source,
                  "problems": problems_marker}
    _write_atomically(into, result, planned, new_marker, entries, report.kept, old)
    log.info("import into %s: %s", into, report.summary())
    return report


def _write_atomically(into: Path, result: ImportResult, planned: dict[str, Any], marker: dict[str, Any],
                      entries: list[dict[str, Any]], kept: tuple[str, ...], old: dict[str, Any]) -> None:
    into.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{into.name}.importing-", dir=into.parent))
    placed = False
    try:
        for _, files, _ in planned.values():
            for rel, data in files.items():
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        for local in kept:
            folder = str(old[local].get("dir") or "")
            if folder and "/" not in folder and folder not in (".", "..") and (into / folder).is_dir():
                shutil.copytree(into / folder, tmp / folder, symlinks=True, dirs_exist_ok=True)
        catalogue = render_catalogue(result.source_name, result.format, entries)
        (tmp / CATALOGUE_NAME).write_text(catalogue, encoding="utf-8")
        (tmp / MARKER).write_text(json.dumps(marker, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp makes it private; the knowledge folder is not
        _swap_into_place(tmp, into)
        placed = True
    except OSError as exc:
        raise ImportError_(f"{into}: cannot write the import ({exc.strerror or exc})") from exc
    finally:
        if not placed:
            shutil.rmtree(tmp, ignore_errors=True)


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


def imports_using(kb_root: Path, source_name: str) -> list[Path]:
    """Import folders under `kb_root` whose marker names `source_name`."""
    if not kb_root.is_dir():
        return []
    return sorted(m.parent for m in kb_root.rglob(MARKER) if read_marker(m.parent).get("source_name") == source_name)
