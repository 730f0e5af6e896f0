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
    fused = list(rrf_scores(ranked_lists, k).items())
    return ties_last(fused, lambda pair: -pair[1], lambda pair: tie_key(pair[0]))


def rrf_scores(ranked_lists: Mapping[str, Sequence[K]] | Sequence[Sequence[K]], k: int = RRF_K) -> dict[K, float]:
    """Each id's fused score, in the order the ids first appear in the lists (not ranked).

    The score is the exactly rounded sum of the id's parts (math.fsum), so it does not depend on the order of
    the lists. Most ids are in one list or two, and there fsum is not needed: one part is its own sum, and one
    IEEE addition of two parts is already the exactly rounded sum (round half to even, as fsum rounds).
    """
    lists = ranked_lists.values() if isinstance(ranked_lists, Mapping) else ranked_lists
    parts: dict[K, float | list[float]] = {}
    get = parts.get
    for ranking in lists:
        seen: set[K] = set()
        add = seen.add
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            add(item)
            value = 1.0 / (k + rank)
            kept = get(item)
            if kept is None:
                parts[item] = value
            elif kept.__class__ is float:
                parts[item] = [kept, value]
            else:
                kept.append(value)
    return {item: kept if kept.__class__ is float else (kept[0] + kept[1] if len(kept) == 2 else math.fsum(kept))
            for item, kept in parts.items()}


T = TypeVar("T")


def ties_last(items: Sequence[T], key: Callable[[T], object], tie: Callable[[T], object]) -> list[T]:
    """`sorted(items, key=lambda x: (key(x), tie(x)))`, with `tie` computed only for items whose `key` equals
    another's: a tie key (a document id, a string) costs far more than a score, and most scores are distinct."""
    return keyed_ties_last(items, [key(item) for item in items], tie)


def keyed_ties_last(items: Sequence[T], keys: Sequence[object], tie: Callable[[T], object]) -> list[T]:
    """`ties_last` with each item's key already made (`keys[i]` is `items[i]`'s): a caller that builds them in one
    comprehension saves a function call per item."""
    order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: equal keys keep their input order
    out: list[T] = []
    i, n = 0, len(order)
    while i < n:
        j = i + 1
        first = keys[order[i]]
        while j < n and keys[order[j]] == first:
            j += 1
        if j - i == 1:
            out.append(items[order[i]])
        else:  # a stable sort of the tied run by `tie` keeps their order among equal `tie`s, as one sort would
            out.extend(sorted((items[m] for m in order[i:j]), key=tie))
        i = j
    return out


def tie_key(item: Hashable) -> tuple[str, str]:
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
