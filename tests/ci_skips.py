"""In CI (CI=true) a skipped test is a failed test.

Tests that need a service (Chromium, g++, PostgreSQL, Milvus Lite) skip on a developer's machine
with a reason saying how to enable them; CI installs all of them, so a skip there means a test
that silently stopped running. This plugin turns such skips, at run time and at collection time,
into failures that keep the reason. Expected failures (xfail) are left alone. tests/conftest.py
loads it; nothing is allowed to skip in CI, so there is no allow-list.
"""

from __future__ import annotations

import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def _as_failure(report: pytest.TestReport | pytest.CollectReport) -> None:
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"skipped in CI (CI=true), where every test must run: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        _as_failure(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> object:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci():
        _as_failure(report)
