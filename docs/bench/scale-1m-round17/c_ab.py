"""Round 17c: main's _attempt and _diversify (`before`) against the library's (`after`), c_variants.py.

    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round17/c_ab.py paired INDEX CHUNKS SHARE \
        OUT.json
    PYTHONPATH=. flock /work/bench.lock python docs/bench/scale-1m-round17/c_ab.py hits INDEX CHUNKS SHARE OUT.json

`paired` is paired.py (the no-problem questions, both variants per question in rotating order, one process) with
these variants. `hits` runs every probe question (naming a problem or not) through both and compares the whole
hits: chunk ids, fused and shown scores, every signal's rank and raw score, the scope, and the search's mode and
flags; any difference is listed.
"""

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import c_variants as fusion_variants  # noqa: E402

MODE = sys.argv.pop(1)  # paired.py reads the index folder from sys.argv[1] when it is imported
sys.modules["variants"] = fusion_variants  # paired.py's variants, without round 17's compiled main loops
import paired  # noqa: E402

from quest.plan import plan, retrieve  # noqa: E402
from quest.settings import Settings  # noqa: E402


def _whole(retriever, query) -> list:
    _, result = retrieve(retriever, plan(query.request, retriever))
    return [result.mode, result.widened, result.weak, result.notices,
            [(h.chunk.id, h.fused, h.score, h.scope, sorted((k, s.rank, s.score) for k, s in h.signals.items()))
             for h in result.hits]]


def hits(folder: Path, chunks: int, share: float, out: Path) -> None:
    index, kb, embedder, queries, kinds = paired.setup(folder, chunks, share)
    before, after = (fusion_variants.VARIANTS[n](Settings(show_progress=False), index, kb, embedder)
                     for n in ("before", "after"))
    same = {"names_problem": [0, 0], "no_problem": [0, 0]}
    differ = []
    for i, (query, kind) in enumerate(zip(queries, kinds, strict=True)):
        key = "no_problem" if kind == paired.NO_PROBLEM else "names_problem"
        a, b = _whole(before, query), _whole(after, query)
        same[key][0] += a == b
        same[key][1] += 1
        if a != b:
            differ.append(i)
    result = {"index": str(folder), "chunks": chunks, "share": share, "load": [round(x, 2) for x in os.getloadavg()],
              "identical_of": same, "differ": differ}
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    args = sys.argv[1:]
    if MODE == "hits":
        hits(Path(args[0]), int(args[1]), float(args[2]), Path(args[3]))
    else:
        paired.main(Path(args[0]), int(args[1]), float(args[2]), Path(args[3]), ["before", "after"],
                    int(args[-1]) if len(args) > 4 and args[-1].isdigit() else 1)
