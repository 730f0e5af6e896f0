"""Chunk metadata as columns plus a record blob, decoded only for the rows a caller asks for.

At a million chunks, parsing every chunk into a Python object at load costs tens of seconds
and ~1.5 KB per chunk. Search only filters on a few fields (kind, problem, document), so a
segment keeps those as small integer columns (codes into short name tables) and every
chunk's full record as one JSON line in a blob that is memory-mapped on load: `table[row]`
decodes that one line. Only the hits a search returns are ever decoded.

On disk, per segment (see store.py)::

    sNNNNNN.chunks.jsonl    the records, one JSON object per line (the blob, memory-mapped)
    sNNNNNN.columns.npz     offsets (rows + 1, int64: byte offset of each record) and the codes:
                            kind (uint8), problem (int32, -1 = none), doc (int32), ordinal (int32)
    sNNNNNN.names.json      {"kinds": [...], "problems": [...], "docs": [...]}: what the codes name
"""

from __future__ import annotations

import json
import mmap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from quest.errors import IndexError_
from quest.kb.documents import Chunk

NO_PROBLEM = -1
COLUMNS = ("offsets", "kind", "problem", "doc", "ordinal")

try:  # orjson comes with gradio and parses ~3x faster; plain json is the fallback
    import orjson

    def encode_record(record: dict[str, Any]) -> bytes:
        return orjson.dumps(record)

    decode_record = orjson.loads
except ImportError:  # pragma: no cover
    def encode_record(record: dict[str, Any]) -> bytes:
        return json.dumps(record, ensure_ascii=False).encode("utf-8")

    decode_record = json.loads


def verbatim_in_json(text: str) -> bool:
    """Whether `text` is written byte for byte (as UTF-8) inside a JSON string by `encode_record`: it holds none of
    the characters JSON escapes (the quote, the backslash, control characters)."""
    return not any(ch in '"\\' or ord(ch) < 0x20 for ch in text)


class ChunkTable(Sequence[Chunk]):
    """One segment's chunks: integer columns in memory, records decoded on demand."""

    def __init__(self, records: bytes | mmap.mmap, columns: dict[str, np.ndarray], names: dict[str, list[str]],
                 where: str = "chunks") -> None:
        self.records = records
        self.offsets = columns["offsets"]
        self.kind, self.problem, self.doc, self.ordinal = (columns[c] for c in COLUMNS[1:])
        self.kinds, self.problems, self.docs = names["kinds"], names["problems"], names["docs"]
        self.where = where

    # ------------------------------------------------------------------ building

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk]) -> ChunkTable:
        lines = [encode_record(c.to_dict()) + b"\n" for c in chunks]
        offsets = np.zeros(len(lines) + 1, dtype=np.int64)
        np.cumsum([len(line) for line in lines], out=offsets[1:])
        kinds: dict[str, int] = {}
        problems: dict[str, int] = {}
        docs: dict[str, int] = {}
        columns = {
            "offsets": offsets,
            "kind": np.fromiter((kinds.setdefault(c.kind, len(kinds)) for c in chunks), np.uint8, len(chunks)),
            "problem": np.fromiter((NO_PROBLEM if c.problem_id is None else problems.setdefault(c.problem_id,
                                    len(problems)) for c in chunks), np.int32, len(chunks)),
            "doc": np.fromiter((docs.setdefault(c.doc_id, len(docs)) for c in chunks), np.int32, len(chunks)),
            "ordinal": np.fromiter((c.ordinal for c in chunks), np.int32, len(chunks)),
        }
        if len(kinds) > 255:
            raise ValueError("more than 255 chunk kinds")
        return cls(b"".join(lines), columns, {"kinds": list(kinds), "problems": list(problems), "docs": list(docs)})

    def take(self, rows: np.ndarray) -> ChunkTable:
        """A new table holding `rows` (ascending) of this one, copying record bytes without decoding them."""
        rows = np.asarray(rows, dtype=np.int64)
        starts, ends = self.offsets[rows], self.offsets[rows + 1]
        # Runs of consecutive rows are one slice of the blob each (compaction keeps long runs).
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1 if rows.size else np.zeros(0, np.int64)
        firsts = np.concatenate([[0], breaks]).astype(np.int64) if rows.size else breaks
        lasts = np.concatenate([breaks - 1, [rows.size - 1]]).astype(np.int64) if rows.size else breaks
        view = memoryview(self.records)  # slices of a view are not copies: the join copies each byte once
        blob = b"".join(view[int(starts[a]):int(ends[b])] for a, b in zip(firsts, lasts, strict=True))
        offsets = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=offsets[1:])
        columns = {"offsets": offsets, "kind": self.kind[rows], "problem": self.problem[rows],
                   "doc": self.doc[rows], "ordinal": self.ordinal[rows]}
        return ChunkTable(blob, columns, {"kinds": self.kinds, "problems": self.problems, "docs": self.docs})

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return int(self.offsets.shape[0]) - 1

    def record(self, row: int) -> bytes:
        return self.records[int(self.offsets[row]):int(self.offsets[row + 1])]

    def record_holds(self, row: int, needles: Sequence[bytes]) -> bool:
        """Whether row's stored record (its JSON line, undecoded) holds one of `needles`. A string JSON writes as it
        is (`verbatim_in_json`) is in the record whenever it is in one of the chunk's fields: a False here means no
        field holds it, without decoding the record."""
        record = self.record(checked_row(row, len(self)))
        return any(needle in record for needle in needles)

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        row = checked_row(row, len(self))
        try:
            return Chunk.from_dict(decode_record(self.record(row)))
        except (ValueError, TypeError) as exc:  # a damaged record: say which, never a bare traceback
            raise IndexError_(f"{self.where}: chunk record {row} is damaged ({exc}); run `python -m quest index "
                              f"--verify`, or delete the index folder to rebuild it") from exc

    def __iter__(self) -> Iterator[Chunk]:
        for row in range(len(self)):
            yield self[row]

    # ------------------------------------------------------------------ persistence

    def save_columns(self, path: Path) -> None:
        with path.open("wb") as fh:
            np.savez(fh, offsets=self.offsets, kind=self.kind, problem=self.problem, doc=self.doc,
                     ordinal=self.ordinal)

    def save_names(self, path: Path) -> None:
        names = {"kinds": list(self.kinds), "problems": list(self.problems), "docs": list(self.docs)}
        path.write_bytes(json.dumps(names, ensure_ascii=False).encode("utf-8"))

    @classmethod
    def open(cls, records: Path, columns: Path, names: Path) -> ChunkTable:
        """Map the blob and the columns, read the names, and check that they describe each other.

        The columns are memory-mapped too (21 MB of heap at 1M chunks otherwise): the load reads the
        kind, problem and document codes once, a query only the record offsets of the hits it shows.
        """
        from quest.retrieval.store import map_npz  # store.py imports this module

        cols = map_npz(columns, COLUMNS)
        table_names = _read_names(names)
        size = records.stat().st_size
        blob: bytes | mmap.mmap = b""
        if size:
            with records.open("rb") as fh:
                blob = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            if hasattr(blob, "madvise"):  # a hit decodes one record: no read-around of MBs (retrieval/pages.py)
                blob.madvise(mmap.MADV_RANDOM)
        table = cls(blob, cols, table_names, where=str(records))
        table.check(size)
        return table

    def check(self, blob_size: int) -> None:
        """Structural invariants, O(rows) in numpy: what a damaged or mismatched file breaks."""
        n = len(self)
        off = self.offsets
        if off.ndim != 1 or off.dtype.kind != "i" or n < 0 or off[0] != 0 or int(off[-1]) != blob_size:
            raise IndexError_(f"{self.where}: record offsets do not match the file ({blob_size} bytes)")
        if n and not bool((off[1:] > off[:-1]).all()):
            raise IndexError_(f"{self.where}: record offsets are not increasing")
        for name, col, table in (("kind", self.kind, self.kinds), ("problem", self.problem, self.problems),
                                 ("doc", self.doc, self.docs), ("ordinal", self.ordinal, None)):
            if col.shape != (n,) or col.dtype.kind not in "iu":
                raise IndexError_(f"{self.where}: the {name} column does not have {n} rows")
            if n and table is not None and (int(col.min()) < (NO_PROBLEM if name == "problem" else 0)
                                            or int(col.max()) >= len(table)):
                raise IndexError_(f"{self.where}: the {name} column names entries its table lacks")


def _read_names(path: Path) -> dict[str, list[str]]:
    try:
        names = decode_record(path.read_bytes())
    except (ValueError, OSError) as exc:
        raise IndexError_(f"{path}: unreadable ({exc})") from exc
    if not isinstance(names, dict) or sorted(names) != ["docs", "kinds", "problems"] or not all(
            isinstance(v, list) and all(isinstance(s, str) for s in v) for v in names.values()):
        raise IndexError_(f"{path}: not the segment's name tables")
    return names


class IndexChunks(Sequence[Chunk]):
    """The chunks of every segment as one sequence (row r of the index), with global columns.

    Codes are remapped to one set of name tables (kinds, problems) so callers compare a column
    against one code; document codes are the segments' own, shifted past the earlier segments'.
    """

    def __init__(self, tables: Sequence[ChunkTable]) -> None:
        self.tables = list(tables)
        self.starts = np.concatenate([[0], np.cumsum([len(t) for t in self.tables])]).astype(np.int64)
        self.kinds, self.kind = _merge([t.kinds for t in self.tables], [t.kind for t in self.tables], np.uint8)
        self.problems, self.problem = _merge([t.problems for t in self.tables], [t.problem for t in self.tables],
                                             np.int32)
        self.docs = [d for t in self.tables for d in t.docs]
        shifts = np.cumsum([0] + [len(t.docs) for t in self.tables[:-1]])
        self.doc = _concat([t.doc + np.int32(s) if s else t.doc for t, s in zip(self.tables, shifts, strict=True)],
                           np.int32)
        self.ordinal = _concat([t.ordinal for t in self.tables], np.int32)
        # Plain views of the (one segment's) mapped columns: the same pages, but reading one row of a np.memmap runs
        # its Python __getitem__ (~0.4 us): fusion's tie keys and the floors read a few hundred rows a question.
        self.kind, self.problem, self.doc, self.ordinal = (np.asarray(c) for c in (self.kind, self.problem, self.doc,
                                                                                      self.ordinal))

    def __len__(self) -> int:
        return int(self.starts[-1])

    def locate(self, row: int) -> tuple[ChunkTable, int]:
        s = int(np.searchsorted(self.starts, row, side="right")) - 1
        return self.tables[s], row - int(self.starts[s])

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        row = checked_row(row, len(self))
        table, local = self.locate(row)
        return table[local]

    def __iter__(self) -> Iterator[Chunk]:
        for table in self.tables:
            yield from table

    def record_holds(self, row: int, needles: Sequence[bytes]) -> bool:
        """`ChunkTable.record_holds` for row r of the index."""
        table, local = self.locate(checked_row(row, len(self)))
        return table.record_holds(local, needles)

    def kind_codes(self, kinds) -> list[int]:
        """The codes of `kinds` (kinds absent from the index have none)."""
        return [i for i, k in enumerate(self.kinds) if k in kinds]

    def problem_id(self, row: int) -> str | None:
        code = int(self.problem[row])
        return None if code == NO_PROBLEM else self.problems[code]

    def doc_id(self, row: int) -> str:
        return self.docs[int(self.doc[row])]


def _concat(parts: Sequence[np.ndarray], dtype) -> np.ndarray:
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)


def _merge(tables: Sequence[Sequence[str]], codes: Sequence[np.ndarray], dtype) -> tuple[list[str], np.ndarray]:
    """One name table for every segment's codes; a segment whose table is a prefix keeps its codes."""
    merged: dict[str, int] = {}
    remapped = []
    for names, col in zip(tables, codes, strict=True):
        lookup = np.asarray([merged.setdefault(n, len(merged)) for n in names], dtype=np.int64)
        if np.array_equal(lookup, np.arange(len(names))):
            remapped.append(col)
        else:  # -1 (no problem) stays -1: it indexes the extra slot at the end
            remapped.append(np.append(lookup, -1)[col].astype(dtype))
    return list(merged), _concat(remapped, dtype)


def merge_tables(tables: Sequence[ChunkTable]) -> ChunkTable:
    """One table holding every row of `tables` in order (compaction), with only the names its rows use."""
    view = IndexChunks(tables)
    used, doc = np.unique(view.doc, return_inverse=True)
    blob = b"".join(memoryview(t.records)[: int(t.offsets[-1])] for t in tables)  # one copy, not two
    offsets = np.zeros(len(view) + 1, dtype=np.int64)
    np.cumsum(np.concatenate([np.diff(t.offsets) for t in tables]) if tables else [], out=offsets[1:])
    columns = {"offsets": offsets, "kind": view.kind, "problem": view.problem,
               "doc": doc.astype(np.int32).reshape(-1), "ordinal": view.ordinal}
    return ChunkTable(blob, columns, {"kinds": view.kinds, "problems": view.problems,
                                      "docs": [view.docs[i] for i in used.tolist()]})


def checked_row(row: int, length: int) -> int:
    """`row` as a list index into `length` rows: negative counts from the end; out of range raises IndexError."""
    index = int(row)
    if index < 0:
        index += length
    if not 0 <= index < length:
        raise IndexError(row)
    return index
