"""Archives written by npzfile: every array at a 64-byte boundary of the file, read by any .npz reader; an index
written before (np.savez, unaligned) still loads and searches exactly; a compaction writes aligned postings."""

from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from quest.kb.markdown import load_knowledge_base
from quest.retrieval import maxscore, npzfile, store
from quest.retrieval import retriever as retriever_module
from quest.retrieval.index import index_dir_for, load_index, open_index
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_maxscore import hits

DTYPES = (np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64)


def data_offsets(blob: bytes) -> dict[str, int]:
    """Each member's data offset in the file, from its local header (as store.map_npz finds it)."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        for info in archive.infolist():
            name_len, extra_len = struct.unpack("<HH", blob[info.header_offset + 26:info.header_offset + 30])
            out[info.filename] = info.header_offset + 30 + name_len + extra_len
    return out


arrays_st = st.dictionaries(
    st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=40),
    st.tuples(st.sampled_from(DTYPES), st.integers(0, 300)), min_size=1, max_size=6)


@hyp_settings(max_examples=80, deadline=None)
@given(spec=arrays_st)
def test_every_array_starts_at_a_64_byte_boundary_and_reads_back_equal(tmp_path_factory, spec):
    folder = tmp_path_factory.mktemp("npz")
    rng = np.random.default_rng(len(spec))
    arrays = {name: (rng.integers(0, 100, size) if np.dtype(dtype).kind in "iu" else rng.random(size)).astype(dtype)
              for name, (dtype, size) in spec.items()}
    path = folder / "a.npz"
    npzfile.save(path, **arrays)
    blob = path.read_bytes()
    with np.load(path, allow_pickle=False) as loaded:  # numpy's own reader
        assert list(loaded.files) == list(arrays)
        for name, values in arrays.items():
            assert loaded[name].dtype == values.dtype and np.array_equal(loaded[name], values)
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
    for name, start in data_offsets(blob).items():
        assert start % npzfile.ALIGN == 0, name
        header_end = blob.index(b"\n", start) + 1  # numpy pads its header to 64 bytes: the values follow aligned
        assert header_end % npzfile.ALIGN == 0, name
    mapped = store.map_npz(path, list(arrays))
    for name, values in arrays.items():
        assert np.array_equal(mapped[name], values)
        assert mapped[name].size == 0 or mapped[name].ctypes.data % npzfile.ALIGN == 0
    npzfile.save(folder / "b.npz", **arrays)
    assert (folder / "b.npz").read_bytes() == blob  # the same arrays, the same bytes (no time stamp)


def test_a_streamed_array_is_aligned_and_counted(tmp_path):
    path = tmp_path / "s.npz"

    def fill(archive: npzfile.Archive) -> None:
        archive.array("x", np.arange(3, dtype=np.int16))
        with archive.stream("y", np.int32, 10) as write:
            write(np.arange(4))
            write(np.arange(4, 10))
    npzfile.writer(fill)(path)
    mapped = store.map_npz(path, ("x", "y"))
    assert mapped["y"].tolist() == list(range(10)) and mapped["y"].flags.aligned
    assert all(start % 64 == 0 for start in data_offsets(path.read_bytes()).values())

    def short(archive: npzfile.Archive) -> None:
        with archive.stream("y", np.int32, 10) as write:
            write(np.arange(4))
    with pytest.raises(RuntimeError):
        npzfile.writer(short)(tmp_path / "short.npz")


def savez(path, **arrays):  # how every index before npzfile was written
    with path.open("wb") as fh:
        np.savez(fh, **arrays)


def test_an_index_written_unaligned_searches_exactly_and_compaction_aligns_it(settings, kb_dir, monkeypatch):
    """An index whose postings np.savez wrote (unaligned: copies before binary searches) gives the same hits as the
    scan and as the aligned index, pruned everywhere; `--compact` (open_index(compact=True)) writes them aligned."""
    settings = settings.replace(sparse_kernel="numpy")  # the numpy MaxScore, not the compiled lists (test_kernels.py)
    embedder = HashingEmbedder(lexical=True)
    kb = load_knowledge_base(kb_dir)
    monkeypatch.setattr(store, "_save_arrays", savez)
    open_index(kb, settings, embedder)
    monkeypatch.undo()
    folder = index_dir_for(settings, embedder.name)
    old = load_index(folder)
    lists = [old.segments[0].postings.indices, old.segments[0].lexical.csc.indices]
    assert not all(np.asarray(x).flags.aligned for x in lists)  # np.savez's members start anywhere
    monkeypatch.setattr(maxscore, "FALLBACK_SHARE", float("inf"))
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 10**9)
    scanned = hits(old, kb, settings, embedder)
    monkeypatch.setattr(retriever_module, "PRUNE_FROM", 0)
    aligned_seen = []
    original = maxscore.search
    monkeypatch.setattr(maxscore, "search", lambda sources, *a, **kw: aligned_seen.extend(
        s.aligned for s in sources) or original(sources, *a, **kw))
    assert hits(old, kb, settings, embedder) == scanned
    assert aligned_seen and not all(aligned_seen)
    _, report = open_index(kb, settings, embedder, compact=True)
    assert report.action == "compacted"
    new = load_index(folder)
    seg = new.segments[0]
    for array in (seg.postings.indices, seg.postings.data, seg.lexical.csc.indices, seg.lexical.csc.data):
        assert np.asarray(array).flags.aligned
    aligned_seen.clear()
    assert hits(new, kb, settings, embedder) == scanned
    assert aligned_seen and all(aligned_seen)
