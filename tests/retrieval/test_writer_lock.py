"""`python -m quest.retrieval.bounds` takes the index writers' lock: while an update or compaction
writes the folder, it waits, then reads the manifest that writer left.

Ordering, not timing: the waiting side says so (an INFO line, logged just before it blocks), and only
after that line does the side holding the lock let go.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from quest.kb.markdown import load_knowledge_base
from quest.retrieval import bounds, compaction, store
from quest.retrieval.index import compact_and_save, index_dir_for, load_index, open_index
from tests.fakes.embedder import HashingEmbedder
from tests.retrieval.test_segments import edit_kb

WAIT = 60.0  # generous: a deadlock breaker, never a measured time
ROOT = Path(__file__).resolve().parents[2]
WAITING = "waiting for another writer of the index in "

_HOLD_THE_LOCK = """
import sys
from pathlib import Path
from quest.retrieval import store
with store.writer_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()  # until the test says go
"""


def _index_without_bounds(settings, kb_dir) -> Path:
    """A saved index as written before the bounds files (no file, no manifest entry)."""
    embedder = HashingEmbedder(lexical=True)
    open_index(load_knowledge_base(kb_dir), settings, embedder)
    edit_kb(kb_dir)
    open_index(load_knowledge_base(kb_dir), settings, embedder)  # a delta: two segments
    folder = index_dir_for(settings, embedder.name)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for seg in manifest["segments"]:
        seg["files"].pop(bounds.file_name(seg["name"]))
        (folder / bounds.file_name(seg["name"])).unlink()
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert [s.bounds for s in load_index(folder).segments] == [None, None]
    return folder


def test_the_bounds_command_waits_for_a_writer_in_another_process(settings, kb_dir):
    folder = _index_without_bounds(settings, kb_dir)
    before = (folder / "manifest.json").read_bytes()
    rows = [s["rows"] for s in json.loads(before)["segments"]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_THE_LOCK, str(folder)], cwd=ROOT, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip
    adder = None
    try:
        assert holder.stdout.readline() == "held\n"
        adder = subprocess.Popen([sys.executable, "-m", "quest.retrieval.bounds", str(folder)], cwd=ROOT, env=env,
                                 text=True, stderr=subprocess.PIPE)  # fmt: skip
        # Its first word about the index (imports may log their own lines first): it waits, it does not write.
        line = adder.stderr.readline()
        while line and not line.startswith((WAITING, "writing ")):
            line = adder.stderr.readline()
        assert line == f"{WAITING}{folder} (an update, compaction or bounds run)\n"
        assert (folder / "manifest.json").read_bytes() == before  # blocked: nothing written while the lock is held
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.wait(WAIT) == 0
        _out, rest = adder.communicate(timeout=WAIT)
        assert adder.returncode == 0, rest
    finally:
        for process in (holder, adder):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(WAIT)
    assert rest.splitlines() == [f"writing s000001.bounds.npz ({rows[0]} rows)",
                                 f"writing s000002.bounds.npz ({rows[1]} rows)",
                                 "written: ['s000001.bounds.npz', 's000002.bounds.npz']"]  # fmt: skip
    assert all(s.bounds is not None for s in load_index(folder, verify=True).segments)


class _Recorder(logging.Handler):
    """Appends "bounds waits" to `steps` when the waiting line is logged, and wakes whoever waits for it."""

    def __init__(self, steps: list[str], moved: threading.Event) -> None:
        super().__init__(logging.INFO)
        self.steps, self.moved = steps, moved

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith(WAITING):
            self.steps.append("bounds waits")
            self.moved.set()


def test_bounds_during_a_compaction_waits_then_finds_the_compacted_base(settings, kb_dir, monkeypatch, caplog):
    """The real writer takes the same lock: a compaction paused in the middle of writing its new base
    holds off the bounds run, which then reads the manifest the compaction wrote (whose base has
    bounds) instead of writing a manifest that names the segments the compaction removed."""
    folder = _index_without_bounds(settings, kb_dir)
    old = load_index(folder)
    steps: list[str] = []
    inside, bounds_moved = threading.Event(), threading.Event()
    real_write_base, real_write_atomic = compaction.write_base, store.write_atomic

    def write_base_paused(*args, **kwargs):
        steps.append("compaction writing")
        inside.set()
        assert bounds_moved.wait(WAIT), "the bounds run neither waited nor ended"
        return real_write_base(*args, **kwargs)

    def write_atomic_recorded(path, writer):
        if path.name == "manifest.json":
            steps.append(f"manifest by {threading.current_thread().name}")
        return real_write_atomic(path, writer)

    monkeypatch.setattr(compaction, "write_base", write_base_paused)
    monkeypatch.setattr(store, "write_atomic", write_atomic_recorded)
    written: list[list[str]] = []

    def add_bounds() -> None:
        try:
            assert inside.wait(WAIT)
            written.append(bounds.add_to_index(folder))
        finally:
            steps.append("bounds done")
            bounds_moved.set()

    recorder = _Recorder(steps, bounds_moved)
    logger = logging.getLogger("quest.retrieval.store")
    logger.addHandler(recorder)
    try:
        with caplog.at_level(logging.INFO, logger="quest.retrieval.store"):
            adder = threading.Thread(target=add_bounds, name="bounds")
            adder.start()
            compacted = compact_and_save(old, folder)
            adder.join(WAIT)
    finally:
        logger.removeHandler(recorder)

    assert steps == ["compaction writing", "bounds waits", "manifest by MainThread", "bounds done"]
    assert written == [[]]  # the compacted base came with its bounds: nothing left to add
    final = load_index(folder, verify=True)
    assert [s.name for s in final.segments] == [s.name for s in compacted.segments] == ["s000003"]
    assert final.segments[0].bounds is not None


def test_a_writer_holding_the_lock_may_save_inside_it(settings, kb_dir):
    """Re-entrant in the holding thread: a compaction saves its manifest under its own lock. (In a thread:
    were it not re-entrant, the nested lock would wait forever and the join would say so.)"""
    folder = _index_without_bounds(settings, kb_dir)
    compacted = []

    def save_inside_the_lock() -> None:
        with store.writer_lock(folder), store.writer_lock(folder):
            compacted.append(compact_and_save(load_index(folder), folder))

    writer = threading.Thread(target=save_inside_the_lock, daemon=True)
    writer.start()
    writer.join(WAIT)
    assert not writer.is_alive(), "the nested lock waited for its own holder"
    assert [s.name for s in load_index(folder, verify=True).segments] == [s.name for s in compacted[0].segments]


def _open_flags(path: Path) -> list[int]:
    """The access mode of every descriptor this process has open on `path` (Linux's /proc)."""
    modes = []
    for link in Path("/proc/self/fd").iterdir():
        try:
            if Path(os.readlink(link)) == path:
                flags = int((Path("/proc/self/fdinfo") / link.name).read_text().split("flags:")[1].split()[0], 8)
                modes.append(flags & os.O_ACCMODE)
        except OSError:  # a descriptor closed meanwhile
            continue
    return modes


def test_the_lock_file_is_opened_read_only(tmp_path):
    """flock needs no write access: a lock file left by another user (an operator's sudo run) must not stop
    the app's own saves, so it is opened read-only."""
    folder = tmp_path / "index"
    folder.mkdir()
    lock_file = tmp_path / f"index{store.LOCK_SUFFIX}"
    with store.writer_lock(folder):
        assert _open_flags(lock_file) == [os.O_RDONLY]
        assert _flock_would_wait(lock_file)  # and it is a real lock
    assert _open_flags(lock_file) == []  # released with its descriptor
    assert not _flock_would_wait(lock_file)


def _flock_would_wait(path: Path) -> bool:
    import fcntl

    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def test_a_lock_file_that_cannot_be_created_leaves_the_writer_unlocked_with_a_warning(tmp_path, caplog):
    """For the app, a parent folder it may not write (an index folder bind-mounted on its own); here a folder
    stands where the lock file would go, which fails the same way, since the tests run as root."""
    folder = tmp_path / "index"
    folder.mkdir()
    (tmp_path / f"index{store.LOCK_SUFFIX}").mkdir()
    entered = []
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.store"), store.writer_lock(folder):
        entered.append(True)
    assert entered == [True]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        f"cannot create the index writer lock {tmp_path / f'index{store.LOCK_SUFFIX}'}"]


class _NoLockingFileSystem:
    """`fcntl` on a mount without working locks (NFS without a lock daemon): flock fails with ENOLCK.
    Records the calls it got."""

    LOCK_EX, LOCK_NB = 2, 4

    def __init__(self) -> None:
        self.calls: list[int] = []

    def flock(self, fd: int, operation: int) -> None:
        import errno

        self.calls.append(operation)
        raise OSError(errno.ENOLCK, "No locks available")


def test_a_file_system_without_locks_saves_unlocked_with_one_warning(settings, kb_dir, monkeypatch, caplog):
    folder = _index_without_bounds(settings, kb_dir)
    no_locks = _NoLockingFileSystem()
    monkeypatch.setattr(store, "fcntl", no_locks)
    with caplog.at_level(logging.WARNING, logger="quest.retrieval.store"):
        written = bounds.add_to_index(folder)
    assert written == ["s000001.bounds.npz", "s000002.bounds.npz"]
    assert no_locks.calls == [no_locks.LOCK_EX | no_locks.LOCK_NB]
    assert [r.getMessage() for r in caplog.records] == [
        f"the file system of {folder.resolve()} cannot lock (No locks available); writing unlocked: "
        "run one writer at a time"]
    assert all(s.bounds is not None for s in load_index(folder, verify=True).segments)


def test_the_bounds_command_says_when_it_cannot_write_the_index(settings, kb_dir, monkeypatch):
    """A read-only mount or a folder the user may not write: a one-line error, not a traceback."""
    folder = _index_without_bounds(settings, kb_dir)

    def write_refused(seg, where):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(bounds, "write_for", write_refused)
    with pytest.raises(SystemExit) as stopped:
        bounds.main([str(folder)])
    assert str(stopped.value) == f"error: cannot write the index in {folder}: Permission denied"


def test_the_bounds_command_on_a_folder_without_an_index_says_so(tmp_path):
    done = subprocess.run([sys.executable, "-m", "quest.retrieval.bounds", str(tmp_path / "nowhere")], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=WAIT)
    last_line = done.stderr.strip().splitlines()[-1]
    assert (done.returncode, last_line) == (1, f"error: no saved index in {tmp_path / 'nowhere'}")
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # no lock file left behind
