"""Independent searches of one question, side by side (issue 14).

A question that names no problem ranks the whole base by several signals: BM25 once per query part,
the lexical weights, the dense IVF. Each is a separate search over separate arrays. FAISS's scans and
numpy's long array steps let go of the GIL and overlap on two cores; the pruned sparse searches
(maxscore.py) are hundreds of short numpy steps with Python between them, which take turns on the
GIL. The compiled sparse search (kernels.py, an optional extra) lets go of it. Measured at 1M
(docs/bench/scale-1m-kernel): two threads take 0.75-0.77 of the time with it (numpy: 0.86) when a core is idle,
and 0.985-1.023 when other work holds it, as Ollama answering on the same cores does. So
`Settings.search_threads` is 1 by default, and 2 is for a machine whose retrieval has a core to itself.

One small pool per process serves every request (Gradio runs requests on several threads): its
threads are bounded whatever the number of students. The asking thread works too, and runs
itself any job no pool thread has started yet, so when every pool thread is busy with other
requests a question costs what it costs one job after another, never a wait in the queue.

The results come back in the jobs' order, so the caller builds exactly what it built before (the
order of the ranked lists decides how fusion adds them up).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from quest.retrieval.dense import limit_search_threads

_T = TypeVar("_T")

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor | None:
    """The process's pool for `threads` (the asking thread counts as one), made on first use."""
    if threads <= 1:
        return None
    with _pools_lock:
        if threads not in _pools:
            # Each pool thread limits FAISS's OpenMP team as it starts: the count is per thread (dense.py).
            _pools[threads] = ThreadPoolExecutor(max_workers=threads - 1, thread_name_prefix="quest-search",
                                                 initializer=limit_search_threads)
        return _pools[threads]


def run_all(jobs: Sequence[Callable[[], _T]], threads: int) -> list[_T]:
    """Every job's result, in the jobs' order, run on up to `threads` threads (1: one after another, here).

    All but the first job are offered to the pool; this thread runs the first, then any job offered that no pool
    thread has started yet. An exception in a job is raised here, after every started job has finished.
    """
    pool = _pool(threads)
    if pool is None or len(jobs) < 2:
        return [job() for job in jobs]
    futures: dict[int, Future[_T]] = {i: pool.submit(jobs[i]) for i in range(1, len(jobs))}
    results: list[_T | None] = [None] * len(jobs)
    errors: list[BaseException] = []

    def here(i: int) -> None:
        try:
            results[i] = jobs[i]()
        except BaseException as exc:  # still collect the others: none may outlive this call
            errors.append(exc)

    here(0)
    for i, future in futures.items():
        if future.cancel() and not errors:  # no pool thread took it (all busy): run it here, not wait for one
            here(i)
    for i, future in futures.items():
        if not future.cancelled():
            try:
                results[i] = future.result()
            except BaseException as exc:
                errors.append(exc)
    if errors:
        raise errors[0]
    return results  # type: ignore[return-value]
