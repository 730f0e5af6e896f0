"""How many real questions pay the weak name's second search, and what it costs (issue 9, round 12 review).

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-100k-round12/confirm_share.py OUT.json

The development splits' questions (never a held-out one) as `quest eval` plans them (problem field, code and error
as written), BM25-only on the starter base, through `quest.plan.plan` and `retrieve` twice; the second pass is
reported. Per question: whether a weak name was kept for the search to confirm, whether it was confirmed (the search
ran twice), and the milliseconds of each search.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from quest.evaluation import EvalQuery, load_queries, plan_query
from quest.plan import retrieve
from quest.retrieval.retriever import build_retriever
from quest.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
DEV_SPLITS = ("queries", "heldout-fresh", "heldout-dec", "heldout-r4", "heldout-r7", "heldout-r8", "heldout-r9",
              "heldout-r10", "heldout-r11", "dev-r7")


def queries() -> list[EvalQuery]:
    return [q for name in DEV_SPLITS for q in load_queries(ROOT / "knowledge" / "eval" / f"{name}.jsonl")]


def _p(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    return round(ordered[int(q * (len(ordered) - 1))], 3) if ordered else None


def main(out: Path) -> None:
    settings = Settings(embedding_model="none", data_dir=Path(tempfile.mkdtemp(prefix="i9-share-")),
                        kb_dir=ROOT / "knowledge", show_progress=False)
    retriever = build_retriever(settings)
    asked = queries()
    rows = []
    for _ in range(2):
        rows = []
        for q in asked:
            t = time.perf_counter()
            p = plan_query(retriever, q, settings)  # as `quest eval` plans it (validated, solution tier)
            plan_ms = (time.perf_counter() - t) * 1000
            weak = bool(p.extra.get("weak"))
            t = time.perf_counter()
            after, result = retrieve(retriever, p)
            wall = (time.perf_counter() - t) * 1000
            first = after.confirm_timings
            rows.append({"weak": weak, "confirmed": bool(first), "plan_ms": plan_ms, "retrieve_ms": wall,
                         "first_ms": first.get("total", 0.0), "final_ms": result.timings.get("total", 0.0)})
    paid = [r for r in rows if r["confirmed"]]
    summary = {
        "questions": len(rows), "with_weak_name": sum(r["weak"] for r in rows), "searched_twice": len(paid),
        "share_searched_twice": round(len(paid) / len(rows), 4),
        "retrieve_ms_all": {"p50": _p([r["retrieve_ms"] for r in rows], 0.5),
                            "p95": _p([r["retrieve_ms"] for r in rows], 0.95)},
        "retrieve_ms_twice": {"p50": _p([r["retrieve_ms"] for r in paid], 0.5),
                              "p95": _p([r["retrieve_ms"] for r in paid], 0.95)},
        "first_search_ms_twice": {"p50": _p([r["first_ms"] for r in paid], 0.5),
                                  "p95": _p([r["first_ms"] for r in paid], 0.95)},
        "plan_ms_all": {"p50": _p([r["plan_ms"] for r in rows], 0.5), "p95": _p([r["plan_ms"] for r in rows], 0.95)},
        "retrieve_ms_mean": round(statistics.mean(r["retrieve_ms"] for r in rows), 3),
    }
    out.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
