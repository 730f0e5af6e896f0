"""Which pages of a memory-mapped index file the kernel reads: the ones a search uses.

A page fault on a mapped file makes Linux read the pages around it too ("read-around"), as many
as the device's read-ahead setting allows: 8 MiB per fault on the 1M bench machine
(`/sys/block/vda/queue/read_ahead_kb` = 8192), unless the mapping is marked MADV_RANDOM. FAISS
marks its flat-file mapping so itself (`IO_FLAG_MMAP_IFC`: the smaps VmFlags say "rr"); the IVF's
mapped inverted lists (`IO_FLAG_MMAP`) are not, so a global search read ~8 MB around each of the
lists it visited. A file served to queries is therefore marked MADV_RANDOM (a fault reads only its
own page), and a search about to read a known byte range (a problem's rows, an IVF list) asks for
exactly that range with MADV_WILLNEED: one request instead of a synchronous read per 4 KB page,
which is what made a cold or evicted problem's rows slow (docs/bench/scale-1m-dense8). Bulk
readers (compaction, IVF training) ask for each block they copy the same way. Both are hints:
where madvise is missing (not Linux) or fails, only speed and the page cache's size change.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import mmap
import os
import threading

import numpy as np

log = logging.getLogger(__name__)

PAGE = mmap.PAGESIZE
MADV_NORMAL = getattr(mmap, "MADV_NORMAL", 0)
MADV_RANDOM = getattr(mmap, "MADV_RANDOM", 1)
MADV_WILLNEED = getattr(mmap, "MADV_WILLNEED", 3)
# Linux 5.4+: reclaim these pages now (a clean file page leaves the page cache unless another process maps it).
MADV_PAGEOUT = getattr(mmap, "MADV_PAGEOUT", 21)


def _libc_madvise():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    fn.restype = ctypes.c_int
    return fn


_MADVISE = _libc_madvise()
# Many ranges in one system call: process_madvise(2) on this process's own pidfd (Linux 5.10+ for MADV_WILLNEED). The
# IVF's ~270 candidates of a global search are ~270 separate pages, and one madvise each cost ~0.66 ms a question at
# 1M (docs/bench/scale-1m-round16). Where it is missing or refused (older kernels, seccomp, an unprivileged caller on
# a kernel that asks CAP_SYS_NICE even for oneself) the first failure turns it off and the loop of madvise runs.
_SYS_PROCESS_MADVISE = 440  # the same on every architecture (system calls from 424 on share one number)
_IOV_MAX = 1024


class _Batch:
    """process_madvise over this process's pidfd, opened again after a fork (the pidfd would name the parent)."""

    def __init__(self) -> None:
        self.call = None
        self.off = not hasattr(os, "pidfd_open")
        self.lock = threading.Lock()
        self.pid, self.fd = -1, -1
        if not self.off:
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                self.call = libc.syscall
            except (OSError, AttributeError):
                self.off = True

    def advise(self, starts: np.ndarray, lengths: np.ndarray, advice: int) -> bool:
        """One request per range, as few system calls as the kernel takes; False (and off from now on) on failure."""
        if self.off:
            return False
        with self.lock:
            if self.pid != os.getpid():
                if self.fd >= 0:  # a fork's copy of the parent's pidfd
                    os.close(self.fd)
                    self.fd = -1
                try:
                    self.fd, self.pid = os.pidfd_open(os.getpid()), os.getpid()
                except OSError:
                    self.off = True
                    return False
            fd = self.fd
        iov = np.empty((starts.size, 2), dtype=np.uint64)  # struct iovec {void *base; size_t len} on 64-bit
        iov[:, 0], iov[:, 1] = starts, lengths
        for a in range(0, starts.size, _IOV_MAX):
            part = iov[a:a + _IOV_MAX]
            if self.call(ctypes.c_long(_SYS_PROCESS_MADVISE), ctypes.c_int(fd), ctypes.c_void_p(part.ctypes.data),
                         ctypes.c_size_t(part.shape[0]), ctypes.c_int(advice), ctypes.c_uint(0)) < 0:
                log.debug("process_madvise(%d) failed: errno %d; madvise per range from now on", advice,
                          ctypes.get_errno())
                self.off = True
                return False
        return True


_MADVISE_MANY = _Batch() if ctypes.sizeof(ctypes.c_void_p) == 8 else None


def advise(address: int, length: int, advice: int) -> bool:
    """madvise over the whole pages covering [address, address + length); False if it was not applied."""
    if _MADVISE is None or length <= 0 or address <= 0:
        return False
    start = address - address % PAGE
    end = address + length
    if _MADVISE(ctypes.c_void_p(start), ctypes.c_size_t(end - start), ctypes.c_int(advice)) != 0:
        log.debug("madvise(%d) failed: errno %d", advice, ctypes.get_errno())
        return False
    return True


def advise_array(array: np.ndarray, advice: int) -> bool:
    """madvise over a contiguous array's bytes (a view into a mapped file)."""
    if array.size == 0 or not array.flags.c_contiguous:
        return False
    return advise(int(array.ctypes.data), int(array.nbytes), advice)


def will_need(array: np.ndarray) -> bool:
    """Read these bytes in now, in one request (the caller is about to scan them)."""
    return advise_array(array, MADV_WILLNEED)


def will_need_rows(matrix: np.ndarray, rows: np.ndarray) -> int:
    """Ask for the pages of some rows of a contiguous (mapped) matrix before a gather reads them: one MADV_WILLNEED
    per run of adjacent pages, so the reads go to the disk together instead of one synchronous fault per row.
    Returns how many requests were made."""
    if _MADVISE is None or matrix.size == 0 or not matrix.flags.c_contiguous or rows.size == 0:
        return 0
    base, width = int(matrix.ctypes.data), int(matrix.strides[0])
    starts = base + np.unique(np.asarray(rows, dtype=np.int64)) * width
    first = starts // PAGE
    last = (starts + width - 1) // PAGE
    # a new run where a row's first page lies beyond the page after the previous row's last
    breaks = np.flatnonzero(first[1:] > last[:-1] + 1) + 1
    lo = first[np.concatenate([[0], breaks])]
    hi = last[np.concatenate([breaks - 1, [first.size - 1]])] + 1
    if lo.size > 1 and _MADVISE_MANY is not None and _MADVISE_MANY.advise(lo * PAGE, (hi - lo) * PAGE, MADV_WILLNEED):
        return int(lo.size)
    for a, b in zip((lo * PAGE).tolist(), ((hi - lo) * PAGE).tolist(), strict=True):
        _MADVISE(a, b, MADV_WILLNEED)  # plain ints (argtypes convert them): ~1.3 us a call, half the wrapped ones
    return int(lo.size)


def release(array: np.ndarray) -> bool:
    """Give back the pages that lie wholly inside a mapped array's bytes: out of this process and, for a clean file
    page no other process maps, out of the page cache (MADV_PAGEOUT). Touching them again reads them again.

    Only whole pages are released (the range is rounded inwards), so a page shared with the neighbouring rows stays.
    Never call it on anonymous memory (numpy's own arrays): with swap, that would push the heap out.
    """
    if _MADVISE is None or array.size == 0 or not array.flags.c_contiguous:
        return False
    address = int(array.ctypes.data)
    start = -(-address // PAGE) * PAGE
    end = (address + int(array.nbytes)) // PAGE * PAGE
    if end <= start:
        return False
    if _MADVISE(ctypes.c_void_p(start), ctypes.c_size_t(end - start), ctypes.c_int(MADV_PAGEOUT)) != 0:
        log.debug("madvise(MADV_PAGEOUT) failed: errno %d", ctypes.get_errno())
        return False
    return True
