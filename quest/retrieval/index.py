"""The search index: chunks, BM25, dense vectors and lexical weights, kept in agreement.

The index is a list of segments (a base and append-only deltas, see segments.py) plus a mask
of deleted rows. An update embeds only new or changed documents, appends them as one delta
segment, marks their old rows deleted, and writes only the delta, the deleted-rows list and
the manifest (store.py). When the deltas grow past a threshold, compaction merges everything
into a new base (also `python -m quest index --compact`), streamed to disk (compaction.py).

On disk (one folder per embedding model, so switching models never mixes vectors) the
manifest (manifest.py: format, model, dimension, chunk size, per-document hashes, segments
with the size + SHA-256 of every file) is written last and atomically. A crash part-way
leaves the previous manifest and every file it names untouched; a manifest or file that
fails its schema, size or checksum makes the index absent, and `open_index` rebuilds it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from quest.errors import IndexError_
from quest.kb.documents import Chunk, Document, KnowledgeBase
from quest.kb.markdown import chunk_document
from quest.retrieval import compaction, doc_hashes, store
from quest.retrieval import dense as dense_module
from quest.retrieval.chunktable import NO_PROBLEM, IndexChunks, merge_tables
from quest.retrieval.dense import DenseIndex
from quest.retrieval.doc_hashes import HashDelta, StoredHashes
from quest.retrieval.embedder import Embedder
from quest.retrieval.layout import grouped_chunks, grouped_order, is_identity
from quest.retrieval.manifest import FORMAT_VERSION, Manifest, SegmentEntry, parse_manifest
from quest.retrieval.segments import Segment, SegmentedBM25, SegmentedDense, SegmentedLexical, offsets_of, term_matrix
from quest.retrieval.sparse import LexicalIndex
from quest.retrieval.tokenize import TOKENIZER_VERSION, tokenize
from quest.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["BM25_ONLY", "FORMAT_VERSION", "Index", "UpdateReport", "build_index", "compact_and_save", "compact_index",
           "index_dir_for", "load_index", "open_index", "save_index", "update_index"]

BM25_ONLY = "bm25-only"
# Compact when the deltas (or the deleted rows) pass this share of all rows and COMPACT_MIN_ROWS,
# or there are more deltas than COMPACT_SEGMENTS: each delta costs a little on every query.
COMPACT_RATIO = 0.2
COMPACT_MIN_ROWS = 2_000
COMPACT_SEGMENTS = 16
Progress = Callable[[str], None]


@dataclass
class Index:
    segments: list[Segment]
    deleted: np.ndarray  # one bool per row across all segments
    model: str  # embedding model name, or BM25_ONLY
    doc_hashes: dict[str, str]
    chunk_max_chars: int
    dim: int | None = None
    previous: Index | None = field(default=None, repr=False)  # an update's source: regroup only what changed
    stored_hashes: StoredHashes | None = field(default=None, repr=False)  # the folder's base file of doc hashes
    hash_delta: HashDelta = field(default_factory=HashDelta, repr=False)  # documents changed since that file
    chunks: IndexChunks = field(init=False)
    rows_by_problem: dict[str, np.ndarray] = field(init=False)
    rows_by_doc: dict[str, Sequence[int]] = field(init=False)  # live rows: a range (a document's rows are adjacent)

    def __post_init__(self) -> None:
        offsets = offsets_of(self.segments)
        if self.deleted.shape != (int(offsets[-1]),):
            raise IndexError_(f"the deleted-rows mask covers {self.deleted.shape[0]} rows, not {offsets[-1]}")
        with_dense = {s.dense is not None for s in self.segments}
        with_lexical = {s.lexical is not None for s in self.segments}
        if len(with_dense) > 1 or len(with_lexical) > 1:
            raise IndexError_("the segments disagree on which parts they hold")
        self.chunks = IndexChunks([s.chunks for s in self.segments])
        self.bm25 = SegmentedBM25(self.segments, self.deleted)
        self.dense = None
        if with_dense == {True}:
            self.dim = self.segments[0].dense.dim
            self.dense = SegmentedDense([s.dense for s in self.segments], offsets, self.deleted, self.dim)
        self.lexical = (SegmentedLexical([s.lexical for s in self.segments], offsets, self.deleted)
                        if with_lexical == {True} else None)
        if self.previous is not None:
            self._regroup(self.previous)
            self.previous = None  # do not keep the old version alive
        else:
            live = np.flatnonzero(~self.deleted)
            self.rows_by_problem = self._by_problem(live)
            self.rows_by_doc = self._by_doc(live)

    def _by_problem(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        """`rows` (ascending) grouped by problem, in numpy: one sort of the problem codes."""
        codes = self.chunks.problem[rows]
        keep = codes != NO_PROBLEM
        rows, codes = rows[keep], codes[keep]
        if rows.size == 0:
            return {}
        order = np.argsort(codes, kind="stable")
        rows, codes = rows[order], codes[order]
        bounds = np.flatnonzero(np.diff(codes)) + 1
        firsts = np.concatenate([[0], bounds]).astype(np.int64)
        names = self.chunks.problems
        return {names[int(codes[f])]: group for f, group in zip(firsts, np.split(rows, bounds), strict=True)}

    def _by_doc(self, rows: np.ndarray) -> dict[str, Sequence[int]]:
        """`rows` (ascending) grouped by document: runs of adjacent rows with one document code."""
        if rows.size == 0:
            return {}
        codes = self.chunks.doc[rows]
        starts = np.flatnonzero(np.concatenate([[True], (np.diff(codes) != 0) | (np.diff(rows) != 1)]))
        ends = np.concatenate([starts[1:], [rows.size]])
        docs = self.chunks.docs
        out: dict[str, Sequence[int]] = {}
        for code, first, last in zip(codes[starts].tolist(), rows[starts].tolist(), rows[ends - 1].tolist(),
                                     strict=True):
            name = docs[code]
            run = range(first, last + 1)
            out[name] = run if name not in out else [*out[name], *run]  # split rows: never expected, kept right
        return out

    def _regroup(self, old: Index) -> None:
        """`rows_by_*` from the previous version's: drop newly deleted rows, add the appended ones."""
        gone = np.flatnonzero(self.deleted[: old.rows] & ~old.deleted)
        chunks = self.chunks
        touched_docs = {chunks.docs[c] for c in np.unique(chunks.doc[gone]).tolist()}
        codes = np.unique(chunks.problem[gone])
        touched = {chunks.problems[c] for c in codes[codes != NO_PROBLEM].tolist()}
        by_doc = dict(old.rows_by_doc)
        for doc_id in touched_docs:
            by_doc.pop(doc_id, None)
        appended = np.arange(old.rows, self.rows, dtype=np.int64)
        by_doc.update(self._by_doc(appended))
        extra = self._by_problem(appended)
        by_problem = dict(old.rows_by_problem)
        for pid in touched | extra.keys():
            rows = by_problem.get(pid, np.zeros(0, dtype=np.int64))
            rows = np.concatenate([rows[~self.deleted[rows]], extra.get(pid, np.zeros(0, dtype=np.int64))])
            if rows.size:
                by_problem[pid] = rows
            else:
                by_problem.pop(pid, None)
        self.rows_by_problem, self.rows_by_doc = by_problem, by_doc

    @property
    def size(self) -> int:
        """Live chunks (deleted rows excluded)."""
        return len(self.chunks) - int(self.deleted.sum())

    @property
    def rows(self) -> int:
        """All rows, deleted ones included (row ids index `chunks`)."""
        return len(self.chunks)

    @property
    def live_chunks(self) -> list[Chunk]:
        """Every live chunk, decoded (tests and small tools; search decodes only its hits)."""
        return [self.chunks[r] for r in np.flatnonzero(~self.deleted)]

    @property
    def documents(self) -> int:
        return len(self.doc_hashes)

    def needs_compaction(self) -> bool:
        limit = max(COMPACT_RATIO * self.rows, COMPACT_MIN_ROWS)
        deltas = self.rows - self.segments[0].rows
        return len(self.segments) > COMPACT_SEGMENTS + 1 or deltas > limit or int(self.deleted.sum()) > limit


@dataclass(frozen=True)
class UpdateReport:
    action: str  # "loaded" | "built" | "updated" | "rebuilt" | "compacted"
    embedded_docs: tuple[str, ...] = ()
    removed_docs: tuple[str, ...] = ()
    reason: str = ""
    seconds: float = 0.0


# --------------------------------------------------------------------------- building


def _encode(chunks: Sequence[Chunk], embedder: Embedder | None, progress: bool):
    if embedder is None or not chunks:
        return None, None
    out = embedder.encode_documents([c.indexed_text for c in chunks], progress=progress)
    return out.dense, (out.lexical if embedder.has_lexical else None)


def _segment_name(number: int) -> str:
    return f"s{number:06d}"


def _next_name(segments: Sequence[Segment]) -> str:
    return _segment_name(max((int(s.name[1:]) for s in segments), default=0) + 1)


def make_segment(name: str, chunks: Sequence[Chunk], vocab: dict[str, int], embedder: Embedder | None,
                 dim: int | None, lexical: bool, show_progress: bool = False) -> Segment:
    """Tokenize and embed `chunks` into a segment; `vocab` (global BM25 term ids) grows in place."""
    tf, terms = term_matrix((tokenize(c.indexed_text) for c in chunks), vocab)
    vectors, weights = _encode(chunks, embedder, show_progress)
    dense = None
    if dim is not None:
        dense = DenseIndex.from_vectors(vectors if vectors is not None else np.zeros((0, dim), np.float32))
    lex = LexicalIndex.from_weights(weights or []) if lexical else None
    with_approximate(dense)
    return Segment(name=name, chunks=list(chunks), tf=tf, terms=terms, dense=dense, lexical=lex)


def with_approximate(dense: DenseIndex | None) -> DenseIndex | None:
    """Give a large segment its IVF index for global search (see dense.APPROXIMATE_FROM)."""
    if dense is not None and dense.ivf is None and dense.size >= dense_module.APPROXIMATE_FROM:
        log.info("training an IVF index over %d vectors for global search", dense.size)
        dense.build_approximate()
    return dense


def build_index(kb: KnowledgeBase, settings: Settings, embedder: Embedder | None,
                progress: Progress | None = None) -> Index:
    """Chunk, tokenize and embed every document into one base segment."""
    chunks = grouped_chunks([c for d in kb.documents for c in chunk_document(d, settings.chunk_max_chars)])
    if progress:
        progress(f"Indexing {len(kb.documents)} documents ({len(chunks)} chunks)...")
    dim = embedder.dim if embedder is not None else None
    lexical = embedder is not None and embedder.has_lexical
    base = make_segment(_segment_name(1), chunks, {}, embedder, dim, lexical, settings.show_progress)
    return Index(segments=[base], deleted=np.zeros(len(chunks), dtype=bool),
                 model=embedder.name if embedder is not None else BM25_ONLY,
                 doc_hashes={d.id: d.content_hash for d in kb.documents},
                 chunk_max_chars=settings.chunk_max_chars, dim=dim)


def update_index(index: Index, kb: KnowledgeBase, settings: Settings, embedder: Embedder | None,
                 progress: Progress | None = None) -> tuple[Index, UpdateReport]:
    """Embed only new or changed documents into a delta segment; mark old and removed rows deleted."""
    started = time.perf_counter()
    hashes = {d.id: d.content_hash for d in kb.documents}  # once: hashing every document is most of the cost
    changed: list[Document] = [d for d in kb.documents if index.doc_hashes.get(d.id) != hashes[d.id]]
    removed = [doc_id for doc_id in index.doc_hashes if doc_id not in hashes]
    if not changed and not removed:
        return index, UpdateReport("loaded")
    if progress:
        progress(f"Updating the index: {len(changed)} new or changed, {len(removed)} removed documents...")
    deleted = index.deleted.copy()
    for doc_id in [d.id for d in changed] + removed:
        deleted[index.rows_by_doc.get(doc_id, [])] = True
    new_chunks = [c for d in changed for c in chunk_document(d, settings.chunk_max_chars)]
    segments = list(index.segments)
    if new_chunks:
        vocab = dict(index.bm25.vocab)
        segments.append(make_segment(_next_name(segments), new_chunks, vocab, embedder, index.dim,
                                     index.lexical is not None, settings.show_progress))
        deleted = np.concatenate([deleted, np.zeros(len(new_chunks), dtype=bool)])
    updated = Index(segments=segments, deleted=deleted, model=index.model, doc_hashes=hashes,
                    chunk_max_chars=index.chunk_max_chars, dim=index.dim, previous=index,
                    stored_hashes=index.stored_hashes, hash_delta=index.hash_delta.after(
                        index.stored_hashes.hashes if index.stored_hashes else None,
                        {d.id: hashes[d.id] for d in changed}, removed))
    return updated, UpdateReport("updated", embedded_docs=tuple(d.id for d in changed), removed_docs=tuple(removed),
                                 seconds=time.perf_counter() - started)


def compact_index(index: Index) -> Index:
    """One new base segment holding the live rows only, grouped by problem (see layout.py), in memory.

    `open_index` writes the same base with `compact_and_save`, which streams it to disk instead; this
    in-memory path serves a read-only index folder and is the reference the streamed one is tested
    against. No re-embedding, and the vocabulary is kept. The parts are merged in row order and then
    permuted (one extra copy of one part at a time); the vectors are gathered straight in the
    new order, in float32 batches (1M rows would be 4 GB at once).
    """
    live = np.flatnonzero(~index.deleted)
    perm = grouped_order(index.chunks.problem[live])
    width = len(index.bm25.vocab)
    tf_parts, lexical_parts, tables = [], [], []
    for seg, start in zip(index.segments, offsets_of(index.segments)[:-1], strict=False):
        keep = live[(live >= start) & (live < start + seg.rows)] - start
        tables.append(seg.chunks.take(keep))
        part = seg.tf.tocsr()[keep]
        part.resize((part.shape[0], width))
        tf_parts.append(part)
        if seg.lexical is not None:
            lexical_parts.append(seg.lexical.matrix[keep])
    identity = is_identity(perm)
    tf = sp.vstack(tf_parts, format="csr") if tf_parts else sp.csr_matrix((0, max(width, 1)), dtype=np.float32)
    del tf_parts
    tf = tf if identity else tf[perm]
    chunks = merge_tables(tables)
    del tables
    chunks = chunks if identity else chunks.take(perm)
    terms = sorted(index.bm25.vocab, key=index.bm25.vocab.__getitem__)
    # The rows' term ids are saved with the segment: kept from the CSR rather than derived again.
    row_terms = (np.asarray(tf.indptr, dtype=np.int64), np.asarray(tf.indices, dtype=np.int32))
    tf = sp.csc_matrix(tf, dtype=np.float32)
    # Lexical weights before the vectors: their merge's transient copies never coexist with the IVF.
    lexical = _merged_lexical(lexical_parts, None if identity else perm)
    base = Segment(name=_next_name(index.segments), chunks=chunks, tf=tf, terms=terms, row_terms=row_terms,
                   dense=with_approximate(_gathered_dense(index, live[perm])), lexical=lexical)
    return Index(segments=[base], deleted=np.zeros(base.rows, dtype=bool), model=index.model,
                 doc_hashes=dict(index.doc_hashes), chunk_max_chars=index.chunk_max_chars, dim=index.dim)


def compact_and_save(index: Index, folder: Path, timings: dict[str, float] | None = None) -> Index:
    """`compact_index` then `save_index`, streamed: the new base is written file by file from the old
    segments in blocks (compaction.py), never held whole in memory; returned loaded (memory-mapped).

    The same files as the in-memory path; as crash-safe (the manifest naming the new base is written
    last, atomically). `timings` (optional) receives the seconds of each file and phase.
    """
    folder.mkdir(parents=True, exist_ok=True)
    with store.writer_lock(folder):  # no other writer (another process's update, `bounds`) meanwhile
        return _compact_and_save(index, folder, _Phases(timings), timings)


def _compact_and_save(index: Index, folder: Path, clock: _Phases, timings: dict[str, float] | None) -> Index:
    on_disk = _written(folder)
    # A new segment number, also past any the folder's manifest names: its files are never overwritten.
    name = _segment_name(max(int(n[1:]) for n in [*on_disk, *(s.name for s in index.segments)]) + 1)
    entry = compaction.write_base(index, folder, name, clock.lap)
    base = store.read_segment(entry, folder)
    compacted = Index(segments=[base], deleted=np.zeros(base.rows, dtype=bool), model=index.model,
                      doc_hashes=dict(index.doc_hashes), chunk_max_chars=index.chunk_max_chars, dim=index.dim)
    clock.lap("load")
    save_index(compacted, folder, timings, written={name: entry})
    return compacted


def _gathered_dense(index: Index, rows: np.ndarray) -> DenseIndex | None:
    """A new float16 index over `rows` of `index`, in that order."""
    if index.dense is None:
        return None
    dense = DenseIndex.from_vectors(np.zeros((0, index.dim), np.float32))
    for at in range(0, rows.size, 65536):
        dense.index.add(index.dense.vectors[rows[at:at + 65536]].astype(np.float32))
    return dense


def _merged_lexical(parts: list[sp.csr_matrix], perm: np.ndarray | None) -> LexicalIndex | None:
    if not parts:
        return None
    cols = max(p.shape[1] for p in parts)
    for p in parts:
        p.resize((p.shape[0], cols))
    matrix = sp.vstack(parts, format="csr")
    parts.clear()
    return LexicalIndex(matrix if perm is None else matrix[perm])


# --------------------------------------------------------------------------- persistence


def index_dir_for(settings: Settings, model: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model.strip("/\\")).strip("_") or BM25_ONLY
    return settings.index_dir / slug[-80:]


def read_manifest(folder: Path) -> Manifest:
    path = folder / "manifest.json"
    if not path.exists():
        raise IndexError_(f"no saved index in {folder}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexError_(f"{path}: unreadable manifest ({exc})") from exc
    return parse_manifest(text, str(path))


def _written(folder: Path) -> dict[str, SegmentEntry]:
    """Segments the folder's current manifest already describes (nothing if it is unusable)."""
    try:
        return {s.name: s for s in read_manifest(folder).segments}
    except IndexError_:
        return {}


def save_index(index: Index, folder: Path, timings: dict[str, float] | None = None, *,
               written: dict[str, SegmentEntry] | None = None) -> None:
    """Write the segments not yet on disk, the deleted rows and (last, atomically) the manifest.

    `timings` (optional) receives the seconds of each phase, for `python -m quest bench`;
    `written`: segments whose files the caller has just written (a streamed compaction).
    """
    folder.mkdir(parents=True, exist_ok=True)
    with store.writer_lock(folder):  # the manifest read below is the one replaced: no other writer meanwhile
        _save_index(index, folder, _Phases(timings), written)


def _save_index(index: Index, folder: Path, clock: _Phases, written: dict[str, SegmentEntry] | None) -> None:
    on_disk = {**_written(folder), **(written or {})}
    clock.lap("read_manifest")
    entries = []
    for seg in index.segments:
        known = on_disk.get(seg.name)
        # Reuse only this very segment's files (a rebuilt index may reuse a name for new content).
        if known is not None and seg.stored == known.files and all(
                (folder / f).exists() and (folder / f).stat().st_size == e.size for f, e in known.files.items()):
            entries.append(known)
            continue
        entries.append(SegmentEntry(name=seg.name, rows=seg.rows, files=store.write_segment(seg, folder)))
    clock.lap("segments")
    deleted = store.write_deleted(index.deleted, folder)
    clock.lap("deleted")
    hashes = doc_hashes.plan(index.doc_hashes, index.stored_hashes, index.hash_delta, folder)  # O(changed)
    index.stored_hashes, index.hash_delta = hashes.base, hashes.delta
    clock.lap("documents")
    manifest = Manifest(format=FORMAT_VERSION, model=index.model, dim=index.dim, lexical=index.lexical is not None,
                        chunk_max_chars=index.chunk_max_chars, tokenizer=TOKENIZER_VERSION, rows=index.rows,
                        documents_base={hashes.base.name: hashes.base.entry},
                        documents_changed=dict(hashes.delta.changed), documents_removed=sorted(hashes.delta.removed),
                        segments=entries, deleted=deleted, deleted_rows=int(index.deleted.sum()),
                        saved_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    body = manifest.model_dump_json(indent=1)
    clock.lap("manifest_build")
    store.write_atomic(folder / "manifest.json", lambda p: p.write_text(body, encoding="utf-8"))
    clock.lap("manifest_write")
    _remove_unreferenced(folder, set(manifest.files()))
    clock.lap("cleanup")


class _Phases:
    """Seconds per phase into an optional dict (nothing recorded without one)."""

    def __init__(self, into: dict[str, float] | None) -> None:
        self.into, self.last = into, time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        if self.into is not None:
            self.into[name] = round(self.into.get(name, 0.0) + now - self.last, 4)
        self.last = now


_OURS = re.compile(r"^(s\d{6}\..+|deleted-[0-9a-f]+\.npy|documents-[0-9a-f]+\.json|"
                   r"\..+\.tmp|chunks\.jsonl|bm25\.npz|bm25_vocab\.json|"
                   r"dense\.faiss|lexical\.npz)$")


def _remove_unreferenced(folder: Path, keep: set[str]) -> None:
    """Files of earlier versions or of an interrupted write (only names this module creates)."""
    for path in folder.iterdir():
        if path.is_file() and path.name not in keep and _OURS.match(path.name):
            path.unlink(missing_ok=True)


def load_index(folder: Path, *, verify: bool | None = None) -> Index:
    """Load a saved index, checking every file against the manifest; raise IndexError_ if they disagree.

    `verify`: None checks sizes, structure and the SHA-256 of small files (store.HASH_ON_LOAD), so
    loading stays ~constant in time; True hashes every file (`python -m quest index --verify`);
    False checks sizes and structure only.
    """
    manifest = read_manifest(folder)
    if manifest.tokenizer != TOKENIZER_VERSION:  # BM25 rows from other tokens would silently miss matches
        raise IndexError_(f"{folder}: built with tokenizer version {manifest.tokenizer}, this Quest uses "
                          f"{TOKENIZER_VERSION}")
    for name, entry in manifest.files().items():
        store.check_file(folder / name, entry, verify)
    try:
        segments = [store.read_segment(entry, folder) for entry in manifest.segments]
        deleted = store.read_deleted(folder, manifest.deleted, manifest.rows)
        hashes, stored_hashes, hash_delta = doc_hashes.read(folder, manifest)
        index = Index(segments=segments, deleted=deleted, model=manifest.model, doc_hashes=hashes,
                      stored_hashes=stored_hashes, hash_delta=hash_delta,
                      chunk_max_chars=manifest.chunk_max_chars, dim=manifest.dim)
    except IndexError_:
        raise
    except Exception as exc:  # corrupt content that slipped past the size check (a large file, unhashed)
        raise IndexError_(f"{folder}: cannot read the index ({type(exc).__name__}: {exc})") from exc
    if index.dense is not None and manifest.dim != index.dense.dim:
        raise IndexError_(f"{folder}: vector dimension {index.dense.dim} does not match the manifest")
    if (index.dense is None) != (manifest.dim is None) or (index.lexical is not None) != manifest.lexical:
        raise IndexError_(f"{folder}: the segments' parts do not match the manifest")
    if int(deleted.sum()) != manifest.deleted_rows:
        raise IndexError_(f"{folder}: {int(deleted.sum())} deleted rows but the manifest says {manifest.deleted_rows}")
    _note_missing_approximate(index, folder)
    return index


def _note_missing_approximate(index: Index, folder: Path) -> None:
    """One INFO line when a segment saved before the IVF threshold came down (150k -> 100k rows, round 22) is
    searched exactly: correct, only slower, until `python -m quest index --compact` writes its IVF."""
    exact = [s for s in index.segments if s.dense is not None and s.dense.ivf is None
             and s.dense.size >= dense_module.APPROXIMATE_FROM]
    if exact:
        log.info("%s: %d segment(s) of %d rows or more have no IVF index and are searched exactly (slower); "
                 "`python -m quest index --compact` adds one", folder, len(exact), dense_module.APPROXIMATE_FROM)


def _check_fits(index: Index, model: str, embedder: Embedder | None, settings: Settings) -> None:
    if index.model != model:
        raise IndexError_(f"the saved index was built with {index.model}, not {model}")
    if embedder is not None and (index.dense is None or index.dense.dim != embedder.dim):
        raise IndexError_("the saved vectors do not fit the embedding model")
    if embedder is not None and embedder.has_lexical != (index.lexical is not None):
        raise IndexError_("the saved index lacks the model's lexical weights")
    if index.chunk_max_chars != settings.chunk_max_chars:
        raise IndexError_("the chunk size changed")


def open_index(kb: KnowledgeBase, settings: Settings, embedder: Embedder | None,
               progress: Progress | None = None, *, compact: bool = False) -> tuple[Index, UpdateReport]:
    """Load the saved index for this model, bring it up to date with `kb`, or build it.

    Only new or changed documents are embedded; a missing, malformed, corrupt or foreign index
    is treated as absent and rebuilt (one WARNING line says why). Deltas are merged into a new
    base when they pass the thresholds above, or always with `compact=True`.
    """
    started = time.perf_counter()
    model = embedder.name if embedder is not None else BM25_ONLY
    folder = index_dir_for(settings, model)
    existed = (folder / "manifest.json").exists()
    reason = ""
    index: Index | None = None
    try:
        index = load_index(folder)
        _check_fits(index, model, embedder, settings)
    except IndexError_ as exc:
        reason = str(exc)
        if existed:
            log.warning("index in %s is unusable and will be rebuilt: %s", folder, reason)
        index = None
    if index is None:
        if progress:
            progress("Building the search index (first start or after a change)...")
        index = build_index(kb, settings, embedder, progress)
        _save_unless_read_only(index, folder, settings)
        attach_vector_store(index, settings)
        action = "rebuilt" if existed else "built"
        return index, UpdateReport(action, embedded_docs=tuple(index.doc_hashes), reason=reason,
                                   seconds=time.perf_counter() - started)
    index, report = update_index(index, kb, settings, embedder, progress)
    action = report.action
    saved = False
    if compact or index.needs_compaction():
        if progress:
            progress(f"Compacting the index ({len(index.segments)} segments, "
                     f"{int(index.deleted.sum())} deleted rows)...")
        saved = not settings.index_read_only  # read-only: the new base is built in memory and not written
        if saved:
            with _writing(folder):
                index = compact_and_save(index, folder)
        else:
            index = compact_index(index)
        action = "compacted" if action == "loaded" else action
    if action != "loaded" and not saved:
        _save_unless_read_only(index, folder, settings)
    attach_vector_store(index, settings)
    return index, UpdateReport(action, report.embedded_docs, report.removed_docs, report.reason,
                               time.perf_counter() - started)


def _save_unless_read_only(index: Index, folder: Path, settings: Settings) -> None:
    if settings.index_read_only:
        log.info("read-only index (QUEST_INDEX_READ_ONLY): the updated index stays in memory; "
                 "`python -m quest index` saves it to %s", folder)
        return
    with _writing(folder):
        save_index(index, folder)


@contextmanager
def _writing(folder: Path) -> Iterator[None]:
    """Writing the index: a folder that cannot be written (a read-only mount, a file or a dangling link where the
    folder belongs, a full disk) is an IndexError_ saying what to do, not an OSError's stack trace at start."""
    try:
        yield
    except OSError as exc:
        raise IndexError_(f"Could not write the search index to {folder}: {exc.strerror or exc}.",
                          hint="make the data folder writable (--data-dir or QUEST_DATA_DIR), or set "
                               "QUEST_INDEX_READ_ONLY=1 to keep the index in memory only") from exc


def attach_vector_store(index: Index, settings: Settings) -> None:
    """With QUEST_VECTOR_STORE set to Milvus, the ranked lists come from there (kept in sync with the index)."""
    store = (settings.vector_store or "local").strip()
    if store == "local" or index.dense is None:
        return
    try:
        from quest.retrieval.milvus import attach  # dense, BM25 and lexical ranked lists move there

        attach(store, index)
    except ImportError as exc:
        raise IndexError_(f"QUEST_VECTOR_STORE={store} needs pymilvus (pip install -r requirements-milvus.txt)") \
            from exc
