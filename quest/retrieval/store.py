"""Segment files on disk: every file is written under a new name, fsynced, and renamed into place.

Per segment `sNNNNNN` (see segments.py)::

    sNNNNNN.chunks.jsonl   chunk metadata, one JSON object per row
    sNNNNNN.bm25.npz       term frequencies (CSC arrays + row lengths; plain arrays, no pickle)
    sNNNNNN.terms.json     the BM25 terms this segment introduced, in global-id order
    sNNNNNN.dense.faiss    float16 vectors (FAISS scalar quantizer; memory-mapped on load)
    sNNNNNN.ivf.faiss      an IVF index over the same rows, for large segments (memory-mapped)
    sNNNNNN.lexical.npz    bge-m3 lexical weights (only for bge-m3)

and `deleted-<hash>.npy`, the sorted ids of deleted rows. A file's name never changes meaning
while a manifest refers to it (segments get new numbers, the deleted list is named by its
content), so writing a delta can never damage the index the current manifest describes.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from quest.errors import IndexError_
from quest.kb.documents import Chunk
from quest.retrieval.dense import DenseIndex
from quest.retrieval.manifest import FileEntry, SegmentEntry
from quest.retrieval.segments import Segment
from quest.retrieval.sparse import LexicalIndex


def digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_atomic(path: Path, writer: Callable[[Path], None]) -> FileEntry:
    """Write through a temporary name, fsync, rename; return the file's manifest entry."""
    tmp = path.with_name(f".{path.name}.tmp")
    writer(tmp)
    with tmp.open("rb") as fh:
        os.fsync(fh.fileno())
    entry = FileEntry(size=tmp.stat().st_size, sha256=digest(tmp))
    os.replace(tmp, path)
    return entry


def check_file(path: Path, entry: FileEntry, verify: bool) -> None:
    if not path.exists():
        raise IndexError_(f"{path} is missing")
    size = path.stat().st_size
    if size != entry.size:
        raise IndexError_(f"{path} is truncated or changed ({size} bytes, expected {entry.size})")
    if verify and digest(path) != entry.sha256:
        raise IndexError_(f"{path} does not match its checksum")


# --------------------------------------------------------------------------- writing


def write_segment(seg: Segment, folder: Path) -> dict[str, FileEntry]:
    name = seg.name
    writers: dict[str, Callable[[Path], None]] = {
        f"{name}.chunks.jsonl": lambda p: p.write_bytes(_chunk_lines(seg.chunks)),
        f"{name}.bm25.npz": lambda p: _save_arrays(p, indptr=seg.tf.indptr, indices=seg.tf.indices,
                                                   data=seg.tf.data, shape=np.asarray(seg.tf.shape),
                                                   doc_len=seg.doc_len),
        f"{name}.terms.json": lambda p: p.write_text(json.dumps(seg.terms, ensure_ascii=False), encoding="utf-8"),
    }
    if seg.dense is not None:
        writers[f"{name}.dense.faiss"] = seg.dense.save
        if seg.dense.ivf is not None:
            writers[f"{name}.ivf.faiss"] = seg.dense.save_approximate
    if seg.lexical is not None:
        writers[f"{name}.lexical.npz"] = lambda p: _save_npz(p, seg.lexical.matrix)
    seg.stored = {file: write_atomic(folder / file, writer) for file, writer in writers.items()}
    return seg.stored


def write_deleted(deleted: np.ndarray, folder: Path) -> dict[str, FileEntry]:
    rows = np.flatnonzero(deleted).astype(np.int64)
    if rows.size == 0:
        return {}
    name = f"deleted-{hashlib.sha256(rows.tobytes()).hexdigest()[:16]}.npy"
    return {name: write_atomic(folder / name, lambda p: _save_array(p, rows))}


def _save_arrays(path: Path, **arrays: np.ndarray) -> None:
    with path.open("wb") as fh:  # np.savez appends ".npz" to a name without it; a file object avoids that
        np.savez(fh, **arrays)


def _save_array(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as fh:
        np.save(fh, array, allow_pickle=False)


def _save_npz(path: Path, matrix: sp.spmatrix) -> None:
    with path.open("wb") as fh:
        sp.save_npz(fh, matrix.tocsr(), compressed=False)


# --------------------------------------------------------------------------- reading


def read_segment(entry: SegmentEntry, folder: Path) -> Segment:
    name = entry.name
    chunks = _read_chunks(folder / f"{name}.chunks.jsonl")
    with np.load(folder / f"{name}.bm25.npz", allow_pickle=False) as arrays:
        shape = tuple(int(x) for x in arrays["shape"])
        tf = sp.csc_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)
        doc_len = np.asarray(arrays["doc_len"], dtype=np.float64)
    terms = json.loads((folder / f"{name}.terms.json").read_text(encoding="utf-8"))
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise IndexError_(f"{folder / (name + '.terms.json')}: not a list of terms")
    dense_file = folder / f"{name}.dense.faiss"
    dense = DenseIndex.load(dense_file) if dense_file.name in entry.files else None
    if dense is not None and f"{name}.ivf.faiss" in entry.files:
        dense.load_approximate(folder / f"{name}.ivf.faiss")
    lexical_file = folder / f"{name}.lexical.npz"
    lexical = LexicalIndex(sp.load_npz(lexical_file)) if lexical_file.name in entry.files else None
    if len(chunks) != entry.rows:
        raise IndexError_(f"{folder}: segment {name} holds {len(chunks)} chunks but the manifest says {entry.rows}")
    return Segment(name=name, chunks=chunks, tf=tf, terms=terms, dense=dense, lexical=lexical, doc_len=doc_len,
                   stored=dict(entry.files))


def read_deleted(folder: Path, files: dict[str, FileEntry], rows: int) -> np.ndarray:
    mask = np.zeros(rows, dtype=bool)
    for name in files:
        ids = np.load(folder / name, allow_pickle=False)
        if ids.ndim != 1 or ids.dtype.kind != "i" or (ids.size and (ids.min() < 0 or ids.max() >= rows)):
            raise IndexError_(f"{folder / name}: deleted row ids out of range")
        mask[ids] = True
    return mask


def _chunk_lines(chunks: Sequence[Chunk]) -> bytes:
    """One JSON object per line, UTF-8; newlines inside strings are escaped by JSON."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson comes with gradio
        return "".join(json.dumps(c.to_dict(), ensure_ascii=False) + "\n" for c in chunks).encode("utf-8")
    return b"".join(orjson.dumps(c.to_dict()) + b"\n" for c in chunks)


def _read_chunks(path: Path) -> list[Chunk]:
    """chunks.jsonl, parsed in one call (JSON escapes every newline inside strings, so each raw
    newline ends a record). orjson (already installed with gradio) parses ~3x faster when present."""
    body = path.read_bytes().strip(b"\n")
    if not body:
        return []
    # 100k records create ~1M objects: pausing the cyclic GC meanwhile saves its repeated full passes.
    paused = gc.isenabled()
    gc.disable()
    try:
        records = _json_loads(b"[" + body.replace(b"\n", b",") + b"]")
        return _chunks_from(records)
    finally:
        if paused:
            gc.enable()


def _chunks_from(records: list[dict[str, Any]]) -> list[Chunk]:
    return [Chunk.from_dict(r) for r in records]


def _json_loads(data: bytes) -> Any:
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson comes with gradio
        return json.loads(data)
    return orjson.loads(data)
