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

import numpy as np

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
    keys = [key(item) for item in items]
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


def fused_by_strength(ordering: Mapping[str, Sequence[int]], lists: Mapping[str, Sequence[tuple[int, float]]],
                      k: int, tie: Callable[[int], object]) -> list[tuple[int, float]] | None:
    """RRF over `ordering` (lists of rows), ordered by fused score, then by strength (each row's summed score over
    each of `lists`' best, rounded to 9 places), then by `tie`, then by the row's own key (`tie_key`): the list
    `ties_last(reciprocal_rank_fusion(ordering, k), (fused, strength), tie)` gives, in numpy.

    Exactly the same numbers and order. Each part 1/(k + rank) is one IEEE division either way. `np.bincount`
    adds a row's values one after another from 0.0, in the lists' order, as the dict did: so strengths are the
    same sums, and so are fused scores of one or two parts (fsum's exactly rounded sum of two is one addition);
    three parts or more go to math.fsum as before. Equal keys keep the rows' first appearance (both sorts are
    stable), and `tie` orders only runs of equal keys. Returns None where that argument does not hold: a row that
    is not a non-negative int, a weight that is not a Python float (a numpy float32 would round its sum in
    float32), or a NaN strength (NaN keys do not order, so the order depends on how the sort meets them).
    """
    values = list(ordering.values())
    lengths = [len(ranking) for ranking in values]
    total = sum(lengths)
    if total == 0:
        return []
    flat = [row for ranking in values for row in ranking]
    if any(row.__class__ is not int or row < 0 for row in flat):
        return None
    rows = np.array(flat, dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    ranks = np.arange(1, total + 1) - np.repeat(starts, lengths)
    listed = np.repeat(np.arange(len(values)), lengths)
    _, first = np.unique(listed * (int(rows.max()) + 1) + rows, return_index=True)
    first.sort()  # a row repeated within one list counts at its first rank only
    rows, ranks = rows[first], ranks[first]
    parts = 1.0 / (k + ranks)
    unique, at, inverse = np.unique(rows, return_index=True, return_inverse=True)
    appear = np.argsort(at, kind="stable")  # the fused rows in their first appearance's order
    group = np.empty(unique.size, dtype=np.int64)
    group[appear] = np.arange(unique.size)
    of = group[inverse]
    fused = np.bincount(of, weights=parts, minlength=unique.size)
    for g in np.flatnonzero(np.bincount(of, minlength=unique.size) > 2).tolist():
        fused[g] = math.fsum(parts[of == g].tolist())
    listed_rows: list[int] = []
    weights: list[float] = []
    for ranked in lists.values():
        best = ranked[0][1] if ranked and ranked[0][1] > 0 else 0.0
        for row, score in ranked:
            weight = score / best if best else 0.0
            if weight.__class__ is not float or row.__class__ is not int:
                return None
            listed_rows.append(row)
            weights.append(weight)
    strength = np.zeros(unique.size)
    if listed_rows:
        found = np.array(listed_rows, dtype=np.int64)
        where = np.searchsorted(unique, found).clip(max=unique.size - 1)
        inside = unique[where] == found  # rows of `lists` that no fused list holds add nothing
        strength = np.bincount(group[where[inside]], weights=np.array(weights)[inside], minlength=unique.size)
    if np.isnan(strength).any():
        return None
    rounded = np.array([round(value, 9) for value in strength.tolist()])
    order = np.lexsort((-rounded, -fused))  # stable: (fused, strength) descending, equal ones by appearance
    ordered_rows = unique[appear][order].tolist()
    ordered_fused = fused[order].tolist()
    first_key, second_key = -fused[order], -rounded[order]
    breaks = np.flatnonzero((first_key[1:] != first_key[:-1]) | (second_key[1:] != second_key[:-1])) + 1
    out = list(zip(ordered_rows, ordered_fused, strict=True))
    for lo, hi in zip([0, *breaks.tolist()], [*breaks.tolist(), len(out)], strict=True):
        if hi - lo > 1:
            out[lo:hi] = sorted(out[lo:hi], key=lambda pair: (tie(pair[0]), tie_key(pair[0])))
    return out
