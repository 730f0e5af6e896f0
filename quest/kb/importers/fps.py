"""FPS (FreeProblemSet) XML, as HUSTOJ and many other judges export it.

    <?xml ...?>
    <!DOCTYPE fps PUBLIC "-//freeproblemset//..." "http://hustoj.com/fps.current.dtd" >
    <fps version="1.5|1.6"><generator name="HUSTOJ"/><item>
      <title/> <url>http://oj/problem.php?id=1007</url>
      <time_limit unit="s|ms"/> <memory_limit unit="mb|kb"/>
      <img><src>http://oj/upload/a.png</src><base64>...</base64></img> (repeatable; for an HTML <img> and for a
        Markdown ![img](src) in an [md] block or a <div class="md">, whose end is the </div> that matches it)
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
from quest.kb.importers.safety import ExportRoot, Limits, parse_xml_file, quoted
from quest.markdown_blocks import split_code

ID_SOURCES = ("url", "order", "title-hash")
_PATH_ID = re.compile(r"/(?:problem|problems|p)/([^/?#]+)/?$", re.I)
# Elements whose text Quest never uses: test data (often most of an export's size, and
# read as the file streams past) and the judge's checker and code-template files.
_UNUSED = frozenset({"test_input", "test_output", "spj", "tpj", "interactor", "prepend", "template", "append"})


# HUSTOJ's XSS filter (RemoveXSS in include/my_func.inc.php) breaks words it fears by inserting "<x>" after their
# second letter, in what it stores and so in what it exports: "xm<x>lns" in a MathML tag, "li<x>nked list" in text.
# "<x>" is never markup of its own; inside a tag it breaks the tag, so it is removed before the HTML is read.
_XSS_NERF = "<x>"
# HUSTOJ's Markdown ($OJ_MARKDOWN): a statement in source mode embeds Markdown between [md] and [/md], or in a
# <div class="md"> (what its bbcode turns [md] into). That text is Markdown, not HTML: read as HTML, its line breaks
# (headings, lists, code) would run together.
_MD_OPEN = re.compile(r"\[md\]|<div[ \t]+class=[\"']md[\"'][ \t]*>", re.I)
_MD_CLOSE = re.compile(r"\[/md\]", re.I)
# Inside a <div class="md"> a statement may hold divs of its own (an author's HTML kept in the Markdown): the block
# ends at the </div> that closes it, found by counting opens and closes in one pass.
# [^<>]: a "<div" that never closes its tag stops at the next "<", so a run of them is not rescanned to the end.
_DIV_TAG = re.compile(r"<(/?)div\b[^<>]*>", re.I)
# HUSTOJ's exporter embeds the pictures a Markdown block shows as ![img](src) too (getImages in
# problem_export_xml.php), in the same <img><src><base64> pairs as an HTML <img>'s.
_MD_IMAGE = re.compile(r"(!\[[^\]\n]{0,500}\]\()([^)\s]{1,2000})(\))")
_MD_HEADING = re.compile(r"^(#{1,4})(?=[ \t])", re.M)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)


def _demoted(markdown: str) -> str:
    """Markdown headings two levels down (outside code fences): inside a statement field they sit below the field's own
    `##` section, as html_to_markdown's <h2> does."""
    parts = _FENCE.split(markdown)
    # split() drops the fence markers: even parts are outside fences, odd ones inside; rejoin with the markers.
    markers = _FENCE.findall(markdown)
    out = []
    for k, part in enumerate(parts):
        out.append(_MD_HEADING.sub(r"##\1", part) if k % 2 == 0 else part)
        if k < len(markers):
            out.append(markers[k])
    return "".join(out)


def _md_images(markdown: str, resolve_image: Callable[[str], str | None] | None) -> str:
    """A Markdown block's pictures that the export embeds, pointed at their saved copies; code is left as written."""
    if resolve_image is None:
        return markdown

    def saved(m: re.Match[str]) -> str:
        target = resolve_image(m.group(2))
        return f"{m.group(1)}{target}{m.group(3)}" if target else m.group(0)

    return "".join(piece if is_code else _MD_IMAGE.sub(saved, piece) for is_code, piece in split_code(markdown))


def _block_end(text: str, opener: re.Match[str]) -> tuple[int, int] | None:
    """(start, end) of what closes a Markdown block: [/md] for [md], the matching </div> for a div."""
    if opener.group(0)[0] == "[":
        close = _MD_CLOSE.search(text, opener.end())
        return (close.start(), close.end()) if close else None
    return _div_close(text, opener.end())


def _div_close(text: str, start: int) -> tuple[int, int] | None:
    """(start, end) of the </div> that closes a div opened just before `start`, or None when it is never closed."""
    depth = 1
    for tag in _DIV_TAG.finditer(text, start):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return tag.start(), tag.end()
    return None


def hustoj_to_markdown(text: str, resolve_image: Callable[[str], str | None] | None = None) -> str:
    """A HUSTOJ statement field -> Markdown: its HTML converted, its [md] blocks kept as the Markdown they are."""
    text = text.replace(_XSS_NERF, "")
    parts: list[str] = []
    pos = 0
    while (m := _MD_OPEN.search(text, pos)) is not None:
        # Looked up in the text itself, each scan going on from the last: a lowercased copy's positions drift
        # where lowercasing lengthens a character ("İ").
        close = _block_end(text, m)
        if close is None:
            break  # an unclosed [md]: the rest is read as HTML, as HUSTOJ shows it
        parts.append(html_to_markdown(text[pos:m.start()], resolve_image=resolve_image))
        parts.append(_md_images(_demoted(text[m.end():close[0]].strip("\n")).strip(), resolve_image))
        pos = close[1]
    parts.append(html_to_markdown(text[pos:], resolve_image=resolve_image))
    return "\n\n".join(part for part in parts if part)


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
    title = html_to_markdown(_text(item, "title").replace(_XSS_NERF, ""))
    if not title:
        raise ImportError_(f"{where} has no title")
    store = ImageStore(limits.max_image_bytes, where)
    resolve = _image_resolver(item, store)

    def md(tag: str) -> str:
        return hustoj_to_markdown(_text(item, tag), resolve_image=resolve)

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
            raise ImportError_(f"{name}: not an FPS file (root element <{quoted(tree.tag, 40, bare=True)}>, "
                               "expected <fps>)")
        items = tree.findall("item")
        if not items:
            raise ImportError_(f"{name}: the FPS file has no <item>")
        rel = root.relative(path)
        problems.extend(_item(item, i, path.stem, rel, name, limits, id_from) for i, item in enumerate(items, 1))
    return problems
