"""Make the "after" copy of a kept index: its lexical weights rewritten as float16, every other file shared.

    python docs/bench/scale-1m-sparse/convert_lexical.py BEFORE_DIR AFTER_DIR

The new lexical.npz holds what a compaction or a rebuild with this branch writes (`sparse.stored_weights`
of the same weights, same layout); the other files are hard links (never written in place), and the
manifest gets the new file's size and SHA-256. Used because rebuilding the 1M bench index costs 25 min.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

from quest.retrieval import store
from quest.retrieval.sparse import stored_weights


def convert(before: Path, after: Path) -> None:
    after.mkdir(parents=True, exist_ok=False)
    for path in before.iterdir():
        if not path.name.endswith((".lexical.npz", "manifest.json")):
            os.link(path, after / path.name)
    manifest = json.loads((before / "manifest.json").read_text(encoding="utf-8"))
    for seg in manifest["segments"]:
        for name in list(seg["files"]):
            if name.endswith(".lexical.npz"):
                arrays = store.map_npz(before / name, ("indptr", "indices", "data", "shape"))
                out = {k: np.asarray(v) for k, v in arrays.items()}
                out["data"] = stored_weights(arrays["data"])
                entry = store.write_atomic(after / name, lambda p, out=out: store._save_arrays(p, **out))
                seg["files"][name] = entry.model_dump()
                print(name, arrays["data"].dtype, "->", out["data"].dtype, entry.size, "bytes")
    (after / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


if __name__ == "__main__":
    convert(Path(sys.argv[1]), Path(sys.argv[2]))
