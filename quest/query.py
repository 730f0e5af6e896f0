"""Request -> retrieval query: the question, the problem's titles, the parsed error, key code lines.

Whole programs make poor queries (boilerplate drowns the signal), so only the lines that say
what the code does are kept: definitions, loops, returns, calls to known-slow operations,
and the lines the judge's message points at. The number of lines is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quest.judge import VERDICT_NAMES, JudgeReport
from quest.kb.documents import Problem
from quest.request import Request

_KEY_LINE = re.compile(
    r"^\s*(?:def |class |for |while |return\b|if |elif |else\b|"  # Python
    r"(?:public|private|static|int|long|void|bool|auto|vector|string|double|template)\b.*[({]\s*$|"  # C++/Java
    r"struct |switch\s*\()"
)
# Calls students get wrong often enough that the line is worth keeping wherever it is.
_NOTABLE = re.compile(
    r"\.pop\(0\)|\.insert\(0|popleft|appendleft|\bmax\(|\bmin\(|\bsorted?\(|\.index\(|\bin\s+\w+\s*:|"
    r"sys\.setrecursionlimit|input\(\)|sys\.stdin|\bdeque\b|heapq|bisect|\bendl\b|\bcin\b|scanf|Scanner|"
    r"\bnew\s+\w+\[|malloc|memset|\blong long\b|Integer|\.equals\(|recursion|\bdfs\b|\bbfs\b"
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


def build_query(request: Request, problem: Problem | None, report: JudgeReport) -> str:
    """A retrieval query in the words the knowledge base uses, bounded in length."""
    parts: list[str] = []
    if request.question:
        parts.append(request.question.strip())
    if problem is not None:
        parts.append(" ".join(t for t in (problem.title_zh, problem.title_en) if t))
    if report.verdict:
        parts.append(f"{report.verdict} {VERDICT_NAMES['en'][report.verdict]} {VERDICT_NAMES['zh'][report.verdict]}")
    if report.exception:
        parts.append(report.exception)
    parts.extend(m for m in report.messages[:2] if m != report.exception)
    if request.code:
        parts.extend(key_code_lines(request.code, report.lines, limit=8))
    if request.language and request.language != "other":
        parts.append(request.language)
    query = "\n".join(p for p in parts if p)
    return query[:MAX_QUERY_CHARS]
