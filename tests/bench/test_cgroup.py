"""The memory-cgroup helper of the bench: finding the hierarchy, reading a group, running capped children.

The children tests take whichever branch this machine allows and assert it: where a memory cgroup
can be created (root on cgroup v1 or v2 with the controller delegated, as in CI), tiny children
allocate or read known amounts under a small cap; where it cannot, the reported reason.
"""

import sys
from pathlib import Path

from quest.bench import cgroup

MiB = 2**20
ALLOCATE = "data = b'x' * ({} * 2**20); print(len(data))"
MAP_AND_READ = """
import mmap, sys
with open(sys.argv[1], 'rb') as fh:
    view = mmap.mmap(fh.fileno(), 0, prot=mmap.PROT_READ)
    print(sum(view[i] for i in range(0, len(view), 4096)))
"""

V1_MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
"""
V1_CGROUP = "4:memory:/process_api/abc\n1:cpu:/\n0::/\n"


def test_v1_group_is_found_under_the_memory_mount():
    assert cgroup.locate(V1_MOUNTINFO, V1_CGROUP) == cgroup.Hierarchy(1, Path("/sys/fs/cgroup/memory/process_api/abc"))


def test_a_mount_of_a_subtree_strips_its_root():
    mountinfo = "35 31 0:32 /process_api /mnt/mem rw - cgroup cgroup rw,memory,nosuid\n"
    assert cgroup.locate(mountinfo, "4:memory:/process_api/abc/own\n") == cgroup.Hierarchy(1, Path("/mnt/mem/abc/own"))


def test_v2_needs_the_memory_controller(tmp_path):
    mountinfo = f"29 23 0:26 / {tmp_path} rw,nosuid - cgroup2 cgroup2 rw\n"
    own = tmp_path / "user.slice" / "me"
    own.mkdir(parents=True)
    (own / "cgroup.controllers").write_text("cpu io pids\n")
    reason = cgroup.locate(mountinfo, "0::/user.slice/me\n")
    assert reason == f"cgroup v2 at {own} has no memory controller (cgroup.controllers: 'cpu io pids')"
    (own / "cgroup.controllers").write_text("cpu io memory pids\n")
    assert cgroup.locate(mountinfo, "0::/user.slice/me\n") == cgroup.Hierarchy(2, own)


def test_no_memory_cgroup_at_all_is_a_reason():
    reason = cgroup.locate("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n", "1:cpu:/\n")
    assert reason.startswith("no memory cgroup is mounted")


def test_v1_group_files_are_read(tmp_path):
    (tmp_path / "memory.stat").write_text("cache 300\nrss 200\ntotal_cache 310\ntotal_rss 210\npgmajfault 4\n"
                                          "total_pgmajfault 5\nworkingset_refault_file 7\n")
    (tmp_path / "memory.max_usage_in_bytes").write_text("1000\n")
    (tmp_path / "memory.failcnt").write_text("12\n")
    (tmp_path / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    sampler = cgroup._Sampler(tmp_path, 1, every=1.0)
    sampler.sample()
    report = cgroup.group_report(tmp_path, 1, sampler)
    assert report == {"peak_bytes": 1000, "peak_from": "kernel", "peak_anon_bytes": 210, "peak_cache_bytes": 310,
                      "end_anon_bytes": 210, "end_cache_bytes": 310, "limit_hits": 12, "oom_kills": 1,
                      "counters": {"pgmajfault": 5, "workingset_refault_file": 7}}


def test_v2_group_files_are_read_and_a_missing_peak_is_sampled(tmp_path):
    (tmp_path / "memory.stat").write_text("anon 200\nfile 300\npgmajfault 3\npgsteal 9\n")
    (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 6\noom 1\noom_kill 1\n")
    sampler = cgroup._Sampler(tmp_path, 2, every=1.0)
    sampler.sample()
    report = cgroup.group_report(tmp_path, 2, sampler)
    assert (report["peak_bytes"], report["peak_from"]) == (500, "sampled")
    assert (report["limit_hits"], report["oom_kills"]) == (6, 1)
    assert report["counters"] == {"pgmajfault": 3, "pgsteal": 9}


def test_without_a_hierarchy_the_run_is_not_measured_and_says_why():
    run = cgroup.run_capped([sys.executable, "-c", "pass"], 64 * MiB, hierarchy="no memory cgroup is mounted")
    assert run.report == {"measured": False, "reason": "no memory cgroup is mounted", "limit_bytes": 64 * MiB}


def test_a_group_that_cannot_be_created_is_not_measured(tmp_path):
    missing = cgroup.Hierarchy(1, tmp_path / "absent")
    run = cgroup.run_capped([sys.executable, "-c", "pass"], 64 * MiB, hierarchy=missing)
    assert not run.measured
    assert run.report["reason"].startswith(f"cannot create a memory cgroup under {tmp_path / 'absent'} (cgroup v1)")


def _unavailable(run: cgroup.CappedRun, hierarchy: cgroup.Hierarchy | str) -> bool:
    """True (after checking the reason) when this machine cannot create a memory cgroup."""
    if run.measured:
        return False
    reason = run.report["reason"]
    assert reason == hierarchy if isinstance(hierarchy, str) else reason.startswith(
        ("cannot create a memory cgroup under", "cannot enter the cgroup"))
    return True


def test_a_child_within_its_cap_runs_and_its_peak_is_counted():
    hierarchy = cgroup.find_hierarchy()
    run = cgroup.run_capped([sys.executable, "-c", ALLOCATE.format(16)], 96 * MiB, hierarchy=hierarchy)
    if _unavailable(run, hierarchy):
        return
    report = run.report
    assert (report["returncode"], report["oom_killed"], report["oom_kills"]) == (0, False, 0)
    assert run.stdout.strip() == str(16 * MiB)
    assert 16 * MiB <= report["peak_bytes"] <= 96 * MiB  # the 16 MiB plus the interpreter
    assert report["limit_bytes"] == 96 * MiB and report["limit_hits"] == 0


def test_a_child_over_its_cap_is_oom_killed():
    hierarchy = cgroup.find_hierarchy()
    run = cgroup.run_capped([sys.executable, "-c", ALLOCATE.format(128)], 48 * MiB, hierarchy=hierarchy)
    if _unavailable(run, hierarchy):
        return
    report = run.report
    assert report["oom_killed"] and report["returncode"] == -9 and run.stdout == ""
    assert 40 * MiB <= report["peak_bytes"] <= 48 * MiB and report["limit_hits"] > 0


def test_page_cache_is_charged_and_reclaimed_under_the_cap_instead_of_killing(tmp_path):
    data = tmp_path / "index.bin"
    data.write_bytes(bytes(range(256)) * (64 * MiB // 256))
    hierarchy = cgroup.find_hierarchy()
    assert cgroup.evict_from_page_cache([data, tmp_path / "gone"]) == {
        "files": 1, "bytes": 64 * MiB, "errors": ["gone: No such file or directory"]}
    free = cgroup.run_capped([sys.executable, "-c", MAP_AND_READ, str(data)], None, hierarchy=hierarchy)
    if _unavailable(free, hierarchy):
        return
    expected = "0"  # every page starts with byte 0 of the 0..255 pattern
    assert free.stdout.strip() == expected
    assert free.report["peak_cache_bytes"] >= 60 * MiB  # the evicted file was read back, charged to the child
    cgroup.evict_from_page_cache([data])
    capped = cgroup.run_capped([sys.executable, "-c", MAP_AND_READ, str(data)], 32 * MiB, hierarchy=hierarchy)
    report = capped.report
    assert (report["returncode"], report["oom_killed"], capped.stdout.strip()) == (0, False, expected)
    assert report["peak_bytes"] <= 32 * MiB < 64 * MiB and report["limit_hits"] > 0
