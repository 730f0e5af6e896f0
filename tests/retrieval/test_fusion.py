from itertools import permutations

from hypothesis import given
from hypothesis import strategies as st

from quest.retrieval.fusion import RRF_K, reciprocal_rank_fusion, ties_last


def test_scores_follow_the_formula_with_k_60():
    fused = dict(reciprocal_rank_fusion({"bm25": ["a", "b"], "dense": ["b", "c"]}))
    assert RRF_K == 60
    assert fused["a"] == 1 / 61
    assert fused["b"] == 1 / 62 + 1 / 61
    assert fused["c"] == 1 / 62


def test_agreement_between_lists_beats_one_first_place():
    fused = reciprocal_rank_fusion([["x", "y"], ["z", "y"]])
    assert next(item for item, _ in fused) == "y"


def test_one_list_keeps_its_order():
    ranking = ["d", "a", "c", "b", "e"]
    assert [item for item, _ in reciprocal_rank_fusion([ranking])] == ranking


def test_no_duplicates_even_when_a_list_repeats_an_item():
    fused = reciprocal_rank_fusion([["a", "b", "a"], ["b", "c"]])
    items = [item for item, _ in fused]
    assert sorted(items) == ["a", "b", "c"]
    assert dict(fused)["a"] == 1 / 61  # counted at its first rank only


def test_order_of_input_lists_does_not_matter():
    lists = [["a", "b", "c"], ["c", "d"], ["d", "a", "e"]]
    results = {tuple(reciprocal_rank_fusion(list(p))) for p in permutations(lists)}
    assert len(results) == 1


def test_ties_are_broken_by_id_deterministically():
    fused = reciprocal_rank_fusion([["b"], ["a"]])
    assert fused == [("a", 1 / 61), ("b", 1 / 61)]


def test_empty_input():
    assert reciprocal_rank_fusion([]) == []
    assert reciprocal_rank_fusion({"bm25": []}) == []


@given(items=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3), st.text(max_size=2)), max_size=40))
def test_ties_last_sorts_as_one_sort_on_both_keys(items):
    """The tie key is computed only inside runs of equal keys, and the order is the one sort's, stability included
    (items equal on both keys keep their input order)."""
    asked = []

    def tie(item):
        asked.append(item)
        return item[1]

    expected = sorted(items, key=lambda item: (-item[0], item[1]))
    assert ties_last(items, lambda item: -item[0], tie) == expected
    assert all(sum(other[0] == item[0] for other in items) > 1 for item in asked)
