"""Links an imported statement or solution keeps pointing at the judge: made absolute, or reduced to their text.

A statement written on the judge links its pictures relative to the judge's pages: HUSTOJ's editor stores
`/upload/image/20240301/a.png`, others `../images/a.png` or `upload/a.png`. Copied into the knowledge base those
links resolve against Quest's own page and show a broken image. Images the export carries are saved beside the
problem (`images/…`, quest.kb.importers.images); for the rest:

- with the judge's address (the operator's `--judge-url`, else the problem's own page from the export, e.g. FPS's
  `<url>`), a relative link is resolved as the browser resolved it on the judge, and the picture loads from there;
- without one, the link cannot be fixed: the picture's alt text stays in the statement (or its file name), so the
  text still says a figure was there, and no broken link is written.

Other links are treated alike (`fix_links`): a statement points at other problems (HUSTOJ's `<a
href="problem.php?id=1001">`, Hydro's `[P1001](/p/P1001)`, QDUOJ's `/problem/1001`), at the judge's forum
(`../discuss/…`) or at an attachment (HUSTOJ's editor stores `/upload/file/<date>/<name>`, a Hydro user file is
`/file/<uid>/<name>`). With an address they become absolute; without one the link's text stays and the link goes.
Links within the page (`#sample`), mail and absolute http(s) links are kept; `file://`, `javascript:` and other
schemes no reader can follow keep only their text.

The judge's address is read as a folder ("http://oj.example.edu/hustoj" is the judge installed under /hustoj/): a
problem page `problem.php?id=1007` and a picture `upload/a.png` stay inside it. A page on the exporting machine
(localhost, 127.x) is no address for students.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

from quest.errors import ImportError_
from quest.kb.importers.images import IMAGE_DIR
from quest.kb.importers.safety import quoted
from quest.markdown_blocks import code_ranges, split_code

log = logging.getLogger(__name__)

# ![alt](src) and ![alt](src "title"), as html2md writes them and as Markdown statements (Hydro) have them.
_MD_IMAGE = re.compile(r'!\[([^\]\n]{0,500})\]\(\s*<?([^\s)<>]{1,2000})>?(?:\s+"[^"\n]{0,300}")?\s*\)')
# Raw <img> tags inside a Markdown statement: the src and alt attributes.
_HTML_IMG = re.compile(r"<img\b[^>]{0,2000}>", re.I)
_ATTR = re.compile(r"""\b(src|alt)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# [text](dest) and [text](dest "title"), not an image's "![": the text may hold one level of brackets (a linked picture
# "[![alt](a.png)](big.png)", "[[1]](…)"), the destination one level of parentheses ("Tree_(graph)"). Bounded.
_TITLE = r"""(?:"[^"\n]{0,300}"|'[^'\n]{0,300}')"""
_MD_LINK = re.compile(r"(?<![!\\])\[((?:[^\[\]\n]|\[[^\[\]\n]{0,300}\]){0,500})\]\(\s*(<?)"
                      rf"((?:[^\s()<>]|\([^\s()<>]{{0,200}}\)){{1,2000}})>?((?:\s+{_TITLE})?\s*)\)")
# A link reference definition on its own line: "[1]: /problem/1001" (optionally with a title).
_MD_DEFINITION = re.compile(rf"^( {{0,3}}\[[^\]\n]{{1,300}}\]:[ \t]*)<?([^\s<>]{{1,2000}})>?([ \t]+{_TITLE})?[ \t]*$",
                            re.M)
# Raw <a href="…">text</a> in a Markdown statement (Hydro), or left by html2md; the text up to its closing tag.
# Where a definition is used: "[text][label]", "[label][]", or the label alone ("[label]", not an image's "![…]" and
# not followed by a destination or another label).
_MD_REFERENCE = re.compile(r"(?<![!\\])\[([^\[\]\n]{1,300})\](?:\[([^\[\]\n]{0,300})\]|(?![\[(:]))")
_HTML_LINK = re.compile(r"<a\b([^>]{0,2000})>(.{0,3000}?)</a\s*>", re.I | re.S)
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_PLACEHOLDER = {"zh": "[图片：{name}]", "en": "[image: {name}]"}
_BARE_PLACEHOLDER = {"zh": "[图片]", "en": "[image]"}


def judge_base(url: str) -> str:
    """The operator's judge address as a folder URL ("http://oj/hustoj" -> "http://oj/hustoj/"); "" for none.

    Refused (ImportError_) when it is not an http(s) address with a host."""
    url = url.strip()
    if not url:
        return ""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ImportError_(f"--judge-url {url!r}: give the judge's address, e.g. http://oj.example.edu/ "
                           "(or http://oj.example.edu/hustoj/ for a judge installed in a subfolder)")
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return parts._replace(path=path, query="", fragment="").geturl()


def _served(url: str) -> bool:
    """Whether `url` is an http(s) page students can reach: not on the machine the export was made on."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return (parts.scheme in ("http", "https") and bool(host) and host != "localhost"
            and not host.startswith("127.") and host != "::1")


def page_url(url: str, base: str) -> str:
    """The problem's page as the catalogue keeps it: a relative `<url>` joined to the judge's address; a relative
    one without an address, or one on the exporting machine, is no link (""): it stays only as the id's source."""
    url = url.strip()
    if not url:
        return ""
    if _SCHEME.match(url) or url.startswith("//"):
        return url if _served(urljoin("https:", url)) else ""
    return urljoin(base, url) if base else ""


def image_base(page: str, written: str, judge: str) -> str:
    """What a problem's relative image links resolve against. With the operator's judge address: the problem's
    page inside it when the export wrote that page relative (`written`), else the address itself (an absolute page
    may name the machine the export was made on). Without: the problem's page (`page`, already checked by
    `page_url`), else nothing."""
    if judge:
        relative = written and not (_SCHEME.match(written) or written.startswith("//"))
        return urljoin(judge, written) if relative else judge
    return page


def _target(src: str, base: str) -> str | None:
    """Where an image link should point, or None when it cannot point anywhere that works."""
    if src.startswith(f"{IMAGE_DIR}/") or src.lower().startswith(("http://", "https://")):
        return src  # saved beside the problem, or already absolute
    if src.startswith("//"):
        return urljoin(base or "https:", src)
    if _SCHEME.match(src):  # file://, data:, javascript: … — nothing a reader's browser can load from here
        return None
    return urljoin(base, src) if base else None


def _placeholder(src: str, alt: str, lang: str) -> str:
    """The alt text, else the picture's file name (not a javascript: or data: text), in the statement's language."""
    name = " ".join(alt.split())
    if not name and (not _SCHEME.match(src) or src.lower().startswith("file:")):
        name = src.split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1][:80]
    if not name:
        return _BARE_PLACEHOLDER.get(lang, _BARE_PLACEHOLDER["en"])
    return _PLACEHOLDER.get(lang, _PLACEHOLDER["en"]).format(name=name)


def fix_image_links(markdown: str, base: str, lang: str, where: str = "") -> str:
    """`markdown` with every judge-relative image made absolute against `base` (a page or folder URL), or, without
    one, replaced by its alt text (see the module docstring). Code blocks and inline code are left as written."""
    dropped: list[str] = []

    def markdown_image(m: re.Match[str]) -> str:
        alt, src = m.group(1), m.group(2)
        target = _target(src, base)
        if target is None:
            dropped.append(src)
            return _placeholder(src, alt, lang)
        return m.group(0) if target == src else f"![{alt}]({target})"

    def html_image(m: re.Match[str]) -> str:
        attrs = {a.group(1).lower(): a.group(2) if a.group(2) is not None else a.group(3)
                 for a in _ATTR.finditer(m.group(0))}
        src = (attrs.get("src") or "").strip()
        if not src:
            return m.group(0)
        target = _target(src, base)
        if target is None:
            dropped.append(src)
            return _placeholder(src, attrs.get("alt") or "", lang)
        return f"![{' '.join((attrs.get('alt') or '').split())}]({target})" if target != src else m.group(0)

    def prose(part: str) -> str:
        return _HTML_IMG.sub(html_image, _MD_IMAGE.sub(markdown_image, part))

    # Code (fenced blocks, inline spans: quest.markdown_blocks) is the problem's text, not a picture: kept as written.
    text = "".join(piece if is_code else prose(piece) for is_code, piece in split_code(markdown))
    if dropped:
        log.info("import: %s: %d image link(s) point at the judge and no --judge-url was given; kept their alt text "
                 "(first: %s)", where or "a statement", len(dropped), quoted(dropped[0], 120))
    return text


def _link_target(href: str, base: str) -> str | None:
    """Where a link should point, or None when it cannot point anywhere a reader can follow: as an image's
    (`_target`), and a place in the same text or a mail address stays as written."""
    if href.startswith("#") or href.lower().startswith("mailto:"):
        return href
    return _target(href, base)


def _label(text: str) -> str:
    """A reference label as CommonMark matches it: without its brackets and colon, case and spacing folded."""
    return " ".join(text.strip().strip(":").strip().strip("[]").split()).casefold()


def _outside_code(text: str, replace: Callable[[re.Match[str]], str], pattern: re.Pattern[str]) -> str:
    """`pattern.sub(replace, text)`, leaving each match that starts inside code (quest.markdown_blocks) as written."""
    ranges = code_ranges(text)  # in order and apart: a binary search, not a scan per match (quadratic)
    starts = [start for start, _ in ranges]

    def in_code(pos: int) -> bool:
        i = bisect_right(starts, pos) - 1
        return i >= 0 and pos < ranges[i][1]

    return pattern.sub(lambda m: m.group(0) if in_code(m.start()) else replace(m), text)


def fix_links(markdown: str, base: str, lang: str, where: str = "") -> str:
    """`markdown` with its judge-relative images and links made absolute against `base` (a page or folder URL), or,
    without one, reduced to their text (see the module docstring). Code blocks and inline code are left as written."""
    text = fix_image_links(markdown, base, lang, where)
    dropped: list[str] = []

    def markdown_link(m: re.Match[str]) -> str:
        label, href = m.group(1), m.group(3)
        target = _link_target(href, base)
        if target is None:
            dropped.append(href)
            return label
        if target == href:
            return m.group(0)
        angle = m.group(2)  # "<dest>" keeps its brackets
        return f"[{label}]({angle}{target}{angle and '>'}{m.group(4)})"

    labels: set[str] = set()

    def definition(m: re.Match[str]) -> str:
        if not re.search(r"[/.?#:]", m.group(2)):
            return m.group(0)  # "[Input]: n" in a statement is its text, whatever CommonMark would make of it
        target = _link_target(m.group(2), base)
        if target is None:
            dropped.append(m.group(2))
            labels.add(_label(m.group(1)))
            return ""  # its uses ("[text][1]") are reduced to their text below
        return m.group(0) if target == m.group(2) else f"{m.group(1)}{target}{m.group(3) or ''}"

    def reference(m: re.Match[str]) -> str:
        return m.group(1) if _label(m.group(2) or m.group(1)) in labels else m.group(0)

    def html_link(m: re.Match[str]) -> str:
        attrs, inner = m.group(1), m.group(2)
        href_m = _HREF.search(attrs)
        if href_m is None:
            return m.group(0)
        href = next(g for g in href_m.groups() if g is not None).strip()
        target = _link_target(href, base) if href else href
        if target is None:
            dropped.append(href)
            return inner
        if target == href:
            return m.group(0)
        new_attrs = f"{attrs[:href_m.start()]}href=\"{target}\"{attrs[href_m.end():]}"
        return f"<a{new_attrs}>{inner}</a>"

    text = _outside_code(text, markdown_link, _MD_LINK)
    text = _outside_code(text, definition, _MD_DEFINITION)
    if labels:
        text = _outside_code(text, reference, _MD_REFERENCE)
    text = _outside_code(text, html_link, _HTML_LINK)
    if dropped:
        log.info("import: %s: %d link(s) point at the judge and no --judge-url was given (or cannot be followed); "
                 "kept their text (first: %s)", where or "a statement", len(dropped), quoted(dropped[0], 120))
    return text
