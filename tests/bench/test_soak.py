"""The soak benchmark's bookkeeping (the run itself is `python -m quest bench --soak`, not a test)."""

from pathlib import Path

from quest.bench.soak import EMPTY, Outcome, _schedule, _summary, write_report

PARAMS = {"students": 2, "minutes": 1, "questions": 2, "seed": 1, "workers": 4,
          "chaos": {"tokens": 4, "rate": 2, "period": 3, "first_token_timeout": 4, "total_timeout": 30,
                    "modes": {"normal": 70, "refuse": 30}}}


def test_the_schedule_is_sorted_seeded_and_complete() -> None:
    plan = _schedule(students=20, questions=3, seconds=60, seed=5)
    assert len(plan) == 60 and plan == _schedule(20, 3, 60, 5)
    assert [p[0] for p in plan] == sorted(p[0] for p in plan) and all(0 <= p[0] <= 60 for p in plan)
    assert sorted({p[1] for p in plan}) == list(range(20))


def test_the_summary_counts_errors_memory_and_feedback(tmp_path: Path) -> None:
    outcomes = [Outcome(0, "done", 1.0, 0.2, rated=True), Outcome(0, "fallback", 3.0, None, rated=True),
                Outcome(1, "error", 0.1, None, expected_error=True), Outcome(1, "", 9.0, None, error="ConnectError: x")]
    mb = 2**20
    result = _summary(outcomes, [(0.0, 100 * mb), (30.0, 104 * mb), (60.0, 112 * mb)], 1, [], 60.0, PARAMS)
    assert result["statuses"] == {"done": 1, "fallback": 1, "error": 1, "exception": 1}
    assert result["unhandled_errors"] == 1 and result["unhandled_samples"] == ["ConnectError: x"]
    assert (result["memory_start_mb"], result["memory_end_mb"], result["memory_growth_percent"]) == (100, 112, 12.0)
    assert [g["met"] for g in result["goals"]] == [False, False, False]
    assert result["goals"][2]["value"] == "1 of 2"
    assert result["latency_p50"] == 1.0  # the failed request's 9 s is not a latency
    report = write_report(result, tmp_path).read_text(encoding="utf-8")
    assert "| no lost feedback | 1 of 2 | **no** |" in report and "- `ConnectError: x`" in report


def test_an_empty_question_is_planned_now_and_then() -> None:
    assert any(p[2] is EMPTY for p in _schedule(200, 3, 600, 11))
