"""Per-question cost of the fuzzy title match and of planning as the catalogue grows (issue 9, round 12 review).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-100k-round12/fuzzy_catalogue.py OUT.json [SIZES]

The catalogue is the starter base's problems plus synthetic ones (`quest.bench.corpus.make_problems`: jieba's
frequent words and programming words as titles) up to each size (default 100 and 2,000 problems). The questions
are the development splits' (never a held-out one) without their problem field. Reported per size: the time to
build the catalogue, and per question the median and p95 of `FuzzyTitles.scores` alone and of the whole `plan()`
(every resolution rule), in milliseconds.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from quest.bench.corpus import make_problems
from quest.kb.documents import Problem
from quest.kb.markdown import load_knowledge_base
from quest.plan import plan
from quest.request import Request
from quest.resolution import Catalogue
from quest.weak_names import FUZZY_FIRST_FLOOR

ROOT = Path(__file__).resolve().parents[3]
DEV_SPLITS = ("queries", "heldout-fresh", "heldout-dec", "heldout-r4", "heldout-r7", "heldout-r8", "heldout-r9",
              "heldout-r10", "heldout-r11", "dev-r7")


def questions() -> list[str]:
    out = []
    for name in DEV_SPLITS:
        for line in (ROOT / "knowledge" / "eval" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("//"):
                out.append(json.loads(line)["question"])
    return out


def catalogue_problems(size: int) -> dict[str, Problem]:
    kb = load_knowledge_base(ROOT / "knowledge")
    problems = dict(kb.problems)
    for i, p in enumerate(make_problems(max(0, size - len(problems))).values()):
        pid = str(100_000 + i)  # clear of the starter ids
        problems[pid] = Problem(id=pid, title_zh=p.title_zh, title_en=p.title_en, difficulty=p.difficulty,
                                tags=p.tags)
    return problems


class _Shim:
    """What `plan()` reads of a retriever: the catalogue, the problems, no whole-question exact match."""

    def __init__(self, cat: Catalogue) -> None:
        self.catalogue, self.problems, self.kb = cat, cat.problems, None

    def exact_match(self, text: str) -> None:
        return None


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 3), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3)}


def measure(size: int, asked: list[str]) -> dict[str, object]:
    problems = catalogue_problems(size)
    t = time.perf_counter()
    cat = Catalogue(problems)
    fuzzy = cat.fuzzy
    built = (time.perf_counter() - t) * 1000
    shim = _Shim(cat)
    scores, planned = [], []
    for q in asked:
        t = time.perf_counter()
        fuzzy.scores(q, FUZZY_FIRST_FLOOR)
        scores.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        plan(Request(question=q), shim)
        planned.append((time.perf_counter() - t) * 1000)
    return {"problems": len(problems), "titles": len(cat.titles), "questions": len(asked),
            "build_ms": round(built, 1), "fuzzy_scores_ms": _ms(scores), "plan_ms": _ms(planned)}


if __name__ == "__main__":
    sizes = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [100, 2000]
    asked = questions()
    out = [measure(size, asked) for size in sizes]
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(json.dumps(out, indent=1))
