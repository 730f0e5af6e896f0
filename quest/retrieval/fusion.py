"""Reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009).

    fused(d) = sum over lists L containing d of 1 / (k + rank_L(d)),   ranks starting at 1

k = 60 is the paper's constant: it damps the head of each list so that one list's first place
cannot outvote agreement between lists, and it needs no score calibration between BM25 and
cosine similarity, which live on different scales.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def reciprocal_rank_fusion(ranked_lists: Mapping[str, Sequence[K]] | Sequence[Sequence[K]],
                           k: int = RRF_K) -> list[tuple[K, float]]:
    """Fuse ranked lists of ids into one list of (id, fused score), best first.

    Pure and deterministic: an id repeated within one list counts at its first rank only;
    ties are broken by the id itself, so the order of the input lists never matters.
    """
    lists = ranked_lists.values() if isinstance(ranked_lists, Mapping) else ranked_lists
    contributions: dict[K, list[float]] = {}
    for ranking in lists:
        seen: set[K] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            contributions.setdefault(item, []).append(1.0 / (k + rank))
    # fsum is exactly rounded, so the sum does not depend on the order of the lists either.
    fused = [(item, math.fsum(parts)) for item, parts in contributions.items()]
    return ties_last(fused, lambda pair: -pair[1], lambda pair: _tie_key(pair[0]))


T = TypeVar("T")


def ties_last(items: Sequence[T], key: Callable[[T], object], tie: Callable[[T], object]) -> list[T]:
    """`sorted(items, key=lambda x: (key(x), tie(x)))`, with `tie` computed only for items whose `key` equals
    another's: a tie key (a document id, a string) costs far more than a score, and most scores are distinct."""
    keyed = sorted(((key(item), n) for n, item in enumerate(items)), key=lambda pair: pair[0])
    out: list[T] = []
    i = 0
    while i < len(keyed):
        j = i + 1
        while j < len(keyed) and keyed[j][0] == keyed[i][0]:
            j += 1
        if j - i == 1:
            out.append(items[keyed[i][1]])
        else:  # a stable sort of the tied run by `tie` keeps their order among equal `tie`s, as one sort would
            out.extend(sorted((items[n] for _, n in keyed[i:j]), key=tie))
        i = j
    return out


def _tie_key(item: Hashable) -> tuple[str, str]:
    return (type(item).__name__, str(item))


def document_rank_fusion(ranked_lists: Mapping[str, Sequence[K]] | Sequence[Sequence[K]],
                         document_of: Callable[[K], str], k: int = RRF_K) -> dict[str, float]:
    """RRF over documents: each list votes once per document, at the document's rank among documents.

    A list of chunks ranks documents: when one document's chunks fill its head, the document gets that
    list's first vote once (not one vote per chunk), and the next document is second in that list, not
    seventh. Returns each document's fused score (exactly rounded, independent of the lists' order).
    """
    lists = ranked_lists.values() if isinstance(ranked_lists, Mapping) else ranked_lists
    contributions: dict[str, list[float]] = {}
    for ranking in lists:
        seen: set[str] = set()
        for item in ranking:
            doc = document_of(item)
            if doc in seen:
                continue
            seen.add(doc)
            contributions.setdefault(doc, []).append(1.0 / (k + len(seen)))
    return {doc: math.fsum(parts) for doc, parts in contributions.items()}
