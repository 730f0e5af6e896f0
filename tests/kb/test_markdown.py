"""Loading and chunking Markdown knowledge files."""

from pathlib import Path

import pytest

from quest.errors import KnowledgeBaseError
from quest.kb.documents import Document
from quest.kb.markdown import chunk_document, load_knowledge_base, parse_document

DOC = """---
id: p239-official-zh
problem_id: "#239"
kind: official_solution
lang: zh
title: 滑动窗口最大值 - 官方题解
tags: [deque, monotonic_queue]
verdicts: tle
languages: [Python]
examples:
  - {input: "1\\n", output: "1\\n"}
---
Intro line.

## 思路

用单调队列。

## 参考代码

```python
# ## not a heading inside code
def f():
    return 1
```
"""


def test_front_matter_fields():
    doc = parse_document(DOC, "x.md")
    assert (doc.id, doc.problem_id, doc.kind, doc.lang) == ("p239-official-zh", "239", "official_solution", "zh")
    assert doc.tags == ("deque", "monotonic_queue")
    assert doc.verdicts == ("TLE",) and doc.languages == ("python",)
    assert doc.extra == {"examples": [{"input": "1\n", "output": "1\n"}]}


def test_chunks_follow_headings_and_keep_metadata():
    chunks = chunk_document(parse_document(DOC, "x.md"))
    assert [(c.section, c.text.splitlines()[0]) for c in chunks] == [
        ("", "Intro line."), ("思路", "用单调队列。"), ("参考代码", "```python"),
    ]
    assert "# ## not a heading inside code" in chunks[2].text
    assert all(c.problem_id == "239" and c.kind == "official_solution" and c.tags == ("deque", "monotonic_queue")
               for c in chunks)
    assert [c.id for c in chunks] == ["p239-official-zh#0", "p239-official-zh#1", "p239-official-zh#2"]


def test_a_code_block_is_never_split_even_when_over_the_cap():
    code = "```cpp\n" + "\n".join(f"int x{i} = {i};" for i in range(200)) + "\n```"
    text = "para one.\n\n" + code + "\n\n" + "tail " * 50
    doc = Document(id="d", kind="faq", title="t", text=text)
    chunks = chunk_document(doc, max_chars=300)
    code_chunks = [c for c in chunks if "```cpp" in c.text]
    assert len(code_chunks) == 1 and code_chunks[0].text.count("```") == 2
    assert all(len(c.text) <= 300 for c in chunks if c is not code_chunks[0])
    assert "".join(c.text for c in chunks).count("int x") == 200


def test_long_prose_is_cut_at_sentence_ends():
    doc = Document(id="d", kind="faq", title="t", text="这是一句话。" * 200)
    chunks = chunk_document(doc, max_chars=300)
    assert len(chunks) > 3
    assert all(len(c.text) <= 300 and c.text.endswith("。") for c in chunks)


@pytest.mark.parametrize("text,reason", [
    ("no front matter", "missing YAML front matter"),
    ("---\nid: [broken\n---\nbody\n", "broken front matter"),
    ("---\nid: a\nkind: blog\ntitle: t\n---\nbody\n", "unknown kind 'blog'"),
    ("---\nid: a\nkind: faq\n---\nbody\n", "no 'title'"),
    ("---\nid: a\nkind: faq\ntitle: t\n---\n\n", "no text"),
    ("---\nid: a\nkind: faq\ntitle: t\nlang: fr\n---\nx\n", "unknown lang 'fr'"),
])
def test_bad_documents_name_the_file_and_the_reason(text, reason):
    with pytest.raises(KnowledgeBaseError) as info:
        parse_document(text, "knowledge/bad.md")
    assert str(info.value).startswith("knowledge/bad.md")
    assert reason in str(info.value)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_one_bad_file_never_hides_the_others(tmp_path):
    write(tmp_path / "problems.yaml", "- {id: 1, title_en: Two Sum}\n")
    good = "---\nid: {id}\nkind: faq\ntitle: t\n{extra}---\nbody\n"
    write(tmp_path / "a.md", good.format(id="a", extra=""))
    write(tmp_path / "b.md", "---\nid: [x\n---\nbody\n")
    write(tmp_path / "c.md", good.format(id="a", extra=""))  # duplicate id
    write(tmp_path / "d.md", good.format(id="d", extra="problem_id: 42\n"))  # not in the catalogue
    write(tmp_path / "e.md", good.format(id="e", extra="problem_id: 1\n"))
    (tmp_path / "f.md").write_bytes(b"---\nid: f\n\xff\xfe---\n")
    write(tmp_path / "eval" / "ignored.md", "not a document")
    kb = load_knowledge_base(tmp_path)
    assert sorted(d.id for d in kb.documents) == ["a", "e"]
    errors = "\n".join(kb.errors)
    assert "b.md:2: broken front matter" in errors
    assert "c.md: duplicate id 'a'" in errors
    assert "d.md: problem_id 42 is not in problems.yaml" in errors
    assert "f.md: not UTF-8" in errors
    with pytest.raises(KnowledgeBaseError, match=r"b\.md"):
        load_knowledge_base(tmp_path, strict=True)


def test_catalogue_problems(tmp_path):
    write(tmp_path / "problems.yaml",
          "problems:\n  - {id: 239, title_zh: 滑动窗口最大值, title_en: Sliding Window Maximum}\n")
    kb = load_knowledge_base(tmp_path)
    assert kb.problems["239"].label == "239 · 滑动窗口最大值 · Sliding Window Maximum"
    write(tmp_path / "problems.yaml", "- {id: 1}\n- {id: '#1'}\n")
    assert "listed twice" in load_knowledge_base(tmp_path).errors[0]
