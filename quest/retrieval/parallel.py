"""Independent searches of one question, side by side (issue 14).

A question ranks its scopes by several signals: BM25 once per query part, the lexical weights, the dense
vectors; a question naming a problem ranks the problem's rows and the general documents, one naming none the
general documents and the whole base. Each is a separate search over separate arrays. Some run outside the GIL:
FAISS's scans, the compiled 8-bit pass over the general documents' vectors, the compiled sparse search of a whole
base and a scope's compiled sums (kernels.py, an optional extra). The others - a scoped sparse search by numpy,
hundreds of short numpy steps with Python between them - hold it, and two of those at once take turns on it, slower
than one after another. So only the first kind is offered to another thread (`run_all`'s `offload`, chosen by
`Retriever._offload`); the asking thread runs the rest.

How many threads (`threads_for`): `Settings.search_threads` when it is set (1 or more), else (0, the default)
two when the widest search another thread may take ranks PARALLEL_FROM rows or more and the process may use two
cores, one otherwise. Measured (docs/bench/scale-1m-round23, -round24): at 1M chunks two threads took a question
naming no problem from p95 34.3-34.9 to 26.1-28.4 ms on a quiet machine and from 60.7-65.6 to 40.6-49.9 ms beside two
busy processes (a local model answering on the same cores), and four students asking at once got the same
throughput. A question naming a problem, its general documents' dense search on the other thread: 0.85 of one
thread's time at the median with 51,600 general rows, 0.94 with 20,640, but 1.04 with 5,160 (the hand-over costs
more than the overlap saves); with every search offered to the pool, as in round 23, two threads were 1.19x slower
there. On the shipped base (1,345 rows) two threads made every question 1.22x slower.

One small pool per process serves every request (Gradio runs requests on several threads): its
threads are bounded whatever the number of students. The asking thread works too, and runs
itself any job no pool thread has started yet, so when every pool thread is busy with other
requests a question costs what it costs one job after another, never a wait in the queue.

The results come back in the jobs' order, so the caller builds exactly what it built before (the
order of the ranked lists decides how fusion adds them up).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from quest.retrieval.dense import limit_search_threads

_T = TypeVar("_T")

# The least rows the widest search another thread may take ranks for the default to use two threads: a named problem's
# batch with 20,640 general rows ran 0.94x with two, with 5,160 1.04x (docs/bench/scale-1m-round24); a whole base of
# 100k rows 0.95x, of 1M 0.75x (round 23).
PARALLEL_FROM = 20_000
AUTO_THREADS = 2

_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (a container's or taskset's cpuset), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def threads_for(setting: int, rows: int) -> int:
    """The threads for a batch of one question's searches whose widest search another thread may take ranks `rows`
    rows: `setting` when it is 1 or more; with 0 (the default), AUTO_THREADS from PARALLEL_FROM rows on a process with
    that many cores, else 1."""
    if setting >= 1:
        return setting
    return AUTO_THREADS if rows >= PARALLEL_FROM and usable_cores() >= AUTO_THREADS else 1


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


def run_all(jobs: Sequence[Callable[[], _T]], threads: int, offload: Sequence[int] | None = None) -> list[_T]:
    """Every job's result, in the jobs' order, run on up to `threads` threads (1: one after another, here).

    `offload` names the jobs the pool may take, in the order it is offered them (default: every job but the first).
    This thread runs the others in order, then any offered job no pool thread has started yet. An exception in a
    job is raised here, after every started job has finished.
    """
    pool = _pool(threads)
    offered = list(range(1, len(jobs))) if offload is None else list(offload)
    if pool is None or len(jobs) < 2 or not offered:
        return [job() for job in jobs]
    futures: dict[int, Future[_T]] = {i: pool.submit(jobs[i]) for i in offered}
    results: list[_T | None] = [None] * len(jobs)
    errors: list[BaseException] = []

    def here(i: int) -> None:
        try:
            results[i] = jobs[i]()
        except BaseException as exc:  # still collect the others: none may outlive this call
            errors.append(exc)

    for i in range(len(jobs)):
        if i not in futures and not errors:
            here(i)
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
