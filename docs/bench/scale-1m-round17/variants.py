"""This round's before/after retrievers, for paired runs in one process (paired.py, hits.py).

`before` is the library's Retriever with main's compiled sparse loops (quest/retrieval/_sparse_numba.py at main,
3abd4b9, loaded as a module of its own by proto.main_module): the top-k merge tests `v > 0` at every position.
`after` is the library's Retriever as it stands (the gated merge). Everything else is shared.
"""

from proto import main_module

from quest.retrieval import kernels
from quest.retrieval.retriever import Retriever

_MAIN = main_module("3abd4b9")


class Before(Retriever):
    """main's sparse loops."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        assert self._kernel is not None, "numba is not installed"
        self._kernel = kernels.Kernel(_MAIN)
        kernels.warm(self._kernel, self.index)


VARIANTS = {"before": Before, "after": Retriever}
