import sys, logging, time
from pathlib import Path
logging.basicConfig(level=logging.INFO)
from quest.retrieval.index import load_index, save_index
folder = Path(sys.argv[1])
idx = load_index(folder)
for s in idx.segments:
    print(s.name, s.rows, s.dense.size, s.dense.ivf)
    t = time.time(); s.dense.build_approximate(); print("built", time.time() - t, s.dense.ivf.nlist); s.stored = {}
save_index(idx, folder)
