"""What every importer shares: the parsed problem, ids, languages, and document bodies.

An importer reads its format into `ParsedProblem`s; `build_result` turns them into the
catalogue entries and documents the knowledge base stores. Keeping the rendering here
means an FPS, Hydro or QDUOJ problem looks the same to retrieval and to the student.

Ids: `imp-<format>-<pid>-statement` (plus `-<lang>` for a second statement language)
and `imp-<format>-<pid>-solution-<k>`, k counting from 1 in file / export order, so the
same export always yields the same ids.
"""

from __future__ import annotations

import ast
import hashlib
import logging
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from quest.errors import ImportError_
from quest.kb.documents import Document, Problem, kind_label, qualified_problem_id
from quest.kb.importers.links import fix_links, image_base, judge_base, page_url
from quest.kb.importers.safety import ExportRoot, Limits, quoted, read_text
from quest.lang import detect_lang

log = logging.getLogger(__name__)

FORMATS = ("fps", "hydro", "qduoj")
#: The longest title an import keeps. A judge's titles are a line; megabytes in the title field are a broken or
#: hostile export (the statement pasted into it), and a title goes into the catalogue every request's title match
#: reads, the problem picker and every document's front matter.
MAX_TITLE_CHARS = 300
# QDUOJ's importer takes a display_id of at most 128 characters (ImportProblemSerializer); an id is a file name here.
MAX_ID_CHARS = 128

# Judge language names (HUSTOJ's `language_name`, QDUOJ's answers, Hydro file extensions)
# -> the fence label and `languages` value. Exact: Python 2 is not Python; a name not
# listed here is kept as written (slugged), never forced into a known language.
_LANGUAGES = {
    "c++": "cpp", "cpp": "cpp", "g++": "cpp", "cc": "cpp", "cxx": "cpp", "clang++": "cpp", "c++ (clang)": "cpp",
    "c": "c", "gcc": "c", "clang": "c",
    "python": "python", "python3": "python", "py": "python", "py3": "python", "pypy": "python", "pypy3": "python",
    "python2": "python2", "py2": "python2", "pypy2": "python2",
    "java": "java", "kotlin": "kotlin", "kt": "kotlin",
    "pascal": "pascal", "pas": "pascal", "fpc": "pascal", "freepascal": "pascal",
    "go": "go", "golang": "go", "rust": "rust", "rs": "rust",
    "javascript": "javascript", "js": "javascript", "node": "javascript", "nodejs": "javascript",
    "c#": "csharp", "cs": "csharp", "csharp": "csharp", "mono": "csharp",
    "ruby": "ruby", "rb": "ruby", "php": "php", "haskell": "haskell", "hs": "haskell",
    "perl": "perl", "pl": "perl", "bash": "bash", "sh": "bash", "lua": "lua", "obj-c": "objc", "objc": "objc",
    "freebasic": "freebasic", "bas": "freebasic", "scheme": "scheme", "scm": "scheme", "fortran": "fortran",
    "f95": "fortran", "sql": "sql", "r": "r", "swift": "swift", "scala": "scala", "cangjie": "cangjie",
}
MARKDOWN_SUFFIXES = {".md", ".markdown", ".txt"}

_PYTHON = re.compile(r"^(?:python|pypy|py)\s*([23])?(?:[\s.\d]*)$")


def code_language(name: str) -> str | None:
    """'C++17' / 'Python3' / 'Python2' / '.py' -> 'cpp' / 'python' / 'python2' / 'python'; None when unknown."""
    key = name.strip().lower().lstrip(".")
    if key in _LANGUAGES:
        return _LANGUAGES[key]
    m = _PYTHON.match(key)
    if m:
        return "python2" if m.group(1) == "2" else "python"
    key = re.sub(r"\s*\(.*\)$", "", key)  # "C++ (GCC 9)"
    return _LANGUAGES.get(key) or _LANGUAGES.get(re.sub(r"[\s\d.]+$", "", key))


def solution_language(declared: str, code: str) -> str:
    """The fence label for reference code: known languages mapped, unknown ones kept by name.

    An unversioned "Python" that does not parse as Python 3 but reads like Python 2 (old
    HUSTOJ exports) is labelled python2, so `kb check` does not fail it as broken Python 3.
    """
    language = code_language(declared) if declared.strip() else None
    if language is None:
        return slug(declared.strip().lower()) if declared.strip() else "text"
    if language == "python" and not re.search(r"3", declared) and _looks_like_python2(code):
        return "python2"
    return language


def _looks_like_python2(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(code)
    except (SyntaxError, ValueError):
        return bool(re.search(r"^\s*print\s+[^\s(=]|raw_input\s*\(|\bxrange\s*\(|except\s+\w+\s*,\s*\w+\s*:",
                              code, re.M))
    return False


def slug(pid: str) -> str:
    """A problem id as it can appear in a document id and a file name.

    An id that is not plain ASCII ('排序1', 'a b') gets a short hash of the whole id, so
    '排序1' and '查找1' never share a file; the id itself is kept exactly elsewhere.
    """
    s = re.sub(r"[^0-9A-Za-z_.]+", "-", pid).strip("-.")
    if s == pid:
        return s
    digest = hashlib.sha1(pid.encode("utf-8")).hexdigest()[:8]
    return f"{s}-{digest}" if s else f"p-{digest}"


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
    accepted: bool = False  # accepted code the judge exported (HUSTOJ, QDUOJ), not an author's write-up


@dataclass
class ParsedProblem:
    pid: str  # the judge's own id, kept exactly ("1007", "P1", "排序1")
    title: str
    origin: str  # path inside the export, for messages
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
    url: str = ""  # the problem's page on the judge
    remote_oj: str = ""  # FPS: the judge a virtual-judge problem really lives on
    images: dict[str, bytes] = field(default_factory=dict)  # file name -> bytes, saved in images/


@dataclass(frozen=True)
class ImportResult:
    format: str
    problems: tuple[Problem, ...]
    documents: tuple[Document, ...]
    source_name: str = ""
    images: Mapping[str, Mapping[str, bytes]] = field(default_factory=dict)  # local id -> name -> bytes


_HEADINGS = {
    "zh": {"description": "题目描述", "input": "输入格式", "output": "输出格式", "samples": "样例",
           "sample": "样例", "sample_in": "输入", "sample_out": "输出", "hint": "提示", "source": "来源",
           "limits": "限制", "code": "代码", "accepted": "评测通过的代码"},
    "en": {"description": "Description", "input": "Input", "output": "Output", "samples": "Samples",
           "sample": "Sample", "sample_in": "Input", "sample_out": "Output", "hint": "Hint", "source": "Source",
           "limits": "Limits", "code": "Code", "accepted": "Accepted code"},
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


_ACCEPTED_NOTE = {
    "zh": "以下是题库导出中评测通过的参考代码（{lang}），不附讲解。",
    "en": "Reference code that the judge accepted, taken from the export ({lang}); it comes without an explanation.",
}


def solution_body(solution: Solution, lang: str) -> str:
    if solution.language is None:
        return solution.body.strip()
    if not solution.body.strip():
        return ""
    heading = _HEADINGS[lang]["accepted" if solution.accepted else "code"]
    note = _ACCEPTED_NOTE[lang].format(lang=solution.language) + "\n\n" if solution.accepted else ""
    return f"## {heading} ({solution.language})\n\n{note}{fence(solution.body, solution.language)}"


def build_result(fmt: str, parsed: Iterable[ParsedProblem], root: ExportRoot, source_name: str = "",
                 judge_url: str = "") -> ImportResult:
    """Catalogue entries and documents for every parsed problem, refusing duplicates.

    Problem ids are `<source>:<judge's id>`; document ids `imp-<source>-<slug>-...`. `judge_url` is the judge's
    address (the operator's `--judge-url`): relative problem pages, image links and other links are made absolute
    against it (quest.kb.importers.links).
    """
    judge = judge_base(judge_url)
    source_name = source_name or fmt
    problems: list[Problem] = []
    documents: list[Document] = []
    images: dict[str, dict[str, bytes]] = {}
    seen: dict[str, str] = {}
    for p in parsed:
        local = " ".join(str(p.pid).split())
        if not local:
            raise ImportError_(f"{_name(root, p.origin)}: problem has no id")
        if len(local) > MAX_ID_CHARS:
            item = p.origin.partition("#")[2]
            raise ImportError_(
                f"{_name(root, p.origin)}{'#' + item if item else ''}: problem id {quoted(local, 40)} is longer than "
                f"{MAX_ID_CHARS} characters: the export's id field holds something else",
                hint="fix the id in the judge (or the export file) and export again",
            )
        key = slug(local)
        if key in seen:
            item = p.origin.partition("#")[2]  # an FPS item: say which of the file's items
            raise ImportError_(
                f"{_name(root, p.origin)}{'#' + item if item else ''}: problem id {quoted(local)} is already used by "
                f"{seen[key]}",
                hint="import the files separately with different --source names, or use --id-from order"
                if fmt == "fps" else None,
            )
        seen[key] = p.origin
        p.title = " ".join(p.title.split())  # a title is one line in front matter and in the picker
        if len(p.title) > MAX_TITLE_CHARS:
            item = p.origin.partition("#")[2]
            raise ImportError_(
                f"{_name(root, p.origin)}{'#' + item if item else ''}: problem {quoted(local, 40)} has a title of "
                f"{len(p.title)} characters (at most {MAX_TITLE_CHARS}): the export's title field holds something else",
                hint="fix the title in the judge (or the export file) and export again",
            )
        page = p.url.strip()
        p.url = page_url(page, judge)
        images_base = image_base(p.url, page, judge)
        pid = qualified_problem_id(source_name, local)
        problems.append(_problem_entry(p, pid, local, source_name))
        if p.images:
            images[local] = dict(p.images)
        base = f"imp-{source_name}-{key}"
        documents.extend(_statements(p, pid, base, source_name, root, images_base))
        documents.extend(_solutions(p, pid, base, source_name, images_base))
    return ImportResult(format=fmt, problems=tuple(problems), documents=tuple(documents),
                        source_name=source_name, images=images)


def _problem_entry(p: ParsedProblem, pid: str, local: str, source_name: str) -> Problem:
    title_lang = detect_lang(p.title)
    return Problem(
        id=pid,
        title_zh=p.title if title_lang == "zh" else "",
        title_en=p.title if title_lang == "en" else "",
        tags=tuple(p.tags),
        limits={k: v for k, v in (("time_ms", p.time_ms), ("memory_mb", p.memory_mb)) if v is not None},
        source_name=source_name,
        local_id=local,
        url=p.url,
    )


def _statements(p: ParsedProblem, pid: str, base: str, source_name: str, root: ExportRoot,
                images_base: str = "") -> list[Document]:
    lang = p.lang or detect_lang(p.title, p.description)
    where = f"{_name(root, p.origin)}: problem {quoted(p.pid)}"
    if not p.statement_markdown:
        body = fix_links(_with_limits(statement_body(p, lang), p, lang), images_base, lang, where)
        if not body.strip():
            raise ImportError_(f"{_name(root, p.origin)}: problem {quoted(p.pid)} has an empty statement")
        return [_document(f"{base}-statement", "problem_statement", p.title, body, lang, pid, p, source_name)]
    # The primary language gets the plain id; others are suffixed with their language.
    order = sorted(p.statement_markdown, key=lambda lg: (lg != lang, lg))
    docs = []
    for i, st_lang in enumerate(order):
        text, _origin = p.statement_markdown[st_lang]
        body = fix_links(_with_limits(text.strip(), p, st_lang), images_base, st_lang, where)
        doc_id = f"{base}-statement" if i == 0 else f"{base}-statement-{st_lang}"
        docs.append(_document(doc_id, "problem_statement", p.title, body, st_lang, pid, p, source_name))
    return docs


def _solutions(p: ParsedProblem, pid: str, base: str, source_name: str, links_base: str = "") -> list[Document]:
    lang = p.lang or detect_lang(p.title, p.description)
    docs = []
    for k, sol in enumerate(p.solutions, 1):
        body = solution_body(sol, lang)
        if not body:
            log.warning("import: skipping empty solution %s", sol.origin)
            continue
        sol_lang = lang if sol.language else detect_lang(body)
        # A written solution links like its statement (another problem, a picture on the judge); code is untouched.
        body = fix_links(body, links_base, sol_lang, sol.origin)
        title = f"{p.title} - {kind_label('official_solution', sol_lang)}"
        if len(p.solutions) > 1:
            title += f" {k}"
        docs.append(
            _document(f"{base}-solution-{k}", "official_solution", title, body, sol_lang, pid, p, source_name,
                      languages=(sol.language,) if sol.language else ())
        )
    return docs


def _name(root: ExportRoot, origin: str) -> str:
    return root.name(root.path / origin.split("#")[0]) if root.path.is_dir() else root.label


def _document(
    doc_id: str, kind: str, title: str, body: str, lang: str, pid: str, p: ParsedProblem, source_name: str,
    *, languages: Sequence[str] = (),
) -> Document:
    return Document(
        id=doc_id,
        kind=kind,
        title=title,
        # Windows-written statements and code (CRLF) read like any other; a lone CR is a line end too.
        text=body.replace("\r\n", "\n").replace("\r", "\n"),
        lang=lang,
        problem_id=pid,
        tags=tuple(p.tags),
        languages=tuple(languages),
        source=p.origin,
        source_name=source_name,
        url=p.url,
        remote_oj=p.remote_oj,
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
        raise ImportError_(f"{name}: {what} {quoted(value, 20)} is not a number") from None
    if not result >= 0 or result == float("inf"):
        raise ImportError_(f"{name}: {what} {quoted(value, 20)} is not a usable limit")
    return result
