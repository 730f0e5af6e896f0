"""The synthetic knowledge base is a pure function of (size, seed) and chunks into exactly `size` chunks."""

from collections import Counter

from quest.bench.corpus import edited, generate, make_queries, n_problems_for
from quest.kb.markdown import chunk_documents


def test_same_size_and_seed_give_the_same_documents_and_queries():
    a, b = generate(300), generate(300)
    assert a.kb.documents == b.kb.documents
    assert a.kb.problems == b.kb.problems
    assert make_queries(a, 25) == make_queries(b, 25)


def test_another_seed_gives_another_base():
    assert generate(300).kb.documents != generate(300, seed=1).kb.documents


def test_exactly_the_requested_number_of_chunks_of_realistic_length():
    for n in (1, 57, 400):
        chunks = chunk_documents(generate(n).kb.documents, 1200)
        assert len(chunks) == n
    lengths = sorted(len(c.text) for c in chunks)
    assert 150 <= lengths[len(lengths) // 2] <= 900
    assert lengths[-1] <= 1200


def test_mixed_languages_kinds_and_a_few_hundred_problems():
    kb = generate(2000).kb
    langs = Counter(d.lang for d in kb.documents)
    kinds = Counter(d.kind for d in kb.documents)
    assert langs["zh"] > 0 and langs["en"] > 0
    assert {"official_solution", "error_pattern", "faq"} <= set(kinds)
    assert len(kb.problems) == n_problems_for(2000) == 50
    assert n_problems_for(100_000) == 400
    assert all(d.problem_id in kb.problems for d in kb.documents if d.problem_id)
    text = "".join(d.text for d in kb.documents[:50])
    assert any("\u4e00" <= ch <= "\u9fff" for ch in text) and "```" in text


def test_queries_are_student_requests_about_known_problems():
    synthetic = generate(500)
    queries = make_queries(synthetic, 40)
    assert len(queries) == 40
    assert all(q.target_problem in synthetic.kb.problems for q in queries)
    assert any(q.request.problem_id is None for q in queries)  # some do not name their problem
    assert any(q.request.tier == "hint" for q in queries)
    assert any(q.request.code for q in queries) and all(q.request.error for q in queries)


def test_an_edited_document_keeps_its_id_and_changes_its_hash():
    doc = generate(50).kb.documents[3]
    changed = edited(doc)
    assert changed.id == doc.id and changed.content_hash != doc.content_hash
    assert edited(doc) == changed
