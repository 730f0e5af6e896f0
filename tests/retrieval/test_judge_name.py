"""The judge's name (LeetCode, 力扣) in a question is where the student practises, not its topic: the floor is
measured on the question's other words, so a question about the site itself does not get pages shown only for
naming it; the ranking keeps the name."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.plan import plan, retrieve
from quest.request import Request
from quest.retrieval.judge_name import plain_tokens, without_judge_name
from quest.retrieval.retriever import Retriever, build_retriever
from quest.retrieval.tokenize import tokenize


@pytest.mark.parametrize(("text", "kept"), [
    # The whole name and the two parts the tokenizer adds after it go; nothing else does.
    ("LeetCode extension login", ["extension", "login"]),
    ("VS Code and LeetCode", ["vs", "code"]),  # a "code" of its own stays
    ("exit code 139 on leetcode", ["exit", "code", "139"]),
    ("leetcode.com website", ["com", "website"]),  # written as a host: no parts to drop
])
def test_the_judge_name_and_its_split_parts_are_left_out(text, kept):
    assert without_judge_name(tokenize(text)) == kept


def test_a_part_that_does_not_follow_the_name_is_kept():
    # "leet" and "code" written apart are words of the question, not pieces of the judge's name.
    assert without_judge_name(["leet", "code", "leetcode", "code"]) == ["leet", "code", "code"]
    assert without_judge_name(["力扣", "超时", "领扣"]) == ["超时"]
    assert without_judge_name([]) == []


def test_plain_tokens_are_given_only_when_the_name_is_there():
    assert plain_tokens(["vs", "code", "leetcode", "leet", "code", "login"]) == ("vs", "code", "login")
    assert plain_tokens(["leetcode", "leet", "code"]) == ()  # only the name: nothing left to clear the floor
    assert plain_tokens(["exit", "code", "139"]) is None


@pytest.fixture
def retriever(settings, kb_dir: Path) -> Retriever:
    (kb_dir / "docs" / "global-state.md").write_text(
        "---\nid: pitfall-global-state-en\nkind: error_pattern\nlang: en\ntitle: Global state kept between test "
        "cases\nverdicts: [WA]\n---\n## Cause\n\nLeetCode runs every test case in one process, so a global list keeps "
        "the previous case's values.\n", encoding="utf-8")
    return build_retriever(settings.replace(embedding_model="none"))


def _found(retriever: Retriever, question: str) -> list[str]:
    return [h.chunk.doc_id for h in retrieve(retriever, plan(Request(question=question), retriever))[1].hits]


QUESTION_ABOUT_THE_SITE = "LeetCode on LeetCode: the sign in page refuses my password"


def test_a_question_about_the_site_itself_gets_no_page_that_only_names_the_site(retriever):
    assert _found(retriever, QUESTION_ABOUT_THE_SITE) == []


def test_with_the_name_searched_the_page_that_names_the_site_was_shown(retriever, monkeypatch):
    # What happened before: leetcode + leet + code, twice, cleared the floor on the page that names the site.
    monkeypatch.setattr("quest.retrieval.retriever.plain_tokens", lambda tokens: None)
    assert _found(retriever, QUESTION_ABOUT_THE_SITE) == ["pitfall-global-state-en"]


def test_a_question_on_the_page_topic_still_finds_it_when_it_names_the_site(retriever):
    assert _found(retriever, "on LeetCode my global list keeps the previous test case values") == [
        "pitfall-global-state-en"]



def test_the_name_still_counts_in_the_ranking(retriever, kb_dir):
    # Two pages alike but for the site's name: the one that names it, as the question does, ranks first.
    (kb_dir / "docs" / "global-state-plain.md").write_text(
        "---\nid: pitfall-global-state-plain-en\nkind: error_pattern\nlang: en\ntitle: Global state kept between "
        "test cases\nverdicts: [WA]\n---\n## Cause\n\nThe judge runs every test case in one process, so a global "
        "list keeps the previous case's values.\n", encoding="utf-8")
    retriever = build_retriever(retriever.settings)
    found = _found(retriever, "LeetCode: my global list keeps the previous test case values")
    assert found == ["pitfall-global-state-en", "pitfall-global-state-plain-en"]
