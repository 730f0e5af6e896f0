"""This round's before/after retrievers, for paired runs in one process (paired.py, hits.py).

`before` is the code as round 14 left it: the general documents' sparse lists scored on their own (scores_for) and
the whole base's by its own kernel pass. `after` is the library's Retriever as it stands.
"""

from quest.retrieval.retriever import Retriever


class Before(Retriever):
    """The general documents' sparse lists from their own postings, not from the whole-base pass."""

    def _sparse_top(self, q, signal, model, query, rows, k, whole=None):
        return super()._sparse_top(q, signal, model, query, rows, k)


VARIANTS = {"before": Before, "after": Retriever}
