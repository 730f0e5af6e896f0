"""The CI rule, run for real: a small suite in a temporary folder, with and without CI=true."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SUITE = '''
import pytest

def test_runs():
    assert True

def test_needs_a_service():
    pytest.skip("no service here")

@pytest.mark.xfail(reason="known bug", strict=True)
def test_known_bug():
    assert False
'''

SKIPPED_MODULE = '''
import pytest
pytest.skip("whole module needs a service", allow_module_level=True)
'''


def run_suite(tmp_path: Path, ci: str | None, **files: str) -> subprocess.CompletedProcess[str]:
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.ci_skips", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )


def test_outside_ci_a_skip_is_a_skip(tmp_path):
    result = run_suite(tmp_path, None, test_suite=SUITE, test_skipped_module=SKIPPED_MODULE)
    assert result.returncode == 0, result.stdout
    assert "1 passed, 2 skipped, 1 xfailed" in result.stdout


def test_in_ci_a_skipped_test_fails_with_its_reason(tmp_path):
    result = run_suite(tmp_path, "true", test_suite=SUITE)
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 passed, 1 xfailed" in result.stdout
    assert ("FAILED test_suite.py::test_needs_a_service - skipped in CI (CI=true), where every test must run: "
            "Skipped: no service here") in result.stdout


def test_in_ci_a_skipped_module_is_a_collection_error(tmp_path):
    result = run_suite(tmp_path, "true", test_skipped_module=SKIPPED_MODULE)
    assert result.returncode == 2, result.stdout
    assert ("ERROR test_skipped_module.py - skipped in CI (CI=true), where every test must run: "
            "Skipped: whole module needs a service") in result.stdout
