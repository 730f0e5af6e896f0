"""This round's before/after retrievers, for paired runs in one process (paired.py).

`before` is the library's Retriever with main's compiled sparse loops and main's kernels.Kernel (both files at
main's 64c76fb, loaded as modules of their own): the heap merge tests one gate per position, the lower of the two heaps'
roots. `after` is the library's Retriever as it stands (the merge skips blocks of positions below their gate; a
block with no general document is gated by the main heap alone). Everything else is shared.
"""

import importlib.util
import subprocess
import tempfile
from pathlib import Path

from quest.retrieval.retriever import Retriever


def module_at(rev: str, path: str, name: str):
    """`path` at git revision `rev` as a module of its own (its own compiled dispatchers)."""
    text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    where = Path(tempfile.mkdtemp()) / f"{name}.py"
    where.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, where)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BASE = "64c76fb"  # main when this round began
_LOOPS = module_at(BASE, "quest/retrieval/_sparse_numba.py", "main_sparse_numba")
_KERNELS = module_at(BASE, "quest/retrieval/kernels.py", "main_kernels")


class Before(Retriever):
    """main's sparse loops and Kernel."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        assert self._kernel is not None, "numba is not installed"
        self._kernel = _KERNELS.Kernel(_LOOPS)
        _KERNELS.warm(self._kernel, self.index)


VARIANTS = {"before": Before, "after": Retriever}
