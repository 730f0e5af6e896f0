"""QDUOJ export: one numbered folder per problem.

    <n>/problem.json   display_id, title, description / input_description /
                       output_description / hint ({"format": "html"|"markdown", "value": ...}),
                       samples [{input, output}], time_limit (ms), memory_limit (MB), tags, source
    <n>/solution/*     Markdown or source files -> official solutions (when present)
    <n>/testcase/      ignored

The problem id is `display_id`, or the folder name when it is missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quest.errors import ImportError_
from quest.kb.importers.common import ParsedProblem, number, read_solutions
from quest.kb.importers.html2md import html_to_markdown
from quest.kb.importers.safety import TEST_DATA_DIRS, ExportRoot, Limits, read_text


def _rich(value: Any, name: str, field: str) -> str:
    """QDUOJ's {"format", "value"} text; a bare string is taken as HTML (older exports)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return html_to_markdown(value)
    if not isinstance(value, dict):
        raise ImportError_(f"{name}: {field} must be text or {{format, value}}")
    text = str(value.get("value") or "")
    return text.strip() if str(value.get("format", "html")).lower() == "markdown" else html_to_markdown(text)


def _problem(path: Path, root: ExportRoot, limits: Limits) -> ParsedProblem:
    name = root.name(path)
    try:
        data = json.loads(read_text(path, limits))
    except json.JSONDecodeError as exc:
        raise ImportError_(f"{name}:{exc.lineno}: broken JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise ImportError_(f"{name}: expected a JSON object")
    title = str(data.get("title") or "").strip()
    if not title:
        raise ImportError_(f"{name}: the problem has no title")
    samples = []
    for i, sample in enumerate(data.get("samples") or [], 1):
        if not isinstance(sample, dict):
            raise ImportError_(f"{name}: sample {i} must be {{input, output}}")
        samples.append((str(sample.get("input") or "").strip("\n"), str(sample.get("output") or "").strip("\n")))
    time_ms = number(data.get("time_limit"), name, "time_limit")
    memory_mb = number(data.get("memory_limit"), name, "memory_limit")
    tags = data.get("tags") or []
    return ParsedProblem(
        pid=str(data.get("display_id") or path.parent.name).strip(),
        title=title,
        origin=root.relative(path),
        description=_rich(data.get("description"), name, "description"),
        input=_rich(data.get("input_description"), name, "input_description"),
        output=_rich(data.get("output_description"), name, "output_description"),
        samples=samples,
        hint=_rich(data.get("hint"), name, "hint"),
        source=html_to_markdown(str(data.get("source") or "")),
        time_ms=round(time_ms) if time_ms is not None else None,
        memory_mb=round(memory_mb) if memory_mb is not None else None,
        tags=[str(t) for t in tags if str(t).strip()] if isinstance(tags, list) else [str(tags)],
        solutions=read_solutions(root, path.parent / "solution", limits),
    )


def parse(root: ExportRoot, limits: Limits) -> list[ParsedProblem]:
    if not root.path.is_dir():
        raise ImportError_(f"{root.label}: a QDUOJ export is a folder or a zip of problem folders")
    files = sorted(
        (p for p in root.path.rglob("problem.json")
         if not any(part.startswith(".") or part.lower() in TEST_DATA_DIRS
                    for part in p.relative_to(root.path).parts[:-1])),
        key=_natural,
    )
    if not files:
        raise ImportError_(f"{root.label}: no <n>/problem.json found (is this a QDUOJ export?)")
    return [_problem(path, root, limits) for path in files]


def _natural(path: Path) -> tuple[Any, ...]:
    """Folder 2 before folder 10, so solution and problem order match the export."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in path.parts)
