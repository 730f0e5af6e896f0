"""`python -m quest search "question" --problem 239 --code FILE --error "..."`: see what retrieval finds."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from quest.commands.common import add_request_arguments, read_code
from quest.settings import Settings

if TYPE_CHECKING:
    from quest.judge import JudgeReport


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("search", help="show the ranked sources for a question")
    parser.add_argument("question", help="the student's question")
    add_request_arguments(parser)
    parser.add_argument("--tier", choices=("hint", "explain", "solution"), default="solution",
                        help="hint leaves official solutions out")
    parser.add_argument("--top", type=int, help="number of sources")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the labels (default: the question's)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from quest.context import build_context
    from quest.plan import plan, retrieve
    from quest.request import Request, validate_request
    from quest.retrieval.retriever import build_retriever

    code = read_code(args.code)  # fail fast, before loading anything
    stages: dict[str, float] = {}
    t = time.perf_counter()
    retriever = build_retriever(settings, progress=lambda m: print(m, file=sys.stderr))
    stages["load"] = (time.perf_counter() - t) * 1000
    request = validate_request(
        Request(question=args.question, problem_id=args.problem, language=args.language,
                code=code, error=args.error, tier=args.tier, ui_lang=args.lang or "auto"),
        settings.replace(max_tier="solution"),
    )
    t = time.perf_counter()
    planned = plan(request, retriever)
    stages["query"] = (time.perf_counter() - t) * 1000  # planning: judge parsing + query parts
    planned, result = retrieve(retriever, planned, top_k=args.top)
    report = planned.report
    query = planned.parts.text() if not planned.direct else request.question
    # A weak name (a bare id, a paraphrased title) the first search confirmed made the search run twice: the first
    # one is a stage of its own, so the final search's numbers do not hide it.
    stages["confirm_search"] = planned.confirm_timings.get("total", 0.0)
    stages.update({f"search.{k}": v for k, v in result.timings.items()})
    missing = [planned.resolution.describe("en")] if (
        planned.resolution.missing_id or planned.resolution.candidates or planned.resolution.ambiguous) else []
    t = time.perf_counter()
    lang = request.answer_lang()
    context = build_context(result.hits, lang=lang, max_chars=settings.context_max_chars)
    stages["context"] = (time.perf_counter() - t) * 1000
    # The request's path, loading aside: planning, both searches, the context.
    stages["total"] = sum(stages[k] for k in ("query", "confirm_search", "search.total", "context") if k in stages)
    status = retriever.status

    rows = []
    for hit, source in zip(result.hits, context.sources, strict=False):
        rows.append({
            "n": source.number,
            "id": hit.chunk.id,
            "kind": hit.chunk.kind,
            "label": source.label,
            "title": hit.chunk.title,
            "section": hit.chunk.section,
            "problem_id": hit.chunk.problem_id,
            "score": round(hit.score, 4),
            "fused": round(hit.fused, 5),
            "scope": hit.scope,
            "signals": {k: {"rank": s.rank, "score": round(s.score, 4)} for k, s in hit.signals.items()},
        })
    if args.json:
        print(json.dumps({
            "query": query, "plan": planned.to_dict(), "verdict": report.verdict, "test": report.test_number,
            "exception": report.exception, "kind": report.kind, "exit_code": report.exit_code, "signal": report.signal,
            "mode": result.mode, "widened": result.widened, "weak": result.weak, "problem_id": result.problem_id,
            "embedding_mode": status.embedding_mode, "notices": [*status.notices, *result.notices, *missing],
            "sources": rows, "timings_ms": {k: round(v, 3) for k, v in stages.items()},
        }, ensure_ascii=False, indent=2))
        return 0

    for notice in (*status.notices, *result.notices):
        print(f"note: {notice}")
    weak = " — weak: off the question's topic" if result.weak else ""
    print(f"mode: {result.mode} ({status.embedding_mode}){' — widened once' if result.widened else ''}{weak}; "
          f"verdict: {report.verdict or '-'}{_meaning(report)}")
    print(f"problem: {planned.resolution.describe(lang)}")
    if not rows:
        print("No sufficiently relevant sources found." if lang == "en" else "知识库中没有找到足够相关的内容。")
    for row in rows:
        signals = "  ".join(f"{k}#{v['rank']}={v['score']:.3f}" for k, v in row["signals"].items())
        where = f" [{row['problem_id']}]" if row["problem_id"] else ""
        section = f" · {row['section']}" if row["section"] else ""
        print(f"[{row['n']}] {row['label']}{where} {row['title']}{section}")
        print(f"     score {row['score']:.3f}  fused {row['fused']:.4f}  {row['scope']}  {signals}  ({row['id']})")
    print("timings: " + ", ".join(f"{k} {v:.1f} ms" for k, v in stages.items()))
    return 0


def _meaning(report: JudgeReport) -> str:
    """What the parser read beyond the verdict, if anything, e.g. " (segv, SIGSEGV, exit code 139)"."""
    said = [x for x in (report.kind, report.signal) if x]
    if report.exit_code is not None:
        said.append(f"exit code {report.exit_code}")
    return f" ({', '.join(said)})" if said else ""
