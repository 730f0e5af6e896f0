"""HTML statements (FPS, QDUOJ) -> readable Markdown.

OJ statements use a small part of HTML: paragraphs, line breaks, emphasis, inline code,
<pre> blocks, lists, simple tables, images, sup/sub for exponents. This keeps the text
and that structure and drops everything else (scripts, styles).

Math: KaTeX (Luogu-style statements) renders each formula three times -- MathML, an
`<annotation encoding="application/x-tex">` holding the TeX, and the visible HTML. Only
the TeX is kept, as `$...$` (`$$...$$` for display math); MathJax 2's
`<script type="math/tex">` and `data-tex` / `data-latex` attributes are read the same way.

Images: `resolve_image(src)` decides what an `<img>` points at (a saved copy beside the
problem); without it, inline base64 data is dropped and links are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

_VOID = {"br", "img", "hr", "input", "meta", "link", "col", "area", "base", "wbr", "source", "embed"}
_TEX_ATTRS = ("data-tex", "data-latex", "data-formula", "data-math")
# MathJax 2's rendered copies; the TeX is in the <script type="math/tex"> beside them.
_MATHJAX_RENDERED = {"mathjax_preview", "mathjax", "mathjax_display", "mathjax_svg", "mathjax_svg_display",
                     "mathjax_chtml", "mjx_assistive_mathml"}


class _Math:
    """One formula being read: TeX from its annotation, or the MathML text as a fallback."""

    def __init__(self, display: bool, tex: str | None = None) -> None:
        self.display = display
        self.depth = 1
        self.tex: list[str] = [tex] if tex is not None else []
        self.preset = tex is not None
        self.fallback: list[str] = []
        self.in_tex = False
        self.in_mathml = 0

    def markdown(self) -> str:
        tex = " ".join("".join(self.tex).split()) or " ".join("".join(self.fallback).split())
        if not tex:
            return ""
        return f"$${tex}$$" if self.display else f"${tex}$"

_BLOCK = {"p", "div", "section", "article", "blockquote", "center", "table", "ul", "ol", "dl", "hr"}
_DROP = {"script", "style", "head", "title"}
# Inline tags whose Markdown marker is the same on both sides.
_INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*"}


class _Converter(HTMLParser):
    def __init__(self, resolve_image: Callable[[str], str | None] | None = None, heading_offset: int = 2) -> None:
        super().__init__(convert_charrefs=True)
        self.resolve_image = resolve_image
        self.heading_offset = heading_offset
        self.math: _Math | None = None
        self.out: list[str] = []
        self.pre = 0
        self.drop = 0
        self.lists: list[list[int | None]] = []  # per open list: [counter] (None for <ul>)
        self.href: list[str | None] = []
        self.cell = 0
        self.dropped_tags: list[str] = []  # MathJax copies being skipped, innermost last
        self.code_label: list[str] = []

    # -- helpers
    def _text(self, text: str) -> None:
        if self.drop:
            return
        if self.pre:
            self.out.append(text)
            return
        text = re.sub(r"\s+", " ", text)
        if self.out and self.out[-1].endswith(("\n", " ")) and text.startswith(" "):
            text = text[1:]
        self.out.append(text)

    def _newlines(self, n: int) -> None:
        joined = "".join(self.out)
        stripped = joined.rstrip(" ")
        have = len(stripped) - len(stripped.rstrip("\n"))
        self.out = [stripped]
        if stripped:
            self.out.append("\n" * max(0, n - have))

    def _after_list_marker(self) -> bool:
        return bool(self.out) and re.fullmatch(r"\s*(?:-|\d+\.) ", self.out[-1]) is not None

    # -- parser callbacks
    def _math_start(self, tag: str, a: dict[str, str | None]) -> bool:
        """Begin or continue reading a formula; True when the tag belongs to one."""
        if self.math is not None:
            if tag not in _VOID:
                self.math.depth += 1
            if tag == "annotation" and "tex" in (a.get("encoding") or "").lower():
                self.math.in_tex = True
            elif tag == "math":
                self.math.in_mathml += 1
            return True
        if self.drop:
            return False
        classes = set((a.get("class") or "").lower().replace("-", "_").split())
        tex = next((a[k] for k in _TEX_ATTRS if a.get(k)), None)
        if tex is not None:
            self.math = _Math(display=bool(classes & {"display", "katex_display"}) or tag == "div", tex=tex)
        elif "katex_display" in classes or "katex" in classes:
            self.math = _Math(display="katex_display" in classes)
        elif tag == "math":
            self.math = _Math(display=a.get("display") == "block")
            self.math.in_mathml = 1
        elif tag == "script" and (a.get("type") or "").lower().startswith("math/tex"):
            self.math = _Math(display="display" in (a.get("type") or "").lower())
            self.math.in_tex = True
        elif classes & _MATHJAX_RENDERED:
            self.drop += 1  # ends at this element's end tag, through the _DROP-like path below
            self.dropped_tags.append(tag)
            return True
        else:
            return False
        if tag in _VOID:
            self._math_end(tag)
        return True

    def _math_end(self, tag: str) -> bool:
        if self.math is None:
            return False
        if tag == "annotation":
            self.math.in_tex = False
        elif tag == "math":
            self.math.in_mathml = max(0, self.math.in_mathml - 1)
        if tag not in _VOID or self.math.depth == 1:
            self.math.depth -= 1
        if self.math.depth <= 0:
            formula = self.math.markdown()
            self.math = None
            if formula:
                self._text(formula)
        return True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if self._math_start(tag, a):
            return
        if tag in _DROP:
            self.drop += 1
        elif self.drop:
            return
        elif tag == "pre":
            self._newlines(2)
            self.out.append("```")
            self.out.append("\n")
            self.pre += 1
        elif tag == "code" and self.pre:
            # <pre><code class="language-input1">: Hydro's sample blocks keep their label.
            m = re.search(r"\blanguage-([\w+-]+)", a.get("class") or "")
            if m and self.out[-2:] == ["```", "\n"]:
                self.out[-2] = "```" + m.group(1)
        elif tag == "br":
            self.out.append("\n")
        elif tag in _BLOCK:
            if not (tag == "p" and self._after_list_marker()):  # <li><p>: the text stays on the marker's line
                self._newlines(2)
            if tag in ("ul", "ol"):
                self.lists.append([None] if tag == "ul" else [0])
            elif tag == "hr":
                self.out.append("---")
                self._newlines(2)
        elif re.fullmatch(r"h[1-6]", tag):
            self._newlines(2)
            # Sections of the statement are `##`; headings inside a description sit below them.
            self.out.append("#" * min(6, int(tag[1]) + self.heading_offset) + " ")
        elif tag == "li":
            self._newlines(1)
            indent = "  " * max(0, len(self.lists) - 1)
            counter = self.lists[-1] if self.lists else [None]
            if counter[0] is None:
                self.out.append(f"{indent}- ")
            else:
                counter[0] += 1
                self.out.append(f"{indent}{counter[0]}. ")
        elif tag == "tr":
            self._newlines(1)
            self.cell = 0
        elif tag in ("td", "th"):
            if self.cell:
                self.out.append(" | ")
            self.cell += 1
        elif tag in _INLINE:
            self.out.append(_INLINE[tag])
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag == "sup":
            self.out.append("^")
        elif tag == "sub":
            self.out.append("_")
        elif tag == "a":
            self.href.append(a.get("href"))
            self.out.append("[")
        elif tag == "img":
            src = (a.get("src") or "").strip()
            if src and self.resolve_image is not None:
                src = self.resolve_image(src) or ("" if src.startswith("data:") else src)
            if src and not src.startswith("data:"):
                self.out.append(f"![{a.get('alt') or ''}]({src})")

    def handle_endtag(self, tag: str) -> None:
        if self._math_end(tag):
            return
        if self.dropped_tags and tag == self.dropped_tags[-1]:
            self.dropped_tags.pop()
            self.drop = max(0, self.drop - 1)
        elif tag in _DROP:
            self.drop = max(0, self.drop - 1)
        elif self.drop:
            return
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
            if not "".join(self.out).endswith("\n"):
                self.out.append("\n")
            self.out.append("```")
            self._newlines(2)
        elif tag in _BLOCK or re.fullmatch(r"h[1-6]", tag):
            if tag in ("ul", "ol") and self.lists:
                self.lists.pop()
            self._newlines(2)
        elif tag in _INLINE:
            self.out.append(_INLINE[tag])
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag == "a":
            href = (self.href.pop() or "").strip() if self.href else ""
            # A Markdown destination holds no space: an attachment "/upload/file/my notes.pdf" is written encoded,
            # as the browser requested it.
            self.out.append(f"]({href.replace(' ', '%20')})" if href else "]")

    def handle_data(self, data: str) -> None:
        if self.math is not None:
            if self.math.in_tex and not self.math.preset:
                self.math.tex.append(data)
            elif self.math.in_mathml:
                self.math.fallback.append(data)
            return
        self._text(data)


def html_to_markdown(html: str, *, resolve_image: Callable[[str], str | None] | None = None,
                     heading_offset: int = 2) -> str:
    """Convert an HTML fragment to Markdown text; plain text passes through unchanged.

    `heading_offset`: an <h2> becomes `#` * (2 + offset); 2 puts headings inside a statement
    field below its `##` section, 0 keeps a whole statement's own sections at `##`.
    """
    if not html or not html.strip():
        return ""
    if "<" not in html and "&" not in html:
        return html.strip()
    conv = _Converter(resolve_image, heading_offset)
    conv.feed(html)
    conv.close()
    text = "".join(conv.out)
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
