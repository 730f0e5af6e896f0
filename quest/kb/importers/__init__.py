"""Importers for the problem exports of online judges: FPS XML, Hydro and QDUOJ.

`import_export("fps", "export.zip", "knowledge/imported/main", source_name="hustoj-main")`
reads the export (a file, a folder or a zip of either), turns each problem into a
catalogue entry plus `problem_statement` / `official_solution` documents, and writes them
atomically into the target folder, merging with an earlier import of the same source.
Any unsafe or broken input is refused with `ImportError_` naming the file, and nothing is
written.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path

from quest.errors import ImportError_
from quest.kb.documents import is_source_name
from quest.kb.importers import fps, hydro, qduoj
from quest.kb.importers.common import FORMATS, ImportResult, ParsedProblem, build_result
from quest.kb.importers.safety import ExportRoot, Limits, opened_export
from quest.kb.importers.writer import MergeReport, imports_using, write_import

log = logging.getLogger(__name__)

__all__ = ["FORMATS", "ImportResult", "Limits", "MergeReport", "import_export", "read_export"]

_PARSERS: dict[str, Callable[[ExportRoot, Limits], list[ParsedProblem]]] = {
    "fps": fps.parse,
    "hydro": hydro.parse,
    "qduoj": qduoj.parse,
}


def read_export(fmt: str, path: Path | str, limits: Limits | None = None, *, source_name: str = "",
                id_from: str = "url", judge_url: str = "") -> ImportResult:
    """Parse an export into problems and documents without writing anything. `judge_url`: the judge's address,
    for the links a statement makes relative to it (quest.kb.importers.links)."""
    if fmt not in _PARSERS:
        raise ImportError_(f"unknown export format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    source_name = source_name or fmt
    if not is_source_name(source_name):
        raise ImportError_(f"--source {source_name!r}: use lowercase letters, digits, '-' and '_' (e.g. hustoj-main)")
    limits = limits or Limits()
    parser = functools.partial(fps.parse, id_from=id_from) if fmt == "fps" else _PARSERS[fmt]
    with opened_export(Path(path), limits) as root:
        return build_result(fmt, parser(root, limits), root, source_name, judge_url)


def import_export(
    fmt: str, path: Path | str, into: Path | str, *, force: bool = False, limits: Limits | None = None,
    source_name: str = "", id_from: str = "url", prune: bool = False, kb_root: Path | str | None = None,
    judge_url: str = "",
) -> tuple[ImportResult, MergeReport]:
    """Read the export at `path` and write it into the folder `into` (all or nothing).

    `kb_root`: the knowledge folder; another import folder there with the same source name
    is refused, because its ids would collide with this one's.
    """
    path, into = Path(path), Path(into)
    source, target = path.resolve(), into.resolve()
    if target == source or target in source.parents:
        # Replacing `into` would delete the export being read.
        raise ImportError_(f"{into}: the target folder contains the export {path}; choose another --into")
    result = read_export(fmt, path, limits, source_name=source_name, id_from=id_from, judge_url=judge_url)
    if kb_root is not None:
        others = [p for p in imports_using(Path(kb_root), result.source_name) if p.resolve() != target]
        if others and not force:
            raise ImportError_(
                f"{others[0]}: already holds an import named {result.source_name!r}; its problem ids would collide",
                hint=f"import into {others[0]} to update it, or name this set with --source <another name>",
            )
    report = write_import(result, into, source=str(path), force=force, prune=prune)
    log.info("import: %d problems, %d documents from %s", len(result.problems), len(result.documents), path)
    return result, report
