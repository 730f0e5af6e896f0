"""The per-session rate limit, with an injected clock."""

from __future__ import annotations

from quest.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_allows_the_limit_then_says_how_long_to_wait():
    clock = Clock()
    limiter = RateLimiter(3, window=60, clock=clock)
    assert [limiter.check("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    clock.now += 10
    assert limiter.check("a") == 50.0
    assert limiter.retry_seconds(50.0) == 50
    assert limiter.retry_seconds(0.2) == 1


def test_window_slides():
    clock = Clock()
    limiter = RateLimiter(2, window=60, clock=clock)
    limiter.check("a")
    clock.now += 30
    limiter.check("a")
    clock.now += 30  # the first request leaves the window exactly now
    assert limiter.check("a") == 0.0
    assert limiter.check("a") == 30.0


def test_refused_requests_are_not_counted():
    clock = Clock()
    limiter = RateLimiter(1, window=60, clock=clock)
    limiter.check("a")
    for _ in range(5):
        clock.now += 1
        limiter.check("a")
    clock.now = 1060.0
    assert limiter.check("a") == 0.0


def test_sessions_are_independent():
    limiter = RateLimiter(1, clock=Clock())
    assert limiter.check("a") == 0.0
    assert limiter.check("b") == 0.0
    assert limiter.check("a") > 0


def test_zero_disables():
    limiter = RateLimiter(0, clock=Clock())
    assert all(limiter.check("a") == 0.0 for _ in range(100))


def test_memory_is_bounded():
    clock = Clock()
    limiter = RateLimiter(5, window=60, clock=clock, max_keys=3)
    for key in "abc":
        limiter.check(key)
    clock.now += 61  # all stale
    limiter.check("d")
    assert len(limiter) == 1
    for key in "efg":  # all active: the oldest goes
        clock.now += 1
        limiter.check(key)
    assert len(limiter) == 3
