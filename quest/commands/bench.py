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
    parser.add_argument("--model-up-to", type=int, default=100_000,
                        help="run the embedding-model profile only for sizes up to this (default: 100000)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from quest.bench import runner

    if args.queries < 1:
        print("error: --queries must be at least 1", file=sys.stderr)
        return 2
    results = runner.run(args.sizes, args.queries, args.out, settings, embedder=args.embedder,
                         concurrency=args.concurrency, approximate_at=args.approximate_at,
                         model_up_to=args.model_up_to,
                         concurrency_options={"tokens": args.tokens, "rate": args.rate},
                         progress=lambda m: print(m, file=sys.stderr, flush=True))
    missed = [t["target"] for t in results.get("targets", []) if not t["met"]]
    print(f"wrote {args.out / 'report.md'}, {args.out / 'results.json'}, {args.out / 'latency.png'}")
    for target in results.get("targets", []):
        print(f"  {'met   ' if target['met'] else 'MISSED'} {target['target']}: {target['value']}")
    if missed:
        print(f"{len(missed)} target(s) missed: see the report")
    return 0
