"""Helpers shared by the fuzz tests: example counts and the time / memory bound per input."""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

from hypothesis import settings

T = TypeVar("T")

#: One input may take at most this long and allocate at most this much (peak). Generous: they
#: catch runaway work (an alias bomb, a catastrophic regex), not slowness.
MAX_SECONDS = 5.0
MAX_PEAK_BYTES = 64 * 1024 * 1024


def examples(ci_count: int) -> settings:
    """`ci_count` examples per run, or QUEST_FUZZ_EXAMPLES when set."""
    return settings(max_examples=int(os.environ.get("QUEST_FUZZ_EXAMPLES", ci_count)))


def bounded(func: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Call `func` and fail if that one call ran away in time or memory."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    tracemalloc.reset_peak()
    begin = time.perf_counter()
    try:
        return func(*args, **kwargs)
    finally:
        elapsed = time.perf_counter() - begin
        peak = tracemalloc.get_traced_memory()[1]
        if started:
            tracemalloc.stop()
        assert elapsed < MAX_SECONDS, f"{func.__name__} took {elapsed:.1f} s on one input"
        assert peak < MAX_PEAK_BYTES, f"{func.__name__} peaked at {peak / 2**20:.0f} MB on one input"
