"""What every importer shares: the parsed problem, ids, languages, and document bodies.

An importer reads its format into `ParsedProblem`s; `build_result` turns them into the
catalogue entries and documents the knowledge base stores. Keeping the rendering here
means an FPS, Hydro or QDUOJ problem looks the same to retrieval and to the student.

Ids: `imp-<format>-<pid>-statement` (plus `-<lang>` for a second statement language)
and `imp-<format>-<pid>-solution-<k>`, k counting from 1 in file / export order, so the
same export always yields the same ids.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from quest.errors import ImportError_
from quest.kb.documents import Document, Problem, kind_label, normalize_problem_id
from quest.kb.importers.safety import ExportRoot, Limits, read_text
from quest.lang import detect_lang

log = logging.getLogger(__name__)

FORMATS = ("fps", "hydro", "qduoj")

# Judge language names and file extensions -> (fence label, `languages` value).
_LANGUAGES = {
    "c++": "cpp", "cpp": "cpp", "g++": "cpp", "cc": "cpp", "cxx": "cpp", "clang++": "cpp",
    "c": "c", "gcc": "c", "clang": "c",
    "python": "python", "py": "python", "pypy": "python",
    "java": "java", "kotlin": "kotlin", "kt": "kotlin",
    "pascal": "pascal", "pas": "pascal", "fpc": "pascal",
    "go": "go", "golang": "go", "rust": "rust", "rs": "rust",
    "javascript": "javascript", "js": "javascript", "node": "javascript",
    "c#": "csharp", "cs": "csharp", "csharp": "csharp",
    "ruby": "ruby", "rb": "ruby", "php": "php", "haskell": "haskell", "hs": "haskell",
}
MARKDOWN_SUFFIXES = {".md", ".markdown", ".txt"}


def code_language(name: str) -> str | None:
    """'C++17' / 'Python3' / '.py' -> 'cpp' / 'python' / 'python'; None when unknown."""
    key = name.strip().lower().lstrip(".")
    if key in _LANGUAGES:
        return _LANGUAGES[key]
    return _LANGUAGES.get(re.sub(r"[\s\d.]+$", "", key))


def slug(pid: str) -> str:
    """A problem id as it can appear in a document id and a file name."""
    s = re.sub(r"[^0-9A-Za-z_.]+", "-", pid).strip("-.")
    return s or "p" + hashlib.sha1(pid.encode("utf-8")).hexdigest()[:8]


def fence(text: str, label: str = "") -> str:
    """A fenced block that its content cannot close early."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{label}\n{text.rstrip()}\n{ticks}"


@dataclass
class Solution:
    body: str  # Markdown, or code when `language` is set
    origin: str  # path inside the export
    language: str | None = None  # normalized code language for code files


@dataclass
class ParsedProblem:
    pid: str
    title: str
    origin: str  # path inside the export, recorded as the documents' `source`
    lang: str = ""  # detected from the text when empty
    description: str = ""  # Markdown
    input: str = ""
    output: str = ""
    samples: list[tuple[str, str]] = field(default_factory=list)
    hint: str = ""
    source: str = ""  # the problem's origin as the OJ records it (a contest, a book)
    time_ms: int | None = None
    memory_mb: int | None = None
    tags: list[str] = field(default_factory=list)
    statement_markdown: dict[str, tuple[str, str]] = field(default_factory=dict)  # lang -> (Markdown, origin) (Hydro)
    solutions: list[Solution] = field(default_factory=list)


@dataclass(frozen=True)
class ImportResult:
    format: str
    problems: tuple[Problem, ...]
    documents: tuple[Document, ...]


_HEADINGS = {
    "zh": {"description": "题目描述", "input": "输入格式", "output": "输出格式", "samples": "样例",
           "sample": "样例", "sample_in": "输入", "sample_out": "输出", "hint": "提示", "source": "来源",
           "limits": "限制", "code": "代码"},
    "en": {"description": "Description", "input": "Input", "output": "Output", "samples": "Samples",
           "sample": "Sample", "sample_in": "Input", "sample_out": "Output", "hint": "Hint", "source": "Source",
           "limits": "Limits", "code": "Code"},
}


def limits_line(p: ParsedProblem, lang: str) -> str:
    parts = []
    if lang == "zh":
        if p.time_ms is not None:
            parts.append(f"时间限制：{p.time_ms} ms")
        if p.memory_mb is not None:
            parts.append(f"内存限制：{p.memory_mb} MB")
        return "；".join(parts)
    if p.time_ms is not None:
        parts.append(f"Time limit: {p.time_ms} ms.")
    if p.memory_mb is not None:
        parts.append(f"Memory limit: {p.memory_mb} MB.")
    return " ".join(parts)


def statement_body(p: ParsedProblem, lang: str) -> str:
    h = _HEADINGS[lang]
    sections: list[str] = []
    for key, text in (("description", p.description), ("input", p.input), ("output", p.output)):
        if text.strip():
            sections.append(f"## {h[key]}\n\n{text.strip()}")
    if p.samples:
        parts = [f"## {h['samples']}"]
        for i, (sin, sout) in enumerate(p.samples, 1):
            parts.append(f"### {h['sample']} {i}")
            parts.append(f"{h['sample_in']}:\n\n{fence(sin, 'text')}")
            parts.append(f"{h['sample_out']}:\n\n{fence(sout, 'text')}")
        sections.append("\n\n".join(parts))
    for key, text in (("hint", p.hint), ("source", p.source)):
        if text.strip():
            sections.append(f"## {h[key]}\n\n{text.strip()}")
    return "\n\n".join(sections)


def _with_limits(body: str, p: ParsedProblem, lang: str) -> str:
    line = limits_line(p, lang)
    return f"{body}\n\n## {_HEADINGS[lang]['limits']}\n\n{line}" if line else body


def solution_body(solution: Solution, lang: str) -> str:
    if solution.language is None:
        return solution.body.strip()
    return f"## {_HEADINGS[lang]['code']} ({solution.language})\n\n{fence(solution.body, solution.language)}"


def build_result(fmt: str, parsed: Iterable[ParsedProblem], root: ExportRoot) -> ImportResult:
    """Catalogue entries and documents for every parsed problem, refusing duplicates."""
    problems: list[Problem] = []
    documents: list[Document] = []
    seen: dict[str, str] = {}
    for p in parsed:
        pid = normalize_problem_id(p.pid)
        if pid is None:
            raise ImportError_(f"{_name(root, p.origin)}: problem has no id")
        key = slug(pid)
        if key in seen:
            raise ImportError_(f"{_name(root, p.origin)}: problem id {pid!r} is already used by {seen[key]}")
        seen[key] = p.origin
        p.title = " ".join(p.title.split())  # a title is one line in front matter and in the picker
        lang = p.lang or detect_lang(p.title, p.description)
        title_lang = detect_lang(p.title)
        problems.append(
            Problem(
                id=pid,
                title_zh=p.title if title_lang == "zh" else "",
                title_en=p.title if title_lang == "en" else "",
                tags=tuple(p.tags),
                limits={k: v for k, v in (("time_ms", p.time_ms), ("memory_mb", p.memory_mb)) if v is not None},
            )
        )
        base = f"imp-{fmt}-{key}"
        if p.statement_markdown:
            # The primary language gets the plain id; others are suffixed with their language.
            order = sorted(p.statement_markdown, key=lambda lg: (lg != lang, lg))
            for i, st_lang in enumerate(order):
                text, origin = p.statement_markdown[st_lang]
                body = _with_limits(text.strip(), p, st_lang)
                doc_id = f"{base}-statement" if i == 0 else f"{base}-statement-{st_lang}"
                documents.append(
                    _document(doc_id, "problem_statement", p.title, body, st_lang, pid, p, fmt, origin=origin)
                )
        else:
            body = _with_limits(statement_body(p, lang), p, lang)
            if not body.strip():
                raise ImportError_(f"{_name(root, p.origin)}: problem {pid} has an empty statement")
            documents.append(_document(f"{base}-statement", "problem_statement", p.title, body, lang, pid, p, fmt))
        for k, sol in enumerate(p.solutions, 1):
            body = solution_body(sol, lang)
            if not body:
                log.warning("import: skipping empty solution %s", sol.origin)
                continue
            sol_lang = lang if sol.language else detect_lang(body)
            title = f"{p.title} - {kind_label('official_solution', sol_lang)}"
            if len(p.solutions) > 1:
                title += f" {k}"
            documents.append(
                _document(f"{base}-solution-{k}", "official_solution", title, body, sol_lang, pid, p, fmt,
                          languages=(sol.language,) if sol.language else (), origin=sol.origin)
            )
    return ImportResult(format=fmt, problems=tuple(problems), documents=tuple(documents))


def _name(root: ExportRoot, origin: str) -> str:
    return root.name(root.path / origin) if root.path.is_dir() else root.label


def _document(
    doc_id: str, kind: str, title: str, body: str, lang: str, pid: str, p: ParsedProblem, fmt: str,
    *, languages: Sequence[str] = (), origin: str | None = None,
) -> Document:
    return Document(
        id=doc_id,
        kind=kind,
        title=title,
        text=body,
        lang=lang,
        problem_id=pid,
        tags=tuple(p.tags),
        languages=tuple(languages),
        source=f"{fmt}:{origin or p.origin}",
    )


def read_solutions(root: ExportRoot, folder: Path, limits: Limits) -> list[Solution]:
    """Every Markdown or code file directly in `folder`, in name order; others are skipped."""
    if not folder.is_dir():
        return []
    solutions = []
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith("."):
            continue
        suffix = path.suffix.lower()
        language = None if suffix in MARKDOWN_SUFFIXES else code_language(suffix)
        if suffix not in MARKDOWN_SUFFIXES and language is None:
            log.info("import: skipping %s (neither Markdown nor known source code)", root.name(path))
            continue
        text = read_text(path, limits)
        solutions.append(Solution(body=text, origin=root.relative(path), language=language))
    return solutions


def number(value: object, name: str, what: str) -> float | None:
    """A number from an export field ('1000', 1000, ' 0.5 '), or a refusal naming the file."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        result = float(str(value).strip())
    except ValueError:
        raise ImportError_(f"{name}: {what} {value!r} is not a number") from None
    if not result >= 0 or result == float("inf"):
        raise ImportError_(f"{name}: {what} {value!r} is not a usable limit")
    return result
