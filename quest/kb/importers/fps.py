"""FPS (FreeProblemSet) XML, as HUSTOJ and many other judges export it.

    <fps><item>
      <title/> <time_limit unit="s|ms"/> <memory_limit unit="mb|kb"/>
      <description/> <input/> <output/> (HTML, usually in CDATA)
      <sample_input/> <sample_output/> (repeatable, paired in order)
      <hint/> <source/> <solution language="C++"/> (repeatable)
    </item>...</fps>

Problem ids: FPS has none. An item's `<problem_id>` or `<id>` element is used when an
exporter added one; otherwise the id is `<file stem>-<n>`, n being the item's 1-based
position in the file (`fps.xml`'s second item is `fps-2`). That is stable as long as the
export is regenerated the same way, and never collides between two files.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from quest.errors import ImportError_
from quest.kb.importers.common import ParsedProblem, Solution, code_language, number, slug
from quest.kb.importers.html2md import html_to_markdown
from quest.kb.importers.safety import ExportRoot, Limits, parse_xml, read_text


def _text(item: ET.Element, tag: str) -> str:
    return (item.findtext(tag) or "").strip("\n")


def _time_ms(item: ET.Element, name: str) -> int | None:
    el = item.find("time_limit")
    if el is None:
        return None
    value = number(el.text, name, "time_limit")
    if value is None:
        return None
    unit = (el.get("unit") or "s").strip().lower()
    return round(value if unit == "ms" else value * 1000)


def _memory_mb(item: ET.Element, name: str) -> int | None:
    el = item.find("memory_limit")
    if el is None:
        return None
    value = number(el.text, name, "memory_limit")
    if value is None:
        return None
    unit = (el.get("unit") or "mb").strip().lower()
    return max(1, round(value / 1024)) if unit == "kb" else round(value)


def _item(item: ET.Element, index: int, stem: str, rel: str, name: str) -> ParsedProblem:
    where = f"{name}: item {index}"
    title = html_to_markdown(_text(item, "title"))
    if not title:
        raise ImportError_(f"{where} has no title")
    pid = (_text(item, "problem_id") or _text(item, "id")).strip() or f"{slug(stem)}-{index}"
    inputs = [el.text or "" for el in item.findall("sample_input")]
    outputs = [el.text or "" for el in item.findall("sample_output")]
    while len(inputs) < len(outputs):
        inputs.append("")
    while len(outputs) < len(inputs):
        outputs.append("")
    solutions = []
    for k, el in enumerate(item.findall("solution"), 1):
        code = el.text or ""
        if not code.strip():
            continue
        declared = (el.get("language") or "").strip()
        language = code_language(declared) or (slug(declared.lower()) if declared else "text")
        solutions.append(Solution(body=code, origin=f"{rel}#item{index}/solution{k}", language=language))
    return ParsedProblem(
        pid=pid,
        title=title,
        origin=f"{rel}#item{index}",
        description=html_to_markdown(_text(item, "description")),
        input=html_to_markdown(_text(item, "input")),
        output=html_to_markdown(_text(item, "output")),
        samples=[(i.strip("\n"), o.strip("\n")) for i, o in zip(inputs, outputs, strict=True)],
        hint=html_to_markdown(_text(item, "hint")),
        source=html_to_markdown(_text(item, "source")),
        time_ms=_time_ms(item, where),
        memory_mb=_memory_mb(item, where),
        solutions=solutions,
    )


def parse(root: ExportRoot, limits: Limits) -> list[ParsedProblem]:
    if root.path.is_file():
        files = [root.path]
    else:
        files = sorted(
            p for p in root.path.rglob("*")
            if p.is_file() and p.suffix.lower() == ".xml"
            and not any(part.startswith(".") for part in p.relative_to(root.path).parts)
        )
    if not files:
        raise ImportError_(f"{root.label}: no FPS .xml file found")
    problems: list[ParsedProblem] = []
    for path in files:
        name = root.name(path)
        tree = parse_xml(read_text(path, limits), name)
        if tree.tag != "fps":
            raise ImportError_(f"{name}: not an FPS file (root element <{tree.tag}>, expected <fps>)")
        items = tree.findall("item")
        if not items:
            raise ImportError_(f"{name}: the FPS file has no <item>")
        rel = root.relative(path)
        problems.extend(_item(item, i, path.stem, rel, name) for i, item in enumerate(items, 1))
    return problems
