"""`python -m quest eval [--queries PATH] [--modes bm25,dense,hybrid] [--json] [--k 10]`.

Measures retrieval on the labelled queries (knowledge/eval/queries.jsonl, plus the held-out splits
heldout.jsonl, heldout-fresh.jsonl, heldout-dec.jsonl, heldout-r4.jsonl, heldout-r5.jsonl, heldout-r6.jsonl,
heldout-r7.jsonl, dev-r7.jsonl, heldout-r8.jsonl, heldout-r9.jsonl, heldout-r10.jsonl, heldout-r11.jsonl,
heldout-r12.jsonl, dev-r16.jsonl, heldout-r13.jsonl, heldout-r15.jsonl, heldout-r16.jsonl, heldout-r17.jsonl,
heldout-r18.jsonl, heldout-r19.jsonl, heldout-r20.jsonl and heldout-r21.jsonl beside it, each reported on its own)
with whatever embedding model is configured (`--model`; `--model none` for BM25 only). Modes that need an embedding
model are skipped, with a note, when none loads.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from quest.errors import InputError
from quest.settings import Settings

#: Splits under <kb>/eval, reported beside the tuning split. `heldout.jsonl` was looked at only in aggregate.
#: The fresh, Dec and round-4 files were held out when they were written, then their misses were read to
#: develop rules, so they are development splits now (the file names stay). `heldout-r5.jsonl` (round 5) and
#: `heldout-r6.jsonl` (round 6, a second unseen before/after measure) are the unseen ones; see knowledge/eval/README.md.
#: `heldout-r7.jsonl` was round 7's unseen set; measured at that round's start and end, it is a development split
#: now (retired held-out). `dev-r7.jsonl` is round 7's development split (questions naming a problem only in their
#: text, mostly Chinese), read and tuned on. `heldout-r8.jsonl` was round 8's unseen set; measured and read that
#: round, it is a development split now (retired held-out). `heldout-r9.jsonl` was round 9's unseen set; measured that
#: round, it is a development split now (retired held-out). `heldout-r10.jsonl` was round 10's unseen set; measured that
#: round, it is a development split now (retired held-out). `heldout-r11.jsonl` was round 11's unseen set; measured that
#: round, it is a development split now (retired held-out). `heldout-r12.jsonl` was round 12's unseen set; measured that
#: round, it is a development split now (retired held-out). `dev-r16.jsonl` is round 16's development split (mostly a
#: base problem named only in the text, to check the order of that problem's own documents), read and tuned on; it is
#: reported before the held-out splits. `heldout-r13.jsonl` is round 13's unseen set (labels from
#: documents only, no retrieval run while it was written); it stays held-out. `heldout-r15.jsonl` is round 15's
#: unseen set, written the same way on 2026-12-03; it stays held-out. `heldout-r16.jsonl` is round 16's unseen set,
#: written the same way later that day from posts no other split uses; it stays held-out. `heldout-r17.jsonl` is round
#: 17's unseen set, written the same way on 2026-12-03 from posts no other split uses; it stays held-out.
#: `heldout-r18.jsonl` is round 18's unseen set, written the same way later on 2026-12-03 from posts no other split
#: uses; it stays held-out. `heldout-r19.jsonl` is round 19's unseen set, written the same way on 2026-12-03 from
#: posts no other split uses; it stays held-out. `heldout-r20.jsonl` is round 20's unseen set, written the same way
#: later on 2026-12-03 from posts no other split uses; it stays held-out. `heldout-r21.jsonl` is the next round's unseen
#: set, written the same way on 2026-12-04 from posts no other split uses, reported last.
HELD_OUT_SPLITS = (("held-out", "heldout.jsonl"), ("development (fresh)", "heldout-fresh.jsonl"),
                   ("development (Dec)", "heldout-dec.jsonl"), ("development (round 4)", "heldout-r4.jsonl"),
                   ("held-out (round 5)", "heldout-r5.jsonl"), ("held-out (round 6)", "heldout-r6.jsonl"),
                   ("development (round 7, retired held-out)", "heldout-r7.jsonl"),
                   ("development (round 7)", "dev-r7.jsonl"),
                   ("development (round 8, retired held-out)", "heldout-r8.jsonl"),
                   ("development (round 9, retired held-out)", "heldout-r9.jsonl"),
                   ("development (round 10, retired held-out)", "heldout-r10.jsonl"),
                   ("development (round 11, retired held-out)", "heldout-r11.jsonl"),
                   ("development (round 12, retired held-out)", "heldout-r12.jsonl"),
                   ("development (round 16)", "dev-r16.jsonl"),
                   ("held-out (round 13)", "heldout-r13.jsonl"),
                   ("held-out (round 15)", "heldout-r15.jsonl"),
                   ("held-out (round 16)", "heldout-r16.jsonl"),
                   ("held-out (round 17)", "heldout-r17.jsonl"),
                   ("held-out (round 18)", "heldout-r18.jsonl"),
                   ("held-out (round 19)", "heldout-r19.jsonl"),
                   ("held-out (round 20)", "heldout-r20.jsonl"),
                   ("held-out (round 21)", "heldout-r21.jsonl"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("eval", help="measure retrieval quality on the labelled queries")
    parser.add_argument("--queries", type=Path, help="JSONL file of labelled queries "
                                                     "(default: <kb>/eval/queries.jsonl)")
    parser.add_argument("--modes", default="bm25,dense,hybrid",
                        help="comma-separated retrieval modes: bm25, dense, hybrid (default: all)")
    parser.add_argument("--k", type=int, default=10, help="cut-off for MRR and nDCG (default: 10)")
    parser.add_argument("--reject-below", type=float, default=None,
                        help="also count a result as low confidence when every hit scores below this "
                             "(0..1; default: 0, only the retriever's floors decide)")
    parser.add_argument("--details", action="store_true", help="with --json: every query's ranking")
    parser.add_argument("--calibrate", action="store_true",
                        help="pick the floors for the active embedding model from the tuning split and store "
                             "them beside its index (the retriever then uses them)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from quest.evaluation import DEFAULT_REJECT_BELOW, MODES, evaluate, format_table, load_queries
    from quest.retrieval.retriever import build_retriever

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise InputError(f"unknown mode(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(MODES)}",
                         field="modes")
    if args.k < 5:
        raise InputError("--k must be at least 5", field="k")
    eval_dir = Path(settings.kb_dir) / "eval"
    # Tuning split (the constants were tuned on it) and the held-out splits (never tuned on), reported apart.
    splits = {"tuning": args.queries or eval_dir / "queries.jsonl"}
    for name, held_out in HELD_OUT_SPLITS:
        if args.queries is None and (eval_dir / held_out).is_file():
            splits[name] = eval_dir / held_out
    loaded = {name: _load(load_queries, path) for name, path in splits.items()}

    settings = settings.replace(show_progress=False)
    retriever = build_retriever(settings, progress=lambda m: print(m, file=sys.stderr))
    if args.calibrate:
        return _calibrate(retriever, loaded["tuning"], settings, as_json=args.json)
    reject_below = DEFAULT_REJECT_BELOW if args.reject_below is None else args.reject_below
    reports = {name: evaluate(retriever, queries, modes=modes, k=args.k, reject_below=reject_below)
               for name, queries in loaded.items()}
    if args.json:
        out = {}
        for name, report in reports.items():
            out[name] = report.to_dict(details=args.details)
            out[name]["queries_file"] = str(splits[name])
        data = out["tuning"] if len(out) == 1 else {**out["tuning"], "splits": out}
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    for notice in next(iter(reports.values())).notices:
        print(f"note: {notice}")
    for name, report in reports.items():
        print(f"{len(loaded[name])} queries from {splits[name]}" + ("" if len(reports) == 1 else f" ({name})"))
        print(format_table(report))
        print()
    return 0


def _calibrate(retriever, queries: list, settings: Settings, *, as_json: bool) -> int:
    from dataclasses import asdict

    from quest.calibration import calibrate, save_calibration

    result = calibrate(retriever, queries)
    path = save_calibration(settings.data_dir, result)
    if as_json:
        print(json.dumps({**asdict(result), "file": str(path)}, ensure_ascii=False, indent=2))
        return 0
    dense = "-" if result.dense_floor is None else f"{result.dense_floor:g}"
    print(f"calibrated for {result.model} on {result.queries} tuning queries: bm25_floor {result.bm25_floor:g}, "
          f"dense_floor {dense}; answerable R@5 {result.recall_at_5:.3f}, no-answer handled "
          f"{result.rejection:.1%} (target {result.target_rejection:.0%}{'' if result.met else ', not reached'})")
    print(f"stored in {path}; the retriever uses these floors for this model from now on")
    return 0


def _load(load_queries, path: Path) -> list:
    try:
        return load_queries(path)
    except OSError as exc:
        raise InputError(f"cannot read the queries file {path}: {exc}", field="queries") from exc
    except ValueError as exc:
        raise InputError(str(exc), field="queries") from exc
