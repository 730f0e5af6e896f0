"""HTML statements (FPS, QDUOJ) -> readable Markdown.

OJ statements use a small part of HTML: paragraphs, line breaks, emphasis, inline code,
<pre> blocks, lists, simple tables, images, sup/sub for exponents. This keeps the text
and that structure and drops everything else (scripts, styles, inline images stored as
base64 data, which would only flood the index).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK = {"p", "div", "section", "article", "blockquote", "center", "table", "ul", "ol", "dl", "hr"}
_DROP = {"script", "style", "head", "title"}
# Inline tags whose Markdown marker is the same on both sides.
_INLINE = {"b": "**", "strong": "**", "i": "*", "em": "*"}


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.drop = 0
        self.lists: list[list[int | None]] = []  # per open list: [counter] (None for <ul>)
        self.href: list[str | None] = []
        self.cell = 0

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

    # -- parser callbacks
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in _DROP:
            self.drop += 1
        elif self.drop:
            return
        elif tag == "pre":
            self._newlines(2)
            self.out.append("```\n")
            self.pre += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in _BLOCK:
            self._newlines(2)
            if tag in ("ul", "ol"):
                self.lists.append([None] if tag == "ul" else [0])
            elif tag == "hr":
                self.out.append("---")
                self._newlines(2)
        elif re.fullmatch(r"h[1-6]", tag):
            self._newlines(2)
            # Sections of the statement are `##`; headings inside a description sit below them.
            self.out.append("#" * min(6, int(tag[1]) + 2) + " ")
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
            src = a.get("src") or ""
            if src and not src.startswith("data:"):
                self.out.append(f"![{a.get('alt') or ''}]({src})")

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROP:
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
            href = self.href.pop() if self.href else None
            self.out.append(f"]({href})" if href else "]")

    def handle_data(self, data: str) -> None:
        self._text(data)


def html_to_markdown(html: str) -> str:
    """Convert an HTML fragment to Markdown text; plain text passes through unchanged."""
    if not html or not html.strip():
        return ""
    if "<" not in html and "&" not in html:
        return html.strip()
    conv = _Converter()
    conv.feed(html)
    conv.close()
    text = "".join(conv.out)
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
