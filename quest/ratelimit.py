"""A per-session sliding-window rate limit, pure and testable with an injected clock."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable


class RateLimiter:
    """At most `limit` requests per `window` seconds for each key (a browser session).

    `check(key)` records the request and returns 0 when it is allowed, or how many
    seconds the caller must wait before the next one is (a refused request is not counted).
    A limit of 0 or less disables the limiter.
    """

    def __init__(
        self,
        limit: int,
        *,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 10_000,
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._max_keys = max_keys
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> float:
        if self.limit <= 0:
            return 0.0
        now = self._clock()
        with self._lock:
            stamps = self._seen.get(key)
            if stamps is None:
                if len(self._seen) >= self._max_keys:
                    self._prune(now)
                stamps = self._seen[key] = deque()
            while stamps and stamps[0] <= now - self.window:
                stamps.popleft()
            if len(stamps) >= self.limit:
                return max(stamps[0] + self.window - now, 0.001)
            stamps.append(now)
            return 0.0

    def retry_seconds(self, wait: float) -> int:
        """The wait rounded up to whole seconds, for messages."""
        return max(1, math.ceil(wait))

    def _prune(self, now: float) -> None:
        stale = [k for k, v in self._seen.items() if not v or v[-1] <= now - self.window]
        for key in stale:
            del self._seen[key]
        if len(self._seen) >= self._max_keys:  # all active: forget the oldest
            oldest = min(self._seen, key=lambda k: self._seen[k][-1])
            del self._seen[oldest]

    def __len__(self) -> int:
        return len(self._seen)
