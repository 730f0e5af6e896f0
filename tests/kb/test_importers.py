"""The OJ importers: sample exports round-trip into a loadable knowledge base; bad input is refused."""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.importers import Limits, import_export, read_export
from quest.kb.importers.html2md import html_to_markdown
from quest.kb.importers.writer import MARKER
from quest.kb.markdown import load_knowledge_base

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "exports"


def zip_folder(folder: Path, archive: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, prefix + path.relative_to(folder).as_posix())
    return archive


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden ones too) with its content."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_refused(exc: pytest.ExceptionInfo[ImportError_], name: str) -> None:
    assert name in str(exc.value)


# --------------------------------------------------------------------------- round trips


def test_fps_round_trip(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "imported"
    import_export("fps", EXPORTS / "fps.xml", into)
    kb = load_knowledge_base(tmp_path / "kb")
    assert kb.errors == ()
    docs = kb.by_id()
    assert sorted(docs) == [
        "imp-fps-fps-1-solution-1",
        "imp-fps-fps-1-solution-2",
        "imp-fps-fps-1-statement",
        "imp-fps-fps-2-statement",
    ]
    statement = docs["imp-fps-fps-1-statement"]
    # No <url> in this export: ids are the file's own numbering, qualified by the source name.
    assert (statement.kind, statement.title, statement.problem_id, statement.lang) == (
        "problem_statement", "A+B 问题", "fps:fps-1", "zh")
    # HTML became Markdown; both samples are there, fenced.
    assert "输入两个整数 **a** 和 **b**，输出它们的和。" in statement.text
    assert "保证 |a|,|b| < 10^9。" in statement.text
    assert "```text\n1 2\n```" in statement.text and "```text\n-5 7\n```" in statement.text
    assert "注意使用 `long long` 可以避免溢出。" in statement.text
    assert "时间限制：1000 ms；内存限制：128 MB" in statement.text
    cpp, py = docs["imp-fps-fps-1-solution-1"], docs["imp-fps-fps-1-solution-2"]
    assert (cpp.kind, cpp.languages, cpp.title) == ("official_solution", ("cpp",), "A+B 问题 - 官方题解 1")
    assert cpp.text.startswith("## 评测通过的代码 (cpp)\n\n以下是题库导出中评测通过的参考代码（cpp）")
    assert "```cpp\n#include <iostream>" in cpp.text
    assert py.languages == ("python",) and "print(a + b)" in py.text

    english = docs["imp-fps-fps-2-statement"]
    assert (english.title, english.lang) == ("Sum of Digits", "en")
    assert "- n has at most 100 digits\n- n has no leading zeros" in english.text
    assert "Time limit: 500 ms. Memory limit: 64 MB." in english.text  # ms and kb units converted
    assert kb.problems["fps:fps-1"].title_zh == "A+B 问题"
    assert dict(kb.problems["fps:fps-2"].limits) == {"time_ms": 500, "memory_mb": 64}


def test_fps_uses_an_id_element_when_the_exporter_wrote_one(tmp_path: Path) -> None:
    xml = tmp_path / "set.xml"
    xml.write_text("<fps><item><problem_id>P42</problem_id><title>\n  T \n</title>"
                   "<description>d</description></item></fps>", encoding="utf-8")
    result = read_export("fps", xml)
    assert [(p.id, p.local_id) for p in result.problems] == [("fps:P42", "P42")]  # kept exactly
    assert [p.title_en for p in result.problems] == ["T"]
    assert [d.id for d in result.documents] == ["imp-fps-P42-statement"]


def test_hydro_round_trip(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "hydro"
    import_export("hydro", EXPORTS / "hydro", into)
    kb = load_knowledge_base(tmp_path / "kb")
    assert kb.errors == ()
    docs = kb.by_id()
    assert sorted(docs) == [
        "imp-hydro-P1000-solution-1",
        "imp-hydro-P1000-solution-2",
        "imp-hydro-P1000-statement",
        "imp-hydro-P1000-statement-en",
        "imp-hydro-P1001-statement",
    ]
    zh, en = docs["imp-hydro-P1000-statement"], docs["imp-hydro-P1000-statement-en"]
    assert (zh.lang, en.lang, zh.title, zh.problem_id) == ("zh", "en", "最大子段和", "hydro:P1000")
    assert zh.tags == ("动态规划", "dp")
    assert "```input1\n7\n2 -4 3 -1 2 -4 3\n```" in zh.text
    assert "时间限制：1000 ms；内存限制：256 MB" in zh.text  # from testdata/config.yaml
    assert "Given a sequence of $n$ integers" in en.text
    idea, code = docs["imp-hydro-P1000-solution-1"], docs["imp-hydro-P1000-solution-2"]
    assert (idea.kind, idea.languages) == ("official_solution", ())
    assert idea.text.startswith("## 思路\n\nKadane 算法")
    assert code.languages == ("python",) and "```python\nn = int(input())" in code.text
    assert docs["imp-hydro-P1001-statement"].lang == "en"
    assert kb.problems["hydro:P1001"].title_en == "Reverse a String"
    assert dict(kb.problems["hydro:P1000"].limits) == {"time_ms": 1000, "memory_mb": 256}


def test_qduoj_round_trip(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "qduoj"
    import_export("qduoj", EXPORTS / "qduoj", into)
    kb = load_knowledge_base(tmp_path / "kb")
    assert kb.errors == ()
    docs = kb.by_id()
    assert sorted(docs) == ["imp-qduoj-1001-solution-1", "imp-qduoj-1001-statement", "imp-qduoj-1002-statement"]
    fib = docs["imp-qduoj-1001-statement"]
    assert (fib.title, fib.lang, fib.problem_id, fib.tags) == ("Fibonacci Number", "en", "qduoj:1001", ("math", "dp"))
    assert "Print the **n**-th Fibonacci number" in fib.text
    assert "One integer n (1 ≤ n ≤ 90)." in fib.text  # &le; decoded
    assert "```text\n10\n```" in fib.text and "```text\n55\n```" in fib.text
    brackets = docs["imp-qduoj-1002-statement"]
    assert brackets.lang == "zh"
    assert "给定一个只含 `(` 和 `)` 的字符串，判断括号是否**匹配**。" in brackets.text  # Markdown kept as is
    assert "```text\n(())\n```" in brackets.text
    assert docs["imp-qduoj-1001-solution-1"].languages == ("python",)
    assert dict(kb.problems["qduoj:1002"].limits) == {"time_ms": 2000, "memory_mb": 128}
    # The test cases are not knowledge.
    assert not any("testcase" in p for p in tree(into))


@pytest.mark.parametrize("fmt, export", [("fps", "fps.xml"), ("hydro", "hydro"), ("qduoj", "qduoj")])
def test_zip_input_gives_the_same_files_as_the_folder(tmp_path: Path, fmt: str, export: str) -> None:
    source = EXPORTS / export
    if source.is_file():
        archive = tmp_path / "export.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.write(source, source.name)
    else:
        archive = zip_folder(source, tmp_path / "export.zip")
    import_export(fmt, source, tmp_path / "from-folder")
    import_export(fmt, archive, tmp_path / "from-zip")
    plain, zipped = tree(tmp_path / "from-folder"), tree(tmp_path / "from-zip")
    plain.pop(MARKER), zipped.pop(MARKER)  # the marker names the source path
    assert plain == zipped
    assert load_knowledge_base(tmp_path / "from-zip").errors == ()


def test_reimport_is_idempotent_and_replaces_the_earlier_import(tmp_path: Path) -> None:
    into = tmp_path / "imported"
    import_export("qduoj", EXPORTS / "qduoj", into)
    first = tree(into)
    (into / "stale.md").write_text("left over", encoding="utf-8")
    import_export("qduoj", EXPORTS / "qduoj", into)
    assert tree(into) == first
    assert [p.name for p in tmp_path.iterdir()] == ["imported"]  # no temp folders left beside it


def test_a_folder_not_created_by_an_import_is_refused_unless_forced(tmp_path: Path) -> None:
    into = tmp_path / "handwritten"
    into.mkdir()
    (into / "notes.md").write_text("mine", encoding="utf-8")
    with pytest.raises(ImportError_) as exc:
        import_export("fps", EXPORTS / "fps.xml", into)
    assert "not created by an import" in str(exc.value) and "--force" in str(exc.value)
    assert tree(into) == {"notes.md": b"mine"}
    import_export("fps", EXPORTS / "fps.xml", into, force=True)
    assert "notes.md" not in tree(into) and (into / MARKER).is_file()


def test_an_import_never_replaces_the_folder_it_reads_from(tmp_path: Path) -> None:
    export = shutil.copytree(EXPORTS / "hydro", tmp_path / "hydro")
    with pytest.raises(ImportError_, match="contains the export"):
        import_export("hydro", export / "P1000", export, force=True)
    assert (export / "P1000" / "problem.yaml").is_file()


# --------------------------------------------------------------------------- refusals


@pytest.fixture
def target(tmp_path: Path) -> Path:
    """An earlier import at the target: a refused import must leave it exactly as it was."""
    into = tmp_path / "kb" / "imported"
    import_export("qduoj", EXPORTS / "qduoj", into)
    return into


def refuse(fmt: str, export: Path, into: Path, limits: Limits | None = None) -> str:
    before = tree(into)
    siblings = sorted(p.name for p in into.parent.iterdir())
    with pytest.raises(ImportError_) as exc:
        import_export(fmt, export, into, limits=limits)
    assert tree(into) == before
    assert sorted(p.name for p in into.parent.iterdir()) == siblings  # no temp folder left behind
    return str(exc.value)


def test_malformed_xml_is_refused_with_file_and_line(tmp_path: Path, target: Path) -> None:
    bad = tmp_path / "broken.xml"
    bad.write_text("<fps>\n<item><title>T</title>\n</fps>\n", encoding="utf-8")
    message = refuse("fps", bad, target)
    assert message.startswith(f"{bad}:3: malformed XML")


@pytest.mark.parametrize(
    "prolog",
    [
        '<!DOCTYPE fps [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE fps [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>',
    ],
)
def test_xml_declaring_entities_is_refused(tmp_path: Path, target: Path, prolog: str) -> None:
    bad = tmp_path / "evil.xml"
    bad.write_text(f'<?xml version="1.0"?>\n{prolog}\n<fps><item><title>&xxe;</title></item></fps>',
                   encoding="utf-8")
    message = refuse("fps", bad, target)
    assert str(bad) in message and "XML that declares entities or references external files is refused" in message


def test_a_doctype_quoted_inside_cdata_is_just_text(tmp_path: Path) -> None:
    xml = tmp_path / "quoted.xml"
    xml.write_text("<fps><item><title>HTML</title><description><![CDATA[<p>Print <code>&lt;!DOCTYPE html&gt;"
                   "</code></p><!DOCTYPE html>]]></description></item></fps>", encoding="utf-8")
    (statement,) = read_export("fps", xml).documents
    assert "Print `<!DOCTYPE html>`" in statement.text


def test_zip_slip_is_refused(tmp_path: Path, target: Path) -> None:
    for evil in ("../../escape.json", "/abs/problem.json", "C:/win/problem.json", "1/..\\..\\x.json"):
        archive = tmp_path / "slip.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.write(EXPORTS / "qduoj" / "1" / "problem.json", "1/problem.json")
            zf.writestr(evil, "{}")
        message = refuse("qduoj", archive, target)
        assert str(archive) in message and "outside the import folder" in message
    assert not (tmp_path / "escape.json").exists()


def test_a_symlink_in_a_zip_is_refused(tmp_path: Path, target: Path) -> None:
    archive = tmp_path / "link.zip"
    link = zipfile.ZipInfo("1/solution/passwd.md")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(EXPORTS / "qduoj" / "1" / "problem.json", "1/problem.json")
        zf.writestr(link, "/etc/passwd")
    assert refuse("qduoj", archive, target) == f"{archive}: entry '1/solution/passwd.md' is a symbolic link"


def test_zip_bomb_is_refused(tmp_path: Path, target: Path) -> None:
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("1/problem.json", "{}")
        zf.writestr("1/solution/huge.md", b"0" * (5 * 1024 * 1024))  # compresses to ~5 KB
    assert archive.stat().st_size < 64 * 1024
    message = refuse("qduoj", archive, target, Limits(max_unpacked_bytes=1024 * 1024))
    assert str(archive) in message and "unpacks to 5.0 MB" in message


def test_a_file_over_the_size_limit_is_refused_without_reading_it(tmp_path: Path, target: Path) -> None:
    big = tmp_path / "big.xml"
    with open(big, "wb") as f:  # sparse: 201 MB on paper, nothing on disk
        f.truncate(201 * 1024 * 1024)
    message = refuse("fps", big, target)  # the default 200 MB limit
    assert message.startswith(f"{big}: file is 201.0 MB, over the 200.0 MB limit")


def test_an_oversized_file_inside_an_export_is_refused(tmp_path: Path, target: Path) -> None:
    export = shutil.copytree(EXPORTS / "qduoj", tmp_path / "qduoj")
    big = export / "1" / "problem.json"
    size = big.stat().st_size
    message = refuse("qduoj", export, target, Limits(max_file_bytes=size - 1))
    assert message == (f"{big}: file is {size} bytes, over the {size - 1} bytes limit "
                       "(raise the limit with --max-size-mb if the file is what you meant to import)")


def test_missing_title_is_refused(tmp_path: Path, target: Path) -> None:
    export = shutil.copytree(EXPORTS / "hydro", tmp_path / "hydro")
    (export / "P1001" / "problem.yaml").write_text("pid: P1001\ntag: [string]\n", encoding="utf-8")
    assert refuse("hydro", export, target) == f"{export}/P1001/problem.yaml: the problem has no title"

    xml = tmp_path / "untitled.xml"
    xml.write_text("<fps><item><title>ok</title><description>d</description></item>"
                   "<item><title>  </title></item></fps>", encoding="utf-8")
    assert refuse("fps", xml, target) == f"{xml}: item 2 has no title"

    qd = shutil.copytree(EXPORTS / "qduoj", tmp_path / "qd")
    (qd / "2" / "problem.json").write_text('{"display_id": "1002", "title": ""}', encoding="utf-8")
    assert refuse("qduoj", qd, target) == f"{qd}/2/problem.json: the problem has no title"


def test_zip_messages_name_the_file_inside_the_archive(tmp_path: Path, target: Path) -> None:
    export = shutil.copytree(EXPORTS / "qduoj", tmp_path / "qduoj")
    (export / "2" / "problem.json").write_text('{"title": "x",\n "samples": [}', encoding="utf-8")
    archive = zip_folder(export, tmp_path / "qduoj.zip")
    assert refuse("qduoj", archive, target).startswith(f"{archive}:2/problem.json:2: broken JSON")


def test_gb18030_text_is_read_and_unknown_encodings_are_refused(tmp_path: Path, target: Path) -> None:
    xml = tmp_path / "gbk.xml"
    xml.write_bytes('<?xml version="1.0" encoding="GB2312"?><fps><item><title>两数之和</title>'
                    "<description>输入两个数</description></item></fps>".encode("gb18030"))
    assert [p.title_zh for p in read_export("fps", xml).problems] == ["两数之和"]

    bad = tmp_path / "utf16.xml"
    bad.write_bytes("<fps><item><title>T</title></item></fps>".encode("utf-16"))
    assert refuse("fps", bad, target).startswith(f"{bad}: unknown text encoding")


def test_an_export_of_the_wrong_format_is_refused(tmp_path: Path, target: Path) -> None:
    assert refuse("qduoj", EXPORTS / "hydro", target).startswith(f"{EXPORTS / 'hydro'}: no <n>/problem.json found")
    assert "no problem.yaml found" in refuse("hydro", EXPORTS / "qduoj", target)
    not_fps = tmp_path / "other.xml"
    not_fps.write_text("<html/>", encoding="utf-8")
    assert refuse("fps", not_fps, target) == f"{not_fps}: not an FPS file (root element <html>, expected <fps>)"


def test_duplicate_problem_ids_in_one_export_are_refused(tmp_path: Path, target: Path) -> None:
    export = shutil.copytree(EXPORTS / "qduoj", tmp_path / "qduoj")
    (export / "2" / "problem.json").write_text('{"display_id": "1001", "title": "Again", "description": "x"}',
                                               encoding="utf-8")
    message = refuse("qduoj", export, target)
    assert message == f"{export}/2/problem.json: problem id '1001' is already used by 1/problem.json"


# --------------------------------------------------------------------------- HTML


def test_html_to_markdown_keeps_structure_and_drops_noise() -> None:
    html = (
        "<h2>Note</h2><p>Line one<br>line&nbsp;two</p><pre>1 2\n3 4</pre>"
        '<ol><li>first</li><li>second</li></ol><p><img src="data:image/png;base64,AAAA">'
        '<img src="/p/1.png" alt="fig"> see <a href="https://oj.example/p/1">here</a></p>'
        "<script>alert(1)</script><style>p{}</style><table><tr><th>n</th><th>ans</th></tr>"
        "<tr><td>1</td><td>2</td></tr></table>"
    )
    assert html_to_markdown(html) == (
        "#### Note\n\nLine one\nline two\n\n```\n1 2\n3 4\n```\n\n1. first\n2. second\n\n"
        "![fig](/p/1.png) see [here](https://oj.example/p/1)\n\nn | ans\n1 | 2"
    )
    assert html_to_markdown("plain a < b") == "plain a < b"


# --------------------------------------------------------------------------- retrieval


def test_an_imported_statement_is_found_by_bm25_search(tmp_path: Path) -> None:
    from quest.retrieval.retriever import build_retriever
    from quest.settings import Settings

    import_export("qduoj", EXPORTS / "qduoj", tmp_path / "kb" / "imported")
    settings = Settings(kb_dir=tmp_path / "kb", data_dir=tmp_path / "data", embedding_model="none",
                        show_progress=False)
    found = build_retriever(settings).search("Fibonacci number 32 bits", problem_id="1001")
    ids = [hit.chunk.doc_id for hit in found.hits]
    assert ids and ids[0] == "imp-qduoj-1001-statement"
