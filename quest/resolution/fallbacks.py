"""The rules that read no name in the question's words: the judge's function name in the code (rule ``code``)
and, after the search, the problem most of the top documents belong to (rule ``consensus``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from quest.request import Request
from quest.resolution.catalogue import Catalogue
from quest.resolution.result import Resolution

# An identifier as code writes it: "maxSlidingWindow" in "Solution.maxSlidingWindow(nums, k)".
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def by_code_function(request: Request, cat: Catalogue) -> Resolution | None:
    """The base problem whose judge's function name the code (or the error, or the question) holds: LeetCode's
    signature ("def maxSlidingWindow(self, nums, k)", "func numIslands(grid [][]byte) int", a class "LRUCache") is the
    judge's own name for the problem, in whatever words the question names it ("第k大元素", "凑零钱", "三数和").
    Only names no other well-known problem uses are listed (problems.yaml), and code that holds two problems' names
    names neither. Tried after every rule that reads the question's words: a problem named there is the student's."""
    if not cat.functions:
        return None
    text = "\n".join((request.code or "", request.error or "", request.question or ""))
    named = {cat.functions[w]: w for w in _IDENTIFIER.findall(text) if w in cat.functions}
    if len(named) != 1:
        return None
    (pid, name), = named.items()
    return Resolution(pid, "code", name)


def by_consensus(doc_problems: Sequence[str | None], top: int = 5, needed: int = 3) -> str | None:
    """The problem most of the top documents belong to (the first among them), if it is most."""
    head = list(doc_problems[:top])
    if not head or head[0] is None:
        return None
    return head[0] if sum(1 for p in head if p == head[0]) >= needed else None
