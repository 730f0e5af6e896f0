"""Small measuring tools: percentiles, a timing proxy for embedders, process memory."""

from __future__ import annotations

import contextlib
import gc
import os
import platform
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from quest.retrieval.embedder import Embeddings


def summary(samples_ms: Sequence[float]) -> dict[str, float]:
    """n, p50, p95, mean and max of milliseconds (empty: n=0 only)."""
    if not samples_ms:
        return {"n": 0}
    a = np.asarray(samples_ms, dtype=np.float64)
    return {
        "n": int(a.size),
        "p50": round(float(np.percentile(a, 50)), 4),
        "p95": round(float(np.percentile(a, 95)), 4),
        "mean": round(float(a.mean()), 4),
        "max": round(float(a.max()), 4),
    }


def ratio(slow: float | None, fast: float | None) -> float | None:
    if not slow or not fast:
        return None
    return round(slow / fast, 1)


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    @property
    def ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    @property
    def s(self) -> float:
        return time.perf_counter() - self.started


class TimedEmbedder:
    """Wraps an Embedder and adds up the seconds spent encoding documents and queries."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.has_lexical = inner.has_lexical
        self.document_seconds = 0.0
        self.documents = 0

    def encode_documents(self, texts: Sequence[str], *, progress: bool = False) -> Embeddings:
        t = time.perf_counter()
        try:
            return self.inner.encode_documents(texts, progress=progress)
        finally:
            self.document_seconds += time.perf_counter() - t
            self.documents += len(texts)

    def encode_queries(self, texts: Sequence[str]) -> Embeddings:
        return self.inner.encode_queries(texts)

    def reset(self) -> None:
        self.document_seconds = 0.0
        self.documents = 0


# --------------------------------------------------------------------------- memory


def _status_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_bytes() -> int:
    """Resident set size now (after a full garbage collection)."""
    gc.collect()
    kb = _status_kb("VmRSS")
    if kb is not None:
        return kb * 1024
    import resource  # pragma: no cover - not Linux

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_parts(before: dict[str, int] | None = None) -> dict[str, int]:
    """Resident memory now, in bytes: total, anonymous and file-backed (minus `before`, if given)."""
    gc.collect()
    now = {key: (_status_kb(field) or 0) * 1024 for key, field in (("rss", "VmRSS"), ("anon", "RssAnon"),
                                                                     ("file", "RssFile"))}
    return {k: v - (before or {}).get(k, 0) for k, v in now.items()}


def reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux: write 5 to /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_bytes() -> int | None:
    kb = _status_kb("VmHWM")
    return kb * 1024 if kb is not None else None


def dir_size(folder: os.PathLike[str] | str) -> dict[str, int]:
    sizes = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.is_file():
            sizes[entry.name] = entry.stat().st_size
    return sizes


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = _meminfo_total()
    if mem:
        info["memory_gib"] = round(mem / 2**30, 1)
    with contextlib.suppress(OSError):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    try:
        import faiss

        info["faiss"] = faiss.__version__
        info["faiss_threads"] = faiss.omp_get_max_threads()
    except Exception:  # pragma: no cover
        pass
    return info


def _meminfo_total() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


class AnonPeak:
    """The highest anonymous resident memory (heap, numpy arrays) seen while the block runs.

    The kernel's peak (VmHWM) also counts the pages of memory-mapped index files a step reads
    (a compaction reads all 7 GB of a 1M index), which the kernel drops under pressure; this
    samples RssAnon from a thread every `every` seconds instead (a peak shorter than that can be missed).
    """

    def __init__(self, every: float = 0.05) -> None:
        import threading

        self.every, self.peak, self.start = every, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, (_status_kb("RssAnon") or 0) * 1024)

    def __enter__(self) -> AnonPeak:
        self.start = self.peak = (_status_kb("RssAnon") or 0) * 1024
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, (_status_kb("RssAnon") or 0) * 1024)

    @property
    def growth(self) -> int:
        return self.peak - self.start
