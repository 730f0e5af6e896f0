import json, sys
from pathlib import Path
import numpy as np
from quest.bench import stages, vectors, compare
from quest.bench.corpus import SEED, SyntheticKB, make_problems, mixed_queries
from quest.kb.documents import KnowledgeBase
from quest.retrieval.index import load_index
from quest.retrieval.retriever import Retriever
from quest.settings import Settings
folder = Path(sys.argv[1])
settings = Settings(show_progress=False, sparse_kernel="numpy")
kb = KnowledgeBase(documents=(), problems=make_problems(400))
queries, kinds = mixed_queries(SyntheticKB(kb=kb, n_chunks=100_000, seed=SEED), 200, 0.25)
index = load_index(folder)
prepared = stages.prepare(Retriever(settings, index, kb, None), queries)
lookup = vectors.query_lookup(prepared, vectors.problem_centres(list(kb.problems)))
qv = np.stack([lookup[p.text.strip()][0] for p in prepared])
out = compare.approximate(index.dense, qv, hnsw_up_to=0)
print(json.dumps(out, indent=1))
