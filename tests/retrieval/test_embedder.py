"""FlagEmbedder with the real FlagEmbedding code on a tiny bge-m3 built in the session."""

from __future__ import annotations

import hashlib
import logging
import shutil
import socket
import time
from pathlib import Path

import numpy as np
import pytest

from quest.errors import EmbeddingUnavailable
from quest.retrieval.embedder import (
    EN_INSTRUCTION,
    ZH_INSTRUCTION,
    Embedder,
    Embeddings,
    FlagEmbedder,
    is_bge_m3,
    load_embedder,
    normalize_rows,
    query_instruction,
)
from quest.settings import Settings
from tests.fakes.tiny_model import HIDDEN, build_tiny_bge_m3

TEXTS = [
    "滑动窗口最大值 为什么我的代码超时了？",
    "Binary search gives Wrong Answer when the array is empty",
    "from collections import deque\nq = deque()\nq.popleft()",
    "单调队列 时间超限",
    "IndexError: list index out of range",
]
SPECIAL_IDS = {0, 1, 2, 3}  # <s>, <pad>, </s>, <unk>: never lexical weights


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def m3(tiny_bge_m3: Path) -> FlagEmbedder:
    return FlagEmbedder(Settings(embedding_model=str(tiny_bge_m3), embedding_batch_size=4)).load()


@pytest.fixture(scope="module")
def dense(tiny_bge_dense: Path) -> FlagEmbedder:
    return FlagEmbedder(Settings(embedding_model=str(tiny_bge_dense), embedding_batch_size=4)).load()


def _token_ids(folder: Path, text: str) -> set[int]:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    return set(tokenizer(text, truncation=True, max_length=512)["input_ids"]) - SPECIAL_IDS


# --- loading -------------------------------------------------------------------------------


def test_constructor_only_stores_settings(tiny_bge_m3: Path) -> None:
    embedder = FlagEmbedder(Settings(embedding_model=str(tiny_bge_m3)))
    assert not embedder.loaded
    assert embedder.dim == 0
    assert embedder.name == str(tiny_bge_m3)
    with pytest.raises(EmbeddingUnavailable, match="not loaded"):
        embedder.encode_queries(["x"])


def test_tiny_bge_m3_loads_with_lexical_weights(m3: FlagEmbedder, tiny_bge_m3: Path) -> None:
    assert isinstance(m3, Embedder)
    assert m3.loaded
    assert m3.name == str(tiny_bge_m3)
    assert m3.dim == HIDDEN
    assert m3.has_lexical is True
    assert m3.mode == "bge-m3 (dense + lexical)"
    assert m3.instruction is None
    from FlagEmbedding import BGEM3FlagModel

    assert isinstance(m3._model, BGEM3FlagModel)
    assert m3.load() is m3  # loading twice is a no-op


def test_load_embedder_is_constructor_then_load(tiny_bge_m3: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="quest.retrieval.embedder")
    started = time.perf_counter()
    embedder = load_embedder(Settings(embedding_model=str(tiny_bge_m3)))
    assert time.perf_counter() - started < 10
    assert embedder.loaded and embedder.dim == HIDDEN
    assert embedder.load_seconds is not None and embedder.load_seconds > 0
    loaded = [r.getMessage() for r in caplog.records if "loaded from" in r.getMessage()]
    assert len(loaded) == 1
    assert str(tiny_bge_m3) in loaded[0] and "dim 32" in loaded[0] and "dense + lexical" in loaded[0]


# --- dense vectors -------------------------------------------------------------------------


def test_dense_vectors_shape_dtype_unit_norm(m3: FlagEmbedder) -> None:
    result = m3.encode_documents(TEXTS)
    assert isinstance(result, Embeddings)
    assert result.dense.shape == (len(TEXTS), HIDDEN)
    assert result.dense.dtype == np.float32
    assert len(result) == len(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(result.dense, axis=1), np.ones(len(TEXTS)), atol=1e-6)


def test_identical_text_identical_vector(m3: FlagEmbedder) -> None:
    result = m3.encode_documents([TEXTS[0], TEXTS[1], TEXTS[0]])
    np.testing.assert_array_equal(result.dense[0], result.dense[2])
    again = m3.encode_documents([TEXTS[0]])
    np.testing.assert_allclose(again.dense[0], result.dense[0], atol=1e-6)
    assert not np.allclose(result.dense[0], result.dense[1], atol=1e-3)


def test_batch_and_one_by_one_agree(m3: FlagEmbedder) -> None:
    batched = m3.encode_documents(TEXTS)  # batches of 4 and 1, padded to different lengths
    for i, text in enumerate(TEXTS):
        single = m3.encode_documents([text])
        np.testing.assert_allclose(single.dense[0], batched.dense[i], atol=1e-5)
        assert single.lexical is not None and batched.lexical is not None
        assert single.lexical[0].keys() == batched.lexical[i].keys()
        for token, weight in single.lexical[0].items():
            assert weight == pytest.approx(batched.lexical[i][token], abs=1e-5)


def test_batch_size_does_not_change_vectors(tiny_bge_m3: Path, m3: FlagEmbedder) -> None:
    other = FlagEmbedder(Settings(embedding_model=str(tiny_bge_m3), embedding_batch_size=64)).load()
    np.testing.assert_allclose(other.encode_documents(TEXTS).dense, m3.encode_documents(TEXTS).dense, atol=1e-5)


def test_bge_m3_queries_take_no_instruction(m3: FlagEmbedder) -> None:
    np.testing.assert_allclose(m3.encode_queries(TEXTS).dense, m3.encode_documents(TEXTS).dense, atol=1e-6)


def test_empty_input(m3: FlagEmbedder, dense: FlagEmbedder) -> None:
    result = m3.encode_documents([])
    assert result.dense.shape == (0, HIDDEN)
    assert result.dense.dtype == np.float32
    assert result.lexical == []
    assert m3.encode_queries([]).dense.shape == (0, HIDDEN)
    plain = dense.encode_queries([])
    assert plain.dense.shape == (0, HIDDEN) and plain.lexical is None


def test_empty_string_still_gets_a_unit_vector(m3: FlagEmbedder) -> None:
    result = m3.encode_documents(["", "   "])
    assert result.dense.shape == (2, HIDDEN)
    np.testing.assert_allclose(np.linalg.norm(result.dense, axis=1), [1.0, 1.0], atol=1e-6)


def test_one_string_is_refused(m3: FlagEmbedder) -> None:
    with pytest.raises(TypeError):
        m3.encode_queries("a single string")  # type: ignore[arg-type]


def test_long_text_is_truncated_to_the_models_positions(tiny_bge_m3: Path) -> None:
    embedder = FlagEmbedder(Settings(embedding_model=str(tiny_bge_m3), embedding_max_length=8192)).load()
    assert embedder._max_length == 512  # 514 positions - (pad id 1 + 1)
    result = embedder.encode_documents(["滑动窗口 sliding window deque " * 600])
    assert result.dense.shape == (1, HIDDEN)


# --- lexical weights -----------------------------------------------------------------------


def test_lexical_weights_are_token_ids_with_positive_weights(m3: FlagEmbedder, tiny_bge_m3: Path) -> None:
    result = m3.encode_documents(TEXTS)
    assert result.lexical is not None and len(result.lexical) == len(TEXTS)
    for text, weights in zip(TEXTS, result.lexical, strict=True):
        assert weights, text
        assert all(isinstance(k, str) and k.isdigit() for k in weights)
        assert all(type(v) is float and v > 0 for v in weights.values())
        # Every real token of the text carries a weight (the tiny sparse head is positive), nothing else.
        assert {int(k) for k in weights} == _token_ids(tiny_bge_m3, text)


def test_lexical_weights_overlap_for_shared_words(m3: FlagEmbedder) -> None:
    a, b, c = m3.encode_queries(["单调队列 超时", "单调队列 时间超限", "binary search"]).lexical or []
    assert set(a) & set(b)
    assert not set(a) & set(c)


# --- dense-only BGE models and query instructions ------------------------------------------


def test_dense_only_model(dense: FlagEmbedder, tiny_bge_dense: Path) -> None:
    assert isinstance(dense, Embedder)
    assert dense.dim == HIDDEN
    assert dense.has_lexical is False
    assert dense.mode == "dense"
    from FlagEmbedding import BGEM3FlagModel, FlagModel

    assert isinstance(dense._model, FlagModel) and not isinstance(dense._model, BGEM3FlagModel)
    result = dense.encode_documents(TEXTS)
    assert result.lexical is None
    assert result.dense.shape == (len(TEXTS), HIDDEN)
    np.testing.assert_allclose(np.linalg.norm(result.dense, axis=1), np.ones(len(TEXTS)), atol=1e-6)


def test_dense_only_model_prefixes_queries_with_its_instruction(dense: FlagEmbedder) -> None:
    assert dense.instruction == ZH_INSTRUCTION  # the folder is named bge-tiny-zh-v1.5
    query = dense.encode_queries(["单调队列 时间超限"]).dense[0]
    document = dense.encode_documents(["单调队列 时间超限"]).dense[0]
    prefixed = dense.encode_documents([ZH_INSTRUCTION + "单调队列 时间超限"]).dense[0]
    np.testing.assert_allclose(query, prefixed, atol=1e-5)
    assert not np.allclose(query, document, atol=1e-3)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("BAAI/bge-small-zh-v1.5", ZH_INSTRUCTION),
        ("BAAI/bge-base-zh-v1.5", ZH_INSTRUCTION),
        ("BAAI/bge-large-zh-v1.5", ZH_INSTRUCTION),
        ("BAAI/bge-large-zh", ZH_INSTRUCTION),
        ("/models/bge-small-zh-v1.5/", ZH_INSTRUCTION),
        ("BAAI/bge-small-en-v1.5", EN_INSTRUCTION),
        ("BAAI/bge-base-en-v1.5", EN_INSTRUCTION),
        ("bge-large-en-v1.5", EN_INSTRUCTION),
        ("BAAI/bge-m3", None),
        ("/srv/models/bge-m3", None),
        ("intfloat/multilingual-e5-small", None),
        ("/data/my-encoder", None),
    ],
)
def test_query_instruction(name: str, expected: str | None) -> None:
    assert query_instruction(name) == expected


def test_is_bge_m3(tiny_bge_m3: Path, tiny_bge_dense: Path) -> None:
    assert is_bge_m3("BAAI/bge-m3")
    assert is_bge_m3("/models/BGE-M3")
    assert is_bge_m3("/some/renamed/folder", tiny_bge_m3.parent / "missing") is False
    assert is_bge_m3(str(tiny_bge_m3).replace("bge-m3", "x"), tiny_bge_m3)  # by its sparse / colbert heads
    assert not is_bge_m3(str(tiny_bge_dense), tiny_bge_dense)
    assert not is_bge_m3("BAAI/bge-small-zh-v1.5")


def test_normalize_rows() -> None:
    out = normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float64))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]], atol=1e-7)


def test_known_bge_name_goes_through_flag_auto_model(tiny_bge_dense: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bge-small-en-v1.5"  # a name in FlagEmbedding's model mapping
    shutil.copytree(tiny_bge_dense, folder)
    embedder = FlagEmbedder(Settings(embedding_model=str(folder))).load()
    assert embedder.instruction == EN_INSTRUCTION
    assert embedder.has_lexical is False and embedder.dim == HIDDEN
    query = embedder.encode_queries(["two pointers"]).dense[0]
    np.testing.assert_allclose(query, embedder.encode_documents([EN_INSTRUCTION + "two pointers"]).dense[0], atol=1e-5)


def _fake_hub_cache(cache: Path, repo_id: str, model: Path) -> Path:
    """The layout huggingface_hub leaves behind after a download: refs/main -> snapshots/<commit>/."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit, encoding="utf-8")
    snapshot = repo / "snapshots" / commit
    shutil.copytree(model, snapshot)
    return snapshot


def test_hub_name_in_the_local_cache_loads_offline(
    tiny_bge_m3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = _fake_hub_cache(tmp_path / "hub", "quest-tests/bge-m3-tiny", tiny_bge_m3)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    embedder = load_embedder(Settings(embedding_model="quest-tests/bge-m3-tiny"))
    assert embedder.name == "quest-tests/bge-m3-tiny"  # what the index manifest records
    assert embedder.folder == snapshot
    assert embedder.has_lexical is True
    assert embedder.encode_queries(["单调队列"]).dense.shape == (1, HIDDEN)


def test_incomplete_cache_entry_counts_as_missing(
    tiny_bge_m3: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = _fake_hub_cache(tmp_path / "hub", "quest-tests/bge-m3-partial", tiny_bge_m3)
    (snapshot / "model.safetensors").unlink()  # an interrupted download
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(EmbeddingUnavailable, match="not in the local Hugging Face cache"):
        load_embedder(Settings(embedding_model="quest-tests/bge-m3-partial"))


# --- failures: fast, friendly, naming the model --------------------------------------------


def test_missing_folder_fails_fast(tmp_path: Path) -> None:
    name = str(tmp_path / "no-such-model")
    started = time.perf_counter()
    with pytest.raises(EmbeddingUnavailable) as info:
        FlagEmbedder(Settings(embedding_model=name)).load()
    assert time.perf_counter() - started < 2
    assert str(info.value) == f"{name} could not be loaded: no such model folder"


def test_folder_without_weights_fails(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(EmbeddingUnavailable, match=r"no config\.json and model weights") as info:
        FlagEmbedder(Settings(embedding_model=str(tmp_path))).load()
    assert str(tmp_path) in str(info.value)


def test_broken_weights_become_embedding_unavailable(tiny_bge_m3: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken-bge-m3"
    broken.mkdir()
    for f in tiny_bge_m3.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(EmbeddingUnavailable) as info:
        FlagEmbedder(Settings(embedding_model=str(broken))).load()
    assert str(info.value).startswith(f"{broken} could not be loaded: ")


def test_unknown_hub_name_offline_fails_fast() -> None:
    name = "quest-tests/no-such-model-bge-m3"
    started = time.perf_counter()
    with pytest.raises(EmbeddingUnavailable) as info:
        load_embedder(Settings(embedding_model=name))
    assert time.perf_counter() - started < 2
    assert str(info.value).startswith(f"{name} could not be loaded: it is not in the local Hugging Face cache")
    assert "HF_HUB_OFFLINE" in str(info.value)
    assert info.value.hint is not None and "QUEST_EMBEDDING_MODEL" in info.value.hint


def test_unknown_hub_name_without_network_fails_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Online mode, but the hub cannot be reached: one short probe, not a minute of retries."""
    from huggingface_hub import constants

    with socket.socket() as sock:  # a port nothing listens on: connection refused
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    name = "BAAI/bge-m3-quest-tests-not-cached"
    started = time.perf_counter()
    with pytest.raises(EmbeddingUnavailable) as info:
        FlagEmbedder(Settings(embedding_model=name)).load()
    assert time.perf_counter() - started < 5
    assert str(info.value).startswith(f"{name} could not be loaded (no network to download it?)")
    assert f"127.0.0.1:{port} is unreachable" in str(info.value)


def test_embeddings_turned_off() -> None:
    with pytest.raises(EmbeddingUnavailable, match="turned off"):
        FlagEmbedder(Settings(embedding_model="none")).load()


# --- progress bars and logging -------------------------------------------------------------


def test_quiet_unless_progress_is_asked_for(m3: FlagEmbedder, capsys: pytest.CaptureFixture[str]) -> None:
    texts = [f"{t} {i}" for i in range(3) for t in TEXTS]  # 15 texts, batches of 4
    m3.encode_documents(texts)
    m3.encode_queries(texts)
    quiet = capsys.readouterr()
    assert quiet.out == "" and quiet.err == ""
    m3.encode_documents(texts, progress=True)
    shown = capsys.readouterr()
    assert "Embedding (tiny-bge-m3)" in shown.err and "15/15" in shown.err
    assert "Inference Embeddings" not in shown.err and "pre tokenize" not in shown.err


def test_texts_are_not_logged_above_debug(m3: FlagEmbedder, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    secret = "my-secret-solution-code-1234"
    m3.encode_documents([secret], progress=True)
    m3.encode_queries([secret])
    above_debug = [r.getMessage() for r in caplog.records if r.levelno > logging.DEBUG]
    assert any("encoded 1 documents" in m for m in above_debug)
    assert not any(secret in m for m in above_debug)


# --- the fixture itself ----------------------------------------------------------------------


def test_tiny_model_files(tiny_bge_m3: Path, tiny_bge_dense: Path) -> None:
    from transformers import AutoTokenizer

    names = {p.name for p in tiny_bge_m3.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "colbert_linear.pt", "sparse_linear.pt"} <= names
    assert not {"colbert_linear.pt", "sparse_linear.pt"} & {p.name for p in tiny_bge_dense.iterdir()}
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_bge_m3))
    assert type(tokenizer).__name__ == "XLMRobertaTokenizerFast"
    assert [tokenizer.bos_token_id, tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id] == [
        0,
        1,
        2,
        3,
    ]
    assert tokenizer.mask_token_id == len(tokenizer) - 1
    ids = tokenizer("超时 deque.popleft()")["input_ids"]
    assert ids[0] == 0 and ids[-1] == 2 and 3 not in ids  # known words, no <unk>


@pytest.mark.slow
def test_tiny_model_build_is_deterministic(tiny_bge_m3: Path, tmp_path: Path) -> None:
    again = build_tiny_bge_m3(tmp_path / "tiny-bge-m3")

    def digest(folder: Path) -> dict[str, str]:
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}

    assert digest(again) == digest(tiny_bge_m3)
