"""A tiled corpus is stored as a full build would store it: grouped by problem, documents intact."""

from __future__ import annotations

import numpy as np

from quest.bench import tiling
from quest.bench.corpus import generate
from quest.retrieval.index import build_index
from quest.retrieval.tokenize import tokenize
from quest.settings import Settings


def test_a_tiled_index_groups_each_problem_and_matches_a_build_of_the_tiled_corpus(tmp_path):
    settings = Settings(data_dir=tmp_path, show_progress=False)
    synthetic = generate(300)
    tiled_kb = tiling.tile_kb(synthetic, times=3).kb
    tiled = tiling.tile_index(build_index(synthetic.kb, settings, None), tiled_kb, times=3)
    built = build_index(tiled_kb, settings, None)
    assert tiled.rows == built.rows == 900
    problems = [tiled.chunks.problem_id(r) for r in range(tiled.rows)]
    runs = [p for i, p in enumerate(problems) if i == 0 or problems[i - 1] != p]
    assert len(runs) == len(set(runs))  # every problem (and the general documents) in one run of rows
    for doc_id, rows in built.rows_by_doc.items():  # the same chunks, every document's rows adjacent
        mine = tiled.rows_by_doc[doc_id]
        assert [tiled.chunks[r].text for r in mine] == [built.chunks[r].text for r in rows]
        assert list(mine) == list(range(mine[0], mine[0] + len(mine)))
    query = tokenize(built.chunks[5].indexed_text)[:6]
    assert built.bm25.scores(query).max() > 0
    np.testing.assert_allclose(np.sort(tiled.bm25.scores(query)), np.sort(built.bm25.scores(query)), rtol=1e-6)
