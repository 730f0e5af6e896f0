"""Exports with the shapes the judges' current exporters really write, and the ways they go wrong.

Format facts checked against the exporters' sources:
- HUSTOJ `web/admin/problem_export_xml.php` (zhblue/hustoj): `<fps version="1.6">`, CDATA
  everywhere, test data copied raw into `<test_input name="N">` (only \\x1a removed), `<spj
  language="Text">text judge</spj>`, `<prepend|template|append language=...>`, `<img><src>
  <base64>`, time in seconds with decimals, an optional zip holding one `problem.xml`;
- Hydro `ProblemModel.export` (hydro-dev/Hydro packages/hydrooj/src/model/problem.ts):
  `<docId>/problem.yaml` (pid, owner, title, tag, nSubmit, nAccept, difficulty),
  `problem_<lang>.md` per language, `testdata/`, `additional_file/`, zipped with `zip -r`;
  its importer also reads `content` from problem.yaml and a problem.yaml at the top;
- QDUOJ `ExportProblemAPI` / `ExportProblemSerializer` (QingdaoU/OnlineJudge problem/):
  `<n>/problem.json` written with `json.dumps(indent=4)`, `{"format": "html", "value": ...}`
  texts (value may be null), `template` per language, `spj` null or `{code, language}`,
  `answers` (the exporter's accepted code per language), `<n>/testcase/`.
"""

from __future__ import annotations

import logging
import shutil
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import import_export, read_export
from quest.kb.markdown import load_knowledge_base
from quest.kb.validate import check_knowledge_base

REAL = Path(__file__).resolve().parents[1] / "data" / "exports" / "real"
GBK_FPS = REAL / "hustoj-gbk-2001-2002.xml"


def zipped(folder: Path, archive: Path, prefix: str = "") -> Path:
    """`zip -r`: directory entries too, paths relative to the folder (under `prefix`)."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            name = prefix + path.relative_to(folder).as_posix()
            if path.is_dir():
                zf.writestr(name + "/", "")
            else:
                zf.write(path, name)
    return archive


def all_text(result) -> str:
    return "\n".join(d.text for d in result.documents)


def test_a_gbk_hustoj_export_with_raw_test_data_imports(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        result = read_export("fps", GBK_FPS, source_name="school")
    assert [(p.id, p.title_zh or p.title_en) for p in result.problems] == [
        ("school:2001", "最长的山峰"), ("school:2002", "Virtual A+B")]
    assert result.problems[0].limits == {"time_ms": 1500, "memory_mb": 256}
    # The form feed and \x01\x02 in the test data were dropped with the test data, with one warning.
    assert [r.getMessage() for r in caplog.records] == [
        f"import: {GBK_FPS}: 3 control character(s) XML does not allow were removed"]
    statement = next(d for d in result.documents if d.id == "imp-school-2001-statement")
    assert "一排 **n** 座山" in statement.text
    assert "```text\n7\n1 3 5 4 2 2 1\n```" in statement.text  # the CRLF sample reads as lines
    assert "![](images/peak-" in statement.text  # the <img> was embedded as base64 and saved
    solutions = [d for d in result.documents if d.kind == "official_solution" and d.problem_id == "school:2001"]
    assert [d.languages for d in solutions] == [("cpp",), ("python",)]
    text = all_text(result)
    for unused in ("SPJ_MARKER", "PREPEND_MARKER", "TEMPLATE_MARKER", "text judge", "1 1 1"):
        assert unused not in text
    virtual = next(d for d in result.documents if d.problem_id == "school:2002")
    assert virtual.remote_oj == "bas 1000"


def test_hustojs_zip_with_one_problem_xml_imports(tmp_path: Path) -> None:
    archive = tmp_path / "export_1_-2001,2002_20261203101500.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(GBK_FPS, "problem.xml")
    result = import_export("fps", archive, tmp_path / "kb" / "school", source_name="school")[0]
    assert [p.local_id for p in result.problems] == ["2001", "2002"]


def fps_with_test_data(path: Path, megabytes: int) -> Path:
    """A HUSTOJ export whose one test input is `megabytes` MB: most real exports' size is test data."""
    head = GBK_FPS.read_bytes().decode("gbk").replace('encoding="GBK"', 'encoding="UTF-8"')
    before, after = head.split('<test_input name="2">', 1)
    line = "9" * 1023 + "\n"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(before + '<test_input name="2"><![CDATA[')
        for _ in range(megabytes * 1024):
            f.write(line)
        f.write("]]></test_input>" + after.split("</test_input>", 1)[1])
    return path


def test_test_data_is_never_held_in_memory(tmp_path: Path) -> None:
    big = fps_with_test_data(tmp_path / "big.xml", 24)
    assert big.stat().st_size > 24 * 1024 * 1024
    tracemalloc.start()
    try:
        result = read_export("fps", big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [p.local_id for p in result.problems] == ["2001", "2002"]
    # Read whole, the file alone would be 24 MB as bytes and again as text; streamed, a few
    # 1 MB steps are alive at a time.
    assert peak < 8 * 1024 * 1024, f"peak {peak / 2**20:.1f} MB"


def test_broken_xml_after_the_test_data_names_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    text = GBK_FPS.read_bytes().decode("gbk").replace('encoding="GBK"', 'encoding="UTF-8"')
    broken.write_text(text.replace("</hint>", "</hnit>", 1), encoding="utf-8", newline="")
    with pytest.raises(ImportError_) as exc:
        read_export("fps", broken)
    line = text.split("</hint>")[0].count("\n") + 1
    assert str(exc.value).startswith(f"{broken}:{line}: malformed XML (mismatched tag, column ")


def test_an_xml_declared_gbk_that_is_really_utf8_still_reads(tmp_path: Path) -> None:
    # Editors re-save a file as UTF-8 and leave the declaration. These UTF-8 bytes also decode as
    # GB18030 without an error (into 涓枃鏍囬...), so the declaration cannot be trusted first.
    path = tmp_path / "resaved.xml"
    path.write_text('<?xml version="1.0" encoding="GBK"?>\n<fps version="1.6"><item><title>中文标题</title>'
                    "<description>输入数据</description></item></fps>\n", encoding="utf-8")
    result = read_export("fps", path)
    assert result.problems[0].title_zh == "中文标题"
    assert "输入数据" in result.documents[0].text


def test_a_hydro_export_zip_as_hydrooj_writes_it(tmp_path: Path) -> None:
    archive = zipped(REAL / "hydro-export", tmp_path / "problem-system-2026-12-03T10.zip")
    result = read_export("hydro", archive, source_name="school")
    assert [(p.id, p.title_zh or p.title_en) for p in result.problems] == [
        ("school:P1007", "区间最值"), ("school:P1008", "Echo")]
    p1007, p1008 = result.problems
    assert p1007.tags == ("2023", "线段树")  # a year as a tag stays text
    assert p1007.limits == {"time_ms": 2000, "memory_mb": 512}
    assert p1008.limits == {"time_ms": 500, "memory_mb": 64}  # testdata/Config.yml, as Hydro reads it
    docs = {d.id: d for d in result.documents}
    zh = docs["imp-school-P1007-statement"]
    assert zh.lang == "zh" and zh.text.startswith("## 题目描述\n\n给定长为")  # BOM gone, CRLF read as lines
    assert "\r" not in zh.text and "![图](images/range-" in zh.text
    assert docs["imp-school-P1007-statement-en"].text.startswith("## Description\n\nAnswer $q$")
    # P1008 has no statement file: its problem.yaml `content` (Hydro's JSON per language) is used.
    assert docs["imp-school-P1008-statement"].text.startswith("输出读入的那一行。")
    assert docs["imp-school-P1008-statement-en"].text.startswith("Print the line you read.")
    assert "読んだ行" not in all_text(result)  # only zh and en are kept


def test_a_single_hydro_problem_at_the_top_of_a_zip_is_named_after_the_zip(tmp_path: Path) -> None:
    archive = tmp_path / "range-max.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("problem.yaml", "title: Range max\n")
        zf.writestr("problem.md", "Answer range-maximum queries.")
    first = read_export("hydro", archive)
    again = read_export("hydro", archive)
    assert [p.local_id for p in first.problems] == [p.local_id for p in again.problems] == ["range-max"]


def test_a_hydro_problem_without_any_statement_names_its_folder_and_title(tmp_path: Path) -> None:
    export = shutil.copytree(REAL / "hydro-export", tmp_path / "hydro")
    (export / "8" / "problem.yaml").write_text("pid: P1008\ntitle: Echo\n", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        read_export("hydro", export)
    assert str(exc.value) == (f"{export}/8: no problem.md, problem_<lang>.md, problem.pdf or `content` statement "
                              "for 'Echo'")


def test_a_qduoj_export_keeps_statement_samples_and_answers_but_not_templates_or_checkers(tmp_path: Path) -> None:
    archive = zipped(REAL / "qduoj-export", tmp_path / "problem-export.zip")
    result = import_export("qduoj", archive, tmp_path / "kb" / "school", source_name="school")[0]
    assert [(p.id, p.limits) for p in result.problems] == [
        ("school:1001", {"time_ms": 1000, "memory_mb": 256}), ("school:A", {"time_ms": 1000, "memory_mb": 256})]
    docs = {d.id: d for d in result.documents}
    statement = docs["imp-school-1001-statement"].text
    assert "给定一个只含 `()[]{}` 的字符串" in statement
    assert "### 样例 2\n\n输入:\n\n```text\n(]\n```" in statement
    assert "## 提示" not in statement  # "value": null is no hint, not the text "None"
    assert docs["imp-school-1001-solution-1"].languages == ("cpp",)
    text = all_text(result)
    assert "QD_PREPEND_MARKER" not in text and "QD_SPJ_MARKER" not in text
    assert check_knowledge_base(tmp_path / "kb").findings == ()
    assert {d.problem_id for d in load_knowledge_base(tmp_path / "kb").documents} == {"school:1001", "school:A"}


def test_a_qduoj_export_inside_a_folder_in_the_zip_imports(tmp_path: Path) -> None:
    archive = zipped(REAL / "qduoj-export", tmp_path / "nested.zip", prefix="problem-export-2026/")
    assert [p.local_id for p in read_export("qduoj", archive).problems] == ["1001", "A"]


def test_two_contests_exported_together_share_display_id_a_and_are_refused_by_name(tmp_path: Path) -> None:
    export = shutil.copytree(REAL / "qduoj-export", tmp_path / "qduoj")
    shutil.copytree(export / "2", export / "3")
    archive = zipped(export, tmp_path / "problem-export.zip")
    with pytest.raises(ImportError_) as exc:
        read_export("qduoj", archive)
    assert str(exc.value) == f"{archive}:3/problem.json: problem id 'A' is already used by 2/problem.json"


@pytest.mark.parametrize("entry", ["../x", "1/../../x", "/etc/x", "C:/x"])
def test_an_entry_escaping_the_export_is_refused_and_nothing_is_written(tmp_path: Path, entry: str) -> None:
    archive = zipped(REAL / "qduoj-export", tmp_path / "export.zip")
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr(entry, "escaped")
    with pytest.raises(ImportError_) as exc:
        import_export("qduoj", archive, tmp_path / "kb" / "school")
    assert str(exc.value) == f"{archive}: entry {entry!r} would be written outside the import folder"
    assert not (tmp_path / "kb").exists() and not (tmp_path / "x").exists()
