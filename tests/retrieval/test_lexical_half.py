"""Lexical weights kept as float16 (sparse.stored_weights, sparse.Postings): what is stored, the scores'
bound against float32, save/load and compaction, and indexes written with float32 weights before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from quest.bench.corpus import generate
from quest.retrieval import store
from quest.retrieval.index import build_index, compact_and_save, compact_index, load_index, save_index
from quest.retrieval.sparse import HALF_MAX, LexicalIndex, stored_weights, top_k
from quest.settings import Settings
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_compaction import assert_same_files, with_deltas

HALF_ULP = 2.0**-11  # float16's relative rounding error (11 significant bits)


def test_weights_are_stored_as_float16_when_every_one_fits():
    small = np.float32([0.0, 0.2, 0.3333, 1.5, HALF_MAX])
    kept = stored_weights(small)
    assert kept.dtype == np.float16
    assert kept.tolist() == [0.0, 0.199951171875, 0.333251953125, 1.5, 65504.0]
    assert stored_weights(kept) is kept  # already float16: not copied
    for unfit in (np.float32([0.2, 70000.0]), np.float32([0.2, np.inf]), np.float32([np.nan])):
        assert stored_weights(unfit).dtype == np.float32  # rounding would change them beyond 2**-11
    assert stored_weights(np.zeros(0, np.float32)).dtype == np.float16


def bge_m3_like(rows: int, seed: int) -> list[dict[str, float]]:
    """Rows of bge-m3-shaped lexical weights: 5-60 tokens of a 250k vocabulary, ReLU outputs in (0, 0.4)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(rows):
        tokens = rng.choice(2000, size=int(rng.integers(5, 60)), replace=False) * 125 + 5
        out.append({str(int(t)): float(w) for t, w in zip(tokens, rng.uniform(0.001, 0.4, tokens.size), strict=True)})
    return out


def test_float16_scores_stay_within_float16s_rounding_of_the_float32_scores():
    weights = bge_m3_like(3000, seed=1)
    index = LexicalIndex.from_weights(weights)
    assert index.csc.data.dtype == np.float16
    reference = sp.csr_matrix(  # the float32 weights themselves, as the index kept them before
        (np.fromiter((w for row in weights for w in row.values()), np.float32),
         np.fromiter((int(t) for row in weights for t in row), np.int64),
         np.concatenate([[0], np.cumsum([len(row) for row in weights])])), shape=index.csc.shape)
    rng = np.random.default_rng(2)
    same_top5 = 0
    for q in range(40):
        query = bge_m3_like(1, seed=100 + q)[0]
        cols = np.fromiter((int(t) for t in query), np.int64)
        vec = np.zeros(index.csc.shape[1], np.float32)
        vec[cols] = np.fromiter(query.values(), np.float32)
        full = (reference @ vec).astype(np.float32)
        got = index.scores(query)
        # Each product moves by at most 2**-11 of itself (all terms positive), the float32 sums by far less.
        assert np.all(np.abs(got - full) <= full * (HALF_ULP + 1e-5) + 1e-9)
        rows = np.sort(rng.choice(3000, 200, replace=False))
        np.testing.assert_array_equal(index.scores_for(query, rows), got[rows])  # the scope path adds alike
        same_top5 += [r for r, _ in top_k(got, 5)] == [r for r, _ in top_k(full, 5)]
    assert same_top5 == 39  # one of the 40 top-5 lists changes order: two of its rows are that close


@pytest.fixture(scope="module")
def corpus_kb():
    return generate(600).kb  # 20-odd problems and general documents, as test_compaction's


def lexical_member(folder: Path) -> dict[str, np.ndarray]:
    (path,) = folder.glob("s*.lexical.npz")
    return store.map_npz(path, ("indptr", "indices", "data", "shape"))


def test_a_saved_index_keeps_float16_weights_and_scores_as_it_did_in_memory(settings, tiny_bge_m3):
    from quest.kb.markdown import load_knowledge_base
    from quest.retrieval.embedder import load_embedder

    settings = settings.replace(embedding_model=str(tiny_bge_m3))
    embedder = load_embedder(settings)
    built = build_index(load_knowledge_base(settings.kb_dir), settings, embedder)
    folder = settings.data_dir / "half"
    save_index(built, folder)
    assert lexical_member(folder)["data"].dtype == np.float16
    loaded = load_index(folder, verify=True)
    assert loaded.lexical.parts[0].csc.data.dtype == np.float16
    queries = embedder.encode_queries(["list.pop(0) TLE deque popleft", "递归 栈溢出 RecursionError"]).lexical
    assert any(float(np.float16(w)) != w for q in queries for w in q.values())  # real weights do get rounded
    rows = built.rows_by_problem["239"]
    for query in queries:
        np.testing.assert_array_equal(loaded.lexical.scores(query), built.lexical.scores(query))
        np.testing.assert_array_equal(loaded.lexical.scores_for(query, rows), built.lexical.scores(query)[rows])


def rewrite_lexical_as_float32(folder: Path, nudge: float) -> np.ndarray:
    """Make the saved index look written before float16 weights: its lexical.npz with float32 values
    (each stored one plus `nudge`, so they are not float16 numbers), the manifest's entry updated."""
    (path,) = folder.glob("s*.lexical.npz")
    arrays = {k: np.array(v) for k, v in lexical_member(folder).items()}
    arrays["data"] = arrays["data"].astype(np.float32) + np.float32(nudge)
    entry = store.write_atomic(path, lambda p: store._save_arrays(p, **arrays))
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for seg in manifest["segments"]:
        if path.name in seg["files"]:
            seg["files"][path.name] = entry.model_dump()
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return arrays["data"]


def test_an_index_saved_with_float32_weights_loads_as_it_was_and_compacts_to_float16(corpus_kb, tmp_path):
    settings = Settings(show_progress=False)
    embedder = HashingEmbedder(dim=64, lexical=True)
    folder = tmp_path / "old"
    save_index(build_index(corpus_kb, settings, embedder), folder)
    data32 = rewrite_lexical_as_float32(folder, nudge=1e-4)

    old = load_index(folder, verify=True)  # no rebuild, no warning: the old weights are read as they are
    (part,) = old.lexical.parts
    assert part.csc.data.dtype == np.float32 and np.array_equal(part.csc.data, data32)
    query = {"3": 0.5, "17": 0.25, "40": 1.0}
    reference = part.matrix @ np.float32([query.get(str(t), 0.0) for t in range(part.csc.shape[1])])
    np.testing.assert_allclose(old.lexical.scores(query), reference, rtol=1e-6)

    shutil.copytree(folder, tmp_path / "memory")
    save_index(compact_index(old), tmp_path / "memory")
    compact_and_save(old, folder)
    assert_same_files(folder, tmp_path / "memory")
    assert lexical_member(folder)["data"].dtype == np.float16
    assert sorted(np.asarray(lexical_member(folder)["data"]).tolist()) == sorted(data32.astype(np.float16).tolist())


def test_a_compaction_with_a_weight_beyond_float16_keeps_float32_in_both_paths(corpus_kb, tmp_path):
    settings = Settings(show_progress=False)
    index, _ = with_deltas(corpus_kb, tmp_path / "index", settings)
    seg = index.segments[0]
    # The base's weights scaled past float16's range (1.0 -> 100,000 > 65,504): the merged ones stay float32.
    seg.lexical.csc.data = np.array(seg.lexical.csc.data, dtype=np.float32) * np.float32(1e5)
    shutil.copytree(tmp_path / "index", tmp_path / "memory")
    save_index(compact_index(index), tmp_path / "memory")
    compact_and_save(index, tmp_path / "index")
    assert_same_files(tmp_path / "index", tmp_path / "memory")
    assert lexical_member(tmp_path / "index")["data"].dtype == np.float32
