"""`python -m quest kb import|check`: bring OJ exports into the knowledge base, and check it.

    python -m quest kb import --format fps|hydro|qduoj PATH --into knowledge/imported/<name>
                              [--source NAME] [--id-from url|order|title-hash] [--prune] [--force]
    python -m quest kb check [PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from quest.settings import Settings

FORMATS = ("fps", "hydro", "qduoj")  # kept here so `--help` needs no importer imports


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("kb", help="import OJ problem exports; check the knowledge base")
    sub = parser.add_subparsers(dest="kb_command", required=True, metavar="SUBCOMMAND")

    imp = sub.add_parser(
        "import",
        help="import an FPS / Hydro / QDUOJ export (file, folder or zip)",
        description=(
            "Write the export's problems as statement and official-solution documents plus a "
            "problems.yaml into the --into folder, all at once or not at all. Re-importing the same "
            "--source into its folder merges: new and changed problems are written, others are kept "
            "(removed with --prune). Any other existing folder needs --force."
        ),
    )
    imp.add_argument("--format", required=True, choices=FORMATS, help="the export's format")
    imp.add_argument("path", type=Path, metavar="PATH", help="the export: .xml, folder or .zip")
    imp.add_argument("--into", required=True, type=Path, help="target folder, e.g. knowledge/imported/fps")
    imp.add_argument("--source", default="", metavar="NAME",
                     help="name of this problem set, e.g. hustoj-main (default: the format); "
                          "ids are unique per source")
    imp.add_argument("--id-from", default="url", choices=("url", "order", "title-hash"),
                     help="FPS problem ids: the judge's number from <url> (default), position, or title hash")
    imp.add_argument("--judge-url", default="", metavar="URL",
                     help="the judge's address, e.g. http://oj.example.edu/ (http://oj.example.edu/hustoj/ for one "
                          "installed in a subfolder): images, links and problem pages the export gives relative to "
                          "the judge are made absolute; without it (and without a problem page students can reach), "
                          "such an image keeps only its alt text and such a link only its text")
    imp.add_argument("--prune", action="store_true",
                     help="on re-import, remove problems of this source that the export no longer has")
    imp.add_argument("--force", action="store_true", help="replace an existing folder that no import created")
    imp.add_argument("--max-size-mb", type=float, default=200.0, help="refuse input files larger than this")
    imp.set_defaults(func=run_import)

    check = sub.add_parser("check", help="report problems in a knowledge folder (exit 1 on errors)")
    check.add_argument("path", type=Path, nargs="?", metavar="PATH", help="knowledge folder (default: --kb)")
    check.set_defaults(func=run_check)


def run_import(args: argparse.Namespace, settings: Settings) -> int:
    from quest.kb.importers import Limits, import_export
    from quest.kb.importers.safety import MB

    limits = Limits(max_file_bytes=int(args.max_size_mb * MB))
    result, report = import_export(
        args.format, args.path, args.into, force=args.force, limits=limits, source_name=args.source,
        id_from=args.id_from, prune=args.prune, kb_root=settings.kb_dir, judge_url=args.judge_url,
    )
    print(
        f"imported {len(result.problems)} problems, {len(result.documents)} documents "
        f"from {args.path} into {args.into} as source {result.source_name!r}"
    )
    print(f"  {report.summary()}")
    for what in ("added", "updated", "removed"):
        for local in getattr(report, what):
            print(f"  {what}: {local}")
    print("  next: python -m quest kb check, then python -m quest index")
    return 0


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    from quest.kb.validate import check_knowledge_base

    report = check_knowledge_base(args.path or settings.kb_dir, starter=settings.starter_kb)
    for finding in report.findings:
        print(finding)
    print(report.summary())
    return 0 if report.ok else 1
