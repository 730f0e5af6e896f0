"""Which problem a student means, when several problem sets share numbers.

Imported problems have ids `<source>:<judge's id>` (`hustoj-main:1007`); starter problems
keep their plain ids (`1`). A student, the CLI or the picker may say `hustoj-main:1007`,
or just `1007` / `P1` -- which is enough while only one set has that number. When two
sets have it, `resolve_problem` says so and lists them, so the caller can ask which one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from quest.kb.documents import Problem, is_source_name, normalize_problem_id, qualified_problem_id


@dataclass(frozen=True)
class Resolution:
    problem: Problem | None = None  # the one problem meant, when it is clear
    candidates: tuple[Problem, ...] = ()  # every problem the text could mean (several: ambiguous)

    @property
    def ambiguous(self) -> bool:
        return self.problem is None and len(self.candidates) > 1

    def question(self, lang: str = "en") -> str:
        """'Which one do you mean: ...?' listing the candidates by their qualified ids."""
        options = "; ".join(f"{qualified_label(p)}" for p in self.candidates)
        return f"有多个题目是这个编号，你指的是哪一个：{options}？" if lang == "zh" else \
            f"Several problems have that number; which one do you mean: {options}?"


def qualified_label(problem: Problem) -> str:
    """'hustoj-main:1007 · A+B' (with the source) for an imported problem; the plain label otherwise."""
    if not problem.source_name:
        return problem.label
    titles = [t for t in (problem.title_zh, problem.title_en) if t]
    return " · ".join([problem.id, *titles])


def resolve_problem(text: str | None, problems: Mapping[str, Problem]) -> Resolution:
    """The problem `text` names by id: qualified (`hydro:P1`), the judge's own (`1007`, `P1`), or a starter id."""
    text = " ".join(str(text or "").split())
    if not text or len(text) > 200:
        return Resolution()
    if text in problems:
        return Resolution(problems[text], (problems[text],))
    source, sep, local = text.partition(":")
    if sep and is_source_name(source.strip().lower()):
        pid = qualified_problem_id(source.strip().lower(), local)
        return Resolution(problems[pid], (problems[pid],)) if pid in problems else Resolution()
    exact = _matches(text, problems, exact=True)
    found = exact or _matches(text, problems, exact=False)
    if len(found) == 1:
        return Resolution(found[0], tuple(found))
    return Resolution(None, tuple(found))


def _matches(text: str, problems: Mapping[str, Problem], *, exact: bool) -> list[Problem]:
    wanted = text if exact else normalize_problem_id(text)
    found = []
    for problem in problems.values():
        own = problem.local_id if problem.source_name else problem.id
        if (own if exact else normalize_problem_id(own)) == wanted:
            found.append(problem)
    return found


def resolve_problem_id(text: str | None, problems: Mapping[str, Problem]) -> str | None:
    """The id of the problem `text` clearly names; otherwise `normalize_problem_id(text)` (unknown or ambiguous)."""
    resolved = resolve_problem(text, problems)
    return resolved.problem.id if resolved.problem is not None else normalize_problem_id(text)


def picker_labels(problems: Mapping[str, Problem]) -> dict[str, str]:
    """id -> label for the problem picker: the judge's own number, with the source only where two share it."""
    counts: dict[str, int] = {}
    for p in problems.values():
        counts[normalize_problem_id(p.display_id) or p.display_id] = counts.get(
            normalize_problem_id(p.display_id) or p.display_id, 0) + 1
    return {
        pid: qualified_label(p) if counts[normalize_problem_id(p.display_id) or p.display_id] > 1 else p.label
        for pid, p in problems.items()
    }
