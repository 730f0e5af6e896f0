"""QueryBatcher: queries that arrive while the model runs go together in its next call."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from quest.retrieval.query_batch import QueryBatcher
from quest.settings import Settings


class SlowModel:
    """Records every call; the first call blocks until `release` is set, so others can queue up."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.fail_on: str | None = None

    def __call__(self, texts: list[str]) -> list[str]:
        self.calls.append(list(texts))
        self.entered.set()
        self.release.wait(10)
        if self.fail_on in texts:
            raise RuntimeError("model failed")
        return [text.upper() for text in texts]


def split(rows: list[str], start: int, stop: int) -> list[str]:
    return rows[start:stop]


def ask_in_thread(batcher: QueryBatcher, texts: list[str], out: dict[str, object]) -> threading.Thread:
    def run() -> None:
        try:
            out["result"] = batcher.encode(texts)
        except Exception as exc:
            out["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def wait_until(condition) -> None:
    done = threading.Event()
    for _ in range(1000):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError("condition never held")


def test_a_lone_query_is_one_call_of_its_own() -> None:
    model = SlowModel()
    model.release.set()
    batcher = QueryBatcher(model, split)
    assert batcher.encode(["a", "b"]) == ["A", "B"]
    assert model.calls == [["a", "b"]] and batcher.batches == 1


def test_queries_arriving_during_a_call_share_the_next_one_and_each_gets_its_rows() -> None:
    model = SlowModel()
    batcher = QueryBatcher(model, split)
    first: dict[str, object] = {}
    threads = [ask_in_thread(batcher, ["q0"], first)]
    model.entered.wait(10)  # the first call runs; these three queue up behind it
    later = [{} for _ in range(3)]
    threads += [ask_in_thread(batcher, [f"q{i}", f"r{i}"], out) for i, out in enumerate(later, 1)]
    wait_until(lambda: len(batcher._waiting) == 3)
    model.release.set()
    for thread in threads:
        thread.join(10)
    assert model.calls == [["q0"], ["q1", "r1", "q2", "r2", "q3", "r3"]]
    assert first["result"] == ["Q0"]
    assert [out["result"] for out in later] == [["Q1", "R1"], ["Q2", "R2"], ["Q3", "R3"]]


def test_a_batch_is_bounded_and_the_rest_go_in_the_following_call() -> None:
    model = SlowModel()
    batcher = QueryBatcher(model, split, max_texts=2)
    outs = [{} for _ in range(4)]
    threads = [ask_in_thread(batcher, ["a"], outs[0])]
    model.entered.wait(10)
    threads += [ask_in_thread(batcher, [text], out) for text, out in zip("bcd", outs[1:], strict=True)]
    wait_until(lambda: len(batcher._waiting) == 3)
    model.release.set()
    for thread in threads:
        thread.join(10)
    assert model.calls == [["a"], ["b", "c"], ["d"]]
    assert [out["result"] for out in outs] == [["A"], ["B"], ["C"], ["D"]]


def test_a_model_failure_reaches_every_caller_of_that_batch_and_the_next_batch_still_runs() -> None:
    model = SlowModel()
    model.fail_on = "bad"
    batcher = QueryBatcher(model, split, max_texts=2)
    outs = [{} for _ in range(4)]
    threads = [ask_in_thread(batcher, ["a"], outs[0])]
    model.entered.wait(10)
    threads += [ask_in_thread(batcher, [text], out) for text, out in zip(["bad", "c", "d"], outs[1:], strict=True)]
    wait_until(lambda: len(batcher._waiting) == 3)
    model.release.set()
    for thread in threads:
        thread.join(10)
    assert outs[0]["result"] == ["A"]
    assert [str(out.get("error")) for out in outs[1:3]] == ["model failed", "model failed"]
    assert outs[3]["result"] == ["D"]
    assert not batcher._busy and batcher._waiting == []


def test_the_embedder_batches_queries_but_keeps_its_own_errors(tiny_bge_m3: Path) -> None:
    from quest.retrieval.embedder import FlagEmbedder

    embedder = FlagEmbedder(Settings(embedding_model=str(tiny_bge_m3))).load()
    one = embedder.encode_queries(["deque popleft", "binary search"])
    assert one.dense.shape == (2, embedder.dim) and embedder._queries.batches == 1
    with pytest.raises(TypeError):
        embedder.encode_queries("one string")
    assert len(embedder.encode_queries([])) == 0
