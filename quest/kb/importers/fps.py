"""FPS (FreeProblemSet) XML, as HUSTOJ and many other judges export it.

    <?xml ...?>
    <!DOCTYPE fps PUBLIC "-//freeproblemset//..." "http://hustoj.com/fps.current.dtd" >
    <fps version="1.5|1.6"><generator name="HUSTOJ"/><item>
      <title/> <url>http://oj/problem.php?id=1007</url>
      <time_limit unit="s|ms"/> <memory_limit unit="mb|kb"/>
      <img><src>http://oj/upload/a.png</src><base64>...</base64></img> (repeatable)
      <description/> <input/> <output/> (HTML, usually in CDATA; KaTeX/MathJax math)
      <sample_input/> <sample_output/> (repeatable, paired in order)
      <test_input/> <test_output/> (ignored) <hint/> <source/> <remote_oj/> <remote_id/>
      <solution language="C++"/> (repeatable: accepted code)
    </item>...</fps>

Problem ids (`--id-from`):
- `url` (default): the judge's own number from `<url>` (`problem.php?id=1007`,
  `/problem/1007`, `/p/P1007`), or an exporter's `<problem_id>` / `<id>` element; an item
  with neither falls back to `order`;
- `order`: `<file stem>-<n>`, n being the item's 1-based position in its file;
- `title-hash`: `t-<8 hex digits of the title's hash>`, stable when items are reordered.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

from quest.errors import ImportError_
from quest.kb.importers.common import ParsedProblem, Solution, number, slug, solution_language
from quest.kb.importers.html2md import html_to_markdown
from quest.kb.importers.images import ImageStore
from quest.kb.importers.safety import ExportRoot, Limits, parse_xml_file

ID_SOURCES = ("url", "order", "title-hash")
_PATH_ID = re.compile(r"/(?:problem|problems|p)/([^/?#]+)/?$", re.I)
# Elements whose text Quest never uses: test data (often most of an export's size, and
# read as the file streams past) and the judge's checker and code-template files.
_UNUSED = frozenset({"test_input", "test_output", "spj", "tpj", "interactor", "prepend", "template", "append"})


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


def id_from_url(url: str) -> str | None:
    """'http://oj/problem.php?id=1007' -> '1007'; '/problem/1007', '/p/P1007' likewise; else None."""
    parts = urlsplit(url.strip())
    for key in ("id", "pid", "problem_id", "problem"):
        values = parse_qs(parts.query).get(key)
        if values and values[0].strip():
            return values[0].strip()
    m = _PATH_ID.search(parts.path)
    return m.group(1) if m else None


def _problem_id(item: ET.Element, index: int, stem: str, title: str, id_from: str) -> str:
    if id_from == "title-hash":
        return "t-" + hashlib.sha1(title.encode("utf-8")).hexdigest()[:8]
    if id_from == "url":
        found = id_from_url(_text(item, "url")) or (_text(item, "problem_id") or _text(item, "id")).strip()
        if found:
            return found
    return f"{slug(stem)}-{index}"


def _image_resolver(item: ET.Element, store: ImageStore) -> Callable[[str], str | None]:
    """src -> saved path: the item's <img><src>/<base64> pairs and inline data: URIs."""
    embedded = {}
    for img in item.findall("img"):
        src, data = (img.findtext("src") or "").strip(), img.findtext("base64") or ""
        if src and data.strip():
            embedded[src] = data
    saved: dict[str, str | None] = {}

    def resolve(src: str) -> str | None:
        if src not in saved:
            if src.startswith("data:"):
                saved[src] = store.add_data_uri(src)
            elif src in embedded:
                saved[src] = store.add_base64(embedded[src], src)
            else:
                saved[src] = None  # a link to the judge: kept as it is
        return saved[src]

    return resolve


def _solutions(item: ET.Element, rel: str, index: int) -> list[Solution]:
    solutions = []
    for k, el in enumerate(item.findall("solution"), 1):
        code = el.text or ""
        if code.strip():
            language = solution_language(el.get("language") or "", code)
            solutions.append(Solution(body=code, origin=f"{rel}#item{index}/solution{k}", language=language,
                                      accepted=True))
    return solutions


def _item(item: ET.Element, index: int, stem: str, rel: str, name: str, limits: Limits, id_from: str) -> ParsedProblem:
    where = f"{name}: item {index}"
    title = html_to_markdown(_text(item, "title"))
    if not title:
        raise ImportError_(f"{where} has no title")
    store = ImageStore(limits.max_image_bytes, where)
    resolve = _image_resolver(item, store)

    def md(tag: str) -> str:
        return html_to_markdown(_text(item, tag), resolve_image=resolve)

    inputs = [el.text or "" for el in item.findall("sample_input")]
    outputs = [el.text or "" for el in item.findall("sample_output")]
    while len(inputs) < len(outputs):
        inputs.append("")
    while len(outputs) < len(inputs):
        outputs.append("")
    samples = [(i.strip("\n"), o.strip("\n")) for i, o in zip(inputs, outputs, strict=True) if i.strip() or o.strip()]
    remote_oj = _text(item, "remote_oj").strip()
    remote_id = _text(item, "remote_id").strip()
    return ParsedProblem(
        pid=_problem_id(item, index, stem, title, id_from),
        title=title,
        origin=f"{rel}#item{index}",
        description=md("description"),
        input=md("input"),
        output=md("output"),
        samples=samples,
        hint=md("hint"),
        source=md("source"),
        time_ms=_time_ms(item, where),
        memory_mb=_memory_mb(item, where),
        solutions=_solutions(item, rel, index),
        url=_text(item, "url").strip(),
        remote_oj=f"{remote_oj} {remote_id}".strip() if remote_oj else "",
        images=store.files,
    )


def parse(root: ExportRoot, limits: Limits, id_from: str = "url") -> list[ParsedProblem]:
    if id_from not in ID_SOURCES:
        raise ImportError_(f"unknown --id-from {id_from!r} (expected one of: {', '.join(ID_SOURCES)})")
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
        tree = parse_xml_file(path, name, limits, drop=_UNUSED)
        if tree.tag != "fps":
            raise ImportError_(f"{name}: not an FPS file (root element <{tree.tag}>, expected <fps>)")
        items = tree.findall("item")
        if not items:
            raise ImportError_(f"{name}: the FPS file has no <item>")
        rel = root.relative(path)
        problems.extend(_item(item, i, path.stem, rel, name, limits, id_from) for i, item in enumerate(items, 1))
    return problems
