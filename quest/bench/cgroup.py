"""Run a command in its own memory cgroup, capped with page cache included (issue 14's memory budget).

A memory cgroup charges a process for its heap *and* for the file pages it reads (page cache,
including the pages of memory-mapped files). Under the cap the kernel reclaims clean file pages
first and kills the process only when what it cannot drop (heap) no longer fits: so "the query
phase runs in a cgroup capped at N bytes" is a real test of working within a memory budget,
where counting every mapped page a process ever touched is not.

The child group is created under this process's own memory cgroup (the delegation model: a
process manages only its own subtree), on cgroup v1 (memory.limit_in_bytes, max_usage_in_bytes,
failcnt, oom_control) or v2 (memory.max, memory.peak, memory.events). Where neither can be
written, `run_capped` reports "not measured" with the reason instead of failing.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quest.retrieval.memory import read_ascii

#: Counters copied from memory.stat as evidence of reclaim and re-reads (those the kernel has).
V1_COUNTERS = ("pgmajfault", "pgfault", "pgpgin", "pgpgout", "workingset_refault_file")
V2_COUNTERS = ("pgmajfault", "pgfault", "pgscan", "pgsteal", "workingset_refault_file")
JOIN_FAILED = 97  # the wrapper's exit code when it cannot enter the group

# Runs in the child: enter the group first, then become the command, so everything the command
# allocates or reads is charged to the group (charges made before joining stay with the parent).
_JOIN_THEN_EXEC = """
import os, sys
try:
    with open(sys.argv[1], "w") as fh:
        fh.write(str(os.getpid()))
except OSError as exc:
    print(f"cannot enter the cgroup: {exc}", file=sys.stderr)
    sys.exit(97)
os.execvp(sys.argv[2], sys.argv[2:])
"""
_serial = itertools.count()


@dataclass(frozen=True)
class Hierarchy:
    """Where child memory groups go: this process's own memory cgroup, on cgroup v1 or v2."""

    version: int
    parent: Path


@dataclass
class CappedRun:
    """What `run_capped` measured (`report`, JSON-ready) and what the command printed."""

    report: dict[str, Any]
    stdout: str = ""
    stderr: str = ""

    @property
    def measured(self) -> bool:
        return bool(self.report.get("measured"))


# --------------------------------------------------------------------------- finding the hierarchy


def locate(mountinfo: str, proc_cgroup: str) -> Hierarchy | str:
    """This process's memory cgroup directory from /proc/self/{mountinfo,cgroup}; a reason if none."""
    mounts = [line.split() for line in mountinfo.splitlines() if " - cgroup" in line]
    groups = {}
    for line in proc_cgroup.splitlines():
        hid, controllers, path = [*line.split(":", 2), "", ""][:3]
        groups[(hid, controllers)] = path
    for fields in mounts:
        sep = fields.index("-")
        fstype, options = fields[sep + 1], fields[sep + 3].split(",")
        if fstype == "cgroup" and "memory" in options:
            path = next((p for (hid, ctl), p in groups.items() if hid != "0" and "memory" in ctl.split(",")), None)
            if path is not None:
                return Hierarchy(1, _inside(Path(fields[4]), fields[3], path))
    for fields in mounts:
        sep = fields.index("-")
        if fields[sep + 1] == "cgroup2" and ("0", "") in groups:
            parent = _inside(Path(fields[4]), fields[3], groups[("0", "")])
            controllers = read_ascii(parent / "cgroup.controllers") or ""
            if "memory" in controllers.split():
                return Hierarchy(2, parent)
            return f"cgroup v2 at {parent} has no memory controller (cgroup.controllers: {controllers.strip()!r})"
    return "no memory cgroup is mounted (neither a cgroup v1 memory hierarchy nor cgroup v2 with memory)"


def _inside(mountpoint: Path, mount_root: str, group: str) -> Path:
    """The directory of `group` (a path in the hierarchy) under a mount of the hierarchy's `mount_root`."""
    relative = os.path.relpath(group, mount_root) if group.startswith(mount_root) else group.lstrip("/")
    return mountpoint if relative in (".", "") else mountpoint / relative


def find_hierarchy(proc: Path = Path("/proc/self")) -> Hierarchy | str:
    mountinfo, cgroups = read_ascii(proc / "mountinfo"), read_ascii(proc / "cgroup")
    if mountinfo is None or cgroups is None:
        return f"cannot read {proc}/mountinfo and {proc}/cgroup (not Linux?)"
    return locate(mountinfo, cgroups)


# --------------------------------------------------------------------------- one group


def _read_int(path: Path) -> int | None:
    text = read_ascii(path)
    try:
        return int(text.split()[0]) if text else None
    except ValueError:
        return None


def parse_flat_keyed(text: str | None) -> dict[str, int]:
    """memory.stat / memory.events / oom_control lines 'key value' -> {key: value}."""
    out = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            out[parts[0]] = int(parts[1])
    return out


def usage_parts(version: int, stat: Mapping[str, int]) -> tuple[int, int]:
    """(anonymous, page cache) bytes charged to a group, from its memory.stat."""
    if version == 1:
        return stat.get("total_rss", stat.get("rss", 0)), stat.get("total_cache", stat.get("cache", 0))
    return stat.get("anon", 0), stat.get("file", 0)


def create_group(hierarchy: Hierarchy, limit_bytes: int | None) -> Path:
    """A new child group with the limit written (None: no limit). Raises OSError when not allowed."""
    group = hierarchy.parent / f"quest-bench-{os.getpid()}-{next(_serial)}"
    group.mkdir()
    try:
        if hierarchy.version == 2 and not (group / "memory.max").exists():
            # The parent must hand the memory controller to its children (fails if it has processes).
            (hierarchy.parent / "cgroup.subtree_control").write_text("+memory", encoding="ascii")
        if limit_bytes is not None:
            name = "memory.limit_in_bytes" if hierarchy.version == 1 else "memory.max"
            (group / name).write_text(str(int(limit_bytes)), encoding="ascii")
    except OSError:
        remove_group(group)
        raise
    return group


def remove_group(group: Path) -> None:
    """rmdir the group once its process is gone (the kernel may need a moment to notice)."""
    for _ in range(50):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return
            time.sleep(0.02)


class _Sampler:
    """Peaks of anonymous and page-cache charge, sampled from memory.stat while the command runs."""

    def __init__(self, group: Path, version: int, every: float) -> None:
        self.group, self.version, self.every = group, version, every
        self.peak_anon = self.peak_cache = self.peak_sum = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> None:
        anon, cache = usage_parts(self.version, parse_flat_keyed(read_ascii(self.group / "memory.stat")))
        self.peak_anon, self.peak_cache = max(self.peak_anon, anon), max(self.peak_cache, cache)
        self.peak_sum = max(self.peak_sum, anon + cache)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def group_report(group: Path, version: int, sampler: _Sampler) -> dict[str, Any]:
    """Peak, end state, limit hits, OOM kills and reclaim counters of a finished group."""
    stat = parse_flat_keyed(read_ascii(group / "memory.stat"))
    anon, cache = usage_parts(version, stat)
    if version == 1:
        peak = _read_int(group / "memory.max_usage_in_bytes")
        oom = parse_flat_keyed(read_ascii(group / "memory.oom_control")).get("oom_kill")
        hits = _read_int(group / "memory.failcnt")
        counters = {k: stat.get("total_" + k, stat[k]) for k in V1_COUNTERS if k in stat}
    else:
        events = parse_flat_keyed(read_ascii(group / "memory.events"))
        peak, oom, hits = _read_int(group / "memory.peak"), events.get("oom_kill"), events.get("max")
        counters = {k: stat[k] for k in V2_COUNTERS if k in stat}
    return {"peak_bytes": peak if peak is not None else sampler.peak_sum,
            "peak_from": "kernel" if peak is not None else "sampled",
            "peak_anon_bytes": sampler.peak_anon, "peak_cache_bytes": sampler.peak_cache,
            "end_anon_bytes": anon, "end_cache_bytes": cache, "limit_hits": hits, "oom_kills": oom,
            "counters": counters}


# --------------------------------------------------------------------------- running a command


@dataclass
class _Outcome:
    returncode: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def _run_joined(group: Path, cmd: Sequence[str], env: Mapping[str, str] | None, timeout: float) -> _Outcome:
    wrapper = [sys.executable, "-c", _JOIN_THEN_EXEC, str(group / "cgroup.procs"), *cmd]
    started = time.perf_counter()
    proc = subprocess.Popen(wrapper, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(env) if env is not None else None)
    try:
        out, err = proc.communicate(timeout=timeout)
        return _Outcome(proc.returncode, out, err, seconds=time.perf_counter() - started)
    except subprocess.TimeoutExpired:
        proc.kill()  # our own child, by its pid
        out, err = proc.communicate()
        return _Outcome(proc.returncode, out, err, timed_out=True, seconds=time.perf_counter() - started)


def run_capped(cmd: Sequence[str], limit_bytes: int | None, *, env: Mapping[str, str] | None = None,
               timeout: float = 1800, hierarchy: Hierarchy | str | None = None,
               sample_every: float = 0.05) -> CappedRun:
    """Run `cmd` in a new memory cgroup capped at `limit_bytes` (page cache included; None: no cap).

    The report says whether it was measured (else why not), the limit, the peak charge (kernel's
    and sampled anon / cache peaks), limit hits, OOM kills, fault and reclaim counters, and how
    the command ended.
    """
    hierarchy = find_hierarchy() if hierarchy is None else hierarchy
    if isinstance(hierarchy, str):
        return CappedRun({"measured": False, "reason": hierarchy, "limit_bytes": limit_bytes})
    try:
        group = create_group(hierarchy, limit_bytes)
    except OSError as exc:
        reason = f"cannot create a memory cgroup under {hierarchy.parent} (cgroup v{hierarchy.version}): {exc}"
        return CappedRun({"measured": False, "reason": reason, "limit_bytes": limit_bytes})
    try:
        with _Sampler(group, hierarchy.version, sample_every) as sampler:
            done = _run_joined(group, cmd, env, timeout)
        sampler.sample()
        stats = group_report(group, hierarchy.version, sampler)
    finally:
        remove_group(group)
    if done.returncode == JOIN_FAILED and "cannot enter the cgroup" in done.stderr:
        return CappedRun({"measured": False, "reason": done.stderr.strip().splitlines()[-1],
                          "limit_bytes": limit_bytes}, done.stdout, done.stderr)
    oom_killed = (stats["oom_kills"] or 0) > 0 or (stats["oom_kills"] is None and done.returncode == -9)
    report = {"measured": True, "cgroup": f"v{hierarchy.version}", "limit_bytes": limit_bytes,
              "returncode": done.returncode, "oom_killed": oom_killed, "timed_out": done.timed_out,
              "seconds": round(done.seconds, 2), **stats}
    return CappedRun(report, done.stdout, done.stderr)


# --------------------------------------------------------------------------- page cache


def evict_from_page_cache(paths: Iterable[Path]) -> dict[str, Any]:
    """Write back and drop the files' cached pages, so the next reader is charged for them.

    A page stays charged to the group that first read it; without this, pages the bench itself
    just wrote or read would be free for the capped process. Pages mapped by a live process stay.
    """
    files = size = 0
    errors = []
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as exc:
            errors.append(f"{path.name}: {exc.strerror}")
            continue
        try:
            os.fdatasync(fd)  # dirty pages cannot be dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            files, size = files + 1, size + os.fstat(fd).st_size
        except OSError as exc:
            errors.append(f"{path.name}: {exc.strerror}")
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)
    return {"files": files, "bytes": size, "errors": errors}
