from quest.context import build_context
from quest.kb.documents import Chunk
from quest.retrieval.types import Hit


def hit(n: int, kind: str, text: str, score: float = 0.8314, title: str = "滑动窗口最大值", pid: str | None = "239"):
    chunk = Chunk(id=f"d{n}#0", doc_id=f"d{n}", ordinal=0, section="", text=text, kind=kind, title=title,
                  lang="zh", problem_id=pid)
    return Hit(chunk=chunk, score=score)


def test_blocks_are_labelled_and_numbered_in_the_students_language():
    hits = [hit(1, "official_solution", "用单调队列。"), hit(2, "error_pattern", "pop(0) 是 O(k)。", 0.5),
            hit(3, "faq", "TLE means...", 0.41, "TLE", None), hit(4, "user_explanation", "heap", 0.4)]
    zh = build_context(hits, lang="zh")
    assert zh.text.split("\n\n")[0] == "[1] 官方题解 | 相似度 0.83 | 滑动窗口最大值 (题目 239)\n用单调队列。"
    assert [s.label for s in zh.sources] == ["官方题解", "常见错误", "常见问题", "用户讲解"]
    en = build_context(hits, lang="en")
    assert en.text.split("\n\n")[1] == "[2] Common error | score 0.50 | 滑动窗口最大值 (problem 239)\npop(0) 是 O(k)。"
    assert en.text.split("\n\n")[2].startswith("[3] FAQ | score 0.41 | TLE\n")
    assert [s.number for s in en.sources] == [1, 2, 3, 4]
    assert en.numbers() == {1, 2, 3, 4}


def test_total_length_is_capped_and_a_long_block_is_cut_not_dropped():
    hits = [hit(1, "official_solution", "a" * 500), hit(2, "error_pattern", "b" * 5000), hit(3, "faq", "c" * 100)]
    context = build_context(hits, lang="en", max_chars=1500)
    assert len(context.text) <= 1500
    assert [s.number for s in context.sources] == [1, 2]
    assert context.sources[1].truncated and context.sources[1].text.endswith("... (truncated)")
    assert not context.sources[0].truncated and context.sources[0].text == "a" * 500


def test_without_last_drops_the_lowest_ranked_block_and_keeps_numbers():
    context = build_context([hit(1, "faq", "x"), hit(2, "faq", "y")], lang="en")
    smaller = context.without_last()
    assert [s.number for s in smaller.sources] == [1]
    assert smaller.text == context.text.split("\n\n")[0]


def test_no_hits_no_context():
    context = build_context([], lang="zh")
    assert context.sources == () and context.text == ""
