"""What the starter knowledge base shipped in knowledge/ promises.

43 classic problems, each in the catalogue with both titles, each with an official solution in
Chinese and in English and at least one error pattern; explanations for many of them; a shelf of
general documents (verdicts, language pitfalls); ids and file names that follow the convention
in knowledge/README.md. Every failure lists all offenders, not just the first.
"""

from __future__ import annotations

import ast
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from quest.kb.documents import Document
from quest.kb.markdown import load_knowledge_base

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"

STARTER_IDS = (
    "1 3 5 11 15 20 21 33 34 39 42 46 51 53 56 62 70 72 76 78 84 94 98 102 104 "
    "121 124 141 146 200 206 207 208 215 239 300 322 347 416 560 704 743 1143"
).split()

MIN_EXPLAINED_PROBLEMS = 15
MIN_GENERAL_DOCUMENTS = 25
SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
VERDICTS = {"AC", "WA", "TLE", "MLE", "RE", "CE", "PE", "OLE"}


@pytest.fixture(scope="module")
def kb():
    return load_knowledge_base(KNOWLEDGE)


@pytest.fixture(scope="module")
def by_problem(kb) -> dict[str, list[Document]]:
    groups: dict[str, list[Document]] = defaultdict(list)
    for doc in kb.documents:
        if doc.problem_id is not None:
            groups[doc.problem_id].append(doc)
    return groups


def _fail_listing(what: str, offenders: list[str]) -> None:
    assert not offenders, f"{len(offenders)} {what}:\n" + "\n".join(offenders)


def test_starter_ids_are_distinct():
    assert len(STARTER_IDS) == 43 == len(set(STARTER_IDS))


def test_catalogue_lists_every_starter_problem_with_both_titles(kb):
    offenders = []
    for pid in STARTER_IDS:
        problem = kb.problems.get(pid)
        if problem is None:
            offenders.append(f"{pid}: not in problems.yaml")
            continue
        missing = [f for f in ("title_zh", "title_en") if not getattr(problem, f).strip()]
        if missing:
            offenders.append(f"{pid}: no {', '.join(missing)}")
        if problem.difficulty not in ("easy", "medium", "hard"):
            offenders.append(f"{pid}: difficulty {problem.difficulty!r} is not easy|medium|hard")
        if not problem.tags or any(not re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+)*", t) for t in problem.tags):
            offenders.append(f"{pid}: tags {list(problem.tags)} are missing or not snake_case")
        limits = problem.limits or {}
        if not isinstance(limits.get("time_ms"), int) or not isinstance(limits.get("memory_mb"), int):
            offenders.append(f"{pid}: limits {dict(limits)} lack integer time_ms / memory_mb")
    _fail_listing("catalogue problems", offenders)


def test_every_problem_has_official_solutions_in_both_languages(by_problem):
    offenders = []
    for pid in STARTER_IDS:
        langs = {d.lang for d in by_problem.get(pid, []) if d.kind == "official_solution"}
        missing = [lang for lang in ("zh", "en") if lang not in langs]
        if missing:
            offenders.append(f"{pid}: no official_solution in {', '.join(missing)}")
    _fail_listing("problems without both official solutions", offenders)


def test_every_problem_has_an_error_pattern(by_problem):
    offenders = [pid for pid in STARTER_IDS if not any(d.kind == "error_pattern" for d in by_problem.get(pid, []))]
    _fail_listing("problems without an error_pattern", offenders)


def test_many_problems_have_a_user_explanation(by_problem):
    explained = sorted(
        (pid for pid in STARTER_IDS if any(d.kind == "user_explanation" for d in by_problem.get(pid, []))),
        key=int,
    )
    assert len(explained) >= MIN_EXPLAINED_PROBLEMS, (
        f"only {len(explained)} problems have a user_explanation (want >= {MIN_EXPLAINED_PROBLEMS}): {explained}"
    )


def test_every_problem_has_documents_in_both_languages(by_problem):
    offenders = []
    for pid in STARTER_IDS:
        counts = Counter(d.lang for d in by_problem.get(pid, []))
        if not counts["zh"] or not counts["en"]:
            offenders.append(f"{pid}: zh={counts['zh']} en={counts['en']}")
    _fail_listing("problems not documented in both languages", offenders)


def test_enough_general_documents(kb):
    general = [d for d in kb.documents if d.problem_id is None]
    assert len(general) >= MIN_GENERAL_DOCUMENTS, (
        f"only {len(general)} general documents (want >= {MIN_GENERAL_DOCUMENTS})"
    )
    wrong_kind = [f"{d.id}: kind {d.kind}" for d in general if d.kind not in ("faq", "error_pattern")]
    _fail_listing("general documents of a kind other than faq / error_pattern", wrong_kind)
    langs = Counter(d.lang for d in general)
    assert langs["zh"] and langs["en"], f"general documents by language: {dict(langs)}"


def test_verdicts_are_known(kb):
    offenders = [
        f"{d.id}: {sorted(set(d.verdicts) - VERDICTS)}" for d in kb.documents if not set(d.verdicts) <= VERDICTS
    ]
    _fail_listing("documents with unknown verdicts", offenders)


def expected_id_pattern(doc: Document) -> str:
    lang = re.escape(doc.lang)
    if doc.problem_id is None:
        prefix = {"faq": "faq", "error_pattern": "pitfall"}.get(doc.kind, "(?:faq|pitfall)")
        return rf"{prefix}-{SLUG}-{lang}"
    p = f"p{re.escape(doc.problem_id)}"
    return {
        "official_solution": rf"{p}-official-{lang}",
        "user_explanation": rf"{p}-explain(?:-{SLUG})?-{lang}",
        "error_pattern": rf"{p}-error-{SLUG}-{lang}",
        "faq": rf"{p}-faq-{SLUG}-{lang}",
    }.get(doc.kind, rf"{p}-{SLUG}-{lang}")


def test_ids_follow_the_naming_convention(kb):
    offenders = [
        f"{d.id} ({d.source}): expected /{expected_id_pattern(d)}/"
        for d in kb.documents
        if not re.fullmatch(expected_id_pattern(d), d.id)
    ]
    _fail_listing("ids that break the naming convention", offenders)


def test_files_follow_the_layout(kb):
    offenders = []
    for d in kb.documents:
        path = Path(d.source)
        try:
            rel = path.resolve().relative_to(KNOWLEDGE.resolve())
        except ValueError:
            offenders.append(f"{d.id}: {path} is outside {KNOWLEDGE}")
            continue
        if not re.fullmatch(rf"{SLUG}\.{d.lang}\.md", path.name):
            offenders.append(f"{d.id} ({rel}): file name should be <name>.{d.lang}.md")
        if d.problem_id is None:
            if rel.parts[0] != "general" or len(rel.parts) != 2:
                offenders.append(f"{d.id} ({rel}): general documents live in general/<name>.<lang>.md")
        else:
            folder = rel.parts[1] if len(rel.parts) == 3 else ""
            if rel.parts[0] != "problems" or not re.fullmatch(rf"{re.escape(d.problem_id)}-{SLUG}", folder):
                offenders.append(
                    f"{d.id} ({rel}): problem documents live in problems/{d.problem_id}-<slug>/<name>.<lang>.md"
                )
    _fail_listing("files outside the layout", offenders)


def test_knowledge_base_has_no_errors(kb):
    assert not kb.errors, "knowledge base errors:\n" + "\n".join(kb.errors)


def test_general_documents_python_snippets_parse(kb):
    offenders = []
    for d in kb.documents:
        if d.problem_id is not None:
            continue
        for i, code in enumerate(re.findall(r"^```python[ \t]*\n(.*?)^```", d.text, re.S | re.M), 1):
            try:
                ast.parse(code)
            except SyntaxError as exc:
                offenders.append(f"{d.id} python block {i}: {exc.msg} (line {exc.lineno})")
    _fail_listing("python snippets in general documents that do not parse", offenders)


def test_general_topics_exist_in_both_languages(kb):
    topics: dict[str, set[str]] = defaultdict(set)
    for d in kb.documents:
        if d.problem_id is None:
            topics[re.sub(r"-(zh|en)$", "", d.id)].add(d.lang)
    both = [t for t, langs in topics.items() if langs == {"zh", "en"}]
    assert len(both) * 2 >= len(topics), f"most general topics should exist in zh and en; only {sorted(both)}"
