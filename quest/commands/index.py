"""`python -m quest index`: build or update the saved search index."""

from __future__ import annotations

import argparse
import json
import sys

from quest.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("index", help="build or update the search index in the data directory")
    parser.add_argument("--rebuild", action="store_true", help="ignore the saved index and build from scratch")
    parser.add_argument("--compact", action="store_true",
                        help="merge the delta segments and drop deleted rows into one new base segment")
    parser.add_argument("--verify", action="store_true",
                        help="check every file of the saved indexes against its SHA-256 (loading checks only sizes, "
                             "structure and small files); exit 1 if one is damaged")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def verify(settings: Settings) -> int:
    """Every saved index under the data directory, every file hashed in full."""
    from quest.errors import IndexError_
    from quest.retrieval.index import load_index

    folders = sorted(p.parent for p in settings.index_dir.glob("*/manifest.json"))
    if not folders:
        print(f"no saved index in {settings.index_dir}", file=sys.stderr)
        return 1
    damaged = 0
    for folder in folders:
        try:
            index = load_index(folder, verify=True)
        except IndexError_ as exc:
            damaged += 1
            print(f"damaged: {exc}. `python -m quest index` (or --rebuild) rebuilds it.", file=sys.stderr)
            continue
        print(f"ok: {folder} ({index.size} chunks in {len(index.segments)} segments; every file matches its SHA-256)")
    return 1 if damaged else 0


def run(args: argparse.Namespace, settings: Settings) -> int:
    import shutil

    if args.verify:
        return verify(settings)
    from quest.kb.markdown import load_knowledge_base
    from quest.retrieval.index import index_dir_for, open_index
    from quest.retrieval.retriever import load_embedder_or_none

    def progress(message: str) -> None:
        print(message, file=sys.stderr)

    kb = load_knowledge_base(settings.kb_dir, starter=settings.starter_kb)
    for error in kb.errors:
        print(f"warning: {error}", file=sys.stderr)
    embedder, notices = load_embedder_or_none(settings)
    for notice in notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.rebuild:
        shutil.rmtree(index_dir_for(settings, embedder.name if embedder else "bm25-only"), ignore_errors=True)
    index, report = open_index(kb, settings, embedder, progress, compact=args.compact)
    folder = index_dir_for(settings, index.model)
    result = {
        "action": report.action,
        "model": index.model,
        "documents": index.documents,
        "chunks": index.size,
        "segments": len(index.segments),
        "deleted_rows": int(index.deleted.sum()),
        "embedded_documents": len(report.embedded_docs),
        "removed_documents": len(report.removed_docs),
        "seconds": round(report.seconds, 3),
        "folder": str(folder),
        "reason": report.reason,
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(f"index {report.action}: {index.documents} documents, {index.size} chunks, model {index.model}, "
              f"embedded {len(report.embedded_docs)} documents, removed {len(report.removed_docs)}, "
              f"{report.seconds:.2f}s -> {folder}")
    return 0
