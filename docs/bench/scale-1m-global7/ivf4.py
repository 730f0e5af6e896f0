"""A 4-bit IVF over a kept 1M index's float16 rows, with the same lists (centroids) as its 8-bit IVF.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-global7/ivf4.py INDEX_DIR OUT.ivf.faiss [pq M]

With `pq M`: product-quantizer codes of M bytes per row instead (IndexIVFPQ, 8 bits per sub-vector), an experiment.

Only the codes change (QT_4bit: 512 bytes per 1024-d row instead of 1,024), trained on the same kind of
residual sample; each row is assigned to its nearest centroid as before. The file is what FAISS writes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import faiss
import numpy as np

from quest.retrieval import dense as dense_module
from quest.retrieval.index import load_index


def main(folder: Path, out: Path, pq: int = 0) -> None:
    index = load_index(folder)
    dense = index.segments[0].dense
    old = dense.ivf
    centroids = old.quantizer.reconstruct_n(0, old.nlist)
    quantizer = faiss.IndexFlatIP(dense.dim)
    quantizer.add(centroids)
    if pq:
        ivf = faiss.IndexIVFPQ(quantizer, dense.dim, old.nlist, pq, 8, faiss.METRIC_INNER_PRODUCT)
    else:
        ivf = faiss.IndexIVFScalarQuantizer(quantizer, dense.dim, old.nlist, faiss.ScalarQuantizer.QT_4bit,
                                            faiss.METRIC_INNER_PRODUCT)
    ivf.referenced_objects = [quantizer]
    rng = np.random.default_rng(0)
    sample = np.sort(rng.choice(dense.size, old.nlist * dense_module.TRAIN_PER_LIST, replace=False))
    t = time.perf_counter()
    with dense_module.all_cores():
        ivf.train(dense.vectors[sample].astype(np.float32))  # the quantizer is trained: only the 4-bit ranges
        for start in range(0, dense.size, dense_module.ADD_BATCH):
            ivf.add(dense.block(start, start + dense_module.ADD_BATCH).astype(np.float32))
    faiss.write_index(ivf, str(out))
    print(f"{ivf.ntotal} rows, code size {ivf.code_size}, {time.perf_counter() - t:.0f} s, "
          f"{out.stat().st_size / 2**20:.0f} MiB")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
