"""Probe: how problem names as students shorten and translate them resolve (round 21, issue 9 rule 2).

Reads `tests/data/resolve_names21.jsonl` (our own names: base problems' short names, their siblings the base lacks,
and shortenings that fit several problems) and counts, per list:

- right: the base problem named; a sibling told missing; an ambiguous name left unresolved (or asked about);
- told: a base problem's name told missing (wrong, but not silent);
- none: nothing resolved (weak: the search may still confirm a paraphrase, `quest.weak_names`);
- wrong: a silent wrong mapping — another base problem resolved, or one that a weak name would hand to the search.

Run: `python -m tests.probe_names21 [-v] [--search DATA_DIR]` from the project root. Without --search the weak names
(`quest.weak_names.fuzzy_names`) count as the search would confirm them (an upper bound); with it each name is planned
and searched as `quest search` does (BM25 only; the index is built in DATA_DIR once), so a weak name counts only when
the search confirms it. Not a test: `tests/test_resolve_aliases21.py` holds the exact expectations.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from quest.kb.markdown import load_knowledge_base
from quest.request import Request
from quest.resolution import Catalogue, Resolution, resolve, with_alternatives
from quest.weak_names import fuzzy_names

ROOT = Path(__file__).resolve().parent.parent
PROBES = ROOT / "tests" / "data" / "resolve_names21.jsonl"
log = logging.getLogger("probe_names21")


def outcome(probe: dict, found: Resolution, guess: str | None) -> str:
    """right / told / none / wrong for one probe (see the module's docstring)."""
    expect = probe["expect"]
    if expect == "missing":
        if found.problem_id is not None or (found.missing_id is None and guess is not None):
            return "wrong"
        return "right" if found.missing_id is not None else "none"
    if expect == "ambiguous":
        return "wrong" if found.problem_id is not None or guess is not None else "right"
    if found.problem_id == expect:
        return "right"
    if found.problem_id is not None:
        return "wrong"
    if found.missing_id is not None:
        return "told"
    return "right" if guess == expect else ("wrong" if guess is not None else "none")


def _searcher(data_dir: Path) -> Callable[[str], Resolution]:
    """question -> the resolution `quest search` ends with (plan, then retrieve: weak names confirmed)."""
    from quest.plan import plan, retrieve
    from quest.request import validate_request
    from quest.retrieval.retriever import build_retriever
    from quest.settings import Settings

    settings = Settings.from_env(kb_dir=ROOT / "knowledge", data_dir=data_dir, embedding_model="none")
    retriever = build_retriever(settings)

    def run(question: str) -> Resolution:
        request = validate_request(Request(question=question), settings.replace(max_tier="solution"))
        planned, _ = retrieve(retriever, plan(request, retriever))
        r = planned.resolution
        return r if planned.problem is None or r.problem_id else dataclasses.replace(r, problem_id=planned.problem.id)

    return run


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    kb = load_knowledge_base(ROOT / "knowledge")
    cat = Catalogue(kb.problems, [f"{d.title}\n{d.text}" for d in kb.documents if d.problem_id is None])
    searched = _searcher(Path(argv[argv.index("--search") + 1])) if "--search" in argv else None
    counts: dict[str, Counter[str]] = {}
    for line in PROBES.read_text(encoding="utf-8").splitlines():
        probe = json.loads(line)
        found = with_alternatives(resolve(Request(question=probe["q"]), cat), cat)
        if searched is not None:  # the plan after the search: a confirmed weak name is its problem
            found, guess = searched(probe["q"]), None
        else:
            weak = fuzzy_names(probe["q"], cat.fuzzy, cat.titles) if found == Resolution() else []
            guess = weak[0].problem_id if weak else None
        result = outcome(probe, found, guess)
        counts.setdefault(probe["list"], Counter())[result] += 1
        if "-v" in argv or result != "right":
            log.info("%-6s %-9s %-8s %s -> %s %s missing=%s cand=%s weak=%s", result, probe["list"], probe["expect"],
                     probe["q"], found.problem_id, found.rule, found.missing_id, list(found.candidates), guess)
    total: Counter[str] = sum(counts.values(), Counter())
    for name, c in [*counts.items(), ("all", total)]:
        log.info("%-9s n=%3d right=%3d told=%3d none=%3d wrong=%3d", name, c.total(), c["right"], c["told"],
                 c["none"], c["wrong"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
