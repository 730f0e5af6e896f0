"""`kb check`: every kind of mistake is reported once, with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.errors import KnowledgeBaseError
from quest.kb.markdown import load_knowledge_base
from quest.kb.validate import check_knowledge_base, python_syntax_errors

CATALOGUE = "- id: 1\n  title_en: One\n- id: 2\n  title_en: Two\n"

GOOD = """---
id: p1-official
problem_id: 1
kind: official_solution
lang: en
title: One - official solution
tags: [math]
verdicts: [WA]
languages: [python]
---

## Idea

Add them.

```python
print(sum(map(int, input().split())))
```
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def lines(folder: Path) -> list[str]:
    """The findings as printed, with the folder prefix removed for readability."""
    return [str(f).replace(f"{folder}/", "") for f in check_knowledge_base(folder).findings]


def test_a_clean_folder_has_no_findings(tmp_path: Path) -> None:
    kb = write(tmp_path, {"problems.yaml": CATALOGUE, "p1.md": GOOD})
    report = check_knowledge_base(kb)
    assert report.findings == ()
    assert report.ok
    assert report.summary() == "2 files checked: 0 errors, 0 warnings"


def test_front_matter_mistakes_point_at_their_lines(tmp_path: Path) -> None:
    kb = write(tmp_path, {
        "problems.yaml": CATALOGUE,
        "a.md": (
            "---\n"
            "id: a\n"
            "problem_id: 1\n"
            "kind: faq\n"
            "lang: en\n"
            "title: A\n"
            "verdict: [TLE]\n"
            "verdicts: [TLE, XYZ]\n"
            "---\n"
            "\n"
            "Text.\n"
        ),
        "b.md": (
            "---\n"
            "id: a\n"
            "problem_id: 99\n"
            "kind: blog\n"
            "lang: fr\n"
            "title: B\n"
            "tags: {x: 1}\n"
            "---\n"
        ),
        "c.md": "---\nproblem_id: 2\n---\nSome text.\n",
    })
    known = "id, kind, title, lang, problem_id, tags, verdicts, languages, examples, signatures, source, url, remote_oj"
    assert lines(kb) == [
        f"a.md:7: error: unknown front-matter field 'verdict' (known: {known})",
        "a.md:8: warning: unknown verdict 'XYZ' (known: AC, WA, TLE, MLE, RE, CE, PE, OLE, SE, UKE)",
        "b.md:1: error: the document has no text below its front matter",
        "b.md:2: error: duplicate id 'a' (also in a.md)",
        "b.md:3: error: problem_id 99 is not in any problems.yaml",
        "b.md:4: error: unknown kind 'blog' (expected one of: official_solution, user_explanation, "
        "error_pattern, faq, problem_statement)",
        "b.md:5: error: unknown lang 'fr' (expected one of: zh, en)",
        "b.md:7: error: 'tags' must be a list",
        "c.md:1: error: front matter has no 'id'",
        "c.md:1: error: front matter has no 'kind'",
        "c.md:1: error: front matter has no 'title'",
        "c.md:1: warning: front matter has no 'lang' (it is read as en)",
    ]
    report = check_knowledge_base(kb)
    assert (report.errors, report.warnings, report.ok) == (10, 2, False)
    assert report.summary() == "4 files checked: 10 errors, 2 warnings"


def test_broken_yaml_and_missing_front_matter(tmp_path: Path) -> None:
    kb = write(tmp_path, {
        "problems.yaml": "- id: 1\n  title_en: [One\n",
        "broken.md": "---\nid: x\nkind: faq\ntitle: [unclosed\nlang: en\n---\nText.\n",
        "bare.md": "# Just a heading\n\nNo front matter.\n",
    })
    out = lines(kb)
    assert out[0].startswith("problems.yaml:3: error: broken YAML")
    assert out[1] == "bare.md:1: error: missing YAML front matter (a '---' block at the top)"
    assert out[2].startswith("broken.md:5: error: broken front matter")
    assert len(out) == 3


def test_not_utf8_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "gbk.md").write_bytes("---\nid: g\nkind: faq\ntitle: 中文\n---\n正文\n".encode("gb18030"))
    out = lines(tmp_path)
    assert len(out) == 1 and out[0].startswith("gbk.md:1: error: not UTF-8 text")


def test_a_problem_listed_in_two_catalogues(tmp_path: Path) -> None:
    kb = write(tmp_path, {"problems.yaml": CATALOGUE, "more/problems.yaml": "- id: 3\n- id: '#2'\n"})
    # Catalogues are read in path order, as the loader reads them: more/ comes first.
    assert lines(kb) == ["problems.yaml:3: error: problem id 2 is also listed in more/problems.yaml"]


def test_python_blocks_that_do_not_parse_report_the_line_inside_the_file(tmp_path: Path) -> None:
    doc = (
        "---\n"                     # 1
        "id: py\n"                  # 2
        "kind: faq\n"               # 3
        "lang: en\n"                # 4
        "title: Py\n"               # 5
        "---\n"                     # 6
        "\n"                        # 7
        "```python\n"               # 8
        "x = 1\n"                   # 9
        "if x == 1\n"               # 10  missing colon
        "    print(x)\n"            # 11
        "```\n"                     # 12
        "\n"                        # 13
        "```py\n"                   # 14
        "print('fine')\n"           # 15
        "```\n"                     # 16
        "\n"                        # 17
        "```cpp\n"                  # 18
        "int main( {\n"             # 19  not Python: not checked
        "```\n"                     # 20
        "\n"                        # 21
        "````py\n"                  # 22
        "s = '```'\n"               # 23  a shorter fence inside does not close the block
        "def f(:\n"                 # 24
        "````\n"                    # 25
    )
    kb = write(tmp_path, {"doc.md": doc})
    assert lines(kb) == [
        "doc.md:10: error: Python code block does not parse: expected ':'",
        "doc.md:24: error: Python code block does not parse: invalid syntax",
    ]


def test_error_patterns_may_show_broken_python_as_a_warning(tmp_path: Path) -> None:
    doc = "---\nid: e\nkind: error_pattern\nlang: en\ntitle: E\n---\n\n```python\nprint 'py2'\n```\n"
    kb = write(tmp_path, {"e.md": doc})
    out = lines(kb)
    assert len(out) == 1 and out[0].startswith("e.md:9: warning: Python code block does not parse")
    assert check_knowledge_base(kb).ok


def test_python_syntax_errors_on_a_body() -> None:
    assert python_syntax_errors("```python\nfor i in range(3):\n```", first_line=20) == [
        (21, "Python code block does not parse: expected an indented block after 'for' statement on line 1")
    ]
    assert python_syntax_errors("text\n```python\nok = True\n```\n") == []


def test_every_file_the_loader_refuses_is_an_error(tmp_path: Path) -> None:
    kb = write(tmp_path, {
        "problems.yaml": CATALOGUE,
        "a-good.md": GOOD,
        "b-dup.md": GOOD,  # sorts after a-good.md: this one is the duplicate
        "orphan.md": GOOD.replace("p1-official", "p9").replace("problem_id: 1", "problem_id: 9"),
        "empty.md": "---\nid: e\nkind: faq\nlang: en\ntitle: E\n---\n",
    })
    refused = {Path(e.split(":")[0]).name for e in load_knowledge_base(kb).errors}
    errors = {Path(f.path).name for f in check_knowledge_base(kb).findings if f.severity == "error"}
    assert refused == errors == {"b-dup.md", "orphan.md", "empty.md"}


def test_a_missing_folder_is_a_knowledge_base_error(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeBaseError, match="knowledge folder not found"):
        check_knowledge_base(tmp_path / "nope")
