"""What a loaded index keeps on the heap (issue 14's memory budget): the BM25 weight cache sized by the
index, its positions as int32, chunk columns memory-mapped, one dict of document hashes."""

from __future__ import annotations

import numpy as np

from quest.bench.corpus import generate
from quest.retrieval import segments as segments_module
from quest.retrieval.index import build_index, load_index, save_index
from quest.retrieval.scopes import TermCache
from quest.retrieval.segments import cache_budget
from quest.settings import Settings


def test_the_weight_cache_grows_with_the_index_up_to_64_mib():
    assert cache_budget(0) == 0
    assert cache_budget(100_000) == 3_200_000  # 32 bytes a row
    assert cache_budget(1_000_000) == 32_000_000
    assert cache_budget(10_000_000) == 64 * 2**20


def test_the_cache_keeps_positions_as_int32_and_counts_hits():
    cache = TermCache(1000)
    at = np.arange(10, dtype=np.int64)
    cache.put(("general", 7, 1.5), (at, np.ones(10, np.float32)))
    kept = cache.get(("general", 7, 1.5))
    assert kept[0].dtype == np.int32 and kept[0].tolist() == list(range(10))
    assert cache.bytes == 10 * 4 + 10 * 4
    assert cache.get(("general", 8, 1.5)) is None
    assert (cache.hits, cache.misses) == (1, 1)


def test_a_loaded_index_maps_its_columns_shares_its_hashes_and_sizes_its_cache(tmp_path, monkeypatch):
    settings = Settings(show_progress=False)
    built = build_index(generate(400).kb, settings, None)
    save_index(built, tmp_path)
    monkeypatch.setattr(segments_module, "CACHE_BYTES_PER_ROW", 10)
    loaded = load_index(tmp_path)
    table = loaded.segments[0].chunks
    assert all(isinstance(col, np.memmap) for col in (table.offsets, table.kind, table.problem, table.doc,
                                                      table.ordinal))
    assert [c.id for c in loaded.chunks] == [c.id for c in built.chunks]  # records still decode right
    # No changes since the base file of hashes: one dict, not a copy of it.
    assert loaded.doc_hashes is loaded.stored_hashes.hashes
    assert loaded.doc_hashes == built.doc_hashes
    assert loaded.bm25.cache.max_bytes == 10 * loaded.rows
