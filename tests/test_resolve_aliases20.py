"""Round 20: what round 19 left in problem resolution from free text (issue 9, item 2).

- A known title's qualifier counts only where it belongs to the name: right after the base title, in the same clause
  (`quest.plan._known_qualifier`). "3Sum: should I return the closest triple…" asks about 3Sum.
"""

from __future__ import annotations

import pytest

import quest.plan as plan_module
from quest.plan import Resolution
from tests.fakes.catalogue import resolved as res

COOLDOWN = "Best Time to Buy and Sell Stock with Cooldown"


@pytest.mark.parametrize("question,pid,evidence", [
    # the qualifier's word is the sentence's: after a clause mark, or too far from the title
    ("3Sum: should I return the closest triple or all of them?", "15", "3sum"),
    ("3Sum should I return the closest triple or every triple", "15", "3sum"),
    ("买卖股票的最佳时机 我用一次遍历记录最低价，提交后WA，是不是要考虑含手续费", "121", "买卖股票的最佳时机"),
    ("买卖股票的最佳时机：题解里提到的含冷冻期是什么意思", "121", "买卖股票的最佳时机"),
])
def test_a_qualifier_far_from_the_title_is_the_sentences_word(base, question, pid, evidence):
    assert res(base, question) == Resolution(pid, "title", evidence)


@pytest.mark.parametrize("question,name", [
    # the qualifier belongs to the name: right after it, or after a comma in the same clause (round 19's cases hold)
    ("Best Time to Buy and Sell Stock, the one with cooldown", COOLDOWN),
    ("Best Time to Buy and Sell Stock (with cooldown): dp states", COOLDOWN),
    ("3Sum, closest version: two pointers", "3Sum Closest"),
    ("买卖股票的最佳时机（含冷冻期）三个状态", "买卖股票的最佳时机含冷冻期"),
])
def test_a_qualifier_in_the_names_clause_names_the_known_problem(base, question, name):
    assert res(base, question) == Resolution(None, "title", name, missing_id=name)


def test_the_qualifier_rule_reads_a_pasted_megabyte_once(base, monkeypatch):
    calls: list[str] = []
    for name in ("_title_ends", "_clause_breaks"):
        real = getattr(plan_module, name)
        monkeypatch.setattr(plan_module, name, lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    # 200 KB: the title, then thousands of far qualifiers and titles in other clauses
    question = "3Sum: " + "should I pick the closest one? 3Sum. " * 5500
    assert len(question) > 200_000
    assert plan_module._known_qualifier(question, Resolution("15", "title", "3sum"), base) is None
    assert plan_module._known_qualifier(question + " 3Sum closest", Resolution("15", "title", "3sum"), base) == \
        Resolution(None, "title", "3Sum Closest", missing_id="3Sum Closest")
    # each pass once a question, not once per occurrence
    assert sorted(calls) == ["_clause_breaks", "_clause_breaks", "_title_ends", "_title_ends"]
