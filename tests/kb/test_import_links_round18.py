"""Links other than pictures that an export gives relative to the judge (round 18).

Shapes, from the exporters' code: HUSTOJ's FPS export makes only image `src`s absolute and writes the rest of a
description as stored, so a link to another problem stays `problem.php?id=1001` and an attachment uploaded with its
editor stays `/upload/file/<date>/<name>`. Hydro keeps Markdown: other problems are `/p/<pid>`, a user's file is
`/file/<uid>/<name>`, and a problem's own files are `file://<name>`, which Hydro's problem page serves as
`./<pid>/file/<name>` (from `/p/<pid>`). The statements below are written for these tests.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from quest.kb.importers import read_export
from quest.kb.importers.links import fix_links

HUSTOJ_DESCRIPTION = ('<p>This is the harder version of <a href="problem.php?id=1001">problem 1001</a>.</p>'
                      '<p>Large tests: <a href="/upload/file/20240301/big.zip">big.zip</a>; questions go to '
                      '<a href="../discuss/thread.php?pid=1002">the forum</a>.</p>'
                      '<p>Read <code>[n](m)</code> as a pair.</p>')


def fps_statement(folder: Path, url: str, judge_url: str = "") -> tuple[str, str]:
    path = folder / "export.xml"
    path.write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<fps version="1.6">
  <item>
    <title><![CDATA[Count Pairs Again]]></title>
    <url><![CDATA[{url}]]></url>
    <time_limit unit="s"><![CDATA[1]]></time_limit>
    <memory_limit unit="mb"><![CDATA[128]]></memory_limit>
    <description><![CDATA[{HUSTOJ_DESCRIPTION}]]></description>
    <input><![CDATA[<p>n and m.</p>]]></input>
    <output><![CDATA[<p>The count.</p>]]></output>
    <sample_input><![CDATA[1 2]]></sample_input>
    <sample_output><![CDATA[1]]></sample_output>
  </item>
</fps>
""", encoding="utf-8")
    result = read_export("fps", path, judge_url=judge_url)
    (problem,) = result.problems
    (statement,) = [d for d in result.documents if d.kind == "problem_statement"]
    return statement.text, problem.url


def test_hustoj_links_resolve_against_the_problems_page(tmp_path: Path) -> None:
    text, url = fps_statement(tmp_path, "http://oj.example.edu/hustoj/problem.php?id=1002")
    assert url == "http://oj.example.edu/hustoj/problem.php?id=1002"
    # before: [problem 1001](problem.php?id=1001), [big.zip](/upload/file/…), [the forum](../discuss/…)
    assert "This is the harder version of [problem 1001](http://oj.example.edu/hustoj/problem.php?id=1001)." in text
    assert ("Large tests: [big.zip](http://oj.example.edu/upload/file/20240301/big.zip); questions go to "
            "[the forum](http://oj.example.edu/discuss/thread.php?pid=1002).") in text
    assert "Read `[n](m)` as a pair." in text  # inline code is the problem's text


def test_hustoj_links_without_an_address_keep_their_text(tmp_path: Path) -> None:
    text, url = fps_statement(tmp_path, "problem.php?id=1002")
    assert url == ""
    assert "This is the harder version of problem 1001." in text
    assert "Large tests: big.zip; questions go to the forum." in text
    assert "Read `[n](m)` as a pair." in text


def test_the_operators_address_makes_them_absolute(tmp_path: Path) -> None:
    text, _ = fps_statement(tmp_path, "problem.php?id=1002", judge_url="https://acm.example.edu/oj/")
    assert "[problem 1001](https://acm.example.edu/oj/problem.php?id=1001)" in text
    assert "[big.zip](https://acm.example.edu/upload/file/20240301/big.zip)" in text


def hydro_export(root: Path) -> Path:
    folder = root / "export" / "12"
    (folder / "additional_file").mkdir(parents=True)
    (folder / "additional_file" / "examples.zip").write_bytes(b"PK\x03\x04 not really a zip")
    (folder / "solution").mkdir()
    (folder / "problem.yaml").write_text("pid: P1002\ntitle: Count Pairs Again\n", encoding="utf-8")
    (folder / "problem.md").write_text(
        "## Description\n\nThe easy version is [P1001](/p/P1001). Download [the examples](file://examples.zip) "
        "and the [old notes](file://notes.pdf); the setter's [hint](/file/2/hint.txt).\n\n"
        "```\n[keep](/p/P1)\n```\n", encoding="utf-8")
    (folder / "solution" / "idea.md").write_text("# Idea\n\nSort first, as in [P1001](/p/P1001).\n",
                                                 encoding="utf-8")
    return root / "export"


def test_hydro_links_with_the_judges_address(tmp_path: Path) -> None:
    result = read_export("hydro", hydro_export(tmp_path), judge_url="https://hydro.example.org/")
    (problem,) = result.problems
    assert problem.url == "https://hydro.example.org/p/P1002"  # before: "" (no page at all)
    statement, solution = (d.text for d in result.documents)
    assert ("The easy version is [P1001](https://hydro.example.org/p/P1001). Download "
            "[the examples](https://hydro.example.org/p/P1002/file/examples.zip) and the old notes; the setter's "
            "[hint](https://hydro.example.org/file/2/hint.txt).") in statement
    assert "```\n[keep](/p/P1)\n```" in statement
    assert "Sort first, as in [P1001](https://hydro.example.org/p/P1001)." in solution


def test_hydro_links_without_an_address(tmp_path: Path) -> None:
    result = read_export("hydro", hydro_export(tmp_path))
    assert result.problems[0].url == ""
    statement, solution = (d.text for d in result.documents)
    assert ("The easy version is P1001. Download the examples and the old notes; the setter's hint.") in statement
    assert "Sort first, as in P1001." in solution


@pytest.mark.parametrize(("markdown", "base", "expected"), [
    ("[P2](/p/P2) [top](#sample) [mail](mailto:a@example.org) [x](https://cf.example/x)", "",
     "P2 [top](#sample) [mail](mailto:a@example.org) [x](https://cf.example/x)"),
    ("[P2](/p/P2 \"the easy one\")", "http://oj.example/p/P3", "[P2](http://oj.example/p/P2 \"the easy one\")"),
    ("[cdn](//files.example/a.pdf)", "", "[cdn](https://files.example/a.pdf)"),
    # a linked picture: both halves resolved, or both reduced
    ("[![tree](/u/t.png)](/u/t-big.png)", "http://oj.example/", "[![tree](http://oj.example/u/t.png)](http://oj.example/u/t-big.png)"),
    ("[![tree](/u/t.png)](/u/t-big.png)", "", "[image: tree]"),
    # a destination with parentheses, and one that no reader can follow
    ("[rule](notes_(v2).html)", "http://oj.example/p/", "[rule](http://oj.example/p/notes_(v2).html)"),
    ("[run](javascript:void(0)) and <a href='javascript:go()'>go</a>", "http://oj.example/", "run and go"),
    # reference definitions
    ("See [the forum][1].\n\n[1]: /discuss/9\n", "http://oj.example/", "See [the forum][1].\n\n[1]: http://oj.example/discuss/9\n"),
    ("See [the forum][1], [Rules][] and [rules].\n\n[1]: /discuss/9\n[rules]: /rules\n", "",
     "See the forum, Rules and rules.\n\n\n\n"),
    # a line that only looks like a definition, with no address in it, is the statement's text
    ("[Input]: n\n[P1](/p/1)", "", "[Input]: n\nP1"),
    ("See [a][x] and [b] and [c](#c) and [d](/d).\n\n[x]: https://oj.example/x\n", "",
     "See [a][x] and [b] and [c](#c) and d.\n\n[x]: https://oj.example/x\n"),
    # code: a fenced block and an inline span keep their text, a link around inline code is still a link
    ("`[a](/b)` and [`solve()`](/p/P9)", "http://oj.example/", "`[a](/b)` and [`solve()`](http://oj.example/p/P9)"),
    ("~~~\n<a href=\"/p/1\">1</a>\n~~~\n<a href=\"/p/2\">2</a>\n", "", "~~~\n<a href=\"/p/1\">1</a>\n~~~\n2\n"),
])
def test_fix_links(markdown: str, base: str, expected: str) -> None:
    assert fix_links(markdown, base, "en") == expected


def test_an_attachment_name_with_a_space_still_links() -> None:
    from quest.kb.importers.html2md import html_to_markdown

    markdown = html_to_markdown('<p>See <a href="/upload/file/20240301/my notes.pdf">the notes</a>.</p>')
    # before: "[the notes](/upload/file/20240301/my notes.pdf)", no Markdown link at all (a space ends it)
    assert markdown == "See [the notes](/upload/file/20240301/my%20notes.pdf)."
    assert fix_links(markdown, "http://oj.example.edu/", "en") == \
        "See [the notes](http://oj.example.edu/upload/file/20240301/my%20notes.pdf)."
    assert fix_links(markdown, "", "en") == "See the notes."


def test_a_qduoj_attachment_and_problem_link(tmp_path: Path) -> None:
    """QDUOJ's editor uploads a file to /public/upload/<random name>; its problem pages are /problem/<display id>.
    The export names no page, so only the operator's address makes them absolute."""
    import json

    folder = tmp_path / "qduoj" / "1"
    folder.mkdir(parents=True)
    html = ('<p>Same input as <a href="/problem/1003">1003</a>; the full data set is '
            '<a href="/public/upload/a1b2c3d4e5.zip">here</a>.</p>')
    (folder / "problem.json").write_text(json.dumps({
        "display_id": "1004", "title": "Count Pairs Once More",
        "description": {"format": "html", "value": html},
        "input_description": {"format": "html", "value": "<p>n</p>"},
        "output_description": {"format": "html", "value": "<p>one number</p>"},
        "samples": [{"input": "1", "output": "1"}], "time_limit": 1000, "memory_limit": 256, "tags": []}),
        encoding="utf-8")
    with_url = read_export("qduoj", tmp_path / "qduoj", judge_url="https://qd.example.edu/").documents[0].text
    assert ("Same input as [1003](https://qd.example.edu/problem/1003); the full data set is "
            "[here](https://qd.example.edu/public/upload/a1b2c3d4e5.zip).") in with_url
    without = read_export("qduoj", tmp_path / "qduoj").documents[0].text
    assert "Same input as 1003; the full data set is here." in without
