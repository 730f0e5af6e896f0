"""The probe's questions that name no problem (issue 14): seeded counts, the problem questions kept, per-kind report."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from quest.bench import lifecycle, stages, vectors
from quest.bench.corpus import (
    NAMES_PROBLEM,
    NO_PROBLEM,
    generate,
    global_count,
    make_global_queries,
    make_queries,
    mixed_queries,
)
from quest.retrieval.index import build_index
from quest.settings import Settings


def test_the_share_is_of_all_questions_and_the_problem_questions_keep_their_number():
    assert global_count(200, 0.25) == 67  # 67 of 267 = 25.1 %
    assert global_count(40, 0.25) == 13
    assert global_count(200, 0.0) == 0
    assert global_count(30, 0.5) == 30
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match="global share"):
            global_count(10, bad)


def test_mixed_queries_are_the_old_ones_in_order_plus_seeded_no_problem_questions():
    synthetic = generate(500)
    queries, kinds = mixed_queries(synthetic, 40, 0.25)
    assert Counter(kinds) == {NAMES_PROBLEM: 40, NO_PROBLEM: 13}
    assert [q for q, k in zip(queries, kinds, strict=True) if k == NAMES_PROBLEM] == make_queries(synthetic, 40)
    unnamed = [q for q, k in zip(queries, kinds, strict=True) if k == NO_PROBLEM]
    assert unnamed == make_global_queries(synthetic, 13)
    assert mixed_queries(generate(500), 40, 0.25) == (queries, kinds)  # a pure function of size, count, share
    assert kinds[:5] != [NAMES_PROBLEM] * 5 or kinds[-5:] != [NAMES_PROBLEM] * 5  # interleaved, not appended


def test_no_problem_questions_carry_no_id_and_no_title():
    synthetic = generate(500)
    titles = [t.lower() for p in synthetic.kb.problems.values() for t in (p.title_en, p.title_zh)]
    for q in make_global_queries(synthetic, 30):
        assert q.request.problem_id is None and q.request.error
        assert q.target_problem in synthetic.kb.problems
        assert not any(t in q.request.question.lower() for t in titles)
        assert "#" not in q.request.question and "题" not in q.request.question


def test_no_share_gives_the_old_query_set():
    synthetic = generate(300)
    assert mixed_queries(synthetic, 25, 0.0) == (make_queries(synthetic, 25), [NAMES_PROBLEM] * 25)


def test_the_share_reaches_the_probe_only_when_asked():
    cmd, _ = lifecycle.probe_command(Path("/idx"), (1000, 40, 20), passes=2)
    assert cmd[-5:] == ["/idx", "1000", "40", "20", "2"]
    cmd, _ = lifecycle.probe_command(Path("/idx"), (1000, 40, 20), passes=2, global_share=0.25)
    assert cmd[-6:] == ["/idx", "1000", "40", "20", "2", "0.25"]


def test_by_kind_summarizes_each_kind_and_leaves_out_stages_a_query_did_not_run():
    rows = [{"retrieval": 10.0, "retrieval_no_embed": 9.0, "dense_problem": 1.0},
            {"retrieval": 30.0, "retrieval_no_embed": 29.0, "dense_global": 20.0},
            {"retrieval": 20.0, "retrieval_no_embed": 19.0, "dense_problem": 3.0}]
    out = stages.by_kind(rows, [NAMES_PROBLEM, NO_PROBLEM, NAMES_PROBLEM])
    assert out[NO_PROBLEM] == {"queries": 1, "retrieval": stages.summary([30.0]),
                               "retrieval_no_embed": stages.summary([29.0]),
                               "dense_global": stages.summary([20.0]), "dense_problem": {"n": 0},
                               "bm25": {"n": 0}, "lexical": {"n": 0}}
    assert out[NAMES_PROBLEM]["queries"] == 2
    assert out[NAMES_PROBLEM]["retrieval_no_embed"]["p50"] == 14.0
    assert out[NAMES_PROBLEM]["dense_global"] == {"n": 0}


def test_the_loaded_probe_reports_both_kinds_and_times_the_global_search():
    synthetic = generate(600)
    index = build_index(synthetic.kb, Settings(show_progress=False), None)
    index = vectors.shaped_index(index, vectors.problem_centres(list(synthetic.kb.problems)))
    out = lifecycle.loaded_stages(index, 600, len(synthetic.kb.problems), 20, global_share=0.25)
    assert out["queries"] == 27
    kinds = out["by_kind"]
    assert set(kinds) == {NAMES_PROBLEM, NO_PROBLEM}
    assert (kinds[NAMES_PROBLEM]["queries"], kinds[NO_PROBLEM]["queries"]) == (20, 7)
    assert kinds[NO_PROBLEM]["retrieval_no_embed"]["n"] == 7
    assert kinds[NO_PROBLEM]["dense_problem"] == {"n": 0}
    assert (kinds[NAMES_PROBLEM]["bm25"]["n"], kinds[NO_PROBLEM]["lexical"]["n"]) == (20, 7)  # every query runs both
    # All 7: an opening such as "递归写法哪里不对？" is a clause of the question, not a missing problem's title
    # (`quest.question_clauses`), so every general question searches the whole base
    assert kinds[NO_PROBLEM]["dense_global"]["n"] == 7
    assert out["stages"]["dense_global"]["n"] >= kinds[NO_PROBLEM]["dense_global"]["n"]
    assert "by_kind" not in lifecycle.loaded_stages(index, 600, len(synthetic.kb.problems), 20)


def test_the_touched_command_passes_the_share_on(monkeypatch, capsys):
    from quest.bench import touched

    calls = []

    def record(folder, queries, passes=1, global_share=0.0):
        calls.append((folder, queries, passes, global_share))
        return {}

    monkeypatch.setattr(touched, "touched", record)
    touched.main(["/idx", "1000", "40", "20", "2", "--global-share", "0.25"])
    touched.main(["/idx", "1000", "40", "20"])
    assert calls == [(Path("/idx"), (1000, 40, 20), 2, 0.25), (Path("/idx"), (1000, 40, 20), 1, 0.0)]
    assert capsys.readouterr().out.count('"load"') == 2
