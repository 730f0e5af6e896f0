"""The loaded index's query phase inside a memory budget that includes page cache (issue 14).

`python -m quest bench --memory-limit-per-chunk 3072` runs, at each size, the fresh-process probe
(load the saved index memory-mapped, then the bench's queries, twice: see PASSES) two more times,
each in its own memory cgroup and each after the index files were dropped from the page cache:

- uncapped: no limit; its peak is how much the queries touch when nothing pushes back;
- capped: limited to chunks x the per-chunk budget, heap and page cache together. The kernel
  drops clean pages of the mapped files to stay under it; it kills the process only if the heap
  alone no longer fits.

Both start cold, so the comparison isolates the cap (the warm fresh-process probe is the third
reference). See quest/bench/cgroup.py for what is read from the kernel.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quest.bench import cgroup, lifecycle

P95_TARGET_MS = 30.0
# The queries run twice in the same process: the first pass from the cold page cache (disk reads),
# the second with whatever the first left cached, which under the cap is what the budget holds.
# The second is the one compared with the warm probe and checked against the target.
PASSES = 2


def measure(folder: Path, queries: tuple[int, int, int], per_chunk: int,
            hierarchy: cgroup.Hierarchy | str | None = None, global_share: float = 0.0) -> dict[str, Any]:
    """Uncapped and capped cold runs of the probe on the saved index in `folder`.

    `queries` is the probe's (chunks, problems, queries); the cap is chunks x `per_chunk` bytes.
    `global_share` > 0 mixes in questions that name no problem (`lifecycle.loaded_stages`); 0, the
    default, sends the problem questions alone, as every report before scale-1m-global.
    """
    limit = queries[0] * per_chunk
    out: dict[str, Any] = {"limit_per_chunk": per_chunk, "limit_bytes": limit}
    if global_share:
        out["global_share"] = global_share
    hierarchy = cgroup.find_hierarchy() if hierarchy is None else hierarchy
    if isinstance(hierarchy, str):
        return {**out, "measured": False, "reason": hierarchy}
    for name, cap in (("uncapped", None), ("capped", limit)):
        out[name] = cold_run(folder, queries, cap, hierarchy, global_share)
    measured = out["capped"].get("measured", False)
    out["measured"] = measured
    if not measured:
        out["reason"] = out["capped"].get("reason")
    return out


def cold_run(folder: Path, queries: tuple[int, int, int] | None, limit: int | None,
             hierarchy: cgroup.Hierarchy | str, global_share: float = 0.0) -> dict[str, Any]:
    """Evict the index files from the page cache, then run the probe in a new group capped at `limit`."""
    evicted = cgroup.evict_from_page_cache(sorted(p for p in folder.rglob("*") if p.is_file()))
    cmd, env = lifecycle.probe_command(folder, queries, passes=PASSES, global_share=global_share)
    run = cgroup.run_capped(cmd, limit, env=env, hierarchy=hierarchy)
    report = {**run.report, "evicted": evicted}
    if not run.measured:
        return report
    try:
        report["probe"] = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        report["probe"] = None
        report["stderr_tail"] = run.stderr[-1500:]
    return report


def retrieval_p95(run: dict[str, Any] | None) -> float | None:
    stages = ((run or {}).get("probe") or {}).get("stages") or {}
    return ((stages.get("stages") or {}).get("retrieval_no_embed") or {}).get("p95")


def verdict(cap: dict[str, Any] | None) -> tuple[bool, str]:
    """(met, what to print) for the target: runs under the cap, not OOM-killed, p95 within target."""
    if not cap:
        return False, "not run (no --memory-limit-per-chunk)"
    if not cap.get("measured"):
        return False, f"not measured: {cap.get('reason')}"
    run = cap["capped"]
    if run.get("oom_killed"):
        return False, f"OOM-killed under {cap['limit_bytes'] / 2**20:,.0f} MiB"
    p95 = retrieval_p95(run)
    if run.get("returncode") != 0 or p95 is None:
        return False, f"the probe failed (exit {run.get('returncode')})"
    peak = run.get("peak_bytes") or 0
    text = (f"p95 {p95:.1f} ms; peak {peak / 2**20:,.0f} of {cap['limit_bytes'] / 2**20:,.0f} MiB, "
            f"0 OOM kills, {run.get('limit_hits') or 0} limit hits")
    return p95 <= P95_TARGET_MS, text


def main(argv: list[str]) -> None:
    """`python -m quest.bench.capped INDEX CHUNKS PROBLEMS QUERIES PER_CHUNK [GLOBAL_SHARE]`: print `measure`'s JSON.

    GLOBAL_SHARE (default 0: the problem questions alone, as the reports before scale-1m-global)
    is the share of all questions that name no problem. Run it under `flock /work/bench.lock` at 300k+.
    """
    import os
    import sys

    folder, chunks, problems, queries, per_chunk = Path(argv[0]), *map(int, argv[1:5])
    share = float(argv[5]) if len(argv) > 5 else 0.0
    load = [round(x, 2) for x in os.getloadavg()]
    out = measure(folder, (chunks, problems, queries), per_chunk, global_share=share)
    out["load_average"] = {"start": load, "end": [round(x, 2) for x in os.getloadavg()]}
    sys.stdout.write(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
