"""Hypothesis settings for the fuzz suite (issue 11, item 6).

In CI the examples are derandomized (a fixed seed: the same inputs every run, so a failure
reproduces) and each target gets its own modest example count, keeping the whole suite
under ~30 s. `QUEST_FUZZ_EXAMPLES=20000 python -m pytest tests/fuzz` runs that many per
target, with fresh random inputs, for a deeper hunt; `QUEST_FUZZ_SEED=n` fixes that hunt.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "quest-fuzz",
    derandomize="QUEST_FUZZ_EXAMPLES" not in os.environ or "QUEST_FUZZ_SEED" in os.environ,
    deadline=None,  # the shared CI machine stalls now and then; bounds are checked in `bounded`
    database=None,  # no .hypothesis folder in the checkout
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.load_profile("quest-fuzz")
