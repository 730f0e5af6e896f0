"""Every probe question (naming a problem or not) through the numpy path and through the compiled kernel: the hits
(chunk ids, fused and shown scores) must be identical.

    PYTHONPATH=. flock /work/bench.lock /tmp/nbvenv/bin/python docs/bench/scale-1m-kernel/hits.py INDEX CHUNKS SHARE \
        OUT.json

CHUNKS is the size the bench built the index for (100000 or 1000000: the questions depend on it), SHARE the share
of questions that name no problem (`corpus.mixed_queries`).
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "scale-1m-round13"))
from common import accept_tokenizer_3

accept_tokenizer_3()
from breakdown import timed  # noqa: E402

from quest.bench import stages, vectors  # noqa: E402
from quest.bench.corpus import NO_PROBLEM, SEED, SyntheticKB, make_problems, mixed_queries  # noqa: E402
from quest.kb.documents import KnowledgeBase  # noqa: E402
from quest.retrieval.index import load_index  # noqa: E402
from quest.retrieval.retriever import Retriever  # noqa: E402
from quest.settings import Settings  # noqa: E402


def main(folder: Path, chunks: int, share: float, out: Path) -> None:
    numpy_settings = Settings(show_progress=False, sparse_kernel="numpy")
    kb = KnowledgeBase(documents=(), problems=make_problems(400))
    queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=chunks, seed=SEED), 200, share)
    index = load_index(folder)
    prepared = stages.prepare(Retriever(numpy_settings, index, kb, None), queries)
    embedder = vectors.LookupEmbedder("synthetic-bge-m3-shape", vectors.DIM,
                                      vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems))),
                                      lexical=True)
    numpy_path = Retriever(numpy_settings, index, kb, embedder)
    compiled = Retriever(Settings(show_progress=False, sparse_kernel="numba"), index, kb, embedder)
    assert compiled._kernel is not None
    same = {"names_problem": [0, 0], "no_problem": [0, 0]}
    differ = []
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        key = "no_problem" if kind == NO_PROBLEM else "names_problem"
        a, b = timed(numpy_path, query)[0], timed(compiled, query)[0]
        same[key][0] += a == b
        same[key][1] += 1
        if a != b:
            differ.append(i)
    result = {"index": str(folder), "chunks": chunks, "share": share, "load": [round(x, 2) for x in os.getloadavg()],
              "identical_of": same, "differ": differ}
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))
