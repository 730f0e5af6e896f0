"""Text -> vectors. The `Embedder` protocol, and bge-m3 / BGE models through FlagEmbedding.

`FlagEmbedder(settings)` only stores settings; `load()` resolves the model (a local folder,
or a Hugging Face hub name that is cached or can be downloaded *now*), loads it and raises
`EmbeddingUnavailable` with a plain reason when it cannot, so the caller can go BM25-only.

Resolution never waits on a network that is not there: a hub name that is not fully in
the local cache fails at once when `HF_HUB_OFFLINE` is set, and after one short probe of
the hub otherwise (huggingface_hub on its own retries for about 45 seconds before giving up).

bge-m3 (a name containing "bge-m3", or a folder with `sparse_linear.pt`) gives dense vectors
and lexical weights; any other BGE model gives dense vectors, with the query instruction the
model was trained with (`query_instruction`).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from quest.errors import EmbeddingUnavailable
from quest.retrieval.query_batch import QueryBatcher
from quest.settings import Settings

log = logging.getLogger(__name__)

ZH_INSTRUCTION = "为这个句子生成表示以用于检索相关文章："
EN_INSTRUCTION = "Represent this sentence for searching relevant passages: "

#: Files of a hub repository that Quest never needs (ONNX exports alone are >2 GB for bge-m3).
_IGNORE_PATTERNS = [
    "onnx/*",
    "*.onnx",
    "*.onnx_data",
    "flax_model.msgpack",
    "rust_model.ot",
    "tf_model.h5",
    "*.h5",
    "*.ot",
    "imgs/*",
]
_WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
_PROBE_TIMEOUT = 3.0  # seconds, for the one check that the hub is reachable before downloading


@dataclass(frozen=True)
class Embeddings:
    dense: np.ndarray  # float32 (n, dim), L2-normalized rows
    lexical: list[dict[str, float]] | None  # bge-m3 lexical weights per text (token id -> weight), else None

    def __len__(self) -> int:
        return int(self.dense.shape[0])


@runtime_checkable
class Embedder(Protocol):
    name: str  # model name or path, recorded in the index manifest
    dim: int
    has_lexical: bool

    def encode_documents(self, texts: Sequence[str], *, progress: bool = False) -> Embeddings: ...

    def encode_queries(self, texts: Sequence[str]) -> Embeddings: ...


# --- pure helpers -------------------------------------------------------------------------


def query_instruction(model_name: str) -> str | None:
    """The retrieval instruction a BGE model wants in front of queries, or None.

    bge-*-zh-v1.5 / bge-*-zh and bge-*-en-v1.5 / bge-*-en were trained with an instruction
    for short queries; bge-m3 and other models take queries as they are.
    """
    base = _basename(model_name).lower()
    if "bge-m3" in base or "bge" not in base:
        return None
    if re.search(r"bge-(?:small|base|large|[a-z0-9]+)-zh(?:-v1\.5)?\b", base) or base.endswith("-zh"):
        return ZH_INSTRUCTION
    if re.search(r"bge-(?:small|base|large|[a-z0-9]+)-en(?:-v1\.5)?\b", base) or base.endswith("-en"):
        return EN_INSTRUCTION
    return None


def is_bge_m3(model_name: str, folder: Path | None = None) -> bool:
    """bge-m3 by name, or a local folder that carries bge-m3's sparse / colbert heads."""
    if "bge-m3" in model_name.lower():
        return True
    if folder is not None and folder.is_dir():
        return (folder / "sparse_linear.pt").is_file() or (folder / "colbert_linear.pt").is_file()
    return False


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """float32 copy with unit-length rows (zero rows stay zero)."""
    dense = np.asarray(vectors, dtype=np.float32)
    if dense.ndim == 1:
        dense = dense.reshape(1, -1)
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(dense / norms, dtype=np.float32)


def _basename(model_name: str) -> str:
    return model_name.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]


def _looks_like_path(name: str) -> bool:
    """Hub ids are "name" or "org/name"; anything else (absolute, ./, ~, deeper) is a path."""
    if name.startswith(("/", ".", "~")) or "\\" in name or re.match(r"^[A-Za-z]:", name):
        return True
    return name.count("/") > 1


def _short(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _has_weights(folder: Path) -> bool:
    return (folder / "config.json").is_file() and any((folder / f).is_file() for f in _WEIGHT_FILES)


def _hub_offline() -> bool:
    raw = os.environ.get("HF_HUB_OFFLINE", "")
    if raw.strip().lower() in {"1", "true", "yes", "on"}:
        return True
    if os.environ.get("TRANSFORMERS_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}:
        return True
    try:
        from huggingface_hub import constants

        return bool(constants.HF_HUB_OFFLINE)
    except Exception:  # pragma: no cover - huggingface_hub is a dependency of FlagEmbedding
        return False


def _hub_endpoint() -> str:
    endpoint = os.environ.get("HF_ENDPOINT")
    if endpoint:
        return endpoint.rstrip("/")
    from huggingface_hub import constants

    return str(constants.ENDPOINT).rstrip("/")


def _hub_cache() -> str:
    """The hub cache folder, read now (huggingface_hub reads its variables once, at import)."""
    from huggingface_hub import constants

    return os.environ.get("HF_HUB_CACHE") or str(constants.HF_HUB_CACHE)


def resolve_model_folder(name: str) -> Path:
    """A local folder holding the model `name`, downloading it only when the hub answers.

    Raises EmbeddingUnavailable, quickly, when that is not possible.
    """
    candidate = Path(name).expanduser()
    if candidate.exists() or _looks_like_path(name):
        if not candidate.is_dir():
            raise EmbeddingUnavailable(f"{name} could not be loaded: no such model folder")
        if not _has_weights(candidate):
            raise EmbeddingUnavailable(f"{name} could not be loaded: the folder has no config.json and model weights")
        return candidate

    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        cached = Path(snapshot_download(repo_id=name, cache_dir=_hub_cache(), local_files_only=True))
        if _has_weights(cached):
            log.debug("embedding model %s found in the local cache: %s", name, cached)
            return cached
    except LocalEntryNotFoundError:
        pass
    except Exception as exc:  # e.g. a malformed repo id
        raise EmbeddingUnavailable(f"{name} could not be loaded: {_short(exc)}") from exc

    if _hub_offline():
        raise EmbeddingUnavailable(
            f"{name} could not be loaded: it is not in the local Hugging Face cache and HF_HUB_OFFLINE is set",
            hint="download it once with network access, or set QUEST_EMBEDDING_MODEL to a local folder",
        )
    endpoint = _hub_endpoint()
    _probe(name, endpoint)
    log.info("downloading embedding model %s from %s (first run; this can take a while)", name, endpoint)
    try:
        return Path(snapshot_download(repo_id=name, cache_dir=_hub_cache(), ignore_patterns=_IGNORE_PATTERNS))
    except Exception as exc:
        raise EmbeddingUnavailable(f"{name} could not be downloaded: {_short(exc)}") from exc


def _probe(name: str, endpoint: str) -> None:
    """One short request to the hub, so that no network means failing now, not in a minute."""
    import requests

    try:
        requests.head(endpoint, timeout=_PROBE_TIMEOUT, allow_redirects=False)
    except requests.RequestException as exc:
        raise EmbeddingUnavailable(
            f"{name} could not be loaded (no network to download it?): "
            f"it is not in the local cache and {endpoint} is unreachable",
            hint="download it once with network access, or set QUEST_EMBEDDING_MODEL to a local folder",
        ) from exc


def _max_positions(folder: Path) -> int | None:
    """Longest input, in tokens, the model's position embeddings allow (None when unknown)."""
    import json

    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    positions = config.get("max_position_embeddings")
    if not isinstance(positions, int):
        return None
    if config.get("model_type") in {"xlm-roberta", "roberta", "camembert"}:
        positions -= int(config.get("pad_token_id", 1)) + 1  # RoBERTa positions start after the pad id
    return positions if positions > 0 else None


# --- the production embedder ---------------------------------------------------------------


class FlagEmbedder:
    """bge-m3 (dense + lexical) or another BGE model (dense) through FlagEmbedding."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name: str = settings.embedding_model.strip()
        self.dim: int = 0
        self.has_lexical: bool = False
        self.folder: Path | None = None
        self.instruction: str | None = None
        self.load_seconds: float | None = None
        self._model: Any = None
        self._m3 = False
        self._max_length = settings.embedding_max_length
        self._lock = threading.Lock()
        # Queries asked at the same time share one model call (quest/retrieval/query_batch.py).
        self._queries = QueryBatcher(lambda texts: self._encode(texts, query=True, progress=False), _rows)

    def __repr__(self) -> str:
        state = f"dim={self.dim}, lexical={self.has_lexical}" if self.loaded else "not loaded"
        return f"FlagEmbedder({self.name!r}, {state})"

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def mode(self) -> str:
        """What the status line shows: "bge-m3 (dense + lexical)" or "dense"."""
        return "bge-m3 (dense + lexical)" if self.has_lexical else "dense"

    def load(self) -> FlagEmbedder:
        if self.loaded:
            return self
        if not self.settings.embeddings_enabled:
            raise EmbeddingUnavailable("embeddings are turned off (QUEST_EMBEDDING_MODEL=none)")
        started = time.perf_counter()
        folder = resolve_model_folder(self.name)
        self._m3 = is_bge_m3(self.name, folder)
        self.instruction = None if self._m3 else query_instruction(self.name)
        try:
            if self._m3:
                self._model = self._load_m3(folder)
            else:
                self._model = self._load_generic(folder)
        except EmbeddingUnavailable:
            raise
        except Exception as exc:  # anything the library or torch raises
            raise EmbeddingUnavailable(f"{self.name} could not be loaded: {_short(exc)}") from exc

        self.folder = folder
        self.dim = self._read_dim(self._model)
        positions = _max_positions(folder)
        if positions is not None and positions < self._max_length:
            log.info("embedding max length %d capped to the model's %d tokens", self._max_length, positions)
            self._max_length = positions
        self.load_seconds = time.perf_counter() - started
        log.info(
            "embedding model %s loaded from %s in %.2f s: %s, dim %d, device %s",
            self.name,
            folder,
            self.load_seconds,
            self.mode,
            self.dim,
            self.settings.embedding_device,
        )
        return self

    def _load_m3(self, folder: Path) -> Any:
        from FlagEmbedding import BGEM3FlagModel

        self.has_lexical = (folder / "sparse_linear.pt").is_file()
        if not self.has_lexical:
            log.warning("%s has no sparse_linear.pt: using its dense vectors only", folder)
        return BGEM3FlagModel(
            str(folder),
            use_fp16=self.settings.embedding_fp16,
            devices=self.settings.embedding_device,
            batch_size=self.settings.embedding_batch_size,
            query_max_length=self._max_length,
            passage_max_length=self._max_length,
            return_dense=True,
            return_sparse=self.has_lexical,
            return_colbert_vecs=False,
        )

    def _load_generic(self, folder: Path) -> Any:
        from FlagEmbedding import FlagAutoModel, FlagModel
        from FlagEmbedding.inference.embedder.model_mapping import AUTO_EMBEDDER_MAPPING, EMBEDDER_CLASS_MAPPING

        self.has_lexical = False
        common: dict[str, Any] = {
            "use_fp16": self.settings.embedding_fp16,
            "devices": self.settings.embedding_device,
            "query_instruction_for_retrieval": self.instruction,
            "batch_size": self.settings.embedding_batch_size,
            "query_max_length": self._max_length,
            "passage_max_length": self._max_length,
        }
        known = _basename(self.name)
        if known in AUTO_EMBEDDER_MAPPING:
            # Known names carry their model class, pooling method and instruction format. Pass them
            # explicitly: the folder may be a hub snapshot named by its commit hash.
            config = AUTO_EMBEDDER_MAPPING[known]
            model_class = {cls: key for key, cls in EMBEDDER_CLASS_MAPPING.items()}[config.model_class]
            if config.query_instruction_format != "{}{}":
                common["query_instruction_for_retrieval"] = self.instruction = None
            return FlagAutoModel.from_finetuned(
                str(folder),
                model_class=model_class,
                pooling_method=config.pooling_method.value,
                trust_remote_code=config.trust_remote_code,
                query_instruction_format=config.query_instruction_format,
                **common,
            )
        # BGE encoders pool the [CLS] token.
        return FlagModel(str(folder), pooling_method="cls", query_instruction_format="{}{}", **common)

    def _read_dim(self, model: Any) -> int:
        inner = getattr(model, "model", None)
        config = getattr(inner, "config", None) or getattr(getattr(inner, "model", None), "config", None)
        size = getattr(config, "hidden_size", None)
        if isinstance(size, int) and size > 0 and not getattr(model, "truncate_dim", None):
            return size
        return int(self._encode_batch(["dim"], query=False)[0].shape[1])

    # --- encoding ---------------------------------------------------------------------------

    def encode_documents(self, texts: Sequence[str], *, progress: bool = False) -> Embeddings:
        return self._encode(texts, query=False, progress=progress)

    def encode_queries(self, texts: Sequence[str]) -> Embeddings:
        if isinstance(texts, str) or not self.loaded or not texts:  # its own error, or nothing to batch
            return self._encode(texts, query=True, progress=False)
        return self._queries.encode(texts)

    def _encode(self, texts: Sequence[str], *, query: bool, progress: bool) -> Embeddings:
        if not self.loaded:
            raise EmbeddingUnavailable(f"{self.name} is not loaded (call load() first)")
        if isinstance(texts, str):
            raise TypeError("encode_documents / encode_queries take a sequence of texts, not one string")
        items = [t if t.strip() else " " for t in texts]  # an empty string still gets a vector
        if not items:
            return Embeddings(np.zeros((0, self.dim), dtype=np.float32), [] if self.has_lexical else None)

        from tqdm.auto import tqdm

        size = max(1, self.settings.embedding_batch_size)
        dense_parts: list[np.ndarray] = []
        lexical: list[dict[str, float]] = []
        started = time.perf_counter()
        log.debug("encoding %d %s: %r", len(items), "queries" if query else "documents", items[:3])
        with (
            self._lock,
            tqdm(
                total=len(items), desc=f"Embedding ({_basename(self.name)})", unit="text", disable=not progress
            ) as bar,
        ):
            for start in range(0, len(items), size):
                batch = items[start : start + size]
                dense, weights = self._encode_batch(batch, query=query)
                dense_parts.append(dense)
                if weights is not None:
                    lexical.extend(weights)
                bar.update(len(batch))
        dense = normalize_rows(np.concatenate(dense_parts, axis=0))
        if dense.shape != (len(items), self.dim):
            raise EmbeddingUnavailable(
                f"{self.name} returned vectors of shape {dense.shape}, expected {(len(items), self.dim)}"
            )
        elapsed = time.perf_counter() - started
        log.log(
            logging.INFO if progress else logging.DEBUG,
            "encoded %d %s in %.2f s (%.1f texts/s)",
            len(items),
            "queries" if query else "documents",
            elapsed,
            len(items) / elapsed if elapsed > 0 else float("inf"),
        )
        return Embeddings(dense, lexical if self.has_lexical else None)

    def _encode_batch(self, batch: list[str], *, query: bool) -> tuple[np.ndarray, list[dict[str, float]] | None]:
        """One batch through the library. batch_size > len(batch) keeps the library's own bars quiet."""
        model = self._model
        method = model.encode_queries if query else model.encode_corpus
        if self._m3:
            out = method(
                batch,
                batch_size=len(batch) + 1,
                max_length=self._max_length,
                return_dense=True,
                return_sparse=self.has_lexical,
                return_colbert_vecs=False,
            )
            dense = np.asarray(out["dense_vecs"], dtype=np.float32).reshape(len(batch), -1)
            weights = None
            if self.has_lexical:
                weights = [{str(k): float(v) for k, v in w.items()} for w in out["lexical_weights"]]
            return dense, weights
        out = method(batch, batch_size=len(batch) + 1, max_length=self._max_length, convert_to_numpy=True)
        return np.asarray(out, dtype=np.float32).reshape(len(batch), -1), None


def _rows(embeddings: Embeddings, start: int, stop: int) -> Embeddings:
    lexical = embeddings.lexical[start:stop] if embeddings.lexical is not None else None
    return Embeddings(embeddings.dense[start:stop], lexical)


def load_embedder(settings: Settings) -> FlagEmbedder:
    """FlagEmbedder(settings).load(): raises EmbeddingUnavailable when the model cannot be used."""
    return FlagEmbedder(settings).load()
