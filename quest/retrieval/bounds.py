"""Per-column score bounds stored with each segment, for the pruned whole-base top-k (maxscore.py).

`sNNNNNN.bounds.npz` holds, per column (term id) of the segment:

- `max_tf`: the largest term count in the column (BM25);
- `min_len`: the shortest length of a row holding the term (BM25);
- `lexical_max`: the largest |weight| in the column of the lexical weights (empty without them).

BM25's tf / (tf + k1 (1 - b + b dl / avgdl)) grows with tf and shrinks with dl, so `max_tf` over
`min_len` bounds every posting's weight whatever the current statistics (idf, avgdl): they are applied
at query time. Deleting rows only removes postings, so a stored bound may grow loose but is never too
low; a compaction or a delta writes fresh ones. Every segment gets the file when it is written (base,
delta, compaction); an index written before it has none and is still searched exactly, with cruder bounds
(`SegmentedBM25._bounder`, `LexicalIndex.weight_bound`). `python -m quest.retrieval.bounds INDEX` adds
the files to such an index (a new manifest, written last and atomically), holding the folder's writer
lock (store.writer_lock) as an update or compaction does, so it waits for one running meanwhile.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from quest.errors import IndexError_

if TYPE_CHECKING:  # for the annotation only
    from quest.retrieval.manifest import Manifest

log = logging.getLogger(__name__)

FILE_SUFFIX = "bounds.npz"
BLOCK_ENTRIES = 1 << 24  # postings reduced per step: bounded temporary memory at any size


@dataclass(frozen=True)
class Bounds:
    max_tf: np.ndarray  # float32 per column
    min_len: np.ndarray  # float32 per column
    lexical_max: np.ndarray | None  # float32 per lexical column, or None


def column_reduce(indptr: np.ndarray, values_of, reduce: np.ufunc, empty: float) -> np.ndarray:
    """Per column of CSC arrays: `reduce` over `values_of(lo, hi)` (the column entries' values), blockwise."""
    indptr = np.asarray(indptr, dtype=np.int64)
    width = indptr.size - 1
    out = np.full(width, empty, dtype=np.float32)
    col = 0
    while col < width:
        last = int(np.searchsorted(indptr, indptr[col] + BLOCK_ENTRIES, side="right")) - 1
        last = min(max(last, col + 1), width)  # at least one column per step
        lo, hi = int(indptr[col]), int(indptr[last])
        starts = indptr[col:last] - lo
        filled = np.flatnonzero(indptr[col + 1:last + 1] > indptr[col:last])
        if filled.size:
            values = np.asarray(values_of(lo, hi), dtype=np.float32)
            out[col + filled] = reduce.reduceat(values, starts[filled])
        col = last
    return out


def of_segment(seg: Any) -> Bounds:
    """The bounds of a segment's postings (positions) and lexical weights."""
    post = seg.postings
    length = np.asarray(seg.order.by_position(np.asarray(seg.doc_len, dtype=np.float32)), dtype=np.float32)
    max_tf = column_reduce(post.indptr, lambda lo, hi: post.data[lo:hi], np.maximum, 0.0)
    min_len = column_reduce(post.indptr, lambda lo, hi: length[np.asarray(post.indices[lo:hi])], np.minimum, 0.0)
    lexical_max = None
    if seg.lexical is not None:
        csc = seg.lexical.csc
        lexical_max = column_reduce(csc.indptr, lambda lo, hi: np.abs(np.asarray(csc.data[lo:hi], np.float32)),
                                    np.maximum, 0.0)
    return Bounds(max_tf, min_len, lexical_max)


def file_name(segment: str) -> str:
    return f"{segment}.{FILE_SUFFIX}"


def save(bounds: Bounds, path: Path) -> None:
    lexical = bounds.lexical_max if bounds.lexical_max is not None else np.zeros(0, dtype=np.float32)
    with path.open("wb") as fh:  # np.savez appends ".npz" to a name without it; a file object avoids that
        np.savez(fh, max_tf=bounds.max_tf, min_len=bounds.min_len, lexical_max=lexical,
                 has_lexical=np.asarray(bounds.lexical_max is not None))


def load(path: Path, bm25_width: int, lexical_width: int | None) -> Bounds:
    """The bounds in `path`, checked against the segment's column counts; IndexError_ if they do not fit."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: np.asarray(z[name]) for name in ("max_tf", "min_len", "lexical_max", "has_lexical")}
    except (OSError, ValueError, KeyError) as exc:
        raise IndexError_(f"{path}: unreadable score bounds ({exc})") from exc
    if arrays["max_tf"].shape != (bm25_width,) or arrays["min_len"].shape != (bm25_width,):
        raise IndexError_(f"{path}: BM25 bounds for {arrays['max_tf'].size} columns, the segment has {bm25_width}")
    lexical = arrays["lexical_max"] if bool(arrays["has_lexical"]) else None
    if (lexical is None) != (lexical_width is None) or (lexical is not None and lexical.shape != (lexical_width,)):
        raise IndexError_(f"{path}: the lexical bounds do not fit the segment's lexical weights")
    return Bounds(arrays["max_tf"].astype(np.float32), arrays["min_len"].astype(np.float32),
                  None if lexical is None else lexical.astype(np.float32))


def attach(seg: Any, bounds: Bounds) -> None:
    """Give a segment (and its lexical weights) their bounds."""
    seg.bounds = bounds
    if seg.lexical is not None and bounds.lexical_max is not None:
        seg.lexical.max_abs = bounds.lexical_max


def write_for(seg: Any, folder: Path) -> Any:
    """Compute and write `seg`'s bounds (crash-safe: a temporary name renamed in); returns the manifest entry."""
    from quest.retrieval import store

    bounds = of_segment(seg)
    entry = store.write_atomic(folder / file_name(seg.name), lambda p: save(bounds, p))
    attach(seg, bounds)
    return entry


def read_for(seg: Any, folder: Path) -> None:
    """Attach the stored bounds of a segment read from `folder` (its manifest entry names the file)."""
    lexical_width = seg.lexical.csc.shape[1] if seg.lexical is not None else None
    attach(seg, load(folder / file_name(seg.name), seg.postings.shape[1], lexical_width))


def add_to_index(folder: Path) -> list[str]:
    """For an index written before the bounds: write every segment's, then (last, atomically) a new manifest
    naming them. Returns the files written."""
    from quest.retrieval import store
    from quest.retrieval.index import read_manifest

    read_manifest(folder)  # no index there: say so, and leave no lock file behind
    with store.writer_lock(folder):  # an update or compaction must not write the manifest meanwhile
        return _add_bounds(folder, read_manifest(folder))  # read again: a writer may have changed it meanwhile


def _add_bounds(folder: Path, manifest: Manifest) -> list[str]:
    from quest.retrieval import store

    written, segments = [], []
    for entry in manifest.segments:
        name = file_name(entry.name)
        if name not in entry.files:
            seg = store.read_segment(entry, folder)
            log.info("writing %s (%d rows)", name, entry.rows)
            entry = entry.model_copy(update={"files": {**entry.files, name: write_for(seg, folder)}})
            written.append(name)
        segments.append(entry)
    if written:
        body = manifest.model_copy(update={"segments": segments}).model_dump_json(indent=1)
        store.write_atomic(folder / "manifest.json", lambda p: p.write_text(body, encoding="utf-8"))
    return written


def main(argv: list[str]) -> None:
    """`python -m quest.retrieval.bounds INDEX_FOLDER`: add the score bounds to a saved index."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if len(argv) != 1:
        raise SystemExit("usage: python -m quest.retrieval.bounds INDEX_FOLDER")
    try:
        written = add_to_index(Path(argv[0]))
    except IndexError_ as exc:
        raise SystemExit(f"error: {exc}") from None
    except OSError as exc:  # a read-only mount, a folder the user may not write
        raise SystemExit(f"error: cannot write the index in {argv[0]}: {exc.strerror or exc}") from None
    log.info("written: %s", written or "nothing (every segment has its bounds)")


if __name__ == "__main__":
    main(sys.argv[1:])
