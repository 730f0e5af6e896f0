"""`python -m quest feedback export --csv FILE`: the students' thumbs up / down for the operator."""

from __future__ import annotations

import argparse
import sys

from quest.settings import Settings


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("feedback", help="export the answers' ratings")
    sub = parser.add_subparsers(dest="feedback_command", required=True, metavar="ACTION")
    export = sub.add_parser("export", help="write every rating with its context as CSV")
    export.add_argument("--csv", dest="csv_file", required=True, help="output file ('-' for stdout)")
    export.set_defaults(func=run_export)


def run_export(args: argparse.Namespace, settings: Settings) -> int:
    from quest.feedback import FeedbackStore

    store = FeedbackStore.for_settings(settings)
    if args.csv_file == "-":
        count = store.export_csv(sys.stdout)
    else:
        with open(args.csv_file, "w", encoding="utf-8", newline="") as out:
            count = store.export_csv(out)
        print(f"{count} rating(s) written to {args.csv_file}", file=sys.stderr)
    return 0
