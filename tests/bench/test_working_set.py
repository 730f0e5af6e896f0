"""quest/bench/working_set.py: resident bytes per mapped file, read from /proc/self/smaps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from quest.bench.working_set import mapped_by_file

SMAPS = """\
55d0c0000000-55d0c0021000 r--p 00000000 fd:01 1234                       /usr/bin/python3.11
Size:                132 kB
Rss:                 128 kB
7f0000000000-7f0000100000 r--s 00000000 fd:01 777                        /idx/s000001.lexical.npz
Size:               1024 kB
Rss:                 400 kB
Pss:                 400 kB
7f0000200000-7f0000300000 r--s 00100000 fd:01 777                        /idx/s000001.lexical.npz
Size:               1024 kB
Rss:                  24 kB
7f0000400000-7f0000500000 rw-p 00000000 00:00 0
Size:               1024 kB
Rss:                1024 kB
7f0000600000-7f0000700000 r--s 00000000 fd:01 778                        /idx/s000001.bm25.npz
Size:               1024 kB
Rss:                   0 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                   8 kB
"""


def test_resident_bytes_are_summed_per_file_and_anonymous_memory_is_left_out():
    assert mapped_by_file(SMAPS) == {"python3.11": 128 * 1024, "s000001.lexical.npz": 424 * 1024,
                                     "s000001.bm25.npz": 0}
    assert mapped_by_file(SMAPS, under=Path("/idx")) == {"s000001.lexical.npz": 424 * 1024, "s000001.bm25.npz": 0}


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc/self/smaps")
def test_pages_read_through_a_memory_map_are_counted_for_that_file(tmp_path):
    path = tmp_path / "blob.npy"
    np.save(path, np.arange(4 * 2**20 // 8, dtype=np.int64))  # 4 MiB
    mapped = np.load(path, mmap_mode="r")
    before = mapped_by_file(under=tmp_path).get("blob.npy", 0)
    assert int(mapped[: 2**20 // 8].sum()) == sum(range(2**20 // 8))  # the first MiB read
    after = mapped_by_file(under=tmp_path)["blob.npy"]
    assert after - before >= 2**20 - 4096 and after <= 4 * 2**20 + 4096
    del mapped
