"""One set of fence rules: markdown-it's parse, and the line tracker used for streamed text."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from quest.markdown_blocks import (
    FencedBlock,
    FenceTracker,
    _code_spans,
    code_ranges,
    fenced_blocks,
    replace_fenced_blocks,
    split_code,
    unclosed_fence,
)

KNOWLEDGE = Path(__file__).resolve().parents[1] / "knowledge"


def spans(text: str) -> list[tuple[int, int, bool]]:
    return [(b.start_line, b.end_line, b.closed) for b in fenced_blocks(text)]


def tracked_spans(text: str) -> list[tuple[int, int, bool]]:
    """The same spans as the streaming tracker sees them, line by line."""
    tracker, found, start = FenceTracker(), [], None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        kind = tracker.feed_line(line)
        if kind == "open":
            start = i
        elif kind == "close":
            found.append((start, i + 1, True))
    if tracker.inside:
        found.append((start, len(lines), False))
    return found


def test_a_block_with_its_language_body_and_lines():
    text = "Intro\n\n```Python title=main.py\nprint([1])\n```\nafter\n"
    assert fenced_blocks(text) == [FencedBlock(start_line=2, end_line=5, marker="```",
                                               info="Python title=main.py", body="print([1])\n", closed=True)]
    assert fenced_blocks(text)[0].lang == "python"
    assert fenced_blocks("```python{.numberLines}\nx\n```\n")[0].lang == "python"


def test_commonmark_fence_rules():
    assert spans("~~~~\na\n~~~\nb\n~~~~\n") == [(0, 5, True)]  # a shorter closing fence does not close
    assert spans("```\na\n~~~\nb\n```\n") == [(0, 5, True)]  # nor does the other character
    assert spans("```\na\n`````\nb\n") == [(0, 3, True)]  # a longer one does
    assert spans("```\nnever closed\n") == [(0, 2, False)]
    assert spans("    ```\n    indented four: code, not a fence\n") == []
    assert spans("``` a`b\nnot a fence: backtick in the info string\n") == []
    assert spans("   ```\nthree spaces still open a fence\n   ```\n") == [(0, 3, True)]


def test_fences_inside_lists_and_quotes_count():
    assert spans("1. step\n\n   ```py\n   x = 1\n   ```\n") == [(2, 5, True)]
    quoted = fenced_blocks("> ```\n> q = 1\n> ```\n")
    assert [(b.body, b.closed) for b in quoted] == [("q = 1\n", True)]


def test_code_ranges_cover_blocks_and_code_spans():
    text = "a [1] `x[2]` b\n\n```\nc[3]\n```\nd ``e`f`` [4]\n"
    pieces = split_code(text)
    assert "".join(p for _, p in pieces) == text
    assert [p for is_code, p in pieces if is_code] == ["`x[2]`", "```\nc[3]\n```\n", "``e`f``"]
    assert code_ranges("no code here") == []


def test_replace_fenced_blocks():
    text = "keep\n```py\nlong\ncode\n```\nmid\n~~~\nshort\n~~~\n"
    assert replace_fenced_blocks(text, lambda b: "(code removed)" if b.line_count > 1 else None) == (
        "keep\n(code removed)\nmid\n~~~\nshort\n~~~\n")
    assert replace_fenced_blocks(text, lambda b: "") == "keep\nmid\n"


def test_unclosed_fence_and_could_open():
    assert unclosed_fence("text\n````py\nx = 1\n") == "````"
    assert unclosed_fence("```\nx\n```\n") is None
    assert [FenceTracker.could_open(p) for p in ("", "`", "``", "```py", "  ~", "    `", "a`", "`x")] == [
        True, True, True, True, True, False, False, False]


def test_the_tracker_agrees_with_markdown_it_on_the_knowledge_base():
    files = sorted(KNOWLEDGE.rglob("*.md"))
    assert len(files) > 100
    disagree = [p.name for p in files if spans(t := p.read_text(encoding="utf-8")) != tracked_spans(t)]
    assert disagree == []
    assert sum(len(spans(p.read_text(encoding="utf-8"))) for p in files) > 100  # it did compare blocks


LINES = st.sampled_from(["```", "````", "~~~", "~~~~~", "```py", "``` x", "``` a`b", "   ```", "    ```",
                         "```  ", "text [1]", "", "# heading", "`code` span"])


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, max_size=12))
def test_the_tracker_agrees_with_markdown_it_on_top_level_text(lines):
    text = "\n".join(lines) + "\n"
    assert tracked_spans(text) == spans(text)


def test_split_code_on_200_kb_of_image_openers_does_no_inline_parsing(monkeypatch):
    """Round 21: 200 KB of "![" took ~4 s in markdown-it's inline rules (each opener searched the
    rest of the paragraph for its "]"). Fences are block tokens: the inline parser must not run."""
    from markdown_it.parser_inline import ParserInline

    calls: list[int] = []
    monkeypatch.setattr(ParserInline, "parse", lambda self, src, *args: calls.append(len(src)))
    text = "![" * 100_000 + "\n\n```\nx = 1\n```\n" + "`a`" + "[" * 1000
    assert split_code(text) == [(False, "![" * 100_000 + "\n\n"), (True, "```\nx = 1\n```\n"),
                                (True, "`a`"), (False, "[" * 1000)]
    assert calls == []


def test_code_spans_on_a_long_line_of_unmatched_backtick_runs():
    """A line of backtick runs of lengths 1..629 (none pairs up) then a pair of 630-runs: only the
    last pair is a span. The old lazy regex re-scanned the line from each unmatched run."""
    runs = "".join("`" * k + "a" for k in range(1, 630))
    pair = "`" * 630 + "code" + "`" * 630
    text = runs + pair + " tail\nnext `line`"
    assert code_ranges(text) == [(len(runs), len(runs) + len(pair)), (len(text) - 6, len(text))]


def test_code_span_rules():
    # a run is closed by the next run of the SAME length on the same line; others are text
    assert split_code("`a``b` c") == [(True, "`a``b`"), (False, " c")]
    assert split_code("```x `y`") == [(False, "```x "), (True, "`y`")]
    assert split_code("`a\nb`") == [(False, "`a\nb`")]
    assert split_code("``") == [(False, "``")]
    assert split_code("` `\r`x`") == [(True, "` `"), (False, "\r"), (True, "`x`")]


# The rule as the old regex wrote it: the linear scanner must find exactly the same spans.
_REFERENCE_SPAN = re.compile(r"(?<!`)(`+)(?!`)[^\n]+?(?<!`)\1(?!`)")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="``a \n\r", max_size=30))
def test_code_spans_agree_with_the_reference_rule(text):
    assert _code_spans(text, 0, len(text)) == [m.span() for m in _REFERENCE_SPAN.finditer(text)]
    middle = text[3:-3]
    assert _code_spans(text, 3, 3 + len(middle)) == [(3 + a, 3 + b) for a, b in
                                                     (m.span() for m in _REFERENCE_SPAN.finditer(middle))]
