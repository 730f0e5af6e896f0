"""Real OJ exports beside the starter base: judge ids, math, languages, images, PDFs, sources, merging.

The fixtures under tests/data/exports/ reproduce what the judges really write:
hustoj/ -- HUSTOJ's FPS export (the DOCTYPE lines, <url>problem.php?id=N</url>, KaTeX markup
with its TeX annotation, <img><src>/<base64>, an unversioned "Python" solution in Python 2,
remote_oj); hydro_set/ -- `hydrooj export` folders (a tab after `title:`, file:// images in
additional_file/, an HTML statement with <pre><code class="language-input1">; the PDF
statement is generated here); qduoj_cn/ -- QDUOJ's problem.json (ASCII-escaped JSON, Chinese
display ids, `answers`).
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from quest.errors import ImportError_
from quest.kb.catalogue import picker_labels, resolve_problem
from quest.kb.importers import import_export, read_export
from quest.kb.importers.common import code_language, solution_language
from quest.kb.markdown import chunk_document, load_knowledge_base
from quest.kb.validate import check_knowledge_base
from tests.kb.pdfmaker import make_pdf

EXPORTS = Path(__file__).resolve().parents[1] / "data" / "exports"
KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"
HUSTOJ = EXPORTS / "hustoj" / "fps-1007-1008.xml"
DOCTYPE = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE fps PUBLIC\n'
           '"-//freeproblemset//An opensource XML standard for Algorithm Contest Problem Set//EN"\n'
           '"http://hustoj.com/fps.current.dtd" >\n')


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def hydro_set(tmp_path: Path) -> Path:
    """The Hydro fixture plus problem 2's statement as a real PDF file."""
    export = tmp_path / "hydro-export"
    shutil.copytree(EXPORTS / "hydro_set", export)
    (export / "2" / "problem.pdf").write_bytes(make_pdf([
        "Sorting Cards", "Sort n cards by their numbers (1 <= n <= 1000).", "Print the numbers in order.",
    ]))
    return export


def generated_fps(n: int, first_id: int = 1000) -> str:
    """An FPS file as HUSTOJ writes it, with n problems numbered from `first_id`."""
    items = []
    for k in range(n):
        pid = first_id + k
        items.append(
            f"<item>\n<title><![CDATA[Problem {pid}]]></title>\n"
            f"<url><![CDATA[http://oj.example.edu/problem.php?id={pid}]]></url>\n"
            '<time_limit unit="s"><![CDATA[1]]></time_limit>\n<memory_limit unit="mb"><![CDATA[128]]></memory_limit>\n'
            f"<description><![CDATA[<p>Print the sum of {pid} and n, where "
            '<span class="katex"><span class="katex-mathml"><math><semantics><mrow><mi>n</mi></mrow>'
            '<annotation encoding="application/x-tex">n\\le 10^9</annotation></semantics></math></span>'
            '<span class="katex-html" aria-hidden="true"><span class="mord">n≤10</span></span></span>.</p>]]>'
            "</description>\n<input><![CDATA[<p>n</p>]]></input>\n<output><![CDATA[<p>the sum</p>]]></output>\n"
            f"<sample_input><![CDATA[1]]></sample_input>\n<sample_output><![CDATA[{pid + 1}]]></sample_output>\n"
            f'<solution language="Python"><![CDATA[print(int(input()) + {pid})\n]]></solution>\n'
            f'<solution language="C++"><![CDATA[#include <cstdio>\nint main(){{long long n;scanf("%lld",&n);'
            f'printf("%lld\\n",n+{pid});}}\n]]></solution>\n</item>\n'
        )
    return DOCTYPE + '<fps version="1.5">\n<generator name="HUSTOJ" url="https://github.com/zhblue/hustoj/"/>\n' + \
        "".join(items) + "</fps>\n"


@pytest.fixture
def kb_with_starter(tmp_path: Path) -> Path:
    """A copy of the real starter knowledge base to import beside."""
    kb = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, kb)
    return kb


# --------------------------------------------------------------------------- HUSTOJ / FPS


def test_a_hustoj_export_with_its_doctype_imports_with_the_judges_ids(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    import_export("fps", HUSTOJ, kb / "imported" / "main", source_name="hustoj-main")
    loaded = load_knowledge_base(kb)
    assert loaded.errors == ()
    assert sorted(loaded.problems) == ["hustoj-main:1007", "hustoj-main:1008"]
    problem = loaded.problems["hustoj-main:1007"]
    assert (problem.display_id, problem.title_zh, problem.url) == (
        "1007", "数列求和", "http://oj.example.edu/problem.php?id=1007")
    statement = loaded.by_id()["imp-hustoj-main-1007-statement"]
    # KaTeX: the TeX from the annotation, once; the MathML and HTML copies are gone.
    assert "给定 n 个整数 a_i，其中 $1\\le n\\le 100$，求" in statement.text
    assert "$$\\sum_{i=1}^{n} a_i$$" in statement.text
    assert "1≤n≤100" not in statement.text and "∑" not in statement.text
    assert statement.text.count("1\\le n\\le 100") == 1
    assert (statement.source_name, statement.url) == ("hustoj-main", "http://oj.example.edu/problem.php?id=1007")
    assert loaded.by_id()["imp-hustoj-main-1008-statement"].remote_oj == "POJ 1000"
    assert check_knowledge_base(kb).findings == ()


def test_fps_solution_languages_are_mapped_exactly(tmp_path: Path) -> None:
    result = read_export("fps", HUSTOJ, source_name="hustoj-main")
    languages = {d.id: d.languages for d in result.documents if d.kind == "official_solution"}
    assert languages == {
        "imp-hustoj-main-1007-solution-1": ("cpp",),
        "imp-hustoj-main-1007-solution-2": ("python2",),  # "Python" in the export, but Python 2 code
        "imp-hustoj-main-1008-solution-1": ("python",),
        "imp-hustoj-main-1008-solution-2": ("pascal",),
        "imp-hustoj-main-1008-solution-3": ("scratch3",),  # unknown: kept by name
    }
    py2 = result.documents[2]
    assert "```python2\nn = int(raw_input())" in py2.text


@pytest.mark.parametrize("declared, code, expected", [
    ("C++17", "", "cpp"), ("G++", "", "cpp"), ("Clang++", "", "cpp"), ("Clang", "", "c"), ("C", "", "c"),
    ("Python3", "print 1", "python"), ("Python2", "print(1)", "python2"), ("PyPy3", "", "python"),
    ("Java", "", "java"), ("Golang", "", "go"), ("FreeBasic", "", "freebasic"), ("Obj-C", "", "objc"),
    ("Cobol", "", "cobol"), ("Python", "print(1)", "python"), ("Python", "print 1", "python2"),
])
def test_solution_language(declared: str, code: str, expected: str) -> None:
    assert solution_language(declared, code) == expected


def test_an_unknown_language_name_is_not_guessed() -> None:
    assert code_language("Scratch3") is None and code_language("python2.7") == "python2"


def test_embedded_and_inline_images_are_saved_beside_the_problem(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "main"
    import_export("fps", HUSTOJ, into, source_name="hustoj-main")
    files = tree(into)
    (sum_png,) = [p for p in files if p.startswith("1007/images/")]
    (inline_png,) = [p for p in files if p.startswith("1008/images/")]
    assert files[sum_png].startswith(b"\x89PNG") and files[inline_png].startswith(b"\x89PNG")
    statement = (into / "1007" / "imp-hustoj-main-1007-statement.md").read_text(encoding="utf-8")
    assert f"![sum]({sum_png.removeprefix('1007/')})" in statement
    assert "data:image" not in (into / "1008" / "imp-hustoj-main-1008-statement.md").read_text(encoding="utf-8")


def test_an_image_over_the_size_cap_is_left_out(tmp_path: Path) -> None:
    from quest.kb.importers import Limits

    result = read_export("fps", HUSTOJ, Limits(max_image_bytes=10))
    assert dict(result.images) == {}
    statement = result.documents[0].text
    assert "http://oj.example.edu/upload/image/20230101/sum.png" in statement  # the judge's link stays


@pytest.mark.parametrize("id_from, expected", [
    ("url", ["1007", "1008"]), ("order", ["fps-1007-1008-1", "fps-1007-1008-2"]),
])
def test_id_from(id_from: str, expected: list[str]) -> None:
    result = read_export("fps", HUSTOJ, id_from=id_from)
    assert [p.local_id for p in result.problems] == expected


def test_ids_from_path_style_urls(tmp_path: Path) -> None:
    xml = tmp_path / "set.xml"
    xml.write_text(DOCTYPE + "<fps><item><title>A</title><url>https://oj.example/p/P1001</url>"
                   "<description>d</description></item><item><title>B</title>"
                   "<url>https://oj.example/problem/77/</url><description>d</description></item></fps>",
                   encoding="utf-8")
    assert [p.local_id for p in read_export("fps", xml).problems] == ["P1001", "77"]


def test_a_hundred_and_twenty_problem_export_imports_and_checks_clean(tmp_path: Path) -> None:
    export = tmp_path / "problemset.xml"
    export.write_text(generated_fps(120), encoding="utf-8")
    kb = tmp_path / "kb"
    result, report = import_export("fps", export, kb / "imported" / "main", source_name="hustoj-main")
    assert [p.local_id for p in result.problems] == [str(1000 + k) for k in range(120)]
    assert len(report.added) == 120
    assert len(result.documents) == 360
    statement = load_knowledge_base(kb).by_id()["imp-hustoj-main-1119-statement"]
    assert "Print the sum of 1119 and n, where $n\\le 10^9$." in statement.text
    check = check_knowledge_base(kb)
    assert (check.errors, check.warnings, check.files) == (0, 0, 361)


# --------------------------------------------------------------------------- Hydro


def test_a_hydro_set_with_a_tab_and_a_pdf_imports_completely(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    kb = tmp_path / "kb"
    with caplog.at_level(logging.WARNING):
        result, _ = import_export("hydro", hydro_set(tmp_path), kb / "hydro", source_name="school")
    assert [p.local_id for p in result.problems] == ["P1", "P2", "P1000"]  # pids kept, P1 is not 1
    assert any("1/problem.yaml: 1 line(s) with a tab after 'key:'" in r.getMessage() for r in caplog.records)
    loaded = load_knowledge_base(kb)
    assert loaded.errors == ()
    assert loaded.problems["school:P1"].title_en == "A+B Problem"
    assert loaded.problems["school:P1"].tags == ("入门", "模拟")
    docs = loaded.by_id()
    pdf = docs["imp-school-P2-statement"]
    assert pdf.text.startswith("> Note: this statement was extracted as text from the PDF file problem.pdf")
    assert "Sort n cards by their numbers (1 <= n <= 1000)." in pdf.text
    html = docs["imp-school-P1000-statement"]
    assert html.text.startswith("## Description\n\nCount the words in one line of text.\n\n## Input")
    assert "```input1\nhello quest world\n```" in html.text and "<h2>" not in html.text
    assert check_knowledge_base(kb).errors == 0


def test_hydro_file_images_are_copied(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "hydro"
    import_export("hydro", hydro_set(tmp_path), into)
    files = tree(into)
    (image,) = [p for p in files if p.startswith("P1/images/")]
    assert files[image] == (EXPORTS / "hydro_set" / "1" / "additional_file" / "ab.png").read_bytes()
    statement = (into / "P1" / "imp-hydro-P1-statement.md").read_text(encoding="utf-8")
    assert f"![示意图]({image.removeprefix('P1/')})" in statement and "file://" not in statement


def test_a_pdf_linked_from_the_statement_is_read(tmp_path: Path) -> None:
    export = tmp_path / "h"
    (export / "9" / "additional_file").mkdir(parents=True)
    (export / "9" / "problem.yaml").write_text("pid: P9\ntitle: Linked\n", encoding="utf-8")
    (export / "9" / "problem_en.md").write_text("@[PDF](file://statement.pdf)\n", encoding="utf-8")
    (export / "9" / "additional_file" / "statement.pdf").write_bytes(make_pdf(["Linked statement text."]))
    (doc,) = read_export("hydro", export).documents
    assert "PDF file statement.pdf" in doc.text and "Linked statement text." in doc.text


# --------------------------------------------------------------------------- QDUOJ


def test_qduoj_chinese_display_ids_and_accepted_code(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    into = kb / "qduoj"
    result, _ = import_export("qduoj", EXPORTS / "qduoj_cn", into, source_name="ds-course")
    assert [p.local_id for p in result.problems] == ["排序1", "查找1"]
    folders = sorted(p.name for p in into.iterdir() if p.is_dir())
    assert len(folders) == 2 and all(f.startswith("1-") and len(f) == 10 for f in folders)  # slug + hash, not "1"
    loaded = load_knowledge_base(kb)
    assert loaded.errors == ()
    sort = loaded.problems["ds-course:排序1"]
    assert (sort.title_zh, sort.tags, dict(sort.limits)) == ("整数排序", ("排序",), {"time_ms": 1000, "memory_mb": 256})
    solutions = sorted((d.problem_id, d.languages) for d in loaded.documents if d.kind == "official_solution")
    assert solutions == [("ds-course:排序1", ("cpp",)), ("ds-course:排序1", ("python",)),
                         ("ds-course:排序1", ("python2",)), ("ds-course:查找1", ("go",))]
    statement = next(d for d in loaded.documents if d.problem_id == "ds-course:排序1" and d.kind == "problem_statement")
    assert "给定 n 个整数，按从小到大的顺序输出。" in statement.text
    assert "n ≤ 10^5" in statement.text and "数据结构课 实验一" in statement.text
    assert "```text\n5\n3 1 4 1 5\n```" in statement.text
    answer = next(d for d in loaded.documents if d.languages == ("python",) and d.problem_id == "ds-course:排序1")
    assert answer.text.startswith("## 评测通过的代码 (python)")
    assert "print(*sorted(map(int, input().split())))" in answer.text
    assert check_knowledge_base(kb).errors == 0


# --------------------------------------------------------------------------- beside the starter base


def test_importing_beside_the_starter_base_changes_no_starter_problem(kb_with_starter: Path, tmp_path: Path) -> None:
    before = load_knowledge_base(kb_with_starter)
    import_export("hydro", hydro_set(tmp_path), kb_with_starter / "imported" / "hydro")
    import_export("fps", HUSTOJ, kb_with_starter / "imported" / "main", source_name="hustoj-main")
    after = load_knowledge_base(kb_with_starter)
    assert after.errors == ()
    assert {k: v for k, v in after.problems.items() if k in before.problems} == dict(before.problems)
    assert after.problems["1"].title_en == "Two Sum"
    assert set(after.by_id()) >= set(before.by_id())
    assert all(after.by_id()[i] == d for i, d in before.by_id().items())
    # "1" is still Two Sum; "P1" is the imported one.
    assert resolve_problem("1", after.problems).problem.title_en == "Two Sum"
    assert resolve_problem("P1", after.problems).problem.id == "hydro:P1"
    assert check_knowledge_base(kb_with_starter).errors == 0


def test_two_sets_sharing_numbers_both_stay_reachable(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    import_export("fps", HUSTOJ, kb / "main", source_name="hustoj-main", kb_root=kb)
    import_export("fps", HUSTOJ, kb / "contest", source_name="hustoj-contest", kb_root=kb)
    loaded = load_knowledge_base(kb)
    assert loaded.errors == ()
    both = resolve_problem("1007", loaded.problems)
    assert both.ambiguous and [p.id for p in both.candidates] == ["hustoj-contest:1007", "hustoj-main:1007"]
    assert both.question() == ("Several problems have that number; which one do you mean: "
                               "hustoj-contest:1007 · 数列求和; hustoj-main:1007 · 数列求和?")
    assert resolve_problem("hustoj-main:1007", loaded.problems).problem.id == "hustoj-main:1007"
    assert picker_labels(loaded.problems)["hustoj-main:1007"] == "hustoj-main:1007 · 数列求和"
    assert check_knowledge_base(kb).errors == 0


def test_a_number_only_one_set_has_resolves_plainly(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    import_export("fps", HUSTOJ, kb / "main", source_name="hustoj-main")
    problems = load_knowledge_base(kb).problems
    assert resolve_problem("1008", problems).problem.id == "hustoj-main:1008"
    assert picker_labels(problems)["hustoj-main:1008"] == "1008 · A+B Problem"
    assert resolve_problem("4242", problems).candidates == ()


def test_a_second_folder_with_the_same_source_name_is_refused(tmp_path: Path) -> None:
    kb, export = tmp_path / "kb", hydro_set(tmp_path)
    import_export("hydro", export, kb / "a", kb_root=kb)
    with pytest.raises(ImportError_) as exc:
        import_export("hydro", export, kb / "b", kb_root=kb)
    assert str(exc.value).startswith(f"{kb / 'a'}: already holds an import named 'hydro'")
    assert not (kb / "b").exists()


def test_a_collision_between_two_sources_is_a_check_error(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    import_export("hydro", hydro_set(tmp_path), kb / "a")
    shutil.copytree(kb / "a", kb / "b")  # e.g. a folder copied by hand
    report = check_knowledge_base(kb)
    assert report.errors >= 3
    first = next(f for f in report.findings if "problems.yaml" in f.path)
    assert first.message.startswith(f"problem id hydro:P1 is also listed in {kb / 'a' / 'problems.yaml'}")
    assert "two imports share the source name 'hydro'" in first.message


def test_the_starter_base_can_be_left_out(kb_with_starter: Path) -> None:
    import_export("fps", HUSTOJ, kb_with_starter / "imported" / "main", source_name="hustoj-main")
    full = load_knowledge_base(kb_with_starter)
    own = load_knowledge_base(kb_with_starter, starter=False)
    assert sorted(own.problems) == ["hustoj-main:1007", "hustoj-main:1008"]
    general = {d.id for d in full.documents if d.problem_id is None}
    assert general and {d.id for d in own.documents if d.problem_id is None} == general
    assert check_knowledge_base(kb_with_starter, starter=False).errors == 0


# --------------------------------------------------------------------------- re-import


def test_reimport_merges_and_reports(tmp_path: Path) -> None:
    into = tmp_path / "kb" / "main"
    first = tmp_path / "first.xml"
    first.write_text(generated_fps(3), encoding="utf-8")  # 1000, 1001, 1002
    _, report = import_export("fps", first, into, source_name="main")
    assert report.added == ("1000", "1001", "1002")
    before = tree(into)

    second = tmp_path / "second.xml"
    text = generated_fps(3, first_id=1001).replace("Problem 1002", "Problem 1002 (revised)")  # 1001-1003
    second.write_text(text, encoding="utf-8")
    _, report = import_export("fps", second, into, source_name="main")
    assert (report.added, report.updated, report.unchanged, report.removed, report.kept) == (
        ("1003",), ("1002",), ("1001",), (), ("1000",))
    after = tree(into)
    assert {k: v for k, v in after.items() if k.startswith(("1000/", "1001/"))} == \
        {k: v for k, v in before.items() if k.startswith(("1000/", "1001/"))}  # untouched, byte for byte
    assert sorted(load_knowledge_base(into).problems) == ["main:1000", "main:1001", "main:1002", "main:1003"]
    assert "Problem 1002 (revised)" in (into / "1002" / "imp-main-1002-statement.md").read_text(encoding="utf-8")

    _, report = import_export("fps", second, into, source_name="main", prune=True)
    assert (report.added, report.updated, report.unchanged, report.removed) == ((), (), ("1001", "1002", "1003"),
                                                                                ("1000",))
    assert not (into / "1000").exists()
    assert sorted(load_knowledge_base(into).problems) == ["main:1001", "main:1002", "main:1003"]


def test_reimport_under_another_source_name_is_refused(tmp_path: Path) -> None:
    into = tmp_path / "main"
    import_export("fps", HUSTOJ, into, source_name="main")
    before = tree(into)
    with pytest.raises(ImportError_) as exc:
        import_export("fps", HUSTOJ, into, source_name="other")
    assert str(exc.value).startswith(f"{into}: holds the import of source 'main', not 'other' (pass --source main")
    assert tree(into) == before


# --------------------------------------------------------------------------- statements that help


def test_statement_chunks_carry_title_section_source_and_limits(tmp_path: Path) -> None:
    import_export("fps", HUSTOJ, tmp_path / "main", source_name="hustoj-main")
    statement = load_knowledge_base(tmp_path).by_id()["imp-hustoj-main-1008-statement"]
    chunks = chunk_document(statement)
    assert [c.section for c in chunks] == ["Description", "Input", "Output", "Sample 1"]
    assert chunks[0].text.endswith("Time limit: 500 ms. Memory limit: 64 MB.")  # no tiny Limits chunk
    assert chunks[0].indexed_text.startswith("A+B Problem - Description\n")
    assert {(c.source_name, c.url) for c in chunks} == {("hustoj-main", "http://oj.example.edu/problem.php?id=1008")}


def test_a_problem_with_only_its_statement_is_marked_and_the_prompt_says_so(tmp_path: Path) -> None:
    from quest.prompts import _problem_line

    import_export("hydro", hydro_set(tmp_path), tmp_path / "kb" / "hydro")
    problems = load_knowledge_base(tmp_path / "kb").problems
    assert problems["hydro:P1"].statement_only
    line = _problem_line(problems["hydro:P1"], "hydro:P1", "en")
    assert line == ("Problem: P1 · A+B Problem (tags: 入门, 模拟)\nNote: the knowledge base has only this problem's "
                    "statement (no solution or explanation). Say so in the answer and reason from the statement "
                    "and the student's code.")
    with_solution = load_knowledge_base(EXPORTS.parent / "kb_small").problems
    assert sorted(with_solution) == ["1", "239", "704"]
    assert not any(p.statement_only for p in with_solution.values())  # they have solutions


def test_sources_carry_the_import_and_the_ui_links_the_judge(tmp_path: Path) -> None:
    from quest.context import build_context
    from quest.retrieval.types import Hit
    from quest.ui.render import sources_html

    import_export("fps", HUSTOJ, tmp_path / "main", source_name="hustoj-main")
    statement = load_knowledge_base(tmp_path).by_id()["imp-hustoj-main-1008-statement"]
    context = build_context([Hit(chunk_document(statement)[0], 0.9)], lang="en")
    (source,) = context.sources
    assert (source.source_name, source.url, source.problem_id) == (
        "hustoj-main", "http://oj.example.edu/problem.php?id=1008", "hustoj-main:1008")
    html = sources_html(context.sources, lang="en")
    assert ('<a href="http://oj.example.edu/problem.php?id=1008" target="_blank" '
            'rel="noopener noreferrer">') in html
    assert '<div class="q-src-origin">problem hustoj-main:1008 · hustoj-main · ' in html


def test_the_retriever_finds_an_imported_problem_by_its_judge_number(tmp_path: Path) -> None:
    from quest.retrieval.retriever import build_retriever
    from quest.settings import Settings

    kb = tmp_path / "kb"
    import_export("fps", HUSTOJ, kb / "main", source_name="hustoj-main")
    import_export("fps", HUSTOJ, kb / "contest", source_name="hustoj-contest", id_from="url")
    settings = Settings(kb_dir=kb, data_dir=tmp_path / "data", embedding_model="none", show_progress=False)
    retriever = build_retriever(settings)
    assert retriever.exact_match("1007") is None  # two sets have it: the caller must ask which one
    assert retriever.exact_match("hustoj-main:1007").id == "hustoj-main:1007"
    result = retriever.search("how to sum the numbers", problem_id="hustoj-contest:1007")
    assert result.problem_id == "hustoj-contest:1007" and result.hits
    assert {h.chunk.problem_id for h in result.hits if h.scope == "problem"} == {"hustoj-contest:1007"}
    unsure = retriever.search("how to sum the numbers", problem_id="1007")
    assert unsure.problem_id is None
    assert unsure.notices[0] == ("Several problems have that number; which one do you mean: hustoj-contest:1007 · "
                                 "数列求和; hustoj-main:1007 · 数列求和? Searching the whole knowledge base.")
    assert retriever.search("sum", problem_id="1008").problem_id is None  # still two sets
    only = retriever.search("sum", problem_id="hustoj-main:1008")
    assert only.problem_id == "hustoj-main:1008"
    # The saved index keeps where each chunk came from: a second start loads it, links intact.
    reloaded = build_retriever(settings)
    hit = reloaded.search("sum", problem_id="hustoj-main:1008").hits[0]
    assert (hit.chunk.source_name, hit.chunk.url) == ("hustoj-main", "http://oj.example.edu/problem.php?id=1008")


def test_after_a_reimport_the_index_re_embeds_only_what_changed(tmp_path: Path) -> None:
    from quest.retrieval.index import build_index, update_index
    from quest.settings import Settings

    kb = tmp_path / "kb"
    export = tmp_path / "set.xml"
    export.write_text(generated_fps(3), encoding="utf-8")
    import_export("fps", export, kb / "main", source_name="main")
    settings = Settings(kb_dir=kb, data_dir=tmp_path / "data", embedding_model="none", show_progress=False)
    index = build_index(load_knowledge_base(kb), settings, None)
    export.write_text(generated_fps(3).replace("Problem 1001", "Problem 1001 (revised)"), encoding="utf-8")
    _, report = import_export("fps", export, kb / "main", source_name="main")
    assert report.updated == ("1001",)
    _, update = update_index(index, load_knowledge_base(kb), settings, None)
    # The title is in every document of the problem: its statement and both solutions change.
    assert sorted(update.embedded_docs) == ["imp-main-1001-solution-1", "imp-main-1001-solution-2",
                                            "imp-main-1001-statement"]
    assert update.removed_docs == ()


def test_check_explains_a_document_whose_source_has_no_catalogue(tmp_path: Path) -> None:
    front = "id: x\nproblem_id: 7\nsource: mine\nkind: faq\nlang: en\ntitle: T"
    (tmp_path / "a.md").write_text(f"---\n{front}\n---\n\nText\n", encoding="utf-8")
    (finding,) = check_knowledge_base(tmp_path).findings
    assert (finding.line, finding.message) == (
        3, "problem_id 7 of source 'mine' is not in a problems.yaml with 'source: mine' "
           "(`source` names an imported problem set)")


def test_the_cli_imports_reimports_and_checks_without_the_starter_base(
    kb_with_starter: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    from quest.cli import main

    into = kb_with_starter / "imported" / "main"
    args = ["--kb", str(kb_with_starter), "kb", "import", "--format", "fps", str(HUSTOJ), "--source", "hustoj-main",
            "--into", str(into)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:4] == [
        f"imported 2 problems, 7 documents from {HUSTOJ} into {into} as source 'hustoj-main'",
        "  2 added, 0 updated, 0 unchanged, 0 removed",
        "  added: 1007",
        "  added: 1008",
    ]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[1] == "  0 added, 0 updated, 2 unchanged, 0 removed"
    # The same export under the default source name, into another folder: a second set, no collision.
    assert main(["--kb", str(kb_with_starter), "kb", "import", "--format", "fps", str(HUSTOJ),
                 "--into", str(kb_with_starter / "imported" / "fps")]) == 0
    capsys.readouterr()
    monkeypatch.setenv("QUEST_STARTER_KB", "false")
    assert main(["--kb", str(kb_with_starter), "kb", "check"]) == 0
    general = len(list((kb_with_starter / "general").glob("*.md")))
    assert capsys.readouterr().out == f"{general + 14 + 2} files checked: 0 errors, 0 warnings\n"


def test_list_items_holding_paragraphs_keep_their_text_on_the_marker_line() -> None:
    from quest.kb.importers.html2md import html_to_markdown

    assert html_to_markdown("<ul><li><p>one</p></li><li><p>two</p></li></ul><ol><li><p>x</p></li></ol>") == \
        "- one\n\n- two\n\n1. x"


def test_mathjax_scripts_and_tex_attributes_become_tex_once() -> None:
    from quest.kb.importers.html2md import html_to_markdown

    html = ('<p>Let <span class="MathJax_Preview">n</span><span class="MathJax" id="MathJax-Element-1-Frame">'
            '<span class="math"><span>n</span></span></span><script type="math/tex">n\\le 10^5</script> and '
            '<script type="math/tex; mode=display">\\sum a_i</script> with <span data-tex="x^2">x2</span>.</p>')
    assert html_to_markdown(html) == "Let $n\\le 10^5$ and $$\\sum a_i$$ with $x^2$."


def test_an_import_folder_from_before_source_names_is_replaced(tmp_path: Path) -> None:
    into = tmp_path / "imported"
    (into / "fps-1").mkdir(parents=True)
    (into / "fps-1" / "imp-fps-fps-1-statement.md").write_text("old", encoding="utf-8")
    (into / ".quest-import.json").write_text('{"format": "fps", "source": "fps.xml", "files": []}', encoding="utf-8")
    _, report = import_export("fps", HUSTOJ, into, source_name="main")
    assert report.added == ("1007", "1008") and not (into / "fps-1").exists()


def test_a_contest_lock_on_the_judges_number_hides_the_imported_problem_and_its_accepted_code(
    tmp_path: Path, fake_ollama,
) -> None:
    """HUSTOJ exports accepted code; during a contest `problems: [1007]` must keep it away from students."""
    from quest.assistant import Assistant
    from quest.events import Sources
    from quest.llm import OllamaChatModel
    from quest.request import Request
    from quest.retrieval.retriever import build_retriever
    from quest.settings import Settings

    kb = tmp_path / "kb"
    import_export("fps", HUSTOJ, kb / "main", source_name="hustoj-main")
    lock = tmp_path / "lock.yaml"
    lock.write_text("problems: [1007]\n", encoding="utf-8")
    settings = Settings(kb_dir=kb, data_dir=tmp_path / "data", embedding_model="none", show_progress=False,
                        contest_lock_file=lock, ollama_host=fake_ollama.url)
    assistant = Assistant(settings, build_retriever(settings), OllamaChatModel(settings))
    # By the judge's number, by the qualified id, or by its title alone: refused before retrieval.
    for fields in ({"problem_id": "1007"}, {"problem_id": "hustoj-main:1007"},
                   {"question": "数列求和 这题的AC代码是什么"}):
        request = Request(**{"question": "给我这题的AC代码", "tier": "solution", **fields})
        events = list(assistant.ask(request))
        assert [(type(e).__name__, getattr(e, "code", "")) for e in events] == [("Notice", "locked"), ("Done", "")]
    assert fake_ollama.chat_bodies == []
    lock.write_text("problems: [1008]\n", encoding="utf-8")
    events = list(assistant.ask(Request(question="给我这题的AC代码", problem_id="1007", tier="solution")))
    kinds = {(s.kind, s.problem_id) for e in events if isinstance(e, Sources) for s in e.sources}
    assert ("official_solution", "hustoj-main:1007") in kinds  # unlocked: the same request is answered
