"""Segment files on disk: every file is written under a new name, fsynced, and renamed into place.

Per segment `sNNNNNN` (see segments.py and chunktable.py)::

    sNNNNNN.chunks.jsonl   chunk records, one JSON object per line (memory-mapped, decoded per hit)
    sNNNNNN.columns.npz    per-row columns: record offsets, kind / problem / document codes, ordinal
    sNNNNNN.names.json     the names those codes stand for
    sNNNNNN.bm25.npz       term frequencies by term (CSC, rows at their positions in the scope order),
                           the scope order (scopes.py; empty: rows are already grouped), the terms by
                           row (term ids only, row order), row lengths
    sNNNNNN.terms.json     the BM25 terms this segment introduced, in global-id order
    sNNNNNN.dense.faiss    float16 vectors (FAISS scalar quantizer; memory-mapped on load)
    sNNNNNN.ivf.faiss      an IVF index over the same rows, for large segments (memory-mapped)
    sNNNNNN.lexical.npz    bge-m3 lexical weights by token (CSC, rows in the same scope order; only for bge-m3),
                           float16 (sparse.stored_weights; float32 in indexes written before, still read)

and `deleted-<hash>.npy`, the sorted ids of deleted rows. A file's name never changes meaning
while a manifest refers to it (segments get new numbers, the deleted list is named by its
content), so writing a delta can never damage the index the current manifest describes.

The .npz files are uncompressed zip archives of plain .npy arrays (no pickle), and on load
each array is memory-mapped where it lies inside the archive (`map_npz`): loading costs the
same at any size, and only the pages a query reads (the query terms' postings) become resident.
The postings archives are written by `npzfile`, every array at a 64-byte boundary, so a posting
list can be binary-searched in place; archives written before by `np.savez` still load (unaligned:
numpy copies a list before searching it) until the next compaction rewrites them.

Checking on load (`check_file`): every file must exist with exactly the size the manifest
records, and files up to HASH_ON_LOAD bytes (the manifest-sized metadata: columns, names,
terms, deleted rows; every file of a small index) must match their SHA-256. Larger files get
the size check plus structural checks (record offsets, codes, array shapes, FAISS headers);
hashing them would make the load linear again (seconds per GB), so their full SHA-256 is
checked by `python -m quest index --verify` (`verify=True`). A bit flip inside a large
file is the one damage this leaves to `--verify`; truncation, a missing or swapped file and an
interrupted write are all caught on load.

Writers take the folder's `writer_lock` (an exclusive `flock` on the file `INDEX.writer.lock`
beside it) around their read-modify-write of the manifest: saving an update, a compaction, and
`python -m quest.retrieval.bounds`. Without it two of them (say the app saving an update and an operator
adding bounds) could each read the same manifest, and the second to write would drop the first's
segments or name files the first had just removed as unreferenced. The lock serialises the
writes, not the whole load-update-save cycle: a writer that loaded the index before another
saved still writes a manifest built from what it loaded (last writer wins, consistently).
Where the file system cannot lock (no `flock` on Windows, some network mounts) or the lock file
cannot be created (a folder whose parent is not writable), writers go on unlocked after one
WARNING: one writer at a time is then the operator's rule, as before the lock existed. Readers
take no lock: they read one complete manifest (it is renamed into place) and the files it names.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import struct
import threading
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from quest.errors import IndexError_
from quest.retrieval import bounds, npzfile
from quest.retrieval.chunktable import ChunkTable, decode_record
from quest.retrieval.dense import DenseIndex
from quest.retrieval.manifest import FileEntry, SegmentEntry
from quest.retrieval.scopes import RowOrder
from quest.retrieval.segments import Segment
from quest.retrieval.sparse import LexicalIndex, stored_weights

log = logging.getLogger(__name__)

LOCK_SUFFIX = ".writer.lock"  # beside the folder (`INDEX.writer.lock`): the folder holds only the index's files
_held = threading.local()  # the folders this thread holds the lock of (a compaction saves under its own lock)


@contextlib.contextmanager
def writer_lock(folder: Path) -> Iterator[None]:
    """Hold the index writer lock of `folder` (which must exist): one writer at a time, across processes
    and threads (each `flock` is on its own open file, so a second thread of this process waits too).
    Re-entrant in the thread that holds it. Waits as long as the other writer takes, saying so at INFO.
    Goes on unlocked, with a WARNING, where no lock can be had (see the module's docstring)."""
    real = folder.resolve()
    key = str(real)
    held: set[str] | None = getattr(_held, "folders", None)
    if held is None:
        held = _held.folders = set()
    # Held already by this thread; or no flock (Windows), where one writer at a time is the operator's rule.
    if key in held or fcntl is None:
        yield
        return
    fd = _open_lock_file(real.with_name(real.name + LOCK_SUFFIX))
    if fd is None:
        yield
        return
    try:
        if not _flock(fd, real):
            yield
            return
        held.add(key)
        try:
            yield
        finally:
            held.discard(key)
    finally:
        os.close(fd)  # closing the file releases the lock


def _open_lock_file(path: Path) -> int | None:
    """The lock file's descriptor, opened read-only: `flock` needs no write access, so a lock file left
    by another user (say an operator's `sudo` run) does not stop the app's own saves."""
    try:
        return os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
    except OSError as exc:  # a parent folder the app may not write (a bind-mounted index), a read-only mount
        log.warning("cannot create the index writer lock %s (%s); writing unlocked: run one writer at a time",
                    path, exc.strerror or exc)
        return None


def _flock(fd: int, folder: Path) -> bool:
    """Take the exclusive lock on `fd`, waiting for another writer; False where the file system has none."""
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("waiting for another writer of the index in %s (an update, compaction or bounds run)", folder)
            fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError as exc:  # ENOLCK, EOPNOTSUPP: NFS without a lock daemon, some FUSE and SMB mounts
        if exc.errno not in _NO_LOCKING:
            raise
        log.warning("the file system of %s cannot lock (%s); writing unlocked: run one writer at a time",
                    folder, exc.strerror or exc)
        return False
    return True


_NO_LOCKING = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL}


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


HASH_ON_LOAD = 32 * 2**20


def check_file(path: Path, entry: FileEntry, verify: bool | None = None) -> None:
    """Presence and size always; SHA-256 for every file (`verify=True`), none (False), or small ones (None)."""
    if not path.exists():
        raise IndexError_(f"{path} is missing")
    size = path.stat().st_size
    if size != entry.size:
        raise IndexError_(f"{path} is truncated or changed ({size} bytes, expected {entry.size})")
    hashed = verify if verify is not None else size <= HASH_ON_LOAD
    if hashed and digest(path) != entry.sha256:
        raise IndexError_(f"{path} does not match its checksum")


# --------------------------------------------------------------------------- writing


def write_segment(seg: Segment, folder: Path) -> dict[str, FileEntry]:
    name = seg.name
    table: ChunkTable = seg.chunks
    tf = seg.postings
    row_indptr, row_terms = seg.terms_of_rows()
    writers: dict[str, Callable[[Path], None]] = {
        f"{name}.chunks.jsonl": lambda p: p.write_bytes(memoryview(table.records)[: int(table.offsets[-1])]),
        f"{name}.columns.npz": table.save_columns,
        f"{name}.names.json": table.save_names,
        f"{name}.bm25.npz": lambda p: _save_arrays(
            p, indptr=np.asarray(tf.indptr, dtype=np.int64), indices=np.asarray(tf.indices, dtype=np.int32),
            data=stored_counts(tf.data), shape=np.asarray(tf.shape, dtype=np.int64),
            doc_len=np.asarray(seg.doc_len, dtype=np.float32), row_indptr=row_indptr, row_terms=row_terms,
            order=seg.order.stored()),
        f"{name}.terms.json": lambda p: p.write_text(json.dumps(seg.terms, ensure_ascii=False), encoding="utf-8"),
    }
    if seg.dense is not None:
        writers[f"{name}.dense.faiss"] = seg.dense.save
        if seg.dense.ivf is not None:
            writers[f"{name}.ivf.faiss"] = seg.dense.save_approximate
    if seg.lexical is not None:
        lex = seg.lexical.csc
        writers[f"{name}.lexical.npz"] = lambda p: _save_arrays(
            p, indptr=np.asarray(lex.indptr, dtype=np.int64), indices=np.asarray(lex.indices, dtype=np.int32),
            data=stored_weights(lex.data), shape=np.asarray(lex.shape, dtype=np.int64))
    seg.stored = {file: write_atomic(folder / file, writer) for file, writer in writers.items()}
    seg.stored[bounds.file_name(name)] = bounds.write_for(seg, folder)  # after the postings it summarises
    return seg.stored


def stored_counts(data: np.ndarray) -> np.ndarray:
    """Term frequencies as uint16 when they are whole counts below 65,536 (every real one), else float32.

    A query reads a term's postings, 4 bytes of row and 4 of count each; 2 bytes of count make
    the pages it reads a quarter fewer, and the scores stay exact (each count becomes the same
    float32 when weighted). Loaded arrays keep their stored type (issue 14's memory budget).
    """
    data = np.asarray(data)
    if data.dtype == np.uint16:
        return data
    small = data.size == 0 or (float(data.min()) >= 0 and float(data.max()) < 65536)
    if small and np.array_equal(data, np.trunc(data)):
        return data.astype(np.uint16)
    return data.astype(np.float32)


def write_deleted(deleted: np.ndarray, folder: Path) -> dict[str, FileEntry]:
    rows = np.flatnonzero(deleted).astype(np.int64)
    if rows.size == 0:
        return {}
    name = f"deleted-{hashlib.sha256(rows.tobytes()).hexdigest()[:16]}.npy"
    return {name: write_atomic(folder / name, lambda p: _save_array(p, rows))}


def _save_arrays(path: Path, **arrays: np.ndarray) -> None:
    npzfile.save(path, **arrays)  # each array at a 64-byte boundary: binary searches need no copy


def _save_array(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as fh:
        np.save(fh, array, allow_pickle=False)


# --------------------------------------------------------------------------- reading


def read_segment(entry: SegmentEntry, folder: Path) -> Segment:
    name = entry.name
    chunks = ChunkTable.open(folder / f"{name}.chunks.jsonl", folder / f"{name}.columns.npz",
                             folder / f"{name}.names.json")
    bm25 = map_npz(folder / f"{name}.bm25.npz", ("indptr", "indices", "data", "shape", "doc_len", "row_indptr",
                                                  "row_terms", "order"))
    tf = _csc(bm25, f"{name}.bm25.npz")
    order = _row_order(bm25["order"], tf.shape[0], folder / f"{name}.bm25.npz")
    row_terms = (bm25["row_indptr"], bm25["row_terms"])
    if row_terms[0].shape != (tf.shape[0] + 1,) or not int(row_terms[0][-1]) == row_terms[1].shape[0] == tf.nnz:
        raise IndexError_(f"{folder / (name + '.bm25.npz')}: the rows' terms do not match the term frequencies")
    try:
        terms = decode_record((folder / f"{name}.terms.json").read_bytes())
    except ValueError as exc:
        raise IndexError_(f"{folder / (name + '.terms.json')}: unreadable ({exc})") from exc
    if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
        raise IndexError_(f"{folder / (name + '.terms.json')}: not a list of terms")
    dense_file = folder / f"{name}.dense.faiss"
    dense = DenseIndex.load(dense_file) if dense_file.name in entry.files else None
    if dense is not None and f"{name}.ivf.faiss" in entry.files:
        dense.load_approximate(folder / f"{name}.ivf.faiss")
    if dense is not None:
        dense.advise_random()  # queries read their own rows' pages only (pages.py)
    lexical = None
    if f"{name}.lexical.npz" in entry.files:
        lex = map_npz(folder / f"{name}.lexical.npz", ("indptr", "indices", "data", "shape"))
        shape = _checked_columns(lex, f"{name}.lexical.npz")
        if lex["data"].dtype not in (np.float16, np.float32):  # float32: written before float16 weights, still read
            raise IndexError_(f"{folder / (name + '.lexical.npz')}: weights of type {lex['data'].dtype}")
        lexical = LexicalIndex.from_columns(lex["indptr"], lex["indices"], lex["data"], shape, order)
    if len(chunks) != entry.rows:
        raise IndexError_(f"{folder}: segment {name} holds {len(chunks)} chunks but the manifest says {entry.rows}")
    seg = Segment(name=name, chunks=chunks, postings=tf, order=order, terms=terms, dense=dense, lexical=lexical,
                  doc_len=bm25["doc_len"], stored=dict(entry.files), row_terms=row_terms)
    if bounds.file_name(name) in entry.files:  # absent in an index written before them: cruder bounds, same results
        bounds.read_for(seg, folder)
    return seg


def _row_order(stored: np.ndarray, rows: int, where: Path) -> RowOrder:
    """The segment's scope order, checked to be a permutation of its rows (O(rows), no entry read)."""
    if stored.size not in (0, rows):
        raise IndexError_(f"{where}: the row order covers {stored.size} rows, not {rows}")
    try:
        return RowOrder.of(np.asarray(stored))
    except ValueError as exc:
        raise IndexError_(f"{where}: {exc}") from exc


def _checked_columns(arrays: dict[str, np.ndarray], where: str) -> tuple[int, int]:
    """The shape of stored CSC arrays, after O(columns) checks that they fit together; entries are not read."""
    shape = tuple(int(x) for x in arrays["shape"])
    indptr, indices, data = arrays["indptr"], arrays["indices"], arrays["data"]
    if len(shape) != 2 or indptr.shape != (shape[1] + 1,) or indices.shape != data.shape \
            or int(indptr[0]) != 0 or int(indptr[-1]) != indices.shape[0] or bool((np.diff(indptr) < 0).any()):
        raise IndexError_(f"{where}: the sparse matrix's arrays do not fit together")
    return shape


def _csc(arrays: dict[str, np.ndarray], where: str) -> sp.csc_matrix:
    """A CSC matrix over stored (memory-mapped) arrays after O(columns) checks; its entries are not read."""
    shape = _checked_columns(arrays, where)
    matrix = sp.csc_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape, copy=False)
    matrix.has_sorted_indices = True  # written sorted; checking would read every entry
    return matrix


def map_npz(path: Path, names: Sequence[str]) -> dict[str, np.ndarray]:
    """The arrays `names` of an uncompressed .npz, each memory-mapped where it lies in the archive.

    Object arrays (pickle) are refused; a damaged archive is an IndexError_.
    """
    out: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(path) as archive, path.open("rb") as fh:
            members = {info.filename: info for info in archive.infolist()}
            for name in names:
                info = members.get(f"{name}.npy")
                if info is None or info.compress_type != zipfile.ZIP_STORED:
                    raise IndexError_(f"{path}: no uncompressed array {name!r}")
                fh.seek(info.header_offset)
                local = fh.read(30)
                if local[:4] != b"PK\x03\x04":
                    raise IndexError_(f"{path}: damaged archive entry {name!r}")
                name_len, extra_len = struct.unpack("<HH", local[26:30])
                fh.seek(info.header_offset + 30 + name_len + extra_len)
                out[name] = _map_npy(path, fh, info.file_size)
    except (zipfile.BadZipFile, ValueError, OSError, struct.error) as exc:
        raise IndexError_(f"{path}: unreadable arrays ({exc})") from exc
    return out


def _map_npy(path: Path, fh, member_size: int) -> np.ndarray:
    start = fh.tell()
    version = np.lib.format.read_magic(fh)
    reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}[version]
    shape, fortran, dtype = reader(fh)
    if dtype.hasobject or fortran:
        raise ValueError("object or Fortran-ordered array")
    offset = fh.tell()
    count = int(np.prod(shape, dtype=np.int64))
    if offset - start + count * dtype.itemsize != member_size:
        raise ValueError("array size does not match its archive entry")
    if count == 0:
        return np.zeros(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)


def read_deleted(folder: Path, files: dict[str, FileEntry], rows: int) -> np.ndarray:
    mask = np.zeros(rows, dtype=bool)
    for name in files:
        ids = np.load(folder / name, allow_pickle=False)
        if ids.ndim != 1 or ids.dtype.kind != "i" or (ids.size and (ids.min() < 0 or ids.max() >= rows)):
            raise IndexError_(f"{folder / name}: deleted row ids out of range")
        mask[ids] = True
    return mask
