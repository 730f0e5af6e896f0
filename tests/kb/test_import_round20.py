"""Round 20: what real exports hold that the importers lost or echoed unbounded.

- HUSTOJ's bbcode wraps an [md] block in <div class="md" > ... </div> (include/bbcode.php); the Markdown inside may hold
  divs of its own, so the block ends at the </div> that matches, not at the first.
- Messages that echo text from an export (a title, a file name, a limit) quote at most a short, escaped piece of it.

The exports are written for these tests; their shapes follow the exporters' code (HUSTOJ problem_export_xml.php,
Hydro's model/problem.ts and ui-default zipDownloader, QDUOJ's ExportProblemSerializer, Hydro's import-qduoj schema).
"""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import import_export, read_export
from quest.kb.importers.fps import hustoj_to_markdown


def test_a_markdown_div_holding_divs_of_its_own_ends_at_its_own_close() -> None:
    field = ('<div class="md" >\n## Task\n<div align="center">centred note</div>\n\n- line one\n- line two\n</div>'
             "<p>After.</p>")
    # before: the block ended at "centred note</div>"; the list after it was read as HTML: "- line one - line two"
    assert hustoj_to_markdown(field) == (
        '#### Task\n<div align="center">centred note</div>\n\n- line one\n- line two\n\nAfter.')


def test_a_markdown_div_never_closed_is_read_as_html() -> None:
    assert hustoj_to_markdown('<div class="md">a<div>b</div>') == "a\n\nb"


def _hydro_japanese_only(tmp_path: Path, title: str) -> Path:
    export = tmp_path / "hydro"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text(f"pid: P9\ntitle: {json.dumps(title)}\n", encoding="utf-8")
    (export / "1" / "problem_ja.md").write_text("二つの整数の和を出力せよ。", encoding="utf-8")
    return export


def test_the_japanese_only_message_quotes_a_bounded_escaped_title(tmp_path: Path) -> None:
    export = _hydro_japanese_only(tmp_path, "\x1b[2J" + "y" * 100_000)
    with pytest.raises(ImportError_) as exc:
        read_export("hydro", export)
    # before: the whole 100 004-character title, its terminal escape sequence as it was
    assert str(exc.value) == (f"{export}/1: the statement of '\\x1b[2J{'y' * 56}'... (100004 characters) is only in "
                              "problem_ja.md; Quest keeps zh and en statements (add a Chinese or English statement in "
                              "the judge and export again)")


def test_a_limit_holding_a_page_of_text_is_quoted_short(tmp_path: Path) -> None:
    export = tmp_path / "qduoj"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.json").write_text(json.dumps({
        "display_id": "7", "title": "Sum", "time_limit": "z" * 50_000,
        "description": {"format": "html", "value": "<p>d</p>"}}), encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        read_export("qduoj", export)
    # before: time_limit 'zzz…' fifty thousand characters long
    assert str(exc.value) == f"{export}/1/problem.json: time_limit {'z' * 20!r}... (50000 characters) is not a number"


def test_an_id_field_holding_a_page_of_text_is_refused(tmp_path: Path) -> None:
    export = tmp_path / "qduoj"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.json").write_text(json.dumps({
        "display_id": "P" * 5000, "title": "Sum",
        "description": {"format": "html", "value": "<p>d</p>"}}), encoding="utf-8")
    into = tmp_path / "kb" / "imported"
    with pytest.raises(ImportError_) as exc:
        import_export("qduoj", export, into)
    # before: a 5000-character id, its file name too long to write ("cannot write the import")
    assert str(exc.value) == (f"{export}/1/problem.json: problem id {'P' * 40!r}... (5000 characters) is longer than "
                              "128 characters: the export's id field holds something else (fix the id in the judge "
                              "(or the export file) and export again)")
    assert not into.exists()


def test_a_missing_pdf_link_is_quoted_short(tmp_path: Path) -> None:
    export = tmp_path / "hydro"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P9\ntitle: Sum\n", encoding="utf-8")
    (export / "1" / "problem.md").write_text(f"@[PDF](file://{'a' * 3000}.pdf)", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        read_export("hydro", export)
    assert str(exc.value) == (f"{export}/1/problem.md: links {'a' * 60!r}... (3004 characters) but the export has no "
                              "such file")


def _qduoj(tmp_path: Path, **fields: object) -> Path:
    export = tmp_path / "qduoj"
    (export / "1").mkdir(parents=True)
    problem = {"display_id": "7", "title": "Sum", "description": {"format": "html", "value": "<p>Add two numbers.</p>"},
               "time_limit": 1000, "memory_limit": 256, **fields}
    (export / "1" / "problem.json").write_text(json.dumps(problem), encoding="utf-8")
    return export


def test_a_qduoj_source_written_as_format_and_value_reads_as_its_text(tmp_path: Path) -> None:
    # QDUOJ itself writes source as text; Hydro's import-qduoj also takes {format, value}, as forks write it
    export = _qduoj(tmp_path, source={"format": "html", "value": "<p>Spring <b>contest</b></p>"})
    text = next(d.text for d in read_export("qduoj", export).documents if d.kind == "problem_statement")
    # before: "## Source\n\n{'format': 'html', 'value': '<p>Spring <b>contest</b></p>'}"
    assert "## Source\n\nSpring **contest**\n\n" in text


# A 1x1 PNG, as HUSTOJ's exporter embeds a picture: base64 in <img><base64> beside its absolute <src>.
_DOT_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
_FPS_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<fps version="1.6"><generator name="HUSTOJ"/>'


def test_a_picture_a_markdown_block_shows_is_saved_from_the_export(tmp_path: Path) -> None:
    src = "http://oj.example.edu/upload/image/20240301/grid.png"
    export = tmp_path / "export.xml"
    export.write_text(f"{_FPS_HEAD}<item><title><![CDATA[Grid]]></title><url>http://oj.example.edu/problem.php?id=1010"
                      f"</url><img><src><![CDATA[{src}]]></src><base64><![CDATA[{_DOT_PNG}]]></base64></img>"
                      f"<description><![CDATA[[md]The grid:\n\n![img]({src})\n\n`![img]({src})` stays code.[/md]]]>"
                      "</description></item></fps>", encoding="utf-8")
    result = read_export("fps", export)
    text = next(d.text for d in result.documents if d.kind == "problem_statement")
    name = "grid-" + hashlib.sha1(base64.b64decode(_DOT_PNG)).hexdigest()[:10] + ".png"
    # before: the picture stayed a link to the judge and its embedded copy was dropped
    assert f"The grid:\n\n![img](images/{name})\n\n`![img]({src})` stays code." in text
    assert list(result.images["1010"]) == [name]


def test_an_icpc_style_package_s_limits_are_read_as_hydro_reads_them(tmp_path: Path) -> None:
    # Hydro's importer: problem.yaml `limits.time_limit` is seconds, `limits.memory` MB, each overriding config.yaml
    export = tmp_path / "hydro"
    (export / "1" / "testdata").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P9\ntitle: Sum\nlimits:\n  time_limit: 2.5\n  memory: 512\n",
                                               encoding="utf-8")
    (export / "1" / "problem.md").write_text("Add two numbers.", encoding="utf-8")
    (export / "1" / "testdata" / "config.yaml").write_text("time: 1s\nmemory: 128m\n", encoding="utf-8")
    problem = read_export("hydro", export).problems[0]
    assert problem.limits == {"time_ms": 2500, "memory_mb": 512}  # before: {"time_ms": 1000, "memory_mb": 128}


def test_a_picture_of_unknown_type_is_named_short_in_the_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    src = "http://oj.example.edu/upload/" + "q" * 4000 + ".bin"
    export = tmp_path / "export.xml"
    export.write_text(f"{_FPS_HEAD}<item><title>Grid</title><url>http://oj.example.edu/problem.php?id=1011</url>"
                      f"<img><src><![CDATA[{src}]]></src><base64>AAAA</base64></img>"
                      f'<description><![CDATA[<p><img src="{src}"></p>]]></description></item></fps>', encoding="utf-8")
    with caplog.at_level("WARNING", logger="quest.kb.importers.images"):
        read_export("fps", export)
    # before: the whole 4000-character address in the warning
    assert [r.getMessage() for r in caplog.records] == [
        f"import: {export}: item 1: {src[:120]!r}... (4033 characters) is not a known image type; left out"]


@pytest.mark.parametrize(("time", "time_ms"), [
    ("1000", 1000),  # before: 1000000 (a bare number was read as seconds)
    ("'1500'", 1500),
    ("1s", 1000), ("1.5s", 1500), ("2", 2), ("500ms", 500), ("'1.5'", 1500), ("800us", 1),
    ("1.5", 2),  # a YAML number: milliseconds, as Hydro's judge applies it
])
def test_a_config_time_is_read_as_hydros_parse_time_ms_reads_it(tmp_path: Path, time: str, time_ms: int) -> None:
    # Hydro's parseTimeMS: a number or whole-number text is milliseconds; otherwise seconds unless marked ms / us
    export = tmp_path / "hydro"
    (export / "1" / "testdata").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P9\ntitle: Sum\n", encoding="utf-8")
    (export / "1" / "problem.md").write_text("Add two numbers.", encoding="utf-8")
    (export / "1" / "testdata" / "config.yaml").write_text(f"time: {time}\nmemory: 256\n", encoding="utf-8")
    assert read_export("hydro", export).problems[0].limits == {"time_ms": time_ms, "memory_mb": 256}


def test_a_qduoj_export_from_before_2018_reads_its_id_and_limits(tmp_path: Path) -> None:
    # QDUOJ's ExportProblemSerializer before commit 82890a9 (2018-01-07): `_id`, and limits as {"unit", "value"}
    export = tmp_path / "qduoj"
    (export / "1").mkdir(parents=True)
    (export / "1" / "problem.json").write_text(json.dumps({
        "_id": "A100", "title": "Sum", "description": {"format": "html", "value": "<p>Add two numbers.</p>"},
        "time_limit": {"unit": "ms", "value": 2000}, "memory_limit": {"unit": "MB", "value": 128},
        "spj": {"enabled": False, "code": None, "language": None}, "source": "Spring contest"}), encoding="utf-8")
    problem = read_export("qduoj", export).problems[0]
    # before: refused ("time_limit {'unit': 'ms', 'value': 2000} is not a number")
    assert (problem.local_id, problem.limits) == ("A100", {"time_ms": 2000, "memory_mb": 128})


def test_a_limit_in_an_unknown_unit_is_refused_by_name(tmp_path: Path) -> None:
    export = _qduoj(tmp_path, time_limit={"unit": "fortnights", "value": 1})
    with pytest.raises(ImportError_) as exc:
        read_export("qduoj", export)
    assert str(exc.value) == f"{export}/1/problem.json: time_limit unit 'fortnights' is not one of ms, s"


@pytest.mark.parametrize("time", [".inf", "'²'", "'" + "9" * 400 + "s'"])
def test_a_config_time_no_number_of_milliseconds_can_hold_is_left_out(tmp_path: Path, time: str) -> None:
    # before: OverflowError (an infinite time rounded) or ValueError ("²" is a digit to str.isdigit, not to int)
    export = tmp_path / "hydro"
    (export / "1" / "testdata").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P9\ntitle: Sum\nlimits:\n  time_limit: '1e308'\n",
                                               encoding="utf-8")
    (export / "1" / "problem.md").write_text("Add two numbers.", encoding="utf-8")
    (export / "1" / "testdata" / "config.yaml").write_text(f"time: {time}\nmemory: 256\n", encoding="utf-8")
    assert read_export("hydro", export).problems[0].limits == {"memory_mb": 256}


def test_a_memory_limit_no_number_can_hold_is_left_out(tmp_path: Path) -> None:
    export = tmp_path / "hydro"
    (export / "1" / "testdata").mkdir(parents=True)
    (export / "1" / "problem.yaml").write_text("pid: P9\ntitle: Sum\n", encoding="utf-8")
    (export / "1" / "problem.md").write_text("Add two numbers.", encoding="utf-8")
    (export / "1" / "testdata" / "config.yaml").write_text(f"time: 1s\nmemory: '{'9' * 400}m'\n", encoding="utf-8")
    assert read_export("hydro", export).problems[0].limits == {"time_ms": 1000}  # before: OverflowError


def test_a_limit_whose_unit_makes_it_overflow_is_refused_by_name(tmp_path: Path) -> None:
    export = _qduoj(tmp_path, time_limit={"unit": "s", "value": 1e308})
    with pytest.raises(ImportError_) as exc:  # before: OverflowError (1e308 s is an infinite number of ms)
        read_export("qduoj", export)
    assert str(exc.value) == f"{export}/1/problem.json: time_limit 1e+308 s is not a usable limit"


def test_a_long_root_element_is_named_short_with_its_length(tmp_path: Path) -> None:
    tag = "x" * 50
    export = tmp_path / "export.xml"
    export.write_text(f"<{tag}><item/></{tag}>", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        read_export("fps", export)
    # before: "<'xxx…x'... (50 characters>": the quote left in, the bracket cut off
    assert str(exc.value) == f"{export}: not an FPS file (root element <{'x' * 40}... (50 characters)>, expected <fps>)"
