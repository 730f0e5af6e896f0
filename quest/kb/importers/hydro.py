"""Hydro problem export (`hydrooj export`, or a zip of problem folders): one folder per problem.

    <docId>/problem.yaml            pid (P1000), owner, title, tag: [...], nSubmit, nAccept, difficulty
    <docId>/problem.md              or problem_zh.md / problem_en.md (Markdown, sometimes HTML);
                                    problem[_<lang>].pdf, or content `@[PDF](file://x.pdf)`
                                    (also looked for in statement/ and problem_statement/)
    <docId>/additional_file/*       images, PDFs and other files a statement links as `file://name`
    <docId>/solution/*              Markdown or source files -> official solutions
    <docId>/testdata/config.yaml    time: 1s, memory: 256m (limits, read as Hydro reads them: a bare number of
                                    time is milliseconds; the test data is ignored)
    problem.yaml `limits`           time_limit: 2 (seconds), memory: 512 (MB), as an ICPC-style package has them

The problem id is `pid`, kept exactly (`P1` stays `P1`), or the folder name when a problem
has none. Its page on the judge is `p/<pid>` (made absolute with the operator's `--judge-url`,
quest.kb.importers.links). A statement's `file://name` is that page's file: Hydro serves it as
`p/<pid>/file/<name>`. Pictures are saved beside the problem; another file the export holds
(a PDF, a zip of examples) is linked there, on the judge; a file the export lacks keeps its text.

YAML is read as Hydro reads it (js-yaml): a tab after `key:` is accepted, with a warning naming
the file; anchors and aliases are refused.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from quest.errors import ImportError_
from quest.kb.importers.common import ParsedProblem, detect_lang, read_solutions
from quest.kb.importers.html2md import html_to_markdown
from quest.kb.importers.images import ImageStore
from quest.kb.importers.pdf import pdf_statement
from quest.kb.importers.safety import TEST_DATA_DIRS, ExportRoot, Limits, check_size, quoted, read_text
from quest.markdown_blocks import split_code
from quest.safe_yaml import UnsafeYAML, load_yaml

log = logging.getLogger(__name__)

_STATEMENT = re.compile(r"^problem(?:[_.]([A-Za-z_]+?))?\.(md|pdf)$", re.I)
_STATEMENT_DIRS = (".", "statement", "problem_statement")
_FILE_DIRS = ("additional_file", "attachments", "statement", "problem_statement", ".")
# Each repetition is bounded (an alt text, a tag's attributes, a file name): unbounded, a statement of 200 KB of
# "![" or "<img " was searched to its end from every opener (quadratic: seconds to minutes). A tag's attributes stop
# at the next "<" too: bounded only, each of 200,000 "<img " openers still tried "src=" at 2,000 places (21 s a MB).
_PDF_LINK = re.compile(r"@\[pdf\]\(file://([^)\s]{1,4096})\)", re.I)  # a long name is still reported
_FILE_IMAGE = re.compile(r"(!\[[^\]]{0,500}\]\()file://([^)\s]{1,500})(\))")
_FILE_IMG_TAG = re.compile(r"""(<img\b[^<>]{0,2000}?\bsrc\s*=\s*["'])file://([^"']{1,500})(["'])""", re.I)
# Any file:// destination left after the pictures: a Markdown link's or an HTML attribute's.
_FILE_LINK = re.compile(r"""(\]\(\s*<?|\b(?:href|src)\s*=\s*["']?)file://([^\s)"'<>]{1,500})""", re.I)
_CONFIG_NAMES = ("config.yaml", "config.yml", "Config.yaml", "Config.yml")
_HTML = re.compile(r"^\s*<(?:p|div|h[1-6]|section|span|table|pre|ul|ol|center|blockquote)\b", re.I)


def read_yaml(path: Path, root: ExportRoot, limits: Limits) -> Any:
    name = root.name(path)
    try:
        parsed = load_yaml(read_text(path, limits), tab_after_colon=True)
    except UnsafeYAML as exc:
        where = f"{name}:{exc.line}" if exc.line else name
        raise ImportError_(f"{where}: YAML refused ({exc.reason})") from exc
    if parsed.tabs_fixed:
        log.warning("import: %s: %d line(s) with a tab after 'key:' read as Hydro does", name, parsed.tabs_fixed)
    return parsed.value


def _lang_of(code: str) -> str | None:
    code = code.lower()
    if code.startswith("zh"):
        return "zh"
    if code.startswith("en"):
        return "en"
    return None


def _find_file(folder: Path, file_name: str) -> Path | None:
    """A `file://name` target: the problem's additional files first, then its statement folders."""
    name = file_name.split("?")[0].split("#")[0]
    # Longer than a file name can be: no export holds it, and asking the file system raises ENAMETOOLONG.
    if "/" in name or "\\" in name or name in ("", ".", "..") or len(name.encode("utf-8", "replace")) > 255:
        return None
    for sub in _FILE_DIRS:
        path = folder / sub / name
        if path.is_file():
            return path
    return None


class _Statement:
    """Turns one statement file of a problem into Markdown: PDFs, HTML and file:// links resolved."""

    def __init__(self, folder: Path, root: ExportRoot, limits: Limits, store: ImageStore, pid: str = "") -> None:
        self.folder, self.root, self.limits, self.store = folder, root, limits, store
        self.pid = pid

    def read(self, path: Path, lang_code: str, ext: str) -> tuple[str | None, str]:
        if ext == "pdf":
            return self._pdf(path, lang_code)
        return self.text(read_text(path, self.limits), lang_code, path)

    def text(self, text: str, lang_code: str, where: Path) -> tuple[str | None, str]:
        """A Markdown (or HTML) statement's text, from a file or problem.yaml's `content`."""
        lang = _lang_of(lang_code) if lang_code else None
        if not lang_code:
            lang = detect_lang(_PDF_LINK.sub("", text)) if text.strip() else "zh"
        if lang is None:
            return None, ""
        pdf = _PDF_LINK.search(text)
        if pdf and not _PDF_LINK.sub("", text).strip():
            target = _find_file(self.folder, pdf.group(1))
            if target is None:
                raise ImportError_(f"{self.root.name(where)}: links {quoted(pdf.group(1))} but the export has no "
                                   "such file")
            return self._pdf(target, lang_code or lang)
        if _HTML.match(text):
            text = html_to_markdown(text, resolve_image=self._image, heading_offset=0)
        return lang, self._images(text)

    def _pdf(self, path: Path, lang_code: str) -> tuple[str | None, str]:
        name = self.root.name(path)
        if lang_code:
            lang = _lang_of(lang_code)
            return (lang, pdf_statement(path, name, lang, self.limits)) if lang else (None, "")
        text = pdf_statement(path, name, "en", self.limits)  # the note's language follows the text's
        lang = detect_lang(text)
        return lang, pdf_statement(path, name, lang, self.limits) if lang != "en" else text

    def _image(self, src: str) -> str | None:
        if src.startswith("data:"):
            return self.store.add_data_uri(src)
        if src.startswith("file://"):
            return self._copy(src[len("file://"):])
        return None

    def _copy(self, name: str) -> str | None:
        path = _find_file(self.folder, name)
        if path is None:
            log.warning("import: %s: file://%s is not in the export", self.root.name(self.folder),
                        quoted(name, bare=True))
            return None
        check_size(path, self.limits.max_file_bytes)
        if path.stat().st_size > self.limits.max_image_bytes:
            log.warning("import: %s is over the image size limit; left out", self.root.name(path))
            return None
        return self.store.add(path.read_bytes(), name)

    def _images(self, text: str) -> str:
        def markdown(m: re.Match[str]) -> str:
            return f"{m.group(1)}{self._copy(m.group(2)) or 'file://' + m.group(2)}{m.group(3)}"

        text = _FILE_IMAGE.sub(markdown, text)
        return self._files(_FILE_IMG_TAG.sub(markdown, text))

    def _files(self, text: str) -> str:
        """Every other `file://name` the export holds, as Hydro's page links it: `./<pid>/file/<name>` beside the
        problem's page `p/<pid>` (an absolute address only with --judge-url). Code is left as written."""
        if not self.pid:
            return text

        def link(m: re.Match[str]) -> str:
            found = _find_file(self.folder, m.group(2))
            return f"{m.group(1)}./{quote(self.pid, safe='')}/file/{m.group(2)}" if found else m.group(0)

        return "".join(piece if is_code else _FILE_LINK.sub(link, piece) for is_code, piece in split_code(text))


def _statements(folder: Path, root: ExportRoot, limits: Limits, store: ImageStore,
                pid: str = "") -> dict[str, tuple[str, str]]:
    """zh / en -> (Markdown, path in the export); other languages are skipped. Markdown wins over PDF."""
    found: dict[str, tuple[str, str]] = {}
    reader = _Statement(folder, root, limits, store, pid)
    for sub in _STATEMENT_DIRS:
        where = folder / sub
        if not where.is_dir():
            continue
        candidates = [(p, _STATEMENT.match(p.name)) for p in sorted(where.iterdir()) if p.is_file()]
        candidates = [(p, m) for p, m in candidates if m]
        for path, m in sorted(candidates, key=lambda c: c[1].group(2).lower() == "pdf"):
            code, ext = m.group(1) or "", m.group(2).lower()
            lang, text = reader.read(path, code, ext)
            if lang is None:
                log.info("import: skipping %s (only zh and en statements are kept)", root.name(path))
            elif text.strip():
                found.setdefault(lang, (text, root.relative(path)))
        if found:
            break
    return found


def _other_language_statements(folder: Path) -> list[str]:
    """The statement files in a language the base does not keep (problem_ja.md), by name, at most five."""
    names = []
    for sub in _STATEMENT_DIRS:
        where = folder / sub
        if where.is_dir():
            names.extend(p.name for p in sorted(where.iterdir())
                         if p.is_file() and (m := _STATEMENT.match(p.name)) and m.group(1)
                         and _lang_of(m.group(1)) is None)
    return names[:5]


def _content_statements(meta: dict[str, Any], reader: _Statement, path: Path) -> dict[str, tuple[str, str]]:
    """problem.yaml's `content`, which Hydro's importer falls back to when there is no statement file.

    Hydro keeps a statement in several languages as JSON text ({"zh": ..., "en": ...}); a
    mapping or plain text is read as it is.
    """
    content = meta.get("content")
    if isinstance(content, str) and content.lstrip().startswith("{"):
        with contextlib.suppress(ValueError, RecursionError):  # not JSON: Markdown that starts with a brace
            content = json.loads(content)
    parts = content.items() if isinstance(content, dict) else [("", content)]
    found: dict[str, tuple[str, str]] = {}
    for code, text in parts:
        if not isinstance(text, str) or not text.strip():
            continue
        lang, body = reader.text(text, str(code), path)
        if lang is None:
            log.info("import: skipping %s content in language %s (only zh and en are kept)",
                     reader.root.name(path), quoted(code, 20))
        elif body.strip():
            found.setdefault(lang, (body, reader.root.relative(path) + "#content"))
    return found


def _config_time_ms(value: object) -> int | None:
    """config.yaml's `time` as Hydro reads it (parseTimeMS): a number, or a whole number without a unit, is
    milliseconds ("1000"); otherwise seconds unless marked ms or us ("1s", "1.5", "500ms", "800us")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _whole(value)
    text = str(value).strip()
    if text.isdecimal():  # not isdigit: "²" is a digit that int() refuses
        return int(text)
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*([mu]?)s?", text, re.I)
    if not m:
        return None
    return _whole(float(m.group(1)) * {"": 1000, "m": 1, "u": 0.001}[m.group(2).lower()])


def _whole(value: float) -> int | None:
    """`value` rounded, or None where no limit can be: negative, NaN, infinite (".inf", 400 digits read as a float)."""
    return round(value) if math.isfinite(value) and value >= 0 else None


def _seconds_ms(value: object) -> int | None:
    """An ICPC-style package's time_limit: seconds."""
    try:
        seconds = float(str(value).strip())
    except ValueError:
        return None
    return _whole(seconds * 1000)


def _memory_mb(value: object) -> int | None:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*([kmg])?i?b?\s*", str(value), re.I)
    if not m:
        return None
    n = float(m.group(1))
    factor = {"k": 1 / 1024, "m": 1, "g": 1024}[(m.group(2) or "m").lower()]
    mb = _whole(n * factor)
    return None if mb is None else max(1, mb)


def _problem(path: Path, root: ExportRoot, limits: Limits) -> ParsedProblem:
    folder = path.parent
    name = root.name(path)
    meta = read_yaml(path, root, limits)
    if not isinstance(meta, dict):
        raise ImportError_(f"{name}: expected a mapping of fields (pid, title, tag)")
    title = str(meta.get("title") or meta.get("name") or "").strip()
    if not title:
        raise ImportError_(f"{name}: the problem has no title")
    store = ImageStore(limits.max_image_bytes, root.name(folder))
    pid = str(meta.get("pid") or _folder_id(folder, root)).strip()
    statements = _statements(folder, root, limits, store, pid) or _content_statements(
        meta, _Statement(folder, root, limits, store, pid), path)
    if not statements:
        others = _other_language_statements(folder)
        if others:
            # Hydro writes one problem_<lang>.md per language the statement has: a problem written only in Japanese or
            # Korean has statement files, none in a language the base keeps.
            raise ImportError_(f"{root.name(folder)}: the statement of {quoted(title)} is only in {', '.join(others)}; "
                               "Quest keeps zh and en statements",
                               hint="add a Chinese or English statement in the judge and export again")
        raise ImportError_(f"{root.name(folder)}: no problem.md, problem_<lang>.md, problem.pdf or `content` "
                           f"statement for {quoted(title)}")
    tags = meta.get("tag") or meta.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.split(",")]
    problem = ParsedProblem(
        pid=pid,
        title=title,
        url=f"p/{quote(pid, safe='')}",  # Hydro's page for the problem, relative to the judge's address
        origin=root.relative(path),
        lang="zh" if "zh" in statements else next(iter(statements)),  # zh first: the judge's home language
        tags=[str(t) for t in tags if str(t).strip()] if isinstance(tags, list) else [],
        statement_markdown=statements,
        solutions=read_solutions(root, folder / "solution", limits),
        images=store.files,
    )
    # Hydro reads its judge configuration under any of these names.
    config = next((folder / "testdata" / n for n in _CONFIG_NAMES if (folder / "testdata" / n).is_file()), None)
    if config is not None:
        judge = read_yaml(config, root, limits)
        if isinstance(judge, dict):
            problem.time_ms = _config_time_ms(judge["time"]) if "time" in judge else None
            problem.memory_mb = _memory_mb(judge["memory"]) if "memory" in judge else None
    _package_limits(meta, problem)
    return problem


def _package_limits(meta: dict[str, Any], problem: ParsedProblem) -> None:
    """An ICPC-style package's `limits` in problem.yaml (time_limit in seconds, memory in MB): Hydro's importer
    lets each one it finds override testdata/config.yaml's."""
    limits = meta.get("limits")
    if not isinstance(limits, dict):
        return
    if limits.get("time_limit") and (time_ms := _seconds_ms(limits["time_limit"])) is not None:
        problem.time_ms = time_ms
    if limits.get("memory") and (memory_mb := _memory_mb(limits["memory"])) is not None:
        problem.memory_mb = memory_mb


def _folder_id(folder: Path, root: ExportRoot) -> str:
    """The id of a problem without `pid`: its folder's name; for a problem.yaml at the top of
    the export (a single problem package), the export's own name, never a scratch folder's."""
    if folder == root.path:
        return Path(root.label).stem
    return folder.name


def parse(root: ExportRoot, limits: Limits) -> list[ParsedProblem]:
    if not root.path.is_dir():
        raise ImportError_(f"{root.label}: a Hydro export is a folder or a zip of problem folders")
    files = sorted(
        p for p in root.path.rglob("problem.yaml")
        if not any(part.startswith(".") or part.lower() in TEST_DATA_DIRS
                   for part in p.relative_to(root.path).parts[:-1])
    )
    if not files:
        raise ImportError_(f"{root.label}: no problem.yaml found (is this a Hydro export?)")
    return [_problem(path, root, limits) for path in files]
