"""Separate a reasoning model's `<think>...</think>` text from its answer, chunk by chunk.

Tags may be split across stream chunks ("<thi" + "nk>"), so the splitter keeps back any
tail of the text that could still become a tag and decides once more text arrives.
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"


def _partial_tag_suffix(text: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of either tag."""
    best = 0
    for tag in (OPEN, CLOSE):
        for n in range(min(len(tag) - 1, len(text)), 0, -1):
            if text.endswith(tag[:n]):
                best = max(best, n)
                break
    return best


class ThinkSplitter:
    """Feed stream text; get back (answer_text, thinking_text) that is safe to show now."""

    def __init__(self) -> None:
        self._buffer = ""
        self.inside = False

    def feed(self, text: str) -> tuple[str, str]:
        self._buffer += text
        answer: list[str] = []
        thinking: list[str] = []
        while True:
            buf = self._buffer
            if self.inside:
                i = buf.find(CLOSE)
                if i >= 0:
                    thinking.append(buf[:i])
                    self._buffer = buf[i + len(CLOSE):]
                    self.inside = False
                    continue
            else:
                i_open = buf.find(OPEN)
                i_close = buf.find(CLOSE)  # a stray closing tag outside: drop it
                if i_close >= 0 and (i_open < 0 or i_close < i_open):
                    answer.append(buf[:i_close])
                    self._buffer = buf[i_close + len(CLOSE):]
                    continue
                if i_open >= 0:
                    answer.append(buf[:i_open])
                    self._buffer = buf[i_open + len(OPEN):]
                    self.inside = True
                    continue
            keep = _partial_tag_suffix(buf)
            ready, self._buffer = buf[: len(buf) - keep], buf[len(buf) - keep:]
            (thinking if self.inside else answer).append(ready)
            break
        return "".join(answer), "".join(thinking)

    def flush(self) -> tuple[str, str]:
        """The rest at the end of the stream (an unfinished tag prefix is plain text)."""
        rest, self._buffer = self._buffer, ""
        return ("", rest) if self.inside else (rest, "")
