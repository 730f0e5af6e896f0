"""Strict schemas for operator files: one mechanism, errors naming file, line and key (issue 11)."""

from pathlib import Path

import pytest

from quest.errors import KnowledgeBaseError
from quest.kb.markdown import load_catalogue, load_knowledge_base, parse_document
from quest.kb.validate import check_knowledge_base
from quest.schema import (
    FRONT_MATTER_KEYS,
    PROBLEM_KEYS,
    SchemaError,
    load_catalogue_file,
    validate_front_matter,
)

# Nine levels of nine: 387 million list items once expanded by a loader that follows aliases.
BOMB_FRONT_MATTER = "---\nid: bomb\nkind: faq\ntitle: Bomb\nlang: en\n" + "a0: &a0 [lol, lol, lol, lol]\n" + "".join(
    f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]\n"
    for i in range(1, 9)
) + "---\nBody.\n"
IMPORTED = ("---\nid: hydro-p1000\nkind: problem_statement\ntitle: A+B\nlang: en\nproblem_id: P1000\n"
            "source: hydro\nurl: https://example.org/p/P1000\nremote_oj: hydro\n---\nAdd two numbers.\n")


def test_the_allowed_keys_are_one_clear_list_each() -> None:
    assert FRONT_MATTER_KEYS == ("id", "kind", "title", "lang", "problem_id", "tags", "verdicts", "languages",
                                 "examples", "signatures", "source", "url", "remote_oj")
    assert PROBLEM_KEYS == ("id", "title_zh", "title_en", "aka", "functions", "difficulty", "tags", "limits", "source",
                            "url", "remote_oj")


def test_an_alias_bomb_in_front_matter_is_an_error_for_kb_check_and_the_loader(tmp_path: Path) -> None:
    (tmp_path / "bomb.md").write_text(BOMB_FRONT_MATTER, encoding="utf-8")
    report = check_knowledge_base(tmp_path)
    assert [(f.line, f.severity) for f in report.findings] == [(6, "error")]
    assert "anchors and aliases" in report.findings[0].message
    kb = load_knowledge_base(tmp_path)
    assert kb.documents == () and "bomb.md:6: broken front matter: anchors and aliases" in kb.errors[0]


def test_imported_documents_with_source_url_and_remote_oj_pass() -> None:
    doc = parse_document(IMPORTED, "hydro.md")
    assert (doc.problem_id, doc.source_name, doc.url, doc.remote_oj) == (
        "hydro:P1000", "hydro", "https://example.org/p/P1000", "hydro")
    assert doc.extra == {}


@pytest.mark.parametrize("extra,where", [
    ("tags: [[1, 2]]\n", "line 6: tags[0]: Input should be a valid string"),
    ("examples:\n  - input: '1'\n", "line 7: examples[0].output: required key is missing"),
    ("problem_id: 1, 2\n", "line 6: problem_id: '1, 2' is not one problem id"),
    ("url: [a]\n", "line 6: url: Input should be a valid string"),
])
def test_wrong_types_name_the_line_and_the_key(extra: str, where: str) -> None:
    text = "---\nid: a\nkind: faq\ntitle: T\nlang: en\n" + extra + "---\nBody.\n"
    with pytest.raises(KnowledgeBaseError) as caught:
        parse_document(text, "k.md")
    assert f"k.md:{where.split(':')[0].removeprefix('line ')}: front matter: " in str(caught.value)
    with pytest.raises(SchemaError) as schema:
        validate_front_matter(text.split("---\n")[1], "k.md")
    assert str(schema.value.problems[0]).startswith(where)


@pytest.mark.parametrize("text,first", [
    ("", "line 1: the file is empty"),
    ("problems:\n  - id: 1\n    titel_en: One\n", "line 3: problems[0].titel_en: unknown key (a typo?)"),
    ("- id: 1\n  tags: sorting, dp\n  limits: {time: [1]}\n", "line 3: [0].limits.time"),
    ("- id: 1\n- title_en: Two\n", "line 2: [1].id: required key is missing"),
    ("- id: 53\n  aka: 最大子序和\n", "line 2: [0].aka: "),
    ("problem:\n  - id: 1\n", "line 1: problem: unknown key (a typo?)"),
    ("a: &x 1\nb: *x\n", "line 1: anchors and aliases"),
    ("- 1\n", "line 1: [0]: expected a mapping of keys, not a number"),
])
def test_catalogue_errors_name_file_line_and_key(tmp_path: Path, text: str, first: str) -> None:
    path = tmp_path / "problems.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError) as caught:
        load_catalogue_file(path)
    assert str(caught.value.problems[0]).startswith(first)
    with pytest.raises(KnowledgeBaseError) as kb_error:
        load_catalogue(path)
    assert str(kb_error.value).startswith(f"{path}:{first.split(':')[0].removeprefix('line ')}: ")


def test_the_shipped_knowledge_base_fits_the_schemas() -> None:
    root = Path(__file__).resolve().parents[1] / "knowledge"
    assert len(load_catalogue_file(root / "problems.yaml")) >= 40
    report = check_knowledge_base(root)
    assert report.errors == 0, [str(f) for f in report.findings if f.severity == "error"][:5]
