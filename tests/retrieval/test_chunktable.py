"""Chunk metadata as columns + a record blob: round trip, lazy decoding, damage, old formats."""

from __future__ import annotations

import json
import logging
import mmap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from quest.errors import IndexError_
from quest.kb.documents import Chunk
from quest.kb.markdown import load_knowledge_base
from quest.retrieval import chunktable as chunktable_module
from quest.retrieval.chunktable import NO_PROBLEM, ChunkTable, IndexChunks, merge_tables
from quest.retrieval.index import index_dir_for, load_index, open_index
from tests.fakes.embedder import HashingEmbedder


def chunk(doc: str, ordinal: int, kind: str = "faq", problem: str | None = None, **extra) -> Chunk:
    return Chunk(id=f"{doc}#{ordinal}", doc_id=doc, ordinal=ordinal, section=f"第{ordinal}节", kind=kind,
                 title="标题 title", lang="zh", problem_id=problem, text=f"line one\nline \"two\" {ordinal} 超时",
                 **extra)


CHUNKS = [chunk("a", 0, "official_solution", "239", tags=("dp",), verdicts=("TLE",)), chunk("a", 1, "official_solution",
          "239"), chunk("faq-x", 0), chunk("b", 0, "error_pattern", "7", languages=("python",), url="https://oj/7"),
          chunk("b", 1, "error_pattern", "7", source_name="hydro")]


def saved(table: ChunkTable, folder) -> ChunkTable:
    (folder / "r.jsonl").write_bytes(bytes(table.records))
    table.save_columns(folder / "c.npz")
    table.save_names(folder / "n.json")
    return ChunkTable.open(folder / "r.jsonl", folder / "c.npz", folder / "n.json")


def test_a_table_saved_and_opened_decodes_every_chunk_exactly(tmp_path):
    table = ChunkTable.from_chunks(CHUNKS)
    opened = saved(table, tmp_path)
    assert list(opened) == CHUNKS  # lazy decoding gives the very chunks that went in
    assert [opened[i] for i in (4, 0, -1)] == [CHUNKS[4], CHUNKS[0], CHUNKS[4]]
    assert opened[1:3] == CHUNKS[1:3]
    assert opened.kinds == ["official_solution", "faq", "error_pattern"]
    assert opened.problem.tolist() == [0, 0, NO_PROBLEM, 1, 1] and opened.problems == ["239", "7"]
    assert [opened.docs[c] for c in opened.doc.tolist()] == ["a", "a", "faq-x", "b", "b"]
    assert opened.ordinal.tolist() == [0, 1, 0, 0, 1]
    with pytest.raises(IndexError):
        opened[5]


def test_columns_across_segments_and_merging_keep_every_chunk(tmp_path):
    first, second = ChunkTable.from_chunks(CHUNKS[:3]), ChunkTable.from_chunks([*CHUNKS[3:], chunk("c", 0, "faq")])
    view = IndexChunks([first, second])
    assert list(view) == [*CHUNKS, chunk("c", 0, "faq")]
    assert [view.kinds[k] for k in view.kind.tolist()] == [c.kind for c in view]
    assert [view.problem_id(r) for r in range(len(view))] == [c.problem_id for c in view]
    assert [view.doc_id(r) for r in range(len(view))] == [c.doc_id for c in view]
    assert view.kind_codes({"official_solution", "nope"}) == [0]

    merged = merge_tables([first.take(np.array([0, 2])), second.take(np.array([1, 2]))])
    assert list(saved(merged, tmp_path)) == [CHUNKS[0], CHUNKS[2], CHUNKS[4], chunk("c", 0, "faq")]
    assert merged.docs == ["a", "faq-x", "b", "c"]  # only the names its rows use


def test_a_damaged_record_is_a_friendly_index_error_naming_the_row(tmp_path):
    table = ChunkTable.from_chunks(CHUNKS)
    body = bytearray(table.records)
    start = int(table.offsets[2])
    body[start] = ord("#")  # the third record no longer parses (same size: only a checksum would tell)
    (tmp_path / "r.jsonl").write_bytes(bytes(body))
    table.save_columns(tmp_path / "c.npz")
    table.save_names(tmp_path / "n.json")
    opened = ChunkTable.open(tmp_path / "r.jsonl", tmp_path / "c.npz", tmp_path / "n.json")
    assert opened[1] == CHUNKS[1]
    with pytest.raises(IndexError_, match=r"chunk record 2 is damaged .*python -m quest index --verify"):
        opened[2]


@pytest.mark.parametrize("damage", ["truncated records", "codes out of range", "names not a table"])
def test_columns_that_do_not_fit_the_records_are_refused(tmp_path, damage):
    table = ChunkTable.from_chunks(CHUNKS)
    saved(table, tmp_path)
    if damage == "truncated records":
        (tmp_path / "r.jsonl").write_bytes(bytes(table.records)[:-10])
        expected = "record offsets do not match the file"
    elif damage == "codes out of range":
        table.kind[0] = 9
        table.save_columns(tmp_path / "c.npz")
        expected = "the kind column names entries its table lacks"
    else:
        (tmp_path / "n.json").write_text(json.dumps({"kinds": [1]}), encoding="utf-8")
        expected = "not the segment's name tables"
    with pytest.raises(IndexError_, match=expected):
        ChunkTable.open(tmp_path / "r.jsonl", tmp_path / "c.npz", tmp_path / "n.json")


@pytest.mark.parametrize("old", [2, 3])  # 2: chunks parsed from JSON at load; 3: sparse rows in row order
def test_an_index_in_a_previous_format_is_rebuilt_with_one_clear_line(settings, caplog, old):
    embedder = HashingEmbedder()
    kb = load_knowledge_base(settings.kb_dir)
    built, _ = open_index(kb, settings, embedder)
    folder = index_dir_for(settings, embedder.name)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["format"] = old
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IndexError_, match=f"index format {old}, expected 4"):
        load_index(folder)
    caplog.set_level(logging.WARNING, logger="quest.retrieval.index")
    rebuilt, report = open_index(kb, settings, HashingEmbedder())
    assert report.action == "rebuilt" and f"index format {old}, expected 4" in report.reason
    assert [r.getMessage() for r in caplog.records if r.name == "quest.retrieval.index"] == [
        f"index in {folder} is unusable and will be rebuilt: {report.reason}"]
    assert list(rebuilt.chunks) == list(built.chunks)


def test_a_loaded_index_decodes_only_what_is_asked_and_agrees_with_the_built_one(settings):
    embedder = HashingEmbedder()
    kb = load_knowledge_base(settings.kb_dir)
    built, _ = open_index(kb, settings, embedder)
    loaded = load_index(index_dir_for(settings, embedder.name))
    assert isinstance(loaded.chunks.tables[0].records, mmap.mmap)  # memory-mapped, not read
    assert list(loaded.chunks) == list(built.chunks)
    assert loaded.rows_by_doc == built.rows_by_doc
    assert {k: v.tolist() for k, v in loaded.rows_by_problem.items()} == {
        k: v.tolist() for k, v in built.rows_by_problem.items()}
    assert all(isinstance(rows, range) for rows in loaded.rows_by_doc.values())


@pytest.mark.parametrize(("text", "verbatim"), [
    ("IndexError", True), ("heap-buffer-overflow", True), ("std::out_of_range", True), ("数组越界", True),
    ('say "hi"', False), ("C:\\path", False), ("two\nlines", False), ("tab\there", False), ("bell\x07", False),
])
def test_what_json_writes_byte_for_byte(text, verbatim):
    assert chunktable_module.verbatim_in_json(text) is verbatim
    for encode in (chunktable_module.encode_record, lambda r: json.dumps(r, ensure_ascii=False).encode("utf-8")):
        assert (text.encode("utf-8") in encode({"text": text})) is verbatim  # the fallback encoder agrees


@settings_(max_examples=300, deadline=None)
@given(before=st.text(max_size=30), name=st.text(min_size=1, max_size=6), after=st.text(max_size=30),
       field=st.sampled_from(["text", "title", "section"]))
def test_a_verbatim_name_in_a_chunk_is_in_its_stored_record(before, name, after, field):
    """What `record_holds` rests on: a name JSON writes as it is, in any field of a chunk (any text around it), puts
    the name's bytes in the stored record; so a record without them is a chunk without the name."""
    values = {"text": "t", "title": "t", "section": "", field: before + name + after}
    table = ChunkTable.from_chunks([chunk("a", 0), Chunk(id="b#0", doc_id="b", ordinal=0, kind="faq", lang="en",
                                                         **values)])
    assert table.record_holds(1, (b"\x00never", name.encode("utf-8"))) is \
        (chunktable_module.verbatim_in_json(name) or name.encode("utf-8") in table.record(1))


def test_a_record_holds_what_its_fields_hold_in_every_segment(tmp_path):
    first, second = ChunkTable.from_chunks(CHUNKS[:3]), saved(ChunkTable.from_chunks(CHUNKS[3:]), tmp_path)
    view = IndexChunks([first, second])
    assert [view.record_holds(r, (b"python",)) for r in range(len(view))] == [False, False, False, True, False]
    assert [view.record_holds(r, (b"hydro", "第0节".encode())) for r in range(len(view))] == \
        [True, False, True, True, True]
    assert [view.record_holds(r, (b"never there",)) for r in range(len(view))] == [False] * 5
    with pytest.raises(IndexError):
        view.record_holds(5, (b"python",))
