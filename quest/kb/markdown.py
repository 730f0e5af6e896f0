"""Load `knowledge/**/*.md` (YAML front matter + Markdown body) and the problem catalogue.

One bad file never hides the others: loading collects every file's error (with the file
name and the reason) and returns whatever loaded cleanly; `strict=True` raises instead.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from quest.errors import KnowledgeBaseError
from quest.kb.documents import (
    KINDS,
    LANGS,
    Chunk,
    Document,
    KnowledgeBase,
    Problem,
    is_source_name,
    normalize_problem_id,
    qualified_problem_id,
)
from quest.markdown_blocks import FenceTracker, fenced_blocks, split_lines
from quest.safe_yaml import UnsafeYAML, load_yaml
from quest.schema import FrontMatterModel, SchemaError, read_catalogue_file, validate_value

log = logging.getLogger(__name__)

CATALOGUE_NAME = "problems.yaml"
# Folders under the knowledge directory that hold no documents.
SKIPPED_DIRS = {"eval", "examples", ".git"}
SKIPPED_FILES = {"README.md"}

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


# --------------------------------------------------------------------------- catalogue


def load_catalogue(path: Path) -> dict[str, Problem]:
    """Read a problems.yaml (a list of problems, or a mapping with a `problems` list) by its schema.

    A mapping may name its `source` (an import's name): its ids are then kept exactly as
    written and qualified as `<source>:<id>`, so they never collide with the starter base.
    """
    try:
        catalogue = read_catalogue_file(path)
    except SchemaError as exc:
        raise KnowledgeBaseError(path, exc.reason, line=exc.line) from None
    source_name = catalogue.source
    problems: dict[str, Problem] = {}
    for entry in catalogue.problems:
        pid = qualified_problem_id(source_name, entry.id) if source_name else normalize_problem_id(entry.id)
        if pid in problems:
            raise KnowledgeBaseError(path, f"problem id {pid} is listed twice")
        problems[pid] = Problem(
            id=pid, source_name=source_name, local_id=entry.id if source_name else "", url=entry.url or "",
            title_zh=entry.title_zh, title_en=entry.title_en, difficulty=entry.difficulty,
            tags=tuple(entry.tags), limits=dict(entry.limits), aka=tuple(entry.aka),
            functions=tuple(entry.functions),
        )
    return problems


# --------------------------------------------------------------------------- documents


def split_front_matter(text: str, path: Path | str = "<text>") -> tuple[dict[str, Any], str, int]:
    """Return (front matter, body, line number where the body starts)."""
    text = text.lstrip("\ufeff")
    m = _FRONT_MATTER.match(text)
    if not m:
        raise KnowledgeBaseError(path, "missing YAML front matter (a '---' block at the top)", line=1)
    try:  # the one safe reader: no anchors/aliases (an alias bomb here once took the index build to 5.5 GB)
        meta = load_yaml(m.group(1)).value
    except UnsafeYAML as exc:
        raise KnowledgeBaseError(path, f"broken front matter: {exc.reason}", line=(exc.line or 0) + 1) from None
    if not isinstance(meta, dict):
        raise KnowledgeBaseError(path, "front matter must be a mapping of fields", line=2)
    body_line = text[: m.end()].count("\n") + 1
    return meta, text[m.end() :], body_line


def _as_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(str(v) for v in value)


def document_problem_id(meta: dict[str, Any]) -> str | None:
    """The problem a document is about; an imported one's id is qualified by its `source`."""
    source_name = meta.get("source")
    if is_source_name(source_name) and meta.get("problem_id") not in (None, ""):
        return qualified_problem_id(source_name, meta["problem_id"])
    return normalize_problem_id(meta.get("problem_id"))


def parse_document(text: str, path: Path | str = "<text>") -> Document:
    meta, body, _ = split_front_matter(text, path)
    for required in ("id", "kind", "title"):
        if meta.get(required) in (None, ""):
            raise KnowledgeBaseError(path, f"front matter has no '{required}'")
    kind = str(meta["kind"])
    if kind not in KINDS:
        raise KnowledgeBaseError(path, f"unknown kind {kind!r} (expected one of: {', '.join(KINDS)})")
    lang = str(meta.get("lang") or "en")
    if lang not in LANGS:
        raise KnowledgeBaseError(path, f"unknown lang {lang!r} (expected zh or en)")
    if not body.strip():
        raise KnowledgeBaseError(path, "the document has no text below its front matter")
    fm = _front_matter_model(text, meta, path)
    known = {"id", "kind", "title", "lang", "problem_id", "tags", "verdicts", "languages", "source", "url",
             "remote_oj", "signatures"}
    return Document(
        id=fm.id,
        kind=fm.kind,
        title=fm.title,
        text=body.strip("\n"),
        lang=fm.lang,
        problem_id=document_problem_id(meta),
        tags=tuple(fm.tags),
        verdicts=tuple(v.upper() for v in fm.verdicts),
        languages=tuple(v.lower() for v in fm.languages),
        source=str(path),
        extra={k: v for k, v in meta.items() if k not in known},
        source_name=fm.source if is_source_name(fm.source) else "",
        url=fm.url or "",
        remote_oj=fm.remote_oj or "",
        signatures=tuple(fm.signatures),
    )


def _front_matter_model(text: str, meta: dict[str, Any], path: Path | str) -> FrontMatterModel:
    """The front matter checked by its strict schema (`quest.schema.FrontMatterModel`)."""
    m = _FRONT_MATTER.match(text.lstrip("\ufeff"))
    try:
        return validate_value(FrontMatterModel, meta, path, text=m.group(1) if m else "", line_offset=1)
    except SchemaError as exc:
        raise KnowledgeBaseError(path, f"front matter: {exc.reason}", line=exc.line) from None


# The starter base: the top-level catalogue and `problems/`. `QUEST_STARTER_KB=false` leaves
# them out, so an operator gets only their own imports plus the general documents.
STARTER_PARTS = (CATALOGUE_NAME, "problems")


def is_starter(kb_dir: Path, path: Path) -> bool:
    return path.relative_to(kb_dir).parts[0] in STARTER_PARTS


def iter_catalogues(kb_dir: Path, *, starter: bool = True) -> Iterator[Path]:
    for path in sorted(kb_dir.rglob(CATALOGUE_NAME)):
        if starter or not is_starter(kb_dir, path):
            yield path


def iter_markdown_files(kb_dir: Path, *, starter: bool = True) -> Iterator[Path]:
    for path in sorted(kb_dir.rglob("*.md")):
        rel = path.relative_to(kb_dir)
        if any(part in SKIPPED_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if not starter and is_starter(kb_dir, path):
            continue
        if path.name in SKIPPED_FILES:
            continue
        yield path


def load_knowledge_base(kb_dir: Path | str, *, strict: bool = False, starter: bool = True) -> KnowledgeBase:
    """Load every catalogue and document under `kb_dir` (without the starter base if not `starter`).

    Errors are collected per file; with `strict=True` the first one is raised.
    """
    kb_dir = Path(kb_dir)
    if not kb_dir.is_dir():
        raise KnowledgeBaseError(kb_dir, "knowledge folder not found")
    errors: list[KnowledgeBaseError] = []
    problems: dict[str, Problem] = {}
    for cat in iter_catalogues(kb_dir, starter=starter):
        try:
            for pid, problem in load_catalogue(cat).items():
                if pid in problems:
                    errors.append(KnowledgeBaseError(cat, f"problem id {pid} is already in another catalogue"))
                    continue
                problems[pid] = problem
        except KnowledgeBaseError as exc:
            errors.append(exc)

    documents: list[Document] = []
    seen: dict[str, str] = {}
    for path in iter_markdown_files(kb_dir, starter=starter):
        try:
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise KnowledgeBaseError(path, f"not UTF-8 text ({exc.reason})") from exc
            doc = parse_document(text, path)
            if doc.id in seen:
                raise KnowledgeBaseError(path, f"duplicate id {doc.id!r} (also in {seen[doc.id]})")
            if doc.problem_id is not None and doc.problem_id not in problems:
                raise KnowledgeBaseError(path, f"problem_id {doc.problem_id} is not in {CATALOGUE_NAME}")
        except KnowledgeBaseError as exc:
            errors.append(exc)
            continue
        seen[doc.id] = str(path)
        documents.append(doc)

    if errors:
        for exc in errors:
            log.warning("knowledge base: %s", exc)
        if strict:
            raise errors[0]
    problems = _mark_statement_only(problems, documents)
    return KnowledgeBase(documents=tuple(documents), problems=problems, errors=tuple(str(e) for e in errors))


def _mark_statement_only(problems: dict[str, Problem], documents: list[Document]) -> dict[str, Problem]:
    kinds: dict[str, set[str]] = {}
    for doc in documents:
        if doc.problem_id is not None:
            kinds.setdefault(doc.problem_id, set()).add(doc.kind)
    return {
        pid: replace(p, statement_only=True) if kinds.get(pid) == {"problem_statement"} else p
        for pid, p in problems.items()
    }


# --------------------------------------------------------------------------- chunking


def _blocks(body: str) -> Iterator[tuple[str, str]]:
    """Yield ("heading", title) and ("text", block) pieces; fenced code stays one block."""
    lines = [line.rstrip("\r\n") for line in split_lines(body)]
    fence_end = {block.start_line: block.end_line for block in fenced_blocks(body)}
    buf: list[str] = []

    def flush() -> Iterator[tuple[str, str]]:
        if any(line.strip() for line in buf):
            yield ("text", "\n".join(buf).strip("\n"))
        buf.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if i in fence_end:  # the whole fenced block, fences included, as one piece
            yield from flush()
            buf.extend(lines[i:fence_end[i]])
            yield from flush()
            i = fence_end[i]
            continue
        i += 1
        h = _HEADING.match(line)
        if h:
            yield from flush()
            yield ("heading", h.group(2).strip())
            continue
        if not line.strip():
            yield from flush()
            continue
        buf.append(line)
    yield from flush()


def chunk_document(doc: Document, max_chars: int = 1200) -> list[Chunk]:
    """Split a document at its headings, then pack paragraphs up to `max_chars`.

    A fenced code block is never split: one larger than `max_chars` becomes a chunk of its
    own. Every chunk keeps the document's metadata and the title of its section.
    """
    sections: list[tuple[str, list[str]]] = [("", [])]
    for kind, value in _blocks(doc.text):
        if kind == "heading":
            sections.append((value, []))
        else:
            sections[-1][1].append(value)
    if doc.kind == "problem_statement":
        sections = _limits_into_description(sections)

    pieces: list[tuple[str, str]] = []
    for section, blocks in sections:
        current: list[str] = []
        size = 0
        for block in blocks:
            for part in _split_long_text(block, max_chars):
                if current and size + len(part) + 2 > max_chars:
                    pieces.append((section, "\n\n".join(current)))
                    current, size = [], 0
                current.append(part)
                size += len(part) + 2
        if current:
            pieces.append((section, "\n\n".join(current)))

    return [
        Chunk(
            id=f"{doc.id}#{i}",
            doc_id=doc.id,
            ordinal=i,
            section=section,
            text=text,
            kind=doc.kind,
            title=doc.title,
            lang=doc.lang,
            problem_id=doc.problem_id,
            tags=doc.tags,
            verdicts=doc.verdicts,
            languages=doc.languages,
            source_name=doc.source_name,
            url=doc.url,
        )
        for i, (section, text) in enumerate(pieces)
    ]


LIMITS_HEADINGS = frozenset({"limits", "限制", "时空限制", "time and memory limits"})


def _limits_into_description(sections: list[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """A statement's one-line "Limits" section joins the first section with text.

    On its own it is a tiny chunk that matches every "time limit" question about any problem
    and often ranks first; beside the description it is context.
    """
    limits = [blocks for title, blocks in sections if title.strip().lower() in LIMITS_HEADINGS]
    if not limits:
        return sections
    kept = [(title, blocks) for title, blocks in sections if title.strip().lower() not in LIMITS_HEADINGS]
    first = next((i for i, (_, blocks) in enumerate(kept) if blocks), None)
    if first is None:
        return sections
    title, blocks = kept[first]
    kept[first] = (title, [*blocks, *(b for group in limits for b in group)])
    return kept


def _split_long_text(block: str, max_chars: int) -> Iterable[str]:
    """Plain text longer than the cap is cut at sentence or line ends; code is kept whole."""
    if len(block) <= max_chars or FenceTracker().feed_line(block.split("\n", 1)[0]) == "open":
        return [block]
    parts: list[str] = []
    rest = block
    while len(rest) > max_chars:
        window = rest[:max_chars]
        cut = max(window.rfind(s) for s in ("\n", "。", ". ", "！", "？", "; ", "；"))
        cut = cut + 1 if cut > max_chars // 3 else max_chars
        parts.append(rest[:cut].strip())
        rest = rest[cut:]
    if rest.strip():
        parts.append(rest.strip())
    return parts


def chunk_documents(docs: Iterable[Document], max_chars: int = 1200) -> list[Chunk]:
    return [c for d in docs for c in chunk_document(d, max_chars)]
