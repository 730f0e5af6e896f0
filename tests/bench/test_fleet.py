"""The fleet benchmark: arithmetic, report, command, and a tiny fleet run end to end through the real app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quest.bench.fleet import Scenario, default_scenarios, summarize, table, write_report
from quest.cli import main


def test_summary_of_students() -> None:
    results = [{"first": 0.5, "total": 2.0}, {"first": 1.5, "total": 3.0}, {"first": 2.5, "total": 4.0},
               {"error": "final status 'fallback': ...", "first": 0.1, "total": 0.2}, {}]
    out = summarize(results, wall=6.0, ideal=2.0, first_ideal=0.5)
    assert (out["students"], out["answered"], out["errors"]) == (5, 3, 2)
    assert out["throughput_per_s"] == 0.5  # 3 answers in 6 s
    assert out["ttft_p50"] == 1.0 and out["queue_delay_p50"] == 0.5  # first texts 0.1, 0.5, 1.5, 2.5
    assert out["total_p50"] == 3.0 and out["median_total_over_stream"] == 1.5
    assert out["error_samples"] == ["final status 'fallback': ...", "no result"]


def test_default_scenarios_cover_the_issue() -> None:
    scenarios = default_scenarios(200)
    assert [(s.replicas, s.hosts, s.slots, s.students) for s in scenarios[:4]] == [
        (1, 1, 4, 200), (1, 3, 4, 200), (2, 3, 4, 200), (2, 3, 4, 200)]
    assert scenarios[3].break_host_after is not None
    assert {(s.backend, s.students, s.slots) for s in scenarios[4:]} == {("ollama", 50, 0), ("openai", 50, 0)}
    assert Scenario("x", 2, 3, 4, 200, break_host_after=2.0).describe() == (
        "2 replica(s), 3 host(s) x 4 slots, 200 students, openai protocol, host 1 fails after 2 s")


def test_report_files(tmp_path: Path) -> None:
    row = {"scenario": "two apps", "setup": "2 replica(s)", "stream_s": 1.0, "answered": 200, "errors": 0,
           "throughput_per_s": 11.5, "ttft_p50": 8.1, "ttft_p95": 16.0, "queue_delay_p95": 15.9,
           "total_p50": 9.0, "median_total_over_stream": 9.0}
    results = {"tokens": 40, "rate": 40.0, "stream_s": 1.0,
               "scenarios": [row, {"scenario": "broken", "skipped": "replica 0 did not start"}]}
    written = write_report(results, tmp_path)
    assert [p.name for p in written] == ["fleet.md", "fleet.json", "fleet.png"]
    assert json.loads((tmp_path / "fleet.json").read_text()) == results
    md = (tmp_path / "fleet.md").read_text()
    assert "| two apps | 200 | 0 | 11.5 | 8.1 | 16.0 | 15.9 | 9.0 | 9.0 |" in md
    assert "| broken | skipped: replica 0 did not start |" in md
    assert (tmp_path / "fleet.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert table([]).count("\n") == 1


def test_fleet_command_refuses_zero_students(capsys) -> None:
    assert main(["bench", "--fleet", "--students", "0"]) == 2
    assert "--students must be at least 1" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["ollama", "openai"])
def test_a_small_fleet_answers_every_student_through_the_real_app(tmp_path: Path, backend: str) -> None:
    """The whole path: app child, fake host child, students reading /ask's event stream to the end."""
    from quest.bench import fleet

    scenario = Scenario("tiny", 1, 1, 2, 3, backend=backend, tokens=5, rate=100.0)
    results = fleet.run(tmp_path, scenarios=[scenario], progress=lambda message: None)
    (row,) = results["scenarios"]
    assert (row["students"], row["answered"], row["errors"], row["error_samples"]) == (3, 3, 0, [])
