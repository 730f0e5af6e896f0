"""The memory a process may use (quest/retrieval/memory.py), read from hand-written /proc and cgroup files."""

from __future__ import annotations

from pathlib import Path

import pytest

from quest.retrieval.memory import memory_limit, usable_memory

GIB = 2**30


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="ascii")
    return path


def meminfo(tmp_path: Path, kib: int) -> Path:
    return write(tmp_path / "meminfo", f"MemTotal:       {kib} kB\nMemFree:        1000 kB\n")


def test_without_a_cgroup_limit_the_machines_ram(tmp_path):
    root = tmp_path / "cgroup"
    write(root / "memory.max", "max\n")  # v2 root: no limit
    cgroup = write(tmp_path / "cgroup.txt", "0::/\n")
    assert memory_limit(cgroup, meminfo(tmp_path, 24 * 1024 * 1024), root) == 24 * GIB


def test_a_v2_limit_on_the_group_or_an_ancestor_binds(tmp_path):
    root = tmp_path / "cgroup"
    write(root / "app.slice" / "memory.max", f"{3 * GIB}\n")
    write(root / "app.slice" / "quest.service" / "memory.max", "max\n")
    cgroup = write(tmp_path / "cgroup.txt", "0::/app.slice/quest.service\n")
    assert memory_limit(cgroup, meminfo(tmp_path, 24 * 1024 * 1024), root) == 3 * GIB


def test_a_v1_memory_limit_binds_and_v1s_no_limit_does_not(tmp_path):
    root = tmp_path / "cgroup"
    group = root / "memory" / "process_api" / "abc"
    write(group / "memory.limit_in_bytes", "9223372036854771712\n")  # v1's "no limit"
    write(root / "memory" / "memory.limit_in_bytes", "9223372036854771712\n")
    cgroup = write(tmp_path / "cgroup.txt", "5:devices:/\n4:memory:/process_api/abc\n0::/\n")
    ram = meminfo(tmp_path, 16 * 1024 * 1024)
    assert memory_limit(cgroup, ram, root) == 16 * GIB
    write(group / "memory.limit_in_bytes", f"{2930 * 2**20}\n")  # the bench's 3 KB-a-chunk cap at 1M
    assert memory_limit(cgroup, ram, root) == 2930 * 2**20


def test_nothing_readable_is_unknown(tmp_path):
    assert memory_limit(tmp_path / "absent", tmp_path / "absent-too", tmp_path) is None


def test_this_process_may_use_at_most_the_machines_ram():
    ram = memory_limit(Path("/absent"), Path("/proc/meminfo"), Path("/absent"))
    if ram is None:
        pytest.skip("no /proc/meminfo (not Linux)")
    assert 0 < usable_memory() <= ram
