"""Independent searches of one question, side by side (issue 14).

A question that names no problem ranks the whole base by several signals: BM25 once per query part,
the lexical weights, the dense IVF. Each is a separate search over separate arrays. FAISS's scans and
numpy's long array steps let go of the GIL and overlap on two cores; the pruned sparse searches
(maxscore.py) are hundreds of short numpy steps with Python between them, which take turns on the
GIL. The compiled sparse search (kernels.py, an optional extra) lets go of it.

How many threads (`threads_for`): `Settings.search_threads` when it is set (1 or more), else (0, the default)
two for the searches of a whole base of PARALLEL_FROM rows or more when the process may use two cores, one for
the rest. Measured (docs/bench/scale-1m-round23): at 1M chunks two threads took a question naming no problem
from p95 34.3-34.9 to 26.1-28.4 ms on a quiet machine and from 60.7-65.6 to 40.6-49.9 ms beside two busy
processes (a local model answering on the same cores), and four students asking at once got the same
throughput (52.0 and 52.0 against 48.9 and 52.1 questions a second). Short searches lose: on the shipped
base (1,345 rows) every question was 1.22x slower with two threads, and at 100k the whole probe (three in four
questions naming a problem: a few hundred rows each) was slower at the median while its no-problem questions alone
gained ~5%, so only whole-base searches get two.

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

# The least rows a question's searches cover (a whole base) for the default to run them on two threads: a
# question naming no problem at 100k chunks was 0.95x with two (its searches take ~1-3 ms each), at 1M 0.75x.
PARALLEL_FROM = 100_000
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
    """The threads for one question's searches covering `rows` rows: `setting` when it is 1 or more; with 0 (the
    default), AUTO_THREADS for a whole base of PARALLEL_FROM rows or more on a process with that many cores, else 1."""
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
