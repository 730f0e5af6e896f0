"""Which index files the bench's queries read: page-cache bytes per file after a cold query run.

Every file of the saved index is dropped from the page cache, the fresh-process probe (load, then
the bench's queries) runs, and then `mincore` tells, file by file, how many of its pages are in
the page cache: what the queries read, read-around included (a process's smaps Rss counts only
the pages it mapped, not the ones the kernel read around them). Run it alone on the machine:
another reader of the same files would be counted too.

    python -m quest.bench.touched INDEX_FOLDER CHUNKS PROBLEMS QUERIES [PASSES] [--global-share 0.25]
    python -m quest.bench.touched INDEX_FOLDER SEARCHES      # global dense searches only
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from quest.bench import cgroup, lifecycle

PAGE = mmap.PAGESIZE
_LIBC = ctypes.CDLL("libc.so.6", use_errno=True)
_LIBC.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
_LIBC.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)


def cached_bytes(path: Path) -> int:
    """Bytes of `path` in the page cache now (mapping a file reads none of it)."""
    size = path.stat().st_size
    if size == 0:
        return 0
    fd = os.open(path, os.O_RDONLY)
    try:
        address = _LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), f"mmap failed on {path}")
        try:
            vec = ctypes.create_string_buffer((size + PAGE - 1) // PAGE)
            if _LIBC.mincore(address, size, vec) != 0:
                raise OSError(ctypes.get_errno(), f"mincore failed on {path}")
            return sum(b & 1 for b in vec.raw) * PAGE
        finally:
            _LIBC.munmap(address, size)
    finally:
        os.close(fd)


def touched(folder: Path, queries: tuple[int, int, int], passes: int = 1,
            global_share: float = 0.0) -> dict[str, Any]:
    """Cold probe run on `folder` (with no-problem questions at `global_share`), then each file's page-cache bytes."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    evicted = cgroup.evict_from_page_cache(files)
    before = {p.name: cached_bytes(p) for p in files}
    cmd, env = lifecycle.probe_command(folder, queries, passes=passes, global_share=global_share)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600, check=True)
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    after = {p.name: cached_bytes(p) for p in files}
    return {"evicted": evicted, "cached_before": before, "cached_after": after,
            "file_bytes": {p.name: p.stat().st_size for p in files},
            "probe_after_queries": probe.get("after_queries"), "probe_faults": probe.get("faults"),
            "stages": {k: (probe.get("stages") or {}).get("stages", {}).get(k)
                       for k in ("retrieval_no_embed", "dense_problem", "dense_global", "bm25", "lexical")},
            "paths": (probe.get("stages") or {}).get("paths"), "by_kind": (probe.get("stages") or {}).get("by_kind")}


# The global dense search alone (what a question naming no problem runs), on query vectors shaped
# like the bench's: `count` searches of the top 30 for random problems' queries.
_GLOBAL = """
import json, resource, sys, time
import numpy as np
from pathlib import Path
from quest.bench import vectors
from quest.retrieval.index import load_index
index = load_index(Path(sys.argv[1]))
problems = sorted(p for p in index.rows_by_problem)
centres = vectors.problem_centres(problems)
rng = np.random.default_rng(5)
times = []
for i in range(int(sys.argv[2])):
    q = vectors.query_vector(problems[int(rng.integers(len(problems)))], centres, seed=i)
    t = time.perf_counter()
    index.dense.search(q, 30)
    times.append((time.perf_counter() - t) * 1000)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"searches": len(times), "p50_ms": float(np.percentile(times, 50)),
                  "p95_ms": float(np.percentile(times, 95)), "major_faults": usage.ru_majflt}))
"""


def touched_by_global(folder: Path, count: int) -> dict[str, Any]:
    """Cold run of `count` global dense searches on `folder`, then the page-cache bytes of each file."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    cgroup.evict_from_page_cache(files)
    cmd, env = lifecycle.probe_command(folder, None)
    done = subprocess.run([cmd[0], "-c", _GLOBAL, str(folder), str(count)], capture_output=True, text=True,
                          env=env, timeout=3600, check=True)
    return {"probe": json.loads(done.stdout.strip().splitlines()[-1]),
            "cached_after": {p.name: cached_bytes(p) for p in files},
            "file_bytes": {p.name: p.stat().st_size for p in files}}


def main(argv: list[str]) -> None:
    share = 0.0
    if "--global-share" in argv:
        at = argv.index("--global-share")
        share, argv = float(argv[at + 1]), argv[:at] + argv[at + 2:]
    folder, numbers = Path(argv[0]), [int(x) for x in argv[1:]]
    if len(numbers) == 1:
        sys.stdout.write(json.dumps(touched_by_global(folder, numbers[0]), indent=1) + "\n")
        return
    out = touched(folder, (numbers[0], numbers[1], numbers[2]), *(numbers[3:4] or [1]), global_share=share)
    out["load"] = os.getloadavg()
    sys.stdout.write(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
