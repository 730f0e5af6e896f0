"""The key lines of a student's code: the code part of a retrieval query (see quest/plan.py).

Whole programs make poor queries (boilerplate drowns the signal), so only the lines that say
what the code does are kept: definitions, loops, returns, calls to known-slow operations,
and the lines the judge's message points at. The number of lines is bounded. The query
itself is built in one place only, the planning stage (`quest.plan.plan`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_KEY_LINE = re.compile(
    r"^\s*(?:def |class |for |while |return\b|if |elif |else\b|"  # Python
    r"(?:public|private|static|int|long|void|bool|auto|vector|string|double|template)\b.*[({]\s*$|"  # C++/Java
    r"struct |switch\s*\()"
)
# Calls students get wrong often enough that the line is worth keeping wherever it is.
_NOTABLE = re.compile(
    r"\.pop\(0\)|\.insert\(0|popleft|appendleft|\bmax\(|\bmin\(|\bsorted?\(|\.index\(|\bin\s+\w+\s*:|"
    r"sys\.setrecursionlimit|input\(\)|sys\.stdin|\bdeque\b|heapq|bisect|\bendl\b|\bcin\b|scanf|Scanner|"
    r"\bnew\s+\w+\[|malloc|memset|\blong long\b|Integer|\.equals\(|recursion|\bdfs\b|\bbfs\b|"
    r"\[[^\]\n]*\]+\s*\*\s*\w"  # [[]] * n, [[0] * m] * n: one inner list shared n times
)
MAX_QUERY_CHARS = 1500


def key_code_lines(code: str, error_lines: Sequence[int] = (), limit: int = 12) -> list[str]:
    """The most telling lines of `code`, in source order, at most `limit` of them.

    Lines the error points at come first in priority, then lines with notable calls, then
    structural lines (definitions, loops, returns).
    """
    if not code:
        return []
    lines = code.splitlines()
    pointed = {n - 1 for n in error_lines if 0 < n <= len(lines)}
    notable = {i for i, line in enumerate(lines) if _NOTABLE.search(line)}
    structural = {i for i, line in enumerate(lines) if _KEY_LINE.match(line)}
    chosen: list[int] = []
    for group in (sorted(pointed), sorted(notable), sorted(structural)):
        for i in group:
            if i not in chosen and lines[i].strip():
                chosen.append(i)
            if len(chosen) >= limit:
                break
        if len(chosen) >= limit:
            break
    return [lines[i].strip()[:200] for i in sorted(chosen)]
