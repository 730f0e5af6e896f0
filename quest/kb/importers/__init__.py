"""Importers for the problem exports of online judges: FPS XML, Hydro and QDUOJ.

`import_export("fps", "export.zip", "knowledge/imported")` reads the export (a file, a
folder or a zip of either), turns each problem into a catalogue entry plus
`problem_statement` / `official_solution` documents, and writes them atomically into the
target folder. Any unsafe or broken input is refused with `ImportError_` naming the file,
and nothing is written.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from quest.errors import ImportError_
from quest.kb.importers import fps, hydro, qduoj
from quest.kb.importers.common import FORMATS, ImportResult, ParsedProblem, build_result
from quest.kb.importers.safety import ExportRoot, Limits, opened_export
from quest.kb.importers.writer import write_import

log = logging.getLogger(__name__)

__all__ = ["FORMATS", "ImportResult", "Limits", "import_export", "read_export"]

_PARSERS: dict[str, Callable[[ExportRoot, Limits], list[ParsedProblem]]] = {
    "fps": fps.parse,
    "hydro": hydro.parse,
    "qduoj": qduoj.parse,
}


def read_export(fmt: str, path: Path | str, limits: Limits | None = None) -> ImportResult:
    """Parse an export into problems and documents without writing anything."""
    if fmt not in _PARSERS:
        raise ImportError_(f"unknown export format {fmt!r} (expected one of: {', '.join(FORMATS)})")
    limits = limits or Limits()
    with opened_export(Path(path), limits) as root:
        return build_result(fmt, _PARSERS[fmt](root, limits), root)


def import_export(
    fmt: str, path: Path | str, into: Path | str, *, force: bool = False, limits: Limits | None = None
) -> ImportResult:
    """Read the export at `path` and write it into the folder `into` (all or nothing)."""
    path, into = Path(path), Path(into)
    source, target = path.resolve(), into.resolve()
    if target == source or target in source.parents:
        # Replacing `into` would delete the export being read.
        raise ImportError_(f"{into}: the target folder contains the export {path}; choose another --into")
    result = read_export(fmt, path, limits)
    write_import(result, into, source=str(path), force=force)
    log.info("import: %d problems, %d documents from %s", len(result.problems), len(result.documents), path)
    return result
