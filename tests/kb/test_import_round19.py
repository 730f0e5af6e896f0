"""Round 19: what HUSTOJ really stores in a statement, as its FPS export carries it.

- HUSTOJ's Markdown mode ($OJ_MARKDOWN): Markdown between [md] and [/md] (or in the <div class="md"> its bbcode makes
  of it) inside an HTML field. Read as HTML its line breaks ran together: headings, lists and code lost.
- HUSTOJ's XSS filter (RemoveXSS) inserts "<x>" into words it fears ("xm<x>lns", "li<x>nked"): inside a tag that
  broke the tag, and a MathML formula came out as the attribute's text.

The exports are written for these tests; their shape follows HUSTOJ's exporter and its stored text.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import import_export, read_export
from quest.kb.importers.fps import hustoj_to_markdown

FPS_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<fps version="1.5"><generator name="HUSTOJ"/>'


def _statement(tmp_path: Path, description: str, title: str = "Sum") -> str:
    path = tmp_path / "export.xml"
    path.write_text(f"{FPS_HEAD}<item><title><![CDATA[{title}]]></title><url>http://oj/problem.php?id=1001</url>"
                    f"<description><![CDATA[{description}]]></description></item></fps>\n", encoding="utf-8")
    result = read_export("fps", path)
    return next(d.text for d in result.documents if d.kind == "problem_statement")


def test_a_markdown_block_keeps_its_lines(tmp_path: Path) -> None:
    text = _statement(tmp_path, "<p>Read the input.</p>[md]\n## Rules\n- the first line holds `n`\n- then n numbers\n\n"
                                "```cpp\n#include <cstdio>\n```\n[/md]<p>Good luck.</p>")
    # before: "[md] ## Rules - the first line holds `n` - then n numbers ```cpp #include ``` [/md]" on one line
    assert ("Read the input.\n\n#### Rules\n- the first line holds `n`\n- then n numbers\n\n```cpp\n#include <cstdio>\n"
            "```\n\nGood luck.") in text
    assert "[md]" not in text


def test_a_markdown_div_as_hustojs_bbcode_writes_it(tmp_path: Path) -> None:
    text = _statement(tmp_path, '<div class="md" >\n1. one\n2. two\n</div>')
    assert "1. one\n2. two" in text  # before: "1. one 2. two"


def test_an_unclosed_markdown_block_is_read_as_html(tmp_path: Path) -> None:
    text = _statement(tmp_path, "[md] still <b>html</b>")
    assert "[md] still **html**" in text  # unchanged: HUSTOJ shows it as text too


def test_the_xss_filters_marks_are_removed(tmp_path: Path) -> None:
    text = _statement(tmp_path, '<p>Reverse a li<x>nked list of <math xm<x>lns="http://www.w3.org/1998/Math/MathML">'
                                "<mi>n</mi></math> nodes.</p>", title="Li<x>nked")
    # before: a formula of the attribute's text ($lns="http://www.w3.org/1998/Math/MathML">n$)
    assert "Reverse a linked list of $n$ nodes." in text


@pytest.mark.parametrize("fmt", ["fps", "qduoj"])
def test_a_title_field_holding_megabytes_is_refused_and_nothing_written(tmp_path: Path, fmt: str) -> None:
    # before: imported, a 2 000 000-character title in the catalogue, the picker and every document's front matter
    if fmt == "fps":
        export = tmp_path / "export.xml"
        export.write_text(f"{FPS_HEAD}<item><title>{'y' * 2_000_000}</title><url>http://oj/problem.php?id=7</url>"
                          "<description>d</description></item></fps>", encoding="utf-8")
        where = f"{export}#item1: problem '7'"
    else:
        export = tmp_path / "qduoj"
        (export / "1").mkdir(parents=True)
        (export / "1" / "problem.json").write_text(json.dumps({
            "display_id": "7", "title": "y" * 2_000_000,
            "description": {"format": "html", "value": "<p>d</p>"}}), encoding="utf-8")
        where = f"{export}/1/problem.json: problem '7'"
    into = tmp_path / "kb" / "imported"
    with pytest.raises(ImportError_) as exc:
        import_export(fmt, export, into)
    assert str(exc.value).startswith(f"{where} has a title of 2000000 characters (at most 300)")
    assert not into.exists()


def test_a_long_real_title_still_imports(tmp_path: Path) -> None:
    title = "A" + " very" * 55 + " long title"  # 292 characters: unchanged
    text = _statement(tmp_path, "<p>d</p>", title=title)
    assert text


def test_a_hydro_problem_written_only_in_japanese_says_so(tmp_path: Path) -> None:
    export = tmp_path / "hydro"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P9\ntitle: Sum\n", encoding="utf-8")
    (export / "1" / "problem_ja.md").write_text("二つの整数の和を出力せよ。", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        read_export("hydro", export)
    # before: "no problem.md, problem_<lang>.md, problem.pdf or `content` statement", beside a problem_ja.md
    assert str(exc.value) == (f"{export}/1: the statement of 'Sum' is only in problem_ja.md; Quest keeps zh and en "
                              "statements (add a Chinese or English statement in the judge and export again)")


def test_a_character_lowercasing_lengthens_does_not_shift_the_markdown_block() -> None:
    # "İ".lower() is two characters: the block's end is found in the text as written (review, round 19)
    assert hustoj_to_markdown("İstanbul [md]# Input\nTwo numbers.[/MD] tail") == (
        "İstanbul\n\n### Input\nTwo numbers.\n\ntail")
