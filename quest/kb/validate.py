"""`quest kb check`: find everything wrong with a knowledge folder, with file and line.

The loader skips a broken file and moves on; this check says exactly what is wrong and
where, so an author can fix it before indexing. Severity:

- error: the loader would refuse the file, or the file is wrong in a way that breaks
  answers (duplicate ids, unknown kinds or languages, documents about problems the
  catalogue does not list, empty bodies, broken YAML, Python code that does not parse);
- warning: it loads, but probably not as intended (an unknown front-matter field is
  usually a typo, an unknown verdict never matches a judge result, no `lang`).

Python blocks in `error_pattern` documents are only warned about: those documents show
broken code on purpose.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quest.errors import KnowledgeBaseError
from quest.judge import KNOWN_VERDICTS as VERDICTS
from quest.kb.documents import KINDS, LANGS, normalize_problem_id
from quest.kb.markdown import (
    CATALOGUE_NAME,
    document_problem_id,
    iter_catalogues,
    iter_markdown_files,
    load_catalogue,
    split_front_matter,
)
from quest.markdown_blocks import fenced_blocks
from quest.schema import FRONT_MATTER_KEYS, SchemaError, validate_value
from quest.schema import FrontMatterModel as _FrontMatter

KNOWN_FIELDS = FRONT_MATTER_KEYS  # the schema's one list (quest/schema.py)
REQUIRED_FIELDS = ("id", "kind", "title")
LIST_FIELDS = ("tags", "verdicts", "languages")
PYTHON_FENCES = {"python", "py", "python3", "py3"}



@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    severity: str  # "error" | "warning"
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}: {self.message}"


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    files: int

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)

    @property
    def ok(self) -> bool:
        return self.errors == 0

    def summary(self) -> str:
        counts = f"{_count(self.errors, 'error')}, {_count(self.warnings, 'warning')}"
        return f"{_count(self.files, 'file')} checked: {counts}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def check_knowledge_base(kb_dir: Path | str, *, starter: bool = True) -> Report:
    """Check every catalogue and Markdown document under `kb_dir` (without the starter base if not `starter`)."""
    kb_dir = Path(kb_dir)
    if not kb_dir.is_dir():
        raise KnowledgeBaseError(kb_dir, "knowledge folder not found")
    findings: list[Finding] = []
    problems, files = _check_catalogues(kb_dir, findings, starter)
    seen: dict[str, str] = {}
    for path in iter_markdown_files(kb_dir, starter=starter):
        files += 1
        findings.extend(sorted(check_document(path, problems, seen), key=lambda f: f.line))
    return Report(findings=tuple(findings), files=files)


def _check_catalogues(kb_dir: Path, findings: list[Finding], starter: bool = True) -> tuple[set[str], int]:
    problems: dict[str, str] = {}
    count = 0
    for path in iter_catalogues(kb_dir, starter=starter):  # every one, as the loader reads them
        count += 1
        try:
            catalogue = load_catalogue(path)
        except KnowledgeBaseError as exc:
            findings.append(Finding(str(path), exc.line or 1, "error", exc.reason))
            continue
        for pid, problem in catalogue.items():
            if pid in problems:
                message = f"problem id {pid} is also listed in {problems[pid]}"
                if problem.source_name:
                    # Two imports under one source name: neither may silently win.
                    message += (f" (two imports share the source name {problem.source_name!r}; "
                                "re-import one with another --source)")
                line = _catalogue_line(path, problem.local_id or pid)
                findings.append(Finding(str(path), line, "error", message))
            else:
                problems[pid] = str(path)
    return set(problems), count


def _catalogue_line(path: Path, pid: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.match(r"^\s*-?\s*id:\s*['\"]?([^'\"#]+?)['\"]?\s*(?:#.*)?$", line)
        if m and (normalize_problem_id(m.group(1)) == pid or m.group(1).strip() == pid):
            return number
    return 1


def check_document(path: Path, problems: set[str], seen: dict[str, str]) -> list[Finding]:
    """Findings for one Markdown document; `seen` (id -> file) collects ids across calls."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return [Finding(name, 1, "error", f"not UTF-8 text ({exc.reason})")]
    try:
        meta, body, body_line = split_front_matter(text, path)
    except KnowledgeBaseError as exc:
        return [Finding(name, exc.line or 1, "error", exc.reason)]

    out: list[Finding] = []
    lines = _field_lines(text)

    def report(severity: str, key: str | None, message: str) -> None:
        out.append(Finding(name, lines.get(key, 1) if key else 1, severity, message))

    for key in meta:
        if key not in KNOWN_FIELDS:  # an error: the loader's schema refuses it
            report("error", key, f"unknown front-matter field {key!r} (known: {', '.join(KNOWN_FIELDS)})")
    for key in REQUIRED_FIELDS:
        if meta.get(key) in (None, ""):
            report("error", None, f"front matter has no '{key}'")
    if "lang" not in meta:
        report("warning", None, "front matter has no 'lang' (it is read as en)")

    kind = meta.get("kind")
    if kind not in (None, "") and kind not in KINDS:
        report("error", "kind", f"unknown kind {kind!r} (expected one of: {', '.join(KINDS)})")
    lang = meta.get("lang")
    if lang not in (None, "") and str(lang) not in LANGS:
        report("error", "lang", f"unknown lang {lang!r} (expected one of: {', '.join(LANGS)})")

    for key in LIST_FIELDS:
        value = meta.get(key)
        if value is not None and not isinstance(value, (list, str)):
            report("error", key, f"'{key}' must be a list")
    for verdict in _as_list(meta.get("verdicts")):
        if verdict.upper() not in VERDICTS:
            report("warning", "verdicts", f"unknown verdict {verdict!r} (known: {', '.join(VERDICTS)})")

    doc_id = meta.get("id")
    if doc_id not in (None, ""):
        doc_id = str(doc_id).strip()
        if doc_id in seen:
            report("error", "id", f"duplicate id {doc_id!r} (also in {seen[doc_id]})")
        else:
            seen[doc_id] = name

    pid = document_problem_id(meta)
    if pid is not None and pid not in problems:
        if ":" in pid and meta.get("source"):
            report("error", "problem_id", f"problem_id {meta.get('problem_id')} of source {meta['source']!r} is not in "
                   f"a {CATALOGUE_NAME} with 'source: {meta['source']}' (`source` names an imported problem set)")
        else:
            report("error", "problem_id", f"problem_id {pid} is not in any {CATALOGUE_NAME}")

    if not body.strip():
        report("error", None, "the document has no text below its front matter")
    out.extend(_schema_findings(name, text, meta, reported={f.line for f in out if f.severity == "error"}))
    severity = "warning" if kind == "error_pattern" else "error"
    for line, message in python_syntax_errors(body, body_line):
        out.append(Finding(name, line, severity, message))
    return out


def _schema_findings(name: str, text: str, meta: dict[str, Any], reported: set[int]) -> list[Finding]:
    """What else the loader's strict schema refuses (wrong types inside lists, bad examples, ...).

    The checks above word the common mistakes; lines they already reported are not repeated.
    """
    m = re.match(r"\A---[ \t]*\r?\n(.*?)\r?\n---", text.lstrip("\ufeff"), re.S)
    try:
        validate_value(_FrontMatter, meta, name, text=m.group(1) if m else "", line_offset=1)
    except SchemaError as exc:
        return [Finding(name, p.line or 1, "error", f"{p.key}: {p.message}" if p.key else p.message)
                for p in exc.problems if (p.line or 1) not in reported and p.message != "required key is missing"]
    return []


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _field_lines(text: str) -> dict[str, int]:
    """Front-matter key -> its line in the file (line 1 is the opening `---`)."""
    lines: dict[str, int] = {}
    for number, line in enumerate(text.lstrip("\ufeff").splitlines()[1:], 2):
        if line.strip() == "---":
            break
        m = re.match(r"^([A-Za-z_][\w-]*)\s*:", line)
        if m:
            lines.setdefault(m.group(1), number)
    return lines


def python_syntax_errors(body: str, first_line: int = 1) -> list[tuple[int, str]]:
    """(file line, message) for each ```python / ```py block in `body` that does not parse.

    `first_line` is the file line the body starts on, so the line points at the offending
    line inside the block, not at the fence.
    """
    found: list[tuple[int, str]] = []
    for block in fenced_blocks(body):
        if block.lang not in PYTHON_FENCES:
            continue
        error = _syntax_error(block.body)
        if error is not None:
            offset, message = error
            start = block.start_line + 1  # the block's first code line
            found.append((first_line + start + offset - 1, f"Python code block does not parse: {message}"))
    return found


def _syntax_error(code: str) -> tuple[int, str] | None:
    """(1-based line inside `code`, message), or None when the code parses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. are not syntax errors
            ast.parse(code)
    except SyntaxError as exc:
        return max(1, exc.lineno or 1), exc.msg
    except ValueError as exc:  # NUL bytes
        return 1, str(exc)
    return None
