"""Where the code is in a Markdown text: fenced blocks and code spans, by CommonMark's rules.

Every part of Quest that must tell code from prose uses this module: the knowledge loader
keeps a fenced block in one chunk, `kb check` parses the Python blocks, the citation checker
skips brackets inside code, the answer renderer escapes HTML outside it, the policy removes
or holds back code blocks. One set of rules, so they cannot disagree about where a block
starts or ends.

- `fenced_blocks(text)` parses with markdown-it-py (the CommonMark parser gradio already
  uses): fences inside list items and block quotes count, a fence indented four spaces is
  not one, a closing fence needs the opening character at least as many times, and a block
  left open runs to the end of the text (or of its container).
- `FenceTracker` is the same opening and closing rule applied line by line, for text that
  arrives in pieces (a streamed answer), where re-parsing everything on every token would be
  quadratic. It follows top-level fences only; tests check it against markdown-it on the
  whole knowledge base.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

# CommonMark fence rules: up to three spaces of indentation; three or more backticks or
# tildes; a backtick fence's info string has no backtick; the closing fence uses the same
# character, at least as many times, and nothing but spaces after it.
_OPEN = re.compile(r"^ {0,3}(?P<marker>`{3,}(?=[^`]*$)|~{3,})(?P<info>.*)$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class FencedBlock:
    """One fenced code block. Lines are 0-based; `end_line` is one past the last line."""

    start_line: int  # the opening fence
    end_line: int  # after the closing fence, or the end of the text/container if none
    marker: str  # "```", "~~~~", ...
    info: str  # the info string, stripped: "python", "cpp title=main.cpp"
    body: str  # the code, without the fences (and without container prefixes such as "> ")
    closed: bool  # a closing fence was found

    @property
    def lang(self) -> str:
        """The info string's first word, lowercased: the code's language label ("" when none).

        Attributes written straight after it are not part of it: "python{.numberLines}" is python.
        """
        return re.split(r"[\s{]", self.info, maxsplit=1)[0].lower()

    @property
    def line_count(self) -> int:
        return len(self.body.splitlines())


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip(" \t\r\n")
    indent = len(line) - len(line.lstrip(" "))
    return indent <= 3 and len(stripped) >= len(marker) and set(stripped) == {marker[0]}


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    # Block rules only: fences are block tokens, and the inline rules are quadratic on
    # hostile prose (each "![" or "[" searches the rest of the paragraph for its "]":
    # 200 KB of "![" took seconds).
    return MarkdownIt("commonmark").disable(["inline", "text_join"])


def split_lines(text: str) -> list[str]:
    """The lines of `text` as markdown-it counts them (\\n, \\r\\n or \\r), each with its line break."""
    lines, start = [], 0
    for m in _LINE_BREAK.finditer(text):
        lines.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def fenced_blocks(text: str) -> list[FencedBlock]:
    """Every fenced code block in `text`, in order (nested containers included)."""
    blocks = []
    for token in _parser().parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        # The block spans the opening fence, the body's lines and, when closed, the closing fence.
        closed = end - start == token.content.count("\n") + 2
        blocks.append(FencedBlock(start_line=start, end_line=end, marker=token.markup, info=token.info.strip(),
                                  body=token.content, closed=closed))
    return blocks


def code_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the code in `text`: fenced blocks and inline code spans."""
    lines = split_lines(text)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    ranges: list[tuple[int, int]] = []
    pos = 0
    for block in fenced_blocks(text):
        start, end = offsets[block.start_line], offsets[min(block.end_line, len(lines))]
        if start < pos:  # a block nested in one already covered
            continue
        ranges += _code_spans(text, pos, start)
        ranges.append((start, end))
        pos = end
    ranges += _code_spans(text, pos, len(text))
    return ranges


def _code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The inline code spans in text[start:end]: a run of backticks opens one, the next run
    of the same length on the same line closes it (a run with no partner is plain text).

    One pass over the runs of each line, not a regex, because a lazy search for the closing
    run re-scans the line from every unmatched run: quadratic on a line of runs of
    different lengths.
    """
    spans: list[tuple[int, int]] = []
    line_start = start
    for line in text[start:end].split("\n"):
        runs = [m.span() for m in _BACKTICKS.finditer(line)]
        partner: list[int | None] = [None] * len(runs)
        later: dict[int, int] = {}  # run length -> index of the nearest later run that long
        for i in range(len(runs) - 1, -1, -1):
            length = runs[i][1] - runs[i][0]
            partner[i], later[length] = later.get(length), i
        i = 0
        while i < len(runs):
            j = partner[i]
            if j is None:
                i += 1
                continue
            spans.append((line_start + runs[i][0], line_start + runs[j][1]))
            i = j + 1
        line_start += len(line) + 1
    return spans


def split_code(text: str) -> list[tuple[bool, str]]:
    """`text` cut into (is_code, piece) pieces that join back to `text`."""
    pieces: list[tuple[bool, str]] = []
    pos = 0
    for start, end in code_ranges(text):
        if start > pos:
            pieces.append((False, text[pos:start]))
        pieces.append((True, text[start:end]))
        pos = end
    if pos < len(text):
        pieces.append((False, text[pos:]))
    return pieces


def replace_fenced_blocks(text: str, replace: Callable[[FencedBlock], str | None]) -> str:
    """`text` with each fenced block's lines replaced by `replace(block)` (None keeps the block)."""
    lines = split_lines(text)
    out: list[str] = []
    pos = 0
    for block in fenced_blocks(text):
        if block.start_line < pos:
            continue
        new = replace(block)
        if new is None:
            continue
        out += lines[pos:block.start_line]
        ended_line = lines[min(block.end_line, len(lines)) - 1].endswith(("\n", "\r"))
        out.append(new + "\n" if new and ended_line and not new.endswith("\n") else new)
        pos = block.end_line
    out += lines[pos:]
    return "".join(out)


def unclosed_fence(text: str) -> str | None:
    """The marker of a top-level fence that `text` leaves open at its end, or None."""
    tracker = FenceTracker()
    for line in split_lines(text):
        tracker.feed_line(line)
    return tracker.marker


class FenceTracker:
    """Line-by-line fence state for streamed text: feed complete lines, ask where you are.

    `feed_line` answers "open", "close", "code" (a line inside a block) or "text". A line
    still being received can be checked with `could_open`: while it might still turn into
    an opening fence, a gate should hold it back.
    """

    def __init__(self) -> None:
        self.marker: str | None = None  # the opening fence while inside a block
        self.info = ""

    @property
    def inside(self) -> bool:
        return self.marker is not None

    def feed_line(self, line: str) -> str:
        line = line.rstrip("\r\n")
        if self.marker is not None:
            if _closes(line, self.marker):
                self.marker, self.info = None, ""
                return "close"
            return "code"
        m = _OPEN.match(line)
        if m is None:
            return "text"
        self.marker, self.info = m.group("marker"), m.group("info").strip()
        return "open"

    @staticmethod
    def could_open(partial: str) -> bool:
        """Whether a line that has begun as `partial` may still become an opening fence."""
        if _OPEN.match(partial):
            return True
        indent = len(partial) - len(partial.lstrip(" "))
        stripped = partial.lstrip(" ")
        return indent <= 3 and ("```".startswith(stripped) or "~~~".startswith(stripped))
