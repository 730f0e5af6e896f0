"""Hydro problem export: one folder per problem.

    <folder>/problem.yaml          pid, title, tag: [...], ...
    <folder>/problem.md            or problem_zh.md / problem_en.md (Markdown statements)
    <folder>/solution/*            Markdown or source files -> official solutions
    <folder>/testdata/config.yaml  time: 1s, memory: 256m (limits; the test data is ignored)

The problem id is `pid`, or the folder name when a problem has none (Hydro's numeric
document id). Statements are Markdown already and are kept as written.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import yaml

from quest.errors import ImportError_
from quest.kb.importers.common import ParsedProblem, detect_lang, read_solutions
from quest.kb.importers.safety import TEST_DATA_DIRS, ExportRoot, Limits, read_text

log = logging.getLogger(__name__)

_STATEMENT = re.compile(r"^problem(?:_([A-Za-z]{2})(?:[_-][A-Za-z]+)?)?\.md$", re.I)


def load_yaml(path: Path, root: ExportRoot, limits: Limits) -> Any:
    try:
        return yaml.safe_load(read_text(path, limits))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{root.name(path)}:{mark.line + 1}" if mark is not None else root.name(path)
        raise ImportError_(f"{where}: broken YAML ({getattr(exc, 'problem', None) or exc})") from exc


def _statements(folder: Path, root: ExportRoot, limits: Limits) -> dict[str, tuple[str, str]]:
    """zh / en -> (Markdown, path in the export); other languages are skipped."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(folder.iterdir()):
        m = _STATEMENT.match(path.name)
        if not m or not path.is_file():
            continue
        text = read_text(path, limits)
        code = (m.group(1) or "").lower()
        lang = {"zh": "zh", "en": "en"}.get(code) or (detect_lang(text) if not code else "")
        if not lang:
            log.info("import: skipping %s (only zh and en statements are kept)", root.name(path))
            continue
        if text.strip():
            found.setdefault(lang, (text, root.relative(path)))
    return found


def _seconds_ms(value: object) -> int | None:
    m = re.fullmatch(r"\s*([\d.]+)\s*(ms|s)?\s*", str(value))
    if not m:
        return None
    n = float(m.group(1))
    return round(n if m.group(2) == "ms" else n * 1000)


def _memory_mb(value: object) -> int | None:
    m = re.fullmatch(r"\s*([\d.]+)\s*([kmg])?i?b?\s*", str(value), re.I)
    if not m:
        return None
    n = float(m.group(1))
    factor = {"k": 1 / 1024, "m": 1, "g": 1024}[(m.group(2) or "m").lower()]
    return max(1, round(n * factor))


def _problem(path: Path, root: ExportRoot, limits: Limits) -> ParsedProblem:
    folder = path.parent
    name = root.name(path)
    meta = load_yaml(path, root, limits)
    if not isinstance(meta, dict):
        raise ImportError_(f"{name}: expected a mapping of fields (pid, title, tag)")
    title = str(meta.get("title") or "").strip()
    if not title:
        raise ImportError_(f"{name}: the problem has no title")
    statements = _statements(folder, root, limits)
    if not statements:
        raise ImportError_(f"{root.name(folder)}: no problem.md or problem_<lang>.md statement")
    tags = meta.get("tag") or meta.get("tags") or []
    if isinstance(tags, str):
        tags = [t.strip() for t in tags.split(",")]
    problem = ParsedProblem(
        pid=str(meta.get("pid") or folder.name).strip(),
        title=title,
        origin=root.relative(path),
        lang="zh" if "zh" in statements else next(iter(statements)),  # zh first: the judge's home language
        tags=[str(t) for t in tags if str(t).strip()],
        statement_markdown=statements,
        solutions=read_solutions(root, folder / "solution", limits),
    )
    config = folder / "testdata" / "config.yaml"
    if config.is_file():
        judge = load_yaml(config, root, limits)
        if isinstance(judge, dict):
            problem.time_ms = _seconds_ms(judge["time"]) if "time" in judge else None
            problem.memory_mb = _memory_mb(judge["memory"]) if "memory" in judge else None
    return problem


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
