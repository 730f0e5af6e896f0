"""`python -m quest bench --sizes 1000,10000,100000 --queries 200 --out DIR`: measure speed and scale.

Generates a deterministic synthetic knowledge base per size and writes report.md, results.json
and latency.png into DIR. See quest/bench/ and docs/bench/README.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from quest.settings import Settings


def _ints(text: str) -> list[int]:
    try:
        values = [int(v.replace("_", "")) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, not {text!r}") from exc
    if any(v <= 0 for v in values):
        raise argparse.ArgumentTypeError("values must be positive")
    return values


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="benchmark retrieval speed, index lifecycle and concurrency")
    parser.add_argument("--sizes", type=_ints, default=[1000, 10000, 100000],
                        help="corpus sizes in chunks, comma-separated (default: 1000,10000,100000)")
    parser.add_argument("--queries", type=int, default=200, help="queries per size (default: 200)")
    parser.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
    parser.add_argument("--embedder", choices=("auto", "tiny", "configured"), default="auto",
                        help="auto: the configured model if it loads offline, else the tiny test model")
    parser.add_argument("--concurrency", type=_ints, default=[],
                        help="simultaneous clients against the app with a fake Ollama, e.g. 1,10,50")
    parser.add_argument("--tokens", type=int, default=200, help="tokens the fake Ollama streams (default: 200)")
    parser.add_argument("--rate", type=float, default=50.0, help="tokens per second it streams at (default: 50)")
    parser.add_argument("--approximate-at", type=int,
                        help="corpus size at which to compare exact and approximate FAISS search (default: largest)")
    parser.add_argument("--fleet", action="store_true",
                        help="capacity of several app replicas and model hosts (fake hosts; see quest/bench/fleet.py)")
    # Soak test (issue 11): many students over many minutes with a misbehaving fake Ollama.
    parser.add_argument("--soak", action="store_true", help="run the soak test instead (see quest/bench/soak.py)")
    parser.add_argument("--students", type=int, default=200,
                        help="simulated students for --fleet and --soak (default: 200)")
    parser.add_argument("--minutes", type=float, default=10.0, help="soak: duration in minutes (default: 10)")
    parser.add_argument("--questions-per-student", type=int, default=3, help="soak: questions each (default: 3)")
    parser.add_argument("--seed", type=int, default=11, help="soak: seed of the schedule and the chaos")
    parser.add_argument("--model-up-to", type=int, default=100_000,
                        help="run the embedding-model profile only for sizes up to this (default: 100000)")
    # Issue 14: the local store against Milvus Lite at the given --sizes (see quest/bench/milvus_bench.py).
    parser.add_argument("--milvus", action="store_true", help="compare the local store with Milvus Lite side by side")
    parser.add_argument("--keep-index", type=Path, default=None,
                        help="work in this folder and keep each size's saved (compacted) index there")
    parser.add_argument("--memory-limit-per-chunk", type=int, default=None, metavar="BYTES",
                        help="also run the loaded index's queries from a cold page cache in a memory cgroup "
                             "capped at chunks x BYTES, page cache included (e.g. 3072)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from quest.bench import runner

    if args.fleet:
        return run_fleet(args)
    if args.soak:
        return _soak(args)
    if args.milvus:
        return _milvus(args, settings)
    if args.queries < 1:
        print("error: --queries must be at least 1", file=sys.stderr)
        return 2
    if args.memory_limit_per_chunk is not None and args.memory_limit_per_chunk < 1:
        print("error: --memory-limit-per-chunk must be a positive number of bytes", file=sys.stderr)
        return 2
    results = runner.run(args.sizes, args.queries, args.out, settings, embedder=args.embedder,
                         concurrency=args.concurrency, approximate_at=args.approximate_at,
                         model_up_to=args.model_up_to, workdir=args.keep_index,
                         memory_limit_per_chunk=args.memory_limit_per_chunk,
                         concurrency_options={"tokens": args.tokens, "rate": args.rate},
                         progress=lambda m: print(m, file=sys.stderr, flush=True))
    missed = [t["target"] for t in results.get("targets", []) if not t["met"]]
    written = [args.out / name for name in ("report.md", "results.json", "latency.png") if (args.out / name).exists()]
    print("wrote " + ", ".join(map(str, written)))
    for target in results.get("targets", []):
        print(f"  {'met   ' if target['met'] else 'MISSED'} {target['target']}: {target['value']}")
    if missed:
        print(f"{len(missed)} target(s) missed: see the report")
    return 0


def run_fleet(args: argparse.Namespace) -> int:
    from quest.bench import fleet

    if args.students < 1:
        print("error: --students must be at least 1", file=sys.stderr)
        return 2
    results = fleet.run(args.out / "fleet-work", scenarios=fleet.default_scenarios(args.students),
                        progress=lambda m: print(m, file=sys.stderr, flush=True))
    if "skipped" in results:
        print(f"fleet skipped: {results['skipped']}", file=sys.stderr)
        return 1
    written = fleet.write_report(results, args.out)
    print("wrote " + ", ".join(str(p) for p in written))
    print(fleet.table(results["scenarios"]))
    return 0
def _soak(args: argparse.Namespace) -> int:
    import shutil
    import tempfile

    from quest.bench import soak

    if min(args.students, args.questions_per_student) < 1 or args.minutes <= 0:
        print("error: --students, --questions-per-student and --minutes must be positive", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="quest-soak-"))  # knowledge copy, index, feedback db, app log
    try:
        results = soak.run(students=args.students, minutes=args.minutes, questions=args.questions_per_student,
                           seed=args.seed, tokens=args.tokens if args.tokens != 200 else 40,
                           rate=args.rate if args.rate != 50.0 else 20.0, workdir=work,
                           progress=lambda m: print(m, file=sys.stderr, flush=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = soak.write_report(results, args.out)
    print(f"wrote {report} and {args.out / 'results.json'}")
    for goal in results.get("goals", []):
        print(f"  {'met   ' if goal['met'] else 'MISSED'} {goal['goal']}: {goal['value']}")
    return 0 if "skipped" not in results else 1


def _milvus(args: argparse.Namespace, settings: Settings) -> int:
    import tempfile

    from quest.bench import milvus_bench

    results = milvus_bench.run(args.sizes, args.queries, args.out, settings,
                               Path(tempfile.mkdtemp(prefix="quest-milvus-bench-")),
                               progress=lambda m: print(m, file=sys.stderr, flush=True))
    print(f"wrote {args.out / 'report.md'} and {args.out / 'results.json'} ({len(results['sizes'])} sizes)")
    return 0
