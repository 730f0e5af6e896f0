"""What a loaded index's query phase keeps resident, file by file and allocation by allocation (issue 14).

    python -m quest.bench.working_set INDEX_DIR CHUNKS PROBLEMS QUERIES [--passes 2] [--heap]

Loads the saved index in this (fresh) process as the bench's probe does, runs the bench's queries
(`lifecycle.loaded_stages`), and prints one JSON object:

- `mapped`: resident bytes per mapped file (summed over its mappings in /proc/self/smaps), after
  the load and after each pass: which file's pages the queries touched;
- `anon`, `file`: the process's resident anonymous and file-backed bytes at the same moments;
- with `--heap`: the largest Python/numpy allocations alive after the load and after the queries
  (tracemalloc, grouped by the line that allocated them; FAISS's own C++ allocations are not seen).

Start it after the index files were dropped from the page cache (`cgroup.evict_from_page_cache`) to
see what one process reads; with pages already cached, smaps still counts only those it mapped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path
from typing import Any

STAGES = ("retrieval_no_embed", "bm25", "lexical", "dense_problem", "dense_global", "fusion")
_HEADER = re.compile(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+(?:\s+(.*))?$")


def mapped_by_file(smaps: str | None = None, under: Path | None = None) -> dict[str, int]:
    """Resident bytes of each mapped file (by base name), from /proc/self/smaps text; `under`: only
    files in that folder. Anonymous mappings, [heap] and the like are left out."""
    if smaps is None:
        with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
            smaps = fh.read()
    out: dict[str, int] = defaultdict(int)
    current: str | None = None
    for line in smaps.splitlines():
        head = _HEADER.match(line)
        if head:
            path = (head.group(1) or "").strip()
            current = path if path.startswith("/") else None
            if current and under is not None and Path(current).parent != under:
                current = None
            continue
        if current and line.startswith("Rss:"):
            out[os.path.basename(current)] += int(line.split()[1]) * 1024
    return dict(out)


def cache_state(index: Any) -> dict[str, int | None]:
    """The BM25 weight cache's size, budget, entries, and hits and misses (where it counts them)."""
    cache = index.bm25.cache
    return {"bytes": cache.bytes, "max_bytes": cache.max_bytes, "entries": len(cache),
            "hits": getattr(cache, "hits", None), "misses": getattr(cache, "misses", None)}


def _status() -> dict[str, int]:
    from quest.bench.measure import memory_parts

    return memory_parts()


def heap_top(snapshot: tracemalloc.Snapshot, limit: int = 25) -> list[dict[str, Any]]:
    """The largest live allocations, grouped by the line of Quest (or the library) that made them."""
    stats = snapshot.statistics("traceback")
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for stat in stats:
        # The most recent frame in Quest's own code (tracemalloc lists frames oldest first).
        frames = [f for f in stat.traceback if "/quest/" in f.filename and not f.filename.endswith(
            ("working_set.py", "lifecycle.py"))] or list(stat.traceback)
        frame = frames[-1]
        key = f"{frame.filename.split('/quest/')[-1]}:{frame.lineno}"
        rows[key][0] += stat.size
        rows[key][1] += stat.count
    top = sorted(rows.items(), key=lambda kv: -kv[1][0])[:limit]
    return [{"at": at, "bytes": size, "blocks": count} for at, (size, count) in top]


def run(folder: Path, chunks: int, problems: int, queries: int, passes: int, heap: bool) -> dict[str, Any]:
    from quest.bench.lifecycle import loaded_stages
    from quest.retrieval.index import load_index
    from quest.retrieval.tokenize import tokenize

    tokenize("预热分词器 warm up")  # jieba's dictionary is the interpreter's, not the index's
    out: dict[str, Any] = {"folder": str(folder), "baseline": _status()}
    if heap:
        tracemalloc.start(12)
    started = time.perf_counter()
    index = load_index(folder)
    out["load_seconds"] = round(time.perf_counter() - started, 3)
    out["after_load"] = {**_status(), "mapped": mapped_by_file(under=folder)}
    if heap:
        out["heap_after_load"] = heap_top(tracemalloc.take_snapshot())
        out["traced_after_load"] = tracemalloc.get_traced_memory()[0]
    out["passes"] = []
    for _ in range(passes):
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        stages = loaded_stages(index, chunks, problems, queries)
        out["passes"].append({"stages": {k: v for k, v in stages["stages"].items() if k in STAGES},
                              "major_faults": resource.getrusage(resource.RUSAGE_SELF).ru_majflt - faults,
                              **_status(), "mapped": mapped_by_file(under=folder)})
    out["bm25_cache"] = cache_state(index)
    if heap:
        out["heap_after_queries"] = heap_top(tracemalloc.take_snapshot())
        out["traced_after_queries"], out["traced_peak"] = tracemalloc.get_traced_memory()
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m quest.bench.working_set")
    parser.add_argument("folder", type=Path)
    parser.add_argument("chunks", type=int)
    parser.add_argument("problems", type=int)
    parser.add_argument("queries", type=int)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--heap", action="store_true", help="trace Python/numpy allocations (slower)")
    args = parser.parse_args(argv)
    result = run(args.folder.resolve(), args.chunks, args.problems, args.queries, args.passes, args.heap)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
