"""Uncompressed .npz archives whose arrays start at 64-byte boundaries of the file (issue 14).

`store.map_npz` maps each array where it lies inside the archive. `np.savez` starts a member's data
right after its zip header, so an int32 array usually starts at an offset that is not a multiple of 4:
numpy then copies the whole array before any `searchsorted` on it (a 700k-entry posting list, ~0.3 ms
and every page of the list, for a few binary searches: docs/bench/scale-1m-blockmax). Here each member's
local header carries an extra field of zero padding (the id zipalign uses, 0xD935: two bytes of
alignment, then zeros) sized so that the member's data, and with it the .npy data after numpy's
64-byte-padded header, start at a multiple of ALIGN. Any zip or .npz reader reads these files as
before; an archive written by `np.savez` (an index written before this) still loads, unaligned.

Members are dated 1980-01-01 (the zip epoch) rather than now: the same arrays give the same bytes, so a
streamed compaction and the in-memory path write identical files.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np

ALIGN = 64
_PADDING_ID = 0xD935
_LOCAL_HEADER = 30  # the fixed part of a zip local file header
_ZIP64_EXTRA = 20  # the zip64 extra field zipfile adds to a local header written with force_zip64
_EPOCH = (1980, 1, 1, 0, 0, 0)


class Archive:
    """An uncompressed .npz written member by member, every array aligned to ALIGN bytes in the file."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.zip = zipfile.ZipFile(fh, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True)

    def _member(self, name: str):
        info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
        info.compress_type = zipfile.ZIP_STORED
        start = self.fh.tell() + _LOCAL_HEADER + len(info.filename.encode("utf-8")) + _ZIP64_EXTRA
        pad = -start % ALIGN
        if 0 < pad < 6:  # an extra field is at least 4 bytes of header and 2 of alignment
            pad += ALIGN
        if pad:
            info.extra = struct.pack("<HHH", _PADDING_ID, pad - 4, ALIGN) + bytes(pad - 6)
        return self.zip.open(info, "w", force_zip64=True)

    def array(self, name: str, values: np.ndarray) -> None:
        with self._member(name) as member:
            np.lib.format.write_array(member, np.asanyarray(values), allow_pickle=False)

    @contextmanager
    def stream(self, name: str, dtype: np.dtype, count: int) -> Iterator[Callable[[np.ndarray], None]]:
        """A 1-d array of `count` values, written in the blocks passed to the yielded function."""
        dtype = np.dtype(dtype)
        header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": (int(count),)}
        written = 0
        with self._member(name) as member:
            np.lib.format.write_array_header_1_0(member, header)

            def write(block: np.ndarray) -> None:
                nonlocal written
                block = np.ascontiguousarray(block, dtype=dtype)
                member.write(memoryview(block).cast("B"))
                written += block.size

            yield write
        if written != count:
            raise RuntimeError(f"{name}: wrote {written} values, expected {count}")

    def close(self) -> None:
        self.zip.close()


def writer(fill: Callable[[Archive], None]) -> Callable[[Path], None]:
    """A function writing a new archive at a path, its members added by `fill`."""
    def write(path: Path) -> None:
        with path.open("wb") as fh:
            archive = Archive(fh)
            try:
                fill(archive)
            finally:
                archive.close()
    return write


def save(path: Path, **arrays: np.ndarray) -> None:
    """`np.savez(path, **arrays)` with every array aligned (and the same members, in the same order)."""
    def fill(archive: Archive) -> None:
        for name, values in arrays.items():
            archive.array(name, values)
    writer(fill)(path)
