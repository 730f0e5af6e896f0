"""The bench's capped query phase: its verdict, its report section and the command-line option."""

from quest.bench import capped, scale_report
from quest.cli import main

MiB = 2**20


def _stages(p95, faults):
    return {"stages": {"retrieval_no_embed": {"p50": p95 - 5, "p95": p95}}, "major_faults": faults}


def _run(p95, *, oom=False, returncode=0, limit=3072 * MiB):
    stages = {**_stages(p95, 12), "first_pass": _stages(p95 * 10, 9000)}
    probe = None if oom else {"stages": stages, "baseline": {"rss": 150 * MiB, "anon": 120 * MiB}}
    return {"measured": True, "cgroup": "v1", "limit_bytes": limit, "returncode": -9 if oom else returncode,
            "oom_killed": oom, "peak_bytes": limit if oom else 2900 * MiB, "peak_anon_bytes": 400 * MiB,
            "peak_cache_bytes": 2500 * MiB, "limit_hits": 31, "oom_kills": int(oom),
            "counters": {"pgmajfault": 120, "workingset_refault_file": 4567}, "probe": probe}


def _cap(capped_run, uncapped_p95=26.0):
    return {"limit_per_chunk": 3072, "limit_bytes": 3072 * MiB, "measured": True,
            "uncapped": _run(uncapped_p95, limit=None), "capped": capped_run}


def test_the_target_needs_a_measured_run_without_oom_within_30_ms():
    assert capped.verdict(_cap(_run(28.5))) == (
        True, "p95 28.5 ms; peak 2,900 of 3,072 MiB, 0 OOM kills, 31 limit hits")
    assert capped.verdict(_cap(_run(31.0)))[0] is False
    assert capped.verdict(_cap(_run(0, oom=True))) == (False, "OOM-killed under 3,072 MiB")
    assert capped.verdict(_cap(_run(20.0, returncode=1))) == (False, "the probe failed (exit 1)")
    assert capped.verdict({"measured": False, "reason": "no memory cgroup is mounted"}) == (
        False, "not measured: no memory cgroup is mounted")
    assert capped.verdict(None) == (False, "not run (no --memory-limit-per-chunk)")


def test_no_hierarchy_means_not_measured_with_the_reason(tmp_path):
    out = capped.measure(tmp_path, (1000, 10, 5), 3072, hierarchy="no memory cgroup is mounted")
    assert out == {"limit_per_chunk": 3072, "limit_bytes": 3_072_000, "measured": False,
                   "reason": "no memory cgroup is mounted"}


def _size(cap):
    warm = {"stages": {"stages": {"retrieval_no_embed": {"p50": 23.5, "p95": 28.0}}}}
    return {"chunks": 1_000_000, "shape": {"persistence": {"fresh_process": warm, "memory_cap": cap}}}


def test_the_report_has_the_three_runs_and_the_target_row():
    lines = scale_report.memory_cap_section([_size(_cap(_run(0, oom=True)))])
    assert lines[0] == "### The query phase in a memory budget of 3,072 bytes per chunk, page cache included"
    rows = [line for line in lines if line.startswith("| 1,000,000 |")]
    assert rows == [
        "| 1,000,000 | warm page cache (just written), no cgroup, one pass | none | exit 0 | – | – | – | – | – | – | – "
        "| 23.50 / 28.00 |",
        "| 1,000,000 | cold, no cap | none | exit 0 | 2,900 | 400 / 2,500 | 31 | 0 | 120 | 4567 "
        "| 255.00 / 260.00 (9,000) | 21.00 / 26.00 (12) |",
        "| 1,000,000 | cold, capped | 3,072 | OOM-killed | 3,072 | 400 / 2,500 | 31 | 1 | 120 | 4567 | – / – | – |",
    ]
    one_pass = _cap(_run(30.0))
    one_pass["capped"]["probe"]["stages"] = _stages(300.0, 7000)  # older results: one pass, from the cold cache
    (row,) = [line for line in scale_report.memory_cap_section([_size(one_pass)]) if "cold, capped" in line]
    assert row.endswith("| 295.00 / 300.00 (7,000) | – |")
    assert lines[-2].endswith("inside the cap: 1,000,000: 150 MiB (120 anon).")
    targets = scale_report._targets(_size(_cap(_run(27.0))))
    row = next(line for line in targets if "memory cgroup" in line)
    assert row.startswith("| the query phase runs in a memory cgroup capped at 3,072 bytes per chunk "
                          "(page cache included) with retrieval p95 <= 30 ms | p95 27.0 ms")
    assert row.endswith("| yes |")


def test_an_unmeasured_cap_is_reported_not_hidden():
    lines = scale_report.memory_cap_section([_size({"limit_per_chunk": 3072, "limit_bytes": 3072 * MiB,
                                                    "measured": False, "reason": "no memory cgroup is mounted"})])
    assert "| 1,000,000 | cold, capped | 3,072 | not measured: no memory cgroup is mounted | | | | | | | | |" in lines


def test_the_option_rejects_a_non_positive_budget(tmp_path, capsys):
    code = main(["bench", "--sizes", "100", "--out", str(tmp_path), "--memory-limit-per-chunk", "0"])
    assert code == 2
    assert "--memory-limit-per-chunk must be a positive number of bytes" in capsys.readouterr().err
