"""Read a judge's message: verdict, failing test, exception and the lines it points at.

Understands OJ verdict lines in English and Chinese and their abbreviations, Python
tracebacks, g++/clang diagnostics (`file:line:col: error: ...`), javac diagnostics
(`Main.java:5: error: ...`) and Java stack traces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VERDICTS = ("AC", "WA", "TLE", "MLE", "RE", "CE", "OLE", "PE")

VERDICT_NAMES = {
    "en": {
        "AC": "Accepted", "WA": "Wrong Answer", "TLE": "Time Limit Exceeded", "MLE": "Memory Limit Exceeded",
        "RE": "Runtime Error", "CE": "Compile Error", "OLE": "Output Limit Exceeded", "PE": "Presentation Error",
    },
    "zh": {
        "AC": "答案正确", "WA": "答案错误", "TLE": "时间超限", "MLE": "内存超限",
        "RE": "运行错误", "CE": "编译错误", "OLE": "输出超限", "PE": "格式错误",
    },
}

# Case-insensitive phrases; abbreviations are matched separately, in capitals only.
_VERDICT_PHRASES: dict[str, tuple[str, ...]] = {
    "TLE": ("time limit exceeded", "time limit exceed", "timelimitexceeded", "超时", "时间超限", "运行超时",
            "超出时间限制"),
    "MLE": ("memory limit exceeded", "memorylimitexceeded", "内存超限", "超内存", "超出内存限制", "memoryerror"),
    "OLE": ("output limit exceeded", "outputlimitexceeded", "输出超限", "输出超出限制"),
    "WA": ("wrong answer", "wronganswer", "答案错误", "答案不正确", "结果错误"),
    "PE": ("presentation error", "presentationerror", "格式错误", "输出格式错误"),
    "CE": ("compile error", "compilation error", "compilationerror", "编译错误", "编译失败"),
    "RE": ("runtime error", "runtimeerror", "运行错误", "运行时错误", "segmentation fault", "段错误",
           "floating point exception", "stack overflow", "栈溢出"),
    "AC": ("accepted", "答案正确"),
}
_ABBREV = re.compile(r"(?<![A-Za-z0-9_])(AC|WA|TLE|MLE|RE|CE|OLE|PE)(?![A-Za-z0-9_])")

_TEST_NUMBER = [
    re.compile(r"(?:on|at|in)\s+test(?:\s*case)?\s*#?\s*(\d+)", re.I),
    re.compile(r"test(?:\s*case)?\s*#\s*(\d+)", re.I),
    re.compile(r"test\s*(\d+)\b", re.I),
    re.compile(r"(?:测试点|测试用例|测试数据|数据点|用例)\s*#?\s*(\d+)"),
    re.compile(r"第\s*(\d+)\s*(?:个|组)?\s*(?:测试点|测试用例|测试数据|数据点|用例|组)"),
]

_PY_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)(?:, in (\S+))?', re.M)
_PY_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|StopIteration))(?::\s*(.*))?$",
                           re.M)
_GCC_DIAG = re.compile(r"^([^\s:]+\.(?:c|cc|cpp|cxx|h|hpp)):(\d+):(?:(\d+):)?\s*(fatal error|error|warning):\s*(.+)$",
                       re.M)
_JAVAC_DIAG = re.compile(r"^([^\s:]+\.java):(\d+):\s*(error|warning):\s*(.+)$", re.M)
_JAVA_EXCEPTION = re.compile(r"Exception in thread \"[^\"]*\"\s+([\w.$]+)(?::\s*(.*))?")
_JAVA_FRAME = re.compile(r"^\s*at\s+[\w.$<>]+\(([\w$]+\.java):(\d+)\)", re.M)
_CPP_THROW = re.compile(r"terminate called after throwing an instance of '([^']+)'")
_SIGNAL = re.compile(r"(segmentation fault|sigsegv|sigfpe|sigabrt|floating point exception|stack overflow|"
                     r"killed|core dumped)", re.I)


@dataclass(frozen=True)
class JudgeReport:
    verdict: str | None = None  # one of VERDICTS
    test_number: int | None = None
    exception: str | None = None  # e.g. "RecursionError", "java.lang.ArrayIndexOutOfBoundsException"
    lines: tuple[int, ...] = ()  # line numbers in the student's code the message points at
    messages: tuple[str, ...] = ()  # the key diagnostic lines, short

    @property
    def empty(self) -> bool:
        return self.verdict is None and self.exception is None and not self.messages

    def summary(self, lang: str = "en") -> str:
        """One line for queries and prompts, e.g. 'TLE (Time Limit Exceeded) on test 45'."""
        parts: list[str] = []
        if self.verdict:
            parts.append(f"{self.verdict} ({VERDICT_NAMES[lang if lang in VERDICT_NAMES else 'en'][self.verdict]})")
        if self.test_number is not None:
            parts.append(f"测试点 {self.test_number}" if lang == "zh" else f"on test {self.test_number}")
        if self.exception:
            parts.append(self.exception)
        if self.lines:
            word = "行" if lang == "zh" else "line"
            parts.append(f"{word} " + ", ".join(map(str, self.lines)))
        return " ".join(parts)


def find_verdict(text: str) -> str | None:
    """The verdict the text names first, in any language or as an abbreviation."""
    lower = text.lower()
    best: tuple[int, str] | None = None
    for verdict, phrases in _VERDICT_PHRASES.items():
        for phrase in phrases:
            pos = lower.find(phrase)
            if pos >= 0 and (best is None or pos < best[0]):
                best = (pos, verdict)
    m = _ABBREV.search(text)
    if m and (best is None or m.start() < best[0]):
        best = (m.start(), m.group(1))
    return best[1] if best else None


def _test_number(text: str) -> int | None:
    for pattern in _TEST_NUMBER:
        m = pattern.search(text)
        if m:
            return int(m.group(1))
    return None


def parse(text: str | None, verdict_hint: str | None = None) -> JudgeReport:
    """Parse a judge message. `verdict_hint` is a verdict chosen separately (e.g. in the UI)."""
    text = (text or "")[:20000]
    lines: list[int] = []
    messages: list[str] = []
    exception: str | None = None
    inferred: str | None = None

    frames = _PY_FRAME.findall(text)
    if frames:
        # The student's own frames: skip library paths; the last one is where it failed.
        own = [f for f in frames if "site-packages" not in f[0] and "/lib/python" not in f[0]] or frames
        lines.extend(int(f[1]) for f in own[-3:])
        inferred = "RE"
    exceptions = _PY_EXCEPTION.findall(text)
    if exceptions:
        name, detail = exceptions[-1]
        exception = name
        messages.append(f"{name}: {detail}".rstrip(": ").strip())
        inferred = "MLE" if name == "MemoryError" else (inferred or "RE")
        if name == "SyntaxError":
            inferred = "CE"

    for file, line, _col, kind, msg in _GCC_DIAG.findall(text):
        if kind != "warning":
            lines.append(int(line))
            messages.append(f"{file}:{line}: {kind}: {msg.strip()}")
            inferred = "CE"
    for file, line, kind, msg in _JAVAC_DIAG.findall(text):
        if kind == "error":
            lines.append(int(line))
            messages.append(f"{file}:{line}: error: {msg.strip()}")
            inferred = "CE"

    m = _JAVA_EXCEPTION.search(text)
    if m:
        exception = m.group(1)
        messages.append(f"{m.group(1)}: {m.group(2) or ''}".rstrip(": "))
        frames_j = _JAVA_FRAME.findall(text)
        lines.extend(int(line) for _f, line in frames_j[:2])
        inferred = "MLE" if exception.endswith("OutOfMemoryError") else "RE"
    m = _CPP_THROW.search(text)
    if m:
        exception = m.group(1)
        messages.append(m.group(0))
        inferred = "RE"
    m = _SIGNAL.search(text)
    if m and not messages:
        messages.append(m.group(1))
        inferred = inferred or "RE"

    stated = find_verdict(text)
    hint = verdict_hint.strip().upper() if verdict_hint and verdict_hint.strip().upper() in VERDICTS else None
    verdict = hint or stated or inferred
    seen: set[int] = set()
    unique_lines = tuple(x for x in lines if not (x in seen or seen.add(x)))
    return JudgeReport(
        verdict=verdict,
        test_number=_test_number(text),
        exception=exception,
        lines=unique_lines[:5],
        messages=tuple(msg[:300] for msg in messages[:5]),
    )
