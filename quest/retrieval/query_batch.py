"""Queries that arrive together share one pass through the embedding model.

When fifty students ask at once, each request embeds its query. One at a time (the model is
not thread-safe, so the embedder holds a lock) that is fifty model calls in a row, each made of
hundreds of small tensor operations that give up and retake the interpreter lock while the
answers already streaming compete for it: the last students wait seconds for retrieval.

`QueryBatcher` is a group commit: the first caller runs the model for its own texts; callers
that arrive while it runs queue up, and when it finishes, the first of them runs ONE call for
all the texts queued so far and hands each caller its rows. A lone request pays nothing extra.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

MAX_TEXTS = 64  # bounds one call, so its first callers do not wait on a very long batch


class _Job:
    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.ready = threading.Event()
        self.lead = False  # this caller runs the next batch
        self.result: Any = None
        self.error: BaseException | None = None


class QueryBatcher:
    """`encode(texts)` with concurrent calls merged into one `encode_many` call per batch.

    `encode_many(texts)` returns embeddings for `texts`; `split(embeddings, start, stop)` cuts out
    the rows of one caller.
    """

    def __init__(self, encode_many: Callable[[list[str]], Any], split: Callable[[Any, int, int], Any],
                 max_texts: int = MAX_TEXTS) -> None:
        self._encode_many = encode_many
        self._split = split
        self._max_texts = max(1, max_texts)
        self._lock = threading.Lock()
        self._waiting: list[_Job] = []
        self._busy = False
        self.batches = 0  # model calls made (for tests and benchmarks)

    def encode(self, texts: Sequence[str]) -> Any:
        job = _Job(list(texts))
        with self._lock:
            self._waiting.append(job)
            job.lead = not self._busy
            self._busy = True
        if not job.lead:
            job.ready.wait()
        if job.lead:  # first in, or handed the next batch by the caller that ran the last one
            self._run_batch()
        if job.error is not None:
            raise job.error
        return job.result

    def _take_batch(self) -> list[_Job]:
        with self._lock:
            batch, count = [], 0
            while self._waiting and (not batch or count + len(self._waiting[0].texts) <= self._max_texts):
                job = self._waiting.pop(0)
                batch.append(job)
                count += len(job.texts)
            return batch

    def _run_batch(self) -> None:
        batch = self._take_batch()
        try:
            self._deliver(batch)
        finally:
            with self._lock:
                if self._waiting:  # the next caller in line runs the next batch
                    self._waiting[0].lead = True
                    self._waiting[0].ready.set()
                else:
                    self._busy = False

    def _deliver(self, batch: list[_Job]) -> None:
        texts = [text for job in batch for text in job.texts]
        try:
            embeddings = self._encode_many(texts)
            self.batches += 1
        except BaseException as exc:  # every caller in the batch sees the model's failure
            for job in batch:
                job.error = exc
                job.lead = False
                job.ready.set()
            raise
        start = 0
        for job in batch:
            job.result = self._split(embeddings, start, start + len(job.texts))
            start += len(job.texts)
            job.lead = False
            job.ready.set()
