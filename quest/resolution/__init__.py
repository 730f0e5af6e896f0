"""Problem resolution from free text: which problem a request names (or names but the base lacks), and by
which rule. `resolve` tries the rules of the modules below in order; `with_alternatives` adds the base
problems a missing name is often said for.

The problem is resolved by small rules, tried in this order; the plan records which one fired
(5 and 6 run after the search, in `quest.plan.retrieve`):

1. ``field``     the problem field of the request;
   ``name``      another judge's or collection's problem ("SPOJ TEST", "剑指 Offer 17"; `quest.judge_problems`);
2. ``id``        an id or judge URL in the question, the error or a code comment (``239``,
                 ``#239``, ``LC239``, ``leetcode 239``, ``第239题``, ``239题``, ``300. 最长…``,
                 ``problem.php?id=1007``, ``/p/P1000``, ``/problem/1007``, ``/problems/two-sum``, ``力扣第一题``,
                 ``371 sum of two integers: …``);
3. ``title``     a title in either language contained in the question (normalized: case, width,
                 spacing, traditional -> simplified). Titles that are only a technique's name
                 ("Binary Search", a title equal to a tag) count only as the whole question. A
                 title followed by a sequel marker ("课程表 II", "Two Sum IV") is another problem;
   ``name``      a title the question names after a judge or marker ("力扣 跳跃游戏", 《…》, "题目：",
                 "House Robber - …"; `quest.problem_names`) that no base title matches, or by its shape alone
                 (`quest.title_shapes`), or exactly the title of a known problem the base lacks
                 (`quest.known_problems`: "最小栈 …", "用栈实现队列 …" at the opening);
   ``reworded``  such a name, or a question's opening, that rewords exactly one base title ("三数和", "判断链表有环",
                 "最小编辑距离"; `quest.reworded_titles`): that problem, not a missing one; or an opening that says a
                 base title half in Chinese, half in English ("反转 Linked List", `by_mixed_head`);
                 an English opening that runs on from a base title reworded ("valid parenthesis stack pops…",
                 `by_reworded_run`); and, missing, an opening that rewords a known problem's title or says a base
                 title's opposite ("单链表排序", "第K小的数"; `by_known_reworded_head`, round 20);
                 a base title inside a known sibling's name is that sibling, missing, in any case and with its
                 words around the title ("min cost climbing stairs", "爬楼梯最小花费": 746; `_known_around`), and a
                 name several problems' titles fit, shortened so that it drops what tells them apart, names none of
                 them (``candidates``: "前K个高频", "buy and sell stock"; `_shortened_fit`, `by_fitting_opening`,
                 `quest.name_fits`, round 21);
4. ``code``      none of the above named a problem (or only a name no rule could place and no list of known problems
                 holds): the judge's function name in the code, the error or the question (``def maxSlidingWindow``,
                 ``class LRUCache``; `problems.yaml`'s ``functions``, only names no other well-known problem uses);
5. ``id`` / ``title`` confirmed by the search: a bare number that is a base id ("… solution for 239") or a title
                 paraphrased ("连续子数组和为 K 的方案数" of 560; `quest.fuzzy_titles`) counts when the question's own
                 words rank that problem's documents among the top five (`quest.weak_names`) in a confident
                 search (neither weak nor widened); the search is then run again inside the problem, its hits
                 still checked for topic (the problem is a guess: `problem_guessed`);
6. ``consensus`` after searching: most of the top documents come from one problem.

An id or title that is not in the base is reported (``missing_id``) and never mapped to another
problem: the search then keeps to general documents, and the question part leaves the judge and
the missing id or title out. A name students often give a base problem ("最长回文串", 409's title, for 5) offers
that problem in the notice (``alternatives``, `with_alternatives`, round 20). An id after another judge ("AcWing
1", "POJ 1000") or a contest's problem number is never a (LeetCode-numbered) starter problem.
"""

from __future__ import annotations

import dataclasses

from quest.known_problems import CONFUSED_WITH
from quest.request import Request
from quest.resolution.catalogue import Catalogue, known_title
from quest.resolution.fallbacks import by_code_function, by_consensus
from quest.resolution.fits import _shortened_fit, by_fitting_opening
from quest.resolution.ids import by_field, by_id
from quest.resolution.misremembered import by_reworded_phrase
from quest.resolution.result import RULES, Alternative, Resolution, carried_name, shown_name
from quest.resolution.reworded import (
    by_known_reworded_head,
    by_mixed_head,
    by_reworded_head,
    by_reworded_run,
    by_reworded_title,
    by_sibling_head,
)
from quest.resolution.shapes import by_known_head, by_shape
from quest.resolution.siblings import _known_around, _known_qualifier
from quest.resolution.titles import by_judge_problem, by_taiwan_title, by_title
from quest.resolution.words import squash

__all__ = [
    "RESOLVERS", "RULES", "Alternative", "Catalogue", "Resolution", "by_code_function", "by_consensus", "by_field",
    "by_fitting_opening", "by_id", "by_judge_problem", "by_known_head", "by_known_reworded_head", "by_mixed_head",
    "by_reworded_head", "by_reworded_phrase", "by_reworded_run", "by_reworded_title", "by_shape", "by_sibling_head",
    "by_taiwan_title", "by_title", "carried_name", "known_title", "resolve", "shown_name", "squash",
    "with_alternatives",
]

RESOLVERS = (by_field, by_judge_problem, by_id, by_title, by_shape, by_known_head, by_taiwan_title,
             by_reworded_phrase, by_reworded_head, by_mixed_head, by_reworded_run, by_known_reworded_head,
             by_sibling_head)


def resolve(request: Request, cat: Catalogue) -> Resolution:
    """The first rule that names a problem (or a missing one); else the judge's function name in the code
    (`by_code_function`), which also outweighs a name the base does not know that no rule could place; else none."""
    for rule in RESOLVERS:
        found = rule(request, cat)
        if found is not None:
            if found.missing_id is None or found.rule not in ("title", "name") or squash(found.missing_id) in cat.known:
                return _siblings_checked(request.question, found, cat)
            coded = by_code_function(request, cat) if found.rule == "name" else None
            reworded = by_reworded_title(found.missing_id, cat)
            return coded or (reworded and _siblings_checked(request.question, reworded, cat)) or found
    return by_code_function(request, cat) or by_fitting_opening(request, cat) or Resolution()


def _siblings_checked(question: str, found: Resolution, cat: Catalogue) -> Resolution:
    """`found`, unless the name around or behind a base problem's title is a sibling's the base lacks (a qualifier
    beside the title: `_known_qualifier`, `_known_around`) or a shortening several titles fit (`_shortened_fit`)."""
    return (_known_qualifier(question, found, cat) or _known_around(question, found, cat) or
            _shortened_fit(found, cat) or found)


def with_alternatives(resolution: Resolution, cat: Catalogue) -> Resolution:
    """`resolution` with the base problems a missing name is often said for (`quest.known_problems.CONFUSED_WITH`):
    "最长回文串" is 409's title, and many who write it mean 5. Only a name counts (rules "title" and "name"): an id
    ("LeetCode 409") says which problem exactly. The problem stays missing and unmapped — the search keeps to general
    documents, as for any missing problem — and the notice offers the base problem to ask again with."""
    if resolution.missing_id is None or resolution.rule not in ("title", "name"):
        return resolution
    known = cat.known.get(squash(resolution.missing_id))
    if known is None or known.judge != "LeetCode":
        return resolution
    offered = tuple(Alternative(pid, p.title_zh or "", p.title_en or "")
                    for pid in CONFUSED_WITH.get(known.id, ()) if (p := cat.problems.get(pid)) is not None)
    if not offered:
        return resolution
    return dataclasses.replace(resolution, alternatives=offered, known_as=f"{known.judge} {known.id}")
