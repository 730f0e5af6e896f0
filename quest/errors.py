"""The exception tree. The UI and CLI turn these into friendly messages; anything else is a bug.

    QuestError
    ├── InputError            the student's request is unusable (empty, too big, binary junk)
    ├── KnowledgeBaseError    a knowledge file or catalogue is broken (names the file and why)
    ├── ImportError_          an OJ export cannot be imported (names the file and why)
    ├── IndexError_           a saved index is missing, truncated or inconsistent
    ├── EmbeddingUnavailable  the embedding model cannot be loaded (retrieval goes BM25-only)
    ├── LLMError              the language model failed
    │   ├── LLMUnavailable    Ollama cannot be reached
    │   ├── ModelNotFound     the model is not pulled
    │   ├── LLMTimeout        no first token / no end in time
    │   ├── StreamBroken      the stream stopped halfway
    │   ├── LLMAuthError      the model server refused the API key (401/403)
    │   └── RateLimited       the model server said "too many requests" (429, retry_after)
    └── Refused               policy refuses the request (contest lock, tier)
"""

from __future__ import annotations


class QuestError(Exception):
    """Base of every error Quest raises on purpose."""

    #: A short, stable code the UI can translate.
    code = "error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class InputError(QuestError):
    code = "input"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        reason: str = "invalid",  # "empty" | "too_long" | "binary" | "invalid"
        limit: int | None = None,
        length: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.field = field
        self.reason = reason
        self.limit = limit
        self.length = length


class KnowledgeBaseError(QuestError):
    code = "kb"

    def __init__(self, path: object, reason: str, *, line: int | None = None) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {reason}")
        self.path = str(path)
        self.reason = reason
        self.line = line


class ImportError_(QuestError):  # noqa: N801 - avoid shadowing the builtin ImportError
    code = "import"


class IndexError_(QuestError):  # noqa: N801 - avoid shadowing the builtin IndexError
    code = "index"


class EmbeddingUnavailable(QuestError):
    code = "embedding"


class LLMError(QuestError):
    code = "llm"


class LLMUnavailable(LLMError):
    code = "llm_unavailable"


class ModelNotFound(LLMError):
    code = "model_not_found"


class LLMTimeout(LLMError):
    code = "llm_timeout"


class StreamBroken(LLMError):
    code = "stream_broken"


class Stopped(LLMError):
    """The answer was stopped (Stop, Clear, the page went away) and its connection cut: not the host's fault."""

    code = "stopped"


class LLMAuthError(LLMError):
    code = "llm_auth"


class RateLimited(LLMError):
    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: float | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.retry_after = retry_after


class Refused(QuestError):
    code = "refused"
