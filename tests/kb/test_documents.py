import dataclasses

from quest.kb.documents import Document, Problem, kind_label, normalize_problem_id


def test_content_hash_follows_everything_that_reaches_the_index_but_not_the_file_name():
    doc = Document(id="a", kind="faq", title="t", text="x", tags=("a", "b"), extra={"examples": [1]})
    same = dataclasses.replace(doc, source="moved/elsewhere.md")
    assert doc.content_hash == same.content_hash and len(doc.content_hash) == 16
    changes = [{"text": "y"}, {"title": "u"}, {"kind": "error_pattern"}, {"lang": "zh"}, {"problem_id": "1"},
               {"tags": ("ab",)}, {"verdicts": ("TLE",)}, {"languages": ("python",)}, {"extra": {"examples": [2]}}]
    hashes = {dataclasses.replace(doc, **change).content_hash for change in changes}
    assert len(hashes) == len(changes) and doc.content_hash not in hashes


def test_problem_ids_and_labels():
    assert [normalize_problem_id(x) for x in ("239", "#239", "P0239", " lc 239 ", 239, "A+B", "", None)] == [
        "239", "239", "239", "239", "239", "A+B", None, None]
    assert Problem(id="1", title_zh="两数之和", title_en="Two Sum").label == "1 · 两数之和 · Two Sum"
    assert (kind_label("error_pattern", "zh"), kind_label("faq", "en")) == ("常见错误", "FAQ")


def test_chunk_serialization_round_trips_with_every_field():
    from dataclasses import asdict, fields

    from quest.kb.documents import Chunk

    chunk = Chunk(id="p239-official#2", doc_id="p239-official", ordinal=2, section="思路", text="用 deque [1]",
                  kind="official_solution", title="滑动窗口最大值", lang="zh", problem_id="239",
                  tags=("deque", "sliding_window"), verdicts=("TLE",), languages=("python",))
    data = chunk.to_dict()
    assert set(data) == {f.name for f in fields(Chunk)}
    assert data == {**asdict(chunk), "tags": ["deque", "sliding_window"], "verdicts": ["TLE"],
                    "languages": ["python"]}
    assert Chunk.from_dict(data) == chunk
