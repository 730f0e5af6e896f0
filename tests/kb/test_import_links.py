"""Image links an export gives relative to the judge, and HUSTOJ's problem page when the judge lives in a subfolder.

Shapes (our own statements): HUSTOJ's editor stores a pasted picture as `/upload/image/<date>/<name>` and FPS
exports keep that `src` inside the description unless the picture is embedded (`<img><src>` with `<base64>`);
FPS's `<url>` is the problem's page as the exporting admin saw it (`http://host/hustoj/problem.php?id=1001` for a
judge installed under /hustoj/, sometimes the relative `problem.php?id=1001` or a page on 127.0.0.1). A Hydro
statement is Markdown that may hold raw `<img>` tags and `file://` names of files the export lacks.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import import_export, read_export
from quest.kb.importers.links import fix_image_links, judge_base, page_url


def fps_export(folder: Path, url: str, description: str) -> Path:
    path = folder / "export.xml"
    path.write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<fps version="1.2">
  <item>
    <title><![CDATA[Count the Leaves]]></title>
    <url><![CDATA[{url}]]></url>
    <time_limit unit="s"><![CDATA[1]]></time_limit>
    <memory_limit unit="mb"><![CDATA[128]]></memory_limit>
    <description><![CDATA[{description}]]></description>
    <input><![CDATA[<p>n, then n-1 edges.</p>]]></input>
    <output><![CDATA[<p>The number of leaves.</p>]]></output>
    <sample_input><![CDATA[3
1 2
1 3]]></sample_input>
    <sample_output><![CDATA[2]]></sample_output>
  </item>
</fps>
""", encoding="utf-8")
    return path


PICTURES = ('<p>The tree below has two leaves.</p><p><img src="/upload/image/20240301/tree.png" alt="the tree"></p>'
            '<p><img src="../images/graph.png"> and <img src="upload/legend.png" alt="legend"></p>'
            '<p><img src="https://cdn.example.org/fig.png" alt="cdn"></p>')


def statement_and_url(tmp_path: Path, url: str, judge_url: str = "", description: str = PICTURES) -> tuple[str, str]:
    result = read_export("fps", fps_export(tmp_path, url, description), judge_url=judge_url)
    (problem,) = result.problems
    (statement,) = [d for d in result.documents if d.kind == "problem_statement"]
    assert statement.url == problem.url
    return statement.text, problem.url


def test_links_resolve_against_the_problems_own_page(tmp_path: Path) -> None:
    text, url = statement_and_url(tmp_path, "http://oj.example.edu/hustoj/problem.php?id=1001")
    assert url == "http://oj.example.edu/hustoj/problem.php?id=1001"
    # as the judge's own page resolved them in the browser
    assert "![the tree](http://oj.example.edu/upload/image/20240301/tree.png)" in text
    assert "![](http://oj.example.edu/images/graph.png)" in text
    assert "![legend](http://oj.example.edu/hustoj/upload/legend.png)" in text
    assert "![cdn](https://cdn.example.org/fig.png)" in text


def test_without_an_address_the_alt_text_stays_and_no_broken_link(tmp_path: Path) -> None:
    text, url = statement_and_url(tmp_path, "problem.php?id=1001")
    assert url == ""  # a relative page is no link the source panel could open
    assert "[image: the tree]" in text and "[image: graph.png]" in text and "[image: legend]" in text
    assert "/upload/" not in text and "../images" not in text
    assert "![cdn](https://cdn.example.org/fig.png)" in text  # absolute links are kept


def test_a_page_on_the_exporting_machine_is_no_address(tmp_path: Path) -> None:
    text, url = statement_and_url(tmp_path, "http://127.0.0.1/problem.php?id=1001")
    assert url == "" and "[image: the tree]" in text and "127.0.0.1" not in text


def test_the_operators_judge_url_is_a_folder_for_a_subfolder_install(tmp_path: Path) -> None:
    text, url = statement_and_url(tmp_path, "problem.php?id=1001", judge_url="http://oj.example.edu/hustoj")
    assert url == "http://oj.example.edu/hustoj/problem.php?id=1001"
    assert "![legend](http://oj.example.edu/hustoj/upload/legend.png)" in text
    assert "![the tree](http://oj.example.edu/upload/image/20240301/tree.png)" in text  # root-relative stays so
    assert "![](http://oj.example.edu/images/graph.png)" in text


def test_the_judge_url_wins_over_a_page_on_another_machine(tmp_path: Path) -> None:
    text, url = statement_and_url(tmp_path, "http://127.0.0.1/problem.php?id=1001",
                                  judge_url="https://acm.example.edu/")
    assert url == ""  # the exported page itself still names the admin's machine
    assert "![legend](https://acm.example.edu/upload/legend.png)" in text
    assert "![the tree](https://acm.example.edu/upload/image/20240301/tree.png)" in text


def test_a_chinese_statement_says_so_in_chinese(tmp_path: Path) -> None:
    description = '<p>如下图所示的树。</p><p><img src="/upload/t.png" alt="样例树"></p><p><img src="/upload/2.png"></p>'
    text, _ = statement_and_url(tmp_path, "", description=description)
    assert "[图片：样例树]" in text and "[图片：2.png]" in text


@pytest.mark.parametrize("bad", ["oj.example.edu", "ftp://oj.example.edu/", "http://"])
def test_a_judge_url_that_is_no_address_is_refused_before_anything_is_written(tmp_path: Path, bad: str) -> None:
    export = fps_export(tmp_path, "problem.php?id=1001", PICTURES)
    with pytest.raises(ImportError_, match="--judge-url"):
        import_export("fps", export, tmp_path / "kb" / "x", judge_url=bad)
    assert not (tmp_path / "kb").exists()


def test_a_hydro_statement_with_a_missing_file_and_a_raw_img_tag(tmp_path: Path) -> None:
    folder = tmp_path / "export" / "P7"
    folder.mkdir(parents=True)
    (folder / "problem.yaml").write_text("pid: P7\ntitle: Draw a Fence\n", encoding="utf-8")
    (folder / "problem.md").write_text(
        "## Description\n\nSee ![fence](file://fence.png) and <img src=\"/file/2/legend.png\" alt=\"key\">.\n",
        encoding="utf-8")
    without = read_export("hydro", tmp_path / "export").documents[0].text
    assert "See [image: fence] and [image: key]." in without
    with_url = read_export("hydro", tmp_path / "export", judge_url="https://hydro.example.org/").documents[0].text
    # file:// names a file of the export, not of the judge: no address makes it load
    assert "See [image: fence] and ![key](https://hydro.example.org/file/2/legend.png)." in with_url


@pytest.mark.parametrize(("markdown", "base", "expected"), [
    ("![a](/u/a.png)", "http://oj.example/p/1", "![a](http://oj.example/u/a.png)"),
    ('![a](u/a.png "caption")', "http://oj.example/", "![a](http://oj.example/u/a.png)"),
    ("![a](//cdn.example/a.png)", "", "![a](https://cdn.example/a.png)"),
    ("![a](images/a-0123456789.png)", "", "![a](images/a-0123456789.png)"),  # saved beside the problem
    # a script is no picture (the link ends at the first ")", as Markdown reads it)
    ("![](javascript:alert(1))", "http://oj.example/", "[image])"),
    ("![](/u/a.png?v=2)", "", "[image: a.png]"),
    ("no images here", "", "no images here"),
])
def test_fix_image_links(markdown: str, base: str, expected: str) -> None:
    assert fix_image_links(markdown, base, "en") == expected


def test_code_in_a_statement_is_left_as_written() -> None:
    """A statement about HTML or Markdown shows image syntax as code: a fenced block or an inline code span is the
    problem's text, not a picture, and stays exactly as written (only the picture outside is made absolute)."""
    markdown = ("Output one tag per line, e.g.\n\n"
                "```html\n<img src=\"/upload/a.png\" alt=\"a\">\n![b](/u/b.png)\n```\n\n"
                "~~~\n![c](c.png)\n~~~\n\nThe input `![d](/u/d.png)` is one line. ![e](/u/e.png)")
    expected = markdown.replace("![e](/u/e.png)", "![e](http://oj.example/u/e.png)")
    assert fix_image_links(markdown, "http://oj.example/p/1", "en") == expected
    assert fix_image_links(markdown, "", "en") == markdown.replace("![e](/u/e.png)", "[image: e]")


def test_judge_base_and_page_url() -> None:
    assert judge_base("http://oj.example.edu/hustoj") == "http://oj.example.edu/hustoj/"
    assert judge_base(" https://oj.example.edu/?x=1#top ") == "https://oj.example.edu/"
    assert judge_base("") == ""
    assert page_url("/hustoj/problem.php?id=3", "http://oj.example.edu/hustoj/") == \
        "http://oj.example.edu/hustoj/problem.php?id=3"
    assert page_url("https://oj.example.edu/p/3", "") == "https://oj.example.edu/p/3"
    assert page_url("http://localhost/p/3", "") == ""


def test_the_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from quest.cli import main

    export = fps_export(tmp_path, "problem.php?id=1001", PICTURES)
    into = tmp_path / "kb" / "hustoj"
    assert main(["kb", "import", "--format", "fps", str(export), "--into", str(into), "--source", "hustoj",
                 "--judge-url", "http://oj.example.edu/hustoj/"]) == 0
    statement = (into / "1001" / "imp-hustoj-1001-statement.md").read_text(encoding="utf-8")
    assert "![legend](http://oj.example.edu/hustoj/upload/legend.png)" in statement
    assert "url: 'http://oj.example.edu/hustoj/problem.php?id=1001'" in statement
    capsys.readouterr()
    code = main(["kb", "import", "--format", "fps", str(export), "--into", str(tmp_path / "kb" / "other"),
                 "--judge-url", "oj.example.edu"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: --judge-url 'oj.example.edu': give the judge's address")
    assert "Traceback" not in err
