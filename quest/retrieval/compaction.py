"""Compaction that streams: the new base's files are written block by block from the old segments.

`index.compact_index` builds the new base in memory (term frequencies, lexical weights, chunk
records, vectors and the IVF lists, each copied and permuted whole) and `save_index` writes it:
at 1M chunks that held 11 GB of anonymous memory beside a 2 GB process
(docs/bench/scale-1m-merged), on a machine where a server may run alongside. Here each file of
the new base is written straight from the old segments (memory-mapped when loaded), in the
same layout:

- chunk records: byte runs copied from the old blobs, in the new row order;
- term frequencies and lexical weights (float16, as `sparse.stored_weights` keeps them): merged a
  block of terms at a time (at most
  BLOCK_ENTRIES postings, or one term's postings if it has more), each old position mapped to
  its new one; the merged postings go to two spill files while the column counts are summed,
  because the archive stores the column pointers first;
- the rows' term lists: runs of the old lists; float16 vectors: runs of the old codes, as bytes;
- the IVF index: trained as `DenseIndex.build_approximate` trains it, every row assigned to its
  list in the same batches, then written one list after another (each list's codes and row ids).

What stays in memory is O(rows) small per-row arrays (about 100 bytes a row: codes, record offsets,
the row mappings, document lengths, IVF list numbers), one block, and the IVF's training sample
and assignment batch: 0.53 GB of anonymous memory at 1M chunks (docs/bench/scale-1m-compaction). The bytes written are
those `compact_index` + `save_index` write (tests/retrieval/test_compaction.py compares them
file by file; .npz archives member by member, since a zip entry carries its write time).

Crash safety is `save_index`'s: the files get a new segment number, each is written under a
temporary name and renamed, and the manifest naming them is written last, atomically. A
compaction killed part-way leaves the previous manifest and every file it names untouched; the
next save removes the orphans.
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import faiss
import numpy as np

from quest.retrieval import bounds, npzfile, store
from quest.retrieval import dense as dense_module
from quest.retrieval.chunktable import ChunkTable
from quest.retrieval.dense import DenseIndex, all_cores
from quest.retrieval.layout import grouped_order
from quest.retrieval.manifest import FileEntry, SegmentEntry
from quest.retrieval.scopes import RowOrder
from quest.retrieval.segments import Segment, offsets_of
from quest.retrieval.sparse import HALF_MAX

if TYPE_CHECKING:  # index.py imports this module
    from quest.retrieval.index import Index

log = logging.getLogger(__name__)

BLOCK_ENTRIES = 1 << 21  # sparse postings merged at once (~80 MB of transient arrays)
BLOCK_ROWS = 16384  # rows of vectors, term lists or lengths copied at once (32 MB of 1024-d float16 codes)
BLOCK_BYTES = 16 << 20  # bytes per write when copying record runs and spill files


# --------------------------------------------------------------------------- the plan


@dataclass
class Plan:
    """Where every row of the new base comes from, and where every old position goes."""

    segments: list[Segment]
    source: np.ndarray  # the old row (across segments) of each new row, in the new row order
    runs: list[tuple[int, int, int]]  # the same as (segment, first local row, end) runs, in the new order
    order: RowOrder  # the new base's scope order (scopes.py), as Segment would derive it
    new_positions: list[np.ndarray]  # per old segment: old position -> new position, -1 for a deleted row

    @property
    def rows(self) -> int:
        return int(self.source.size)


def plan(index: Index) -> Plan:
    """The live rows grouped by problem (layout.py), exactly as `compact_index` orders them."""
    live = np.flatnonzero(~index.deleted)
    source = live[grouped_order(index.chunks.problem[live])]
    order = RowOrder.grouping(index.chunks.problem[source], index.chunks.kind[source])
    position = np.arange(source.size, dtype=np.int64) if order.identity else order.rank.astype(np.int64)
    offsets = offsets_of(index.segments)
    new_position_of_row = np.full(index.rows, -1, dtype=np.int64)
    new_position_of_row[source] = position
    new_positions = []
    for seg, start in zip(index.segments, offsets[:-1].tolist(), strict=False):
        by_row = new_position_of_row[start:start + seg.rows]
        new_positions.append(by_row if seg.order.identity else by_row[seg.order.order])
    return Plan(list(index.segments), source, _runs(source, offsets), order, new_positions)


def _runs(source: np.ndarray, offsets: np.ndarray) -> list[tuple[int, int, int]]:
    if source.size == 0:
        return []
    seg = np.searchsorted(offsets, source, side="right") - 1
    local = source - offsets[seg]
    breaks = np.flatnonzero((np.diff(seg) != 0) | (np.diff(local) != 1)) + 1
    firsts = np.concatenate([[0], breaks]).astype(np.int64)
    lasts = np.concatenate([breaks, [source.size]]).astype(np.int64) - 1
    return [(int(seg[a]), int(local[a]), int(local[b]) + 1) for a, b in zip(firsts.tolist(), lasts.tolist(),
                                                                            strict=True)]


def _blocks(runs: Sequence[tuple[int, int, int]], limit: int) -> Iterator[tuple[int, int, int]]:
    """`runs` cut into pieces of at most `limit` rows."""
    for s, lo, hi in runs:
        for at in range(lo, hi, limit):
            yield s, at, min(at + limit, hi)


# --------------------------------------------------------------------------- archives written as they go


_Archive = npzfile.Archive
_archive_writer = npzfile.writer


# --------------------------------------------------------------------------- sparse matrices, term by term


@dataclass
class _Merged:
    """A merged CSC matrix whose entries wait in two spill files until its column pointers are known."""

    counts: np.ndarray
    indices: Path
    data: Path
    # Every value a whole count below 65,536 (BM25 term frequencies): the data member is then uint16,
    # as `store.stored_counts` writes it. The spill file holds float32 either way.
    whole_counts: bool = False
    # Every value fits float16 (lexical weights): the data member is float16, as `sparse.stored_weights` writes it.
    half_weights: bool = False

    @property
    def nnz(self) -> int:
        return int(self.counts.sum())

    def write(self, archive: _Archive, rows: int) -> None:
        """indptr, indices, data and shape, the members `store.write_segment` writes first, in its order."""
        indptr = np.zeros(self.counts.size + 1, dtype=np.int64)
        np.cumsum(self.counts, out=indptr[1:])
        archive.array("indptr", indptr)
        data_type = np.uint16 if self.whole_counts else np.float16 if self.half_weights else np.float32
        for name, path, dtype, stored in (("indices", self.indices, np.int32, np.int32),
                                          ("data", self.data, np.float32, data_type)):
            size = max(1, BLOCK_BYTES // np.dtype(dtype).itemsize) * np.dtype(dtype).itemsize  # whole values
            with archive.stream(name, stored, self.nnz) as write, path.open("rb") as fh:
                for block in iter(lambda fh=fh, size=size: fh.read(size), b""):
                    write(np.frombuffer(block, dtype=dtype).astype(stored, copy=False))
        archive.array("shape", np.asarray((rows, self.counts.size), dtype=np.int64))

    def remove(self) -> None:
        self.indices.unlink(missing_ok=True)
        self.data.unlink(missing_ok=True)


def merge_columns(parts: Sequence[tuple[object, np.ndarray]], width: int, spill: Path,
                  counts_as_stored: bool = False, weights_as_stored: bool = False) -> _Merged:
    """Each part's CSC matrix (rows at its old positions) merged into one over the new positions.

    `parts` pairs a matrix with its old-position -> new-position map (-1: the row is dropped).
    A block of columns at a time: gather every part's entries, map them, drop dropped rows, sort
    by (column, new position), append to the spill files. Equal to permuting whole matrices.
    With `counts_as_stored` the values are stored as `store.stored_counts` would store them, with
    `weights_as_stored` as `sparse.stored_weights` would.
    """
    pointers = [_padded_indptr(matrix, width) for matrix, _ in parts]
    total = np.sum(pointers, axis=0) if pointers else np.zeros(width + 1, dtype=np.int64)
    counts = np.zeros(width, dtype=np.int64)
    merged = _Merged(counts, spill.with_name(f"{spill.name}.indices.tmp"),
                     spill.with_name(f"{spill.name}.data.tmp"), whole_counts=counts_as_stored,
                     half_weights=weights_as_stored)
    try:
        with merged.indices.open("wb") as out_indices, merged.data.open("wb") as out_data:
            for c0, c1 in _column_blocks(total, BLOCK_ENTRIES):
                keys, values = [], []
                for (matrix, mapping), indptr in zip(parts, pointers, strict=True):
                    lo, hi = int(indptr[c0]), int(indptr[c1])
                    if hi == lo:
                        continue
                    new = mapping[np.asarray(matrix.indices[lo:hi])]
                    column = np.repeat(np.arange(c1 - c0, dtype=np.int64), np.diff(indptr[c0:c1 + 1]))
                    kept = new >= 0
                    keys.append((column[kept] << 32) + new[kept])  # new positions fit in 31 bits (int32 on disk)
                    values.append(np.asarray(matrix.data[lo:hi], dtype=np.float32)[kept])
                if not keys:
                    continue
                key = np.concatenate(keys)
                by_key = np.argsort(key, kind="stable")  # nearly sorted runs (one per part): timsort merges them
                key = key[by_key]
                counts[c0:c1] += np.bincount(key >> 32, minlength=c1 - c0)
                out_indices.write((key & 0xFFFFFFFF).astype(np.int32).tobytes())
                block = np.concatenate(values)[by_key]
                if merged.whole_counts and block.size:
                    merged.whole_counts = bool(block.min() >= 0 and block.max() < 65536
                                               and np.array_equal(block, np.trunc(block)))
                if merged.half_weights and block.size:
                    merged.half_weights = bool(np.isfinite(block).all() and np.abs(block).max() <= HALF_MAX)
                out_data.write(block.tobytes())
    except BaseException:
        merged.remove()
        raise
    return merged


def _padded_indptr(matrix, width: int) -> np.ndarray:
    """A CSC matrix's column pointers over `width` columns (columns it lacks are empty, extra ones dropped)."""
    indptr = np.asarray(matrix.indptr, dtype=np.int64)
    cols = min(int(matrix.shape[1]), width)
    out = np.empty(width + 1, dtype=np.int64)
    out[: cols + 1] = indptr[: cols + 1]
    out[cols + 1:] = indptr[cols]
    return out


def _column_blocks(total: np.ndarray, limit: int) -> Iterator[tuple[int, int]]:
    """Column ranges holding at most `limit` entries of `total` (cumulative), or one column that has more."""
    width = total.size - 1
    c0 = 0
    while c0 < width:
        c1 = int(np.searchsorted(total, total[c0] + limit, side="right")) - 1
        c1 = min(max(c1, c0 + 1), width)
        yield c0, c1
        c0 = c1


# --------------------------------------------------------------------------- the segment's files


def new_table(index: Index, plan: Plan) -> ChunkTable:
    """The new base's chunk columns and names (records stay on disk: `_records_writer` copies them)."""
    chunks, source = index.chunks, plan.source
    lengths = [np.diff(np.asarray(plan.segments[s].chunks.offsets[lo:hi + 1], dtype=np.int64))
               for s, lo, hi in plan.runs]
    offsets = np.zeros(plan.rows + 1, dtype=np.int64)
    if lengths:
        np.cumsum(np.concatenate(lengths), out=offsets[1:])
    used, doc = np.unique(chunks.doc[source], return_inverse=True)  # only the documents the rows use
    columns = {"offsets": offsets, "kind": chunks.kind[source].astype(np.uint8),
               "problem": chunks.problem[source].astype(np.int32), "doc": doc.astype(np.int32).reshape(-1),
               "ordinal": chunks.ordinal[source].astype(np.int32)}
    names = {"kinds": list(chunks.kinds), "problems": list(chunks.problems),
             "docs": [chunks.docs[i] for i in used.tolist()]}
    return ChunkTable(b"", columns, names)


def _records_writer(plan: Plan) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with path.open("wb") as fh:
            for s, lo, hi in plan.runs:
                table = plan.segments[s].chunks
                start, end = int(table.offsets[lo]), int(table.offsets[hi])
                view = memoryview(table.records)  # slices of a mapped blob: no copy on the heap
                for at in range(start, end, BLOCK_BYTES):
                    fh.write(view[at:min(at + BLOCK_BYTES, end)])
    return write


def _bm25_writer(plan: Plan, width: int, spill: Path) -> Callable[[Path], None]:
    def fill(archive: _Archive) -> None:
        merged = merge_columns([(seg.postings, new) for seg, new in zip(plan.segments, plan.new_positions,
                                                                         strict=True)], width, spill,
                               counts_as_stored=True)
        try:
            merged.write(archive, plan.rows)
        finally:
            merged.remove()
        archive.array("doc_len", _gathered(plan, [seg.doc_len for seg in plan.segments], np.float32))
        pointers = [seg.terms_of_rows() for seg in plan.segments]
        lengths = _gathered(plan, [np.diff(np.asarray(indptr, dtype=np.int64)) for indptr, _ in pointers], np.int64)
        row_indptr = np.zeros(plan.rows + 1, dtype=np.int64)
        np.cumsum(lengths, out=row_indptr[1:])
        archive.array("row_indptr", row_indptr)
        with archive.stream("row_terms", np.int32, int(row_indptr[-1])) as write:
            for s, lo, hi in plan.runs:
                indptr, terms = pointers[s]
                for at in range(int(indptr[lo]), int(indptr[hi]), BLOCK_ENTRIES):
                    write(terms[at:min(at + BLOCK_ENTRIES, int(indptr[hi]))])
        archive.array("order", plan.order.stored())
    return _archive_writer(fill)


def _gathered(plan: Plan, columns: Sequence[np.ndarray], dtype) -> np.ndarray:
    """A per-row array (one per old segment, in its row order) gathered in the new row order."""
    out = np.empty(plan.rows, dtype=dtype)
    at = 0
    for s, lo, hi in plan.runs:
        out[at:at + hi - lo] = np.asarray(columns[s][lo:hi])
        at += hi - lo
    return out


def _lexical_writer(plan: Plan, spill: Path) -> Callable[[Path], None]:
    parts = [(seg.lexical.csc, new) for seg, new in zip(plan.segments, plan.new_positions, strict=True)]
    width = max(int(csc.shape[1]) for csc, _ in parts)

    def fill(archive: _Archive) -> None:
        merged = merge_columns(parts, width, spill, weights_as_stored=True)
        try:
            merged.write(archive, plan.rows)
        finally:
            merged.remove()
    return _archive_writer(fill)


def _dense_writer(plan: Plan, dim: int) -> Callable[[Path], None]:
    """FAISS's own file for a float16 scalar-quantizer index: its header, the codes' length, the codes."""
    def write(path: Path) -> None:
        empty = DenseIndex.from_vectors(np.zeros((0, dim), np.float32)).index
        empty.ntotal = plan.rows  # the header says how many rows; the codes follow it
        head = faiss.serialize_index(empty).tobytes()
        if head[-8:] != bytes(8):
            raise RuntimeError("unexpected FAISS layout: the codes' length does not end the empty index")
        with path.open("wb") as fh:
            fh.write(head[:-8])
            fh.write(struct.pack("<Q", plan.rows * empty.code_size))
            for s, lo, hi in _blocks(plan.runs, BLOCK_ROWS):
                fh.write(memoryview(np.ascontiguousarray(plan.segments[s].dense.block(lo, hi))).cast("B"))
    return write


def _ivf_writer(dense: DenseIndex) -> Callable[[Path], None]:
    """`dense.build_approximate()` + `faiss.write_index`, with the inverted lists never in memory.

    Trained the same way on the same sample; rows assigned to lists in the same batches (so the
    same BLAS calls); then each list's codes (residuals to its centroid, 8-bit) and row ids are
    written in list order, rows ascending, as FAISS's array inverted lists store them.
    """
    def write(path: Path) -> None:
        ivf = dense.trained_approximate()
        lists = _assigned(ivf, dense)
        ivf.ntotal = dense.size  # the header records the row count; the (empty) lists are replaced below
        head = faiss.serialize_index(ivf).tobytes()
        ivf.ntotal = 0
        empty_lists = b"ilar" + struct.pack("<QQ", ivf.nlist, ivf.code_size) + b"sprs" + bytes(8)
        if not head.endswith(empty_lists):
            raise RuntimeError("unexpected FAISS layout: the empty IVF index does not end with its lists")
        sizes = np.bincount(lists, minlength=ivf.nlist).astype(np.uint64)
        by_list = np.argsort(lists, kind="stable")  # each list's rows ascending, as `add` appends them
        with path.open("wb") as fh:
            fh.write(head[: -len(empty_lists)])
            fh.write(_list_sizes(ivf.nlist, ivf.code_size, sizes))
            ends = np.cumsum(sizes.astype(np.int64))
            for first, last in _list_blocks(ends, BLOCK_ROWS):
                rows = by_list[(ends[first - 1] if first else 0):ends[last - 1]]
                codes = _encoded(ivf, dense, rows, lists[rows])
                at = 0
                for size in sizes[first:last].astype(np.int64).tolist():
                    fh.write(codes[at:at + size].tobytes())
                    fh.write(rows[at:at + size].astype(np.int64).tobytes())
                    at += size
    return write


def _assigned(ivf, dense: DenseIndex) -> np.ndarray:
    lists = np.empty(dense.size, dtype=np.int64)
    batch = dense_module.ADD_BATCH
    with all_cores():
        for start in range(0, dense.size, batch):
            block = dense.block(start, start + batch).astype(np.float32)
            lists[start:start + block.shape[0]] = ivf.quantizer.assign(block, 1).reshape(-1)
    return lists


def _encoded(ivf, dense: DenseIndex, rows: np.ndarray, lists: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(dense.vectors[rows], dtype=np.float32)
    lists = np.ascontiguousarray(lists, dtype=np.int64)
    codes = np.empty((rows.size, ivf.code_size), dtype=np.uint8)
    if rows.size:
        ivf.encode_vectors(rows.size, faiss.swig_ptr(x), faiss.swig_ptr(lists), faiss.swig_ptr(codes), False)
    return codes


def _list_sizes(nlist: int, code_size: int, sizes: np.ndarray) -> bytes:
    """FAISS's header of array inverted lists: every size when most lists are used, else (list, size) pairs."""
    head = b"ilar" + struct.pack("<QQ", nlist, code_size)
    used = np.flatnonzero(sizes)
    if used.size > nlist // 2:
        return head + b"full" + struct.pack("<Q", nlist) + sizes.astype("<u8").tobytes()
    pairs = np.stack([used.astype(np.uint64), sizes[used]], axis=1).reshape(-1)
    return head + b"sprs" + struct.pack("<Q", pairs.size) + pairs.astype("<u8").tobytes()


def _list_blocks(ends: np.ndarray, limit: int) -> Iterator[tuple[int, int]]:
    """Ranges of lists holding at most `limit` rows together (or one larger list)."""
    first, count = 0, ends.size
    while first < count:
        start = int(ends[first - 1]) if first else 0
        last = int(np.searchsorted(ends, start + limit, side="right"))
        last = min(max(last, first + 1), count)
        yield first, last
        first = last


# --------------------------------------------------------------------------- the whole segment


def write_base(index: Index, folder: Path, name: str, lap: Callable[[str], None] = lambda _: None) -> SegmentEntry:
    """Write the segment `name` holding `index`'s live rows (what `compact_index` builds) into `folder`.

    Files as `store.write_segment` names and lays them out, each written under a temporary name
    and renamed; no manifest is touched. `lap(part)` is called as each file is done (timings).
    """
    plan_ = plan(index)
    table = new_table(index, plan_)
    terms = sorted(index.bm25.vocab, key=index.bm25.vocab.__getitem__)
    lap("plan")
    writers: dict[str, Callable[[Path], None]] = {
        f"{name}.chunks.jsonl": _records_writer(plan_),
        f"{name}.columns.npz": table.save_columns,
        f"{name}.names.json": table.save_names,
        f"{name}.bm25.npz": _bm25_writer(plan_, len(index.bm25.vocab), folder / f".{name}.bm25"),
        f"{name}.terms.json": lambda p: p.write_text(json.dumps(terms, ensure_ascii=False), encoding="utf-8"),
    }
    files: dict[str, FileEntry] = {}
    for file, writer in writers.items():
        files[file] = store.write_atomic(folder / file, writer)
        lap(file.split(".", 1)[1])
    if index.dense is not None:
        dense_file = folder / f"{name}.dense.faiss"
        files[dense_file.name] = store.write_atomic(dense_file, _dense_writer(plan_, index.dim))
        lap("dense.faiss")
        if plan_.rows >= dense_module.APPROXIMATE_FROM:
            log.info("training an IVF index over %d vectors for global search", plan_.rows)
            mapped = DenseIndex.load(dense_file)  # the codes just written, read as needed
            files[f"{name}.ivf.faiss"] = store.write_atomic(folder / f"{name}.ivf.faiss", _ivf_writer(mapped))
            lap("ivf.faiss")
    if index.lexical is not None:
        files[f"{name}.lexical.npz"] = store.write_atomic(folder / f"{name}.lexical.npz",
                                                          _lexical_writer(plan_, folder / f".{name}.lexical"))
        lap("lexical.npz")
    written = store.read_segment(SegmentEntry(name=name, rows=plan_.rows, files=files), folder)
    files[bounds.file_name(name)] = bounds.write_for(written, folder)  # from the postings just written (mapped)
    lap(bounds.FILE_SUFFIX)
    return SegmentEntry(name=name, rows=plan_.rows, files=files)

