"""QDUOJ export: one numbered folder per problem.

    <n>/problem.json   display_id, title, description / input_description /
                       output_description / hint ({"format": "html"|"markdown", "value": ...}),
                       samples [{input, output}], time_limit (ms), memory_limit (MB), tags,
                       source (text, or {"format", "value"} in forks),
                       answers [{language, code}] (the newest accepted submission per language),
                       template, spj, test_case_score, rule_type (ignored)
    <n>/solution/*     Markdown or source files -> official solutions (not QDUOJ's, kept for hand-made sets)
    <n>/testcase/      ignored

The problem id is `display_id` exactly as written (any Unicode, e.g. `排序1`; `_id` in exports before January
2018, which also wrote limits as {"unit", "value"}), or the folder name when it is missing. `answers` become
official solutions, one per language, labelled as accepted code from the export.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from quest.errors import ImportError_
from quest.kb.importers.common import ParsedProblem, Solution, number, read_solutions, solution_language
from quest.kb.importers.html2md import html_to_markdown
from quest.kb.importers.images import ImageStore
from quest.kb.importers.safety import TEST_DATA_DIRS, ExportRoot, Limits, load_json, quoted, read_text


def _rich(value: Any, name: str, field: str, resolve: Callable[[str], str | None] | None = None) -> str:
    """QDUOJ's {"format", "value"} text; a bare string is taken as HTML (older exports)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return html_to_markdown(value, resolve_image=resolve)
    if not isinstance(value, dict):
        raise ImportError_(f"{name}: {field} must be text or {{format, value}}")
    text = str(value.get("value") or "")
    if str(value.get("format", "html")).lower() == "markdown":
        return text.strip()
    return html_to_markdown(text, resolve_image=resolve)


def _limit(value: Any, name: str, field: str, units: dict[str, float]) -> float | None:
    """A limit as a number (ms, MB), or as QDUOJ's exports before January 2018 wrote it: {"unit": "ms", "value": 1000},
    {"unit": "MB", "value": 256}."""
    if not isinstance(value, dict):
        return number(value, name, field)
    unit = str(value.get("unit") or "").strip().lower()
    amount = number(value.get("value"), name, field)
    if amount is None:
        return None
    if unit not in units and unit:
        raise ImportError_(f"{name}: {field} unit {quoted(unit, 20)} is not one of {', '.join(units)}")
    scaled = amount * units.get(unit, 1)
    if scaled == float("inf"):  # 1e308 s: a number, but no number of milliseconds
        raise ImportError_(f"{name}: {field} {quoted(f'{amount:g} {unit}', 20, bare=True)} is not a usable limit")
    return scaled


def _source(value: Any, name: str) -> str:
    """`source`: text (a number is taken as its text), or {format, value}."""
    if isinstance(value, dict):
        return _rich(value, name, "source")
    return html_to_markdown(str(value or ""))


def _answers(data: dict[str, Any], name: str, origin: str) -> list[Solution]:
    """`answers`: accepted code per language, as the judge exported it."""
    answers = data.get("answers") or []
    if not isinstance(answers, list):
        raise ImportError_(f"{name}: answers must be a list of {{language, code}}")
    solutions = []
    for i, answer in enumerate(answers, 1):
        if not isinstance(answer, dict):
            raise ImportError_(f"{name}: answer {i} must be {{language, code}}")
        code = str(answer.get("code") or "")
        if code.strip():
            language = solution_language(str(answer.get("language") or ""), code)
            solutions.append(Solution(body=code, origin=f"{origin}#answer{i}", language=language, accepted=True))
    return solutions


def _problem(path: Path, root: ExportRoot, limits: Limits) -> ParsedProblem:
    name = root.name(path)
    data = load_json(read_text(path, limits), name, limits.max_json_depth)
    if not isinstance(data, dict):
        raise ImportError_(f"{name}: expected a JSON object")
    title = str(data.get("title") or "").strip()
    if not title:
        raise ImportError_(f"{name}: the problem has no title")
    samples = []
    if not isinstance(data.get("samples") or [], list):
        raise ImportError_(f"{name}: samples must be a list of {{input, output}}")
    for i, sample in enumerate(data.get("samples") or [], 1):
        if not isinstance(sample, dict):
            raise ImportError_(f"{name}: sample {i} must be {{input, output}}")
        samples.append((str(sample.get("input") or "").strip("\n"), str(sample.get("output") or "").strip("\n")))
    time_ms = _limit(data.get("time_limit"), name, "time_limit", {"ms": 1, "s": 1000})
    memory_mb = _limit(data.get("memory_limit"), name, "memory_limit", {"mb": 1, "kb": 1 / 1024, "gb": 1024})
    tags = data.get("tags") or []
    store = ImageStore(limits.max_image_bytes, name)
    resolve = store.add_data_uri
    return ParsedProblem(
        pid=str(data.get("display_id") or data.get("_id") or path.parent.name).strip(),
        title=title,
        origin=root.relative(path),
        description=_rich(data.get("description"), name, "description", resolve),
        input=_rich(data.get("input_description"), name, "input_description", resolve),
        output=_rich(data.get("output_description"), name, "output_description", resolve),
        samples=samples,
        hint=_rich(data.get("hint"), name, "hint", resolve),
        # QDUOJ writes `source` as text; forks write it as {format, value} like the other fields (Hydro's
        # import-qduoj accepts both): read as text, the mapping came out as its Python form.
        source=_source(data.get("source"), name),
        time_ms=round(time_ms) if time_ms is not None else None,
        memory_mb=round(memory_mb) if memory_mb is not None else None,
        tags=[str(t) for t in tags if str(t).strip()] if isinstance(tags, list) else [str(tags)],
        solutions=_answers(data, name, root.relative(path)) + read_solutions(root, path.parent / "solution", limits),
        images=store.files,
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
