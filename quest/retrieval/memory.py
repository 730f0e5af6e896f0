"""How much memory this process may use, for the dense search's choice to give searched rows' pages back.

The least of the machine's RAM (/proc/meminfo) and the memory limits of the process's cgroup and of that cgroup's
ancestors (v2 `memory.max`, v1 `memory.limit_in_bytes`): a container, a systemd unit or the bench's capped run sets
one. Read once per process; None where nothing can be read (not Linux).
"""

from __future__ import annotations

import functools
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


@functools.cache
def usable_memory() -> int | None:
    """The bytes of memory this process may use (see the module's doc), or None where unknown."""
    return memory_limit(Path("/proc/self/cgroup"), Path("/proc/meminfo"), CGROUP_ROOT)


def memory_limit(proc_cgroup: Path, meminfo: Path, root: Path) -> int | None:
    """`usable_memory` from these files: /proc/self/cgroup, /proc/meminfo and the cgroup mount point."""
    limits = [*_cgroup_limits(read_ascii(proc_cgroup) or "", root)]
    for line in (read_ascii(meminfo) or "").splitlines():
        if line.startswith("MemTotal:"):
            limits.append(int(line.split()[1]) * 1024)
    return min(limits) if limits else None


def _cgroup_limits(proc_cgroup: str, root: Path) -> list[int]:
    """Every memory limit set on the process's cgroup or an ancestor (`max` and v1's huge 'no limit' included: the
    least of them, with the RAM, is what binds)."""
    found = []
    for line in proc_cgroup.splitlines():
        hierarchy, controllers, path = [*line.split(":", 2), "", ""][:3]
        if hierarchy == "0" and not controllers:  # v2, the unified hierarchy
            mount, name = root, "memory.max"
        elif "memory" in controllers.split(","):  # v1's memory hierarchy
            mount, name = root / "memory", "memory.limit_in_bytes"
        else:
            continue
        group = mount / path.strip().lstrip("/")
        for folder in (group, *group.parents):
            value = (read_ascii(folder / name) or "").strip()
            if value.isdigit():
                found.append(int(value))
            if folder == mount:
                break
    return found


def read_ascii(path: Path) -> str | None:
    """A small kernel file's text (/proc, /sys), or None where it cannot be read."""
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
