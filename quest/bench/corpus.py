"""A deterministic synthetic knowledge base and query set for the benchmark.

Mixed Chinese and English documents of every kind, a few hundred problems, sections of
realistic length (150..1100 characters, most around 400), code blocks, verdicts, error
messages. The Chinese words come from jieba's own dictionary (weighted by its frequencies,
so jieba segments them as it would real text), the English words from a fixed list of
programming prose plus identifiers built per problem; word choice follows a Zipf law, so
the vocabulary keeps growing with the corpus as a real one does.

Everything is a pure function of (size, seed): the same call gives the same documents,
chunks and queries on every machine (nothing depends on hash randomisation or the clock).
Each section is one chunk after `chunk_document`, so `generate(n)` yields exactly n chunks.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import os
import random
from dataclasses import dataclass
from functools import lru_cache

from quest.kb.documents import Document, KnowledgeBase, Problem
from quest.request import Request

SEED = 20261130
FAQ_SHARE = 0.05
MAX_SECTION_CHARS = 1050  # below chunk_max_chars (1200) with room for separators: one section = one chunk

_EN_WORDS = """
array index loop time memory limit input output test case answer value result number string list
queue stack heap tree node edge graph path cycle window pointer left right start end length size
sum prefix suffix range query update segment interval sort order binary search greedy dynamic
programming state transition recursion depth breadth first level parent child root leaf height
balance hash map set key count frequency duplicate unique maximum minimum median matrix grid row
column cell neighbour distance shortest weight visited mark boundary overflow integer modulo
complexity linear quadratic logarithmic constant amortized worst average brute force optimize
cache memo table bottom top down iterate element target pair triple subarray subsequence substring
palindrome anagram permutation combination subset bit mask xor shift carry digit reverse rotate
merge split partition pivot swap compare monotonic deque priority union find component connected
directed undirected topological dijkstra bellman floyd kruskal prim flow match bipartite tarjan
because when while before after each every only still never always usually often must should
wrong correct fails passes works runs takes returns prints reads writes checks uses keeps stores
solution approach idea proof invariant observation hint note example explanation mistake error
""".split()

_CODE_NAMES = """
nums arr grid dp memo ans res cnt left right lo hi mid idx pos cur prev nxt head tail stack queue
heap seen visited dist parent rank size total best window freq graph adj edges root node val key
""".split()

_VERDICT_LINES = {
    "TLE": ("Time Limit Exceeded on test {t}", "运行超时 测试点 {t}", "TLE on test {t}", "时间超限"),
    "WA": ("Wrong Answer on test {t}", "答案错误 第 {t} 个测试点", "WA on test {t}", "结果错误"),
    "RE": ("Runtime Error on test {t}", "运行错误", "Segmentation fault (core dumped)", "RE on test {t}"),
    "MLE": ("Memory Limit Exceeded on test {t}", "内存超限 测试点 {t}", "MLE"),
    "CE": ("Compile Error", "编译错误", "CE"),
}

_PY_ERRORS = (
    ("IndexError", "list index out of range"),
    ("RecursionError", "maximum recursion depth exceeded in comparison"),
    ("KeyError", "'{name}'"),
    ("TypeError", "'NoneType' object is not subscriptable"),
    ("ValueError", "invalid literal for int() with base 10: ''"),
    ("ZeroDivisionError", "division by zero"),
)

_KINDS = (  # kind, weight, verdict-bearing
    ("official_solution", 0.3, False),
    ("user_explanation", 0.25, False),
    ("error_pattern", 0.3, True),
    ("problem_statement", 0.15, False),
)


@lru_cache(maxsize=1)
def chinese_words() -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Frequent 2-4 character words of jieba's dictionary and their cumulative weights."""
    import jieba

    path = os.path.join(os.path.dirname(jieba.__file__), "dict.txt")
    entries: list[tuple[int, str]] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 2 or not 2 <= len(parts[0]) <= 4:
                continue
            word = parts[0]
            if not all("\u4e00" <= ch <= "\u9fff" for ch in word):
                continue
            entries.append((int(parts[1]), word))
    entries.sort(key=lambda e: (-e[0], e[1]))
    top = entries[:12000]
    words = tuple(w for _, w in top)
    cumulative = tuple(itertools.accumulate(1.0 / (rank + 10) for rank in range(len(top))))
    return words, cumulative


def _zipf_pick(rng: random.Random, words: tuple[str, ...], cumulative: tuple[float, ...]) -> str:
    return words[bisect.bisect_left(cumulative, rng.random() * cumulative[-1])]


_EN_CUM = tuple(itertools.accumulate(1.0 / (rank + 5) for rank in range(len(_EN_WORDS))))
_EN_TUPLE = tuple(_EN_WORDS)


def _camel(words: list[str]) -> str:
    return words[0] + "".join(w.capitalize() for w in words[1:])


@dataclass(frozen=True)
class SyntheticKB:
    kb: KnowledgeBase
    n_chunks: int
    seed: int

    @property
    def problems(self) -> dict[str, Problem]:
        return dict(self.kb.problems)


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.zh_words, self.zh_cum = chinese_words()

    def zh_sentence(self, extra: list[str]) -> str:
        rng = self.rng
        n = rng.randint(5, 14)
        words = [rng.choice(extra) if extra and rng.random() < 0.15 else _zipf_pick(rng, self.zh_words, self.zh_cum)
                 for _ in range(n)]
        cut = rng.randint(2, n - 1)
        return "".join(words[:cut]) + "，" + "".join(words[cut:]) + "。"

    def en_sentence(self, extra: list[str]) -> str:
        rng = self.rng
        n = rng.randint(7, 18)
        words = [rng.choice(extra) if extra and rng.random() < 0.12 else _zipf_pick(rng, _EN_TUPLE, _EN_CUM)
                 for _ in range(n)]
        words[0] = words[0].capitalize()
        return " ".join(words) + "."

    def code_block(self, names: list[str], lang: str) -> str:
        rng = self.rng
        fn = rng.choice(names)
        var = rng.sample(_CODE_NAMES, 3)
        if lang == "cpp":
            body = [f"int {fn}(vector<int>& {var[0]}) {{", f"    long long {var[1]} = 0;",
                    f"    for (int i = 0; i < (int){var[0]}.size(); ++i) {{",
                    f"        {var[1]} += {var[0]}[i];", "    }", f"    return {var[1]};", "}"]
            return "```cpp\n" + "\n".join(body) + "\n```"
        body = [f"def {fn}({var[0]}, k):", f"    {var[1]} = []",
                f"    for i, x in enumerate({var[0]}):",
                rng.choice([f"        {var[1]}.pop(0)", f"        {var[2]} = max({var[1]})",
                            f"        {var[1]}.append(x)", f"        {var[2]} = sorted({var[0]}[:i])"]),
                f"    return {var[1]}"]
        return "```python\n" + "\n".join(body) + "\n```"

    def section(self, lang: str, extra_zh: list[str], extra_en: list[str], names: list[str]) -> str:
        rng = self.rng
        target = min(MAX_SECTION_CHARS, max(150, int(rng.lognormvariate(math.log(420), 0.5))))
        paragraphs: list[str] = []
        size = 0
        while size < target:
            if rng.random() < 0.12 and size + 260 < MAX_SECTION_CHARS:
                para = self.code_block(names, rng.choice(("python", "python", "cpp")))
            else:
                sentences = []
                for _ in range(rng.randint(1, 4)):
                    # Chinese documents quote English identifiers and terms now and then, and back.
                    if lang == "zh":
                        s = self.zh_sentence(extra_zh) if rng.random() < 0.85 else self.en_sentence(extra_en)
                    else:
                        s = self.en_sentence(extra_en) if rng.random() < 0.95 else self.zh_sentence(extra_zh)
                    sentences.append(s)
                para = ("" if lang == "zh" else " ").join(sentences)
            room = MAX_SECTION_CHARS - size - 2
            if room < 40:
                break
            paragraphs.append(para[:room])
            size += len(paragraphs[-1]) + 2
        return "\n\n".join(paragraphs)


def n_problems_for(n_chunks: int) -> int:
    """A few hundred problems at realistic sizes (20 at the smallest, 400 from 16k chunks up)."""
    return max(20, min(400, n_chunks // 40))


def make_problems(count: int, seed: int = SEED) -> dict[str, Problem]:
    rng = random.Random(f"{seed}-problems")
    words, cum = chinese_words()
    problems: dict[str, Problem] = {}
    for i in range(count):
        pid = str(1000 + i * 7)
        zh = "".join(_zipf_pick(rng, words, cum) for _ in range(rng.randint(2, 3)))
        en = " ".join(w.capitalize() for w in rng.sample(_EN_WORDS[:200], rng.randint(2, 4)))
        tags = tuple(rng.sample(["dp", "greedy", "graph", "tree", "sliding_window", "binary_search",
                                 "two_pointers", "math", "string", "heap", "union_find"], 2))
        problems[pid] = Problem(id=pid, title_zh=zh, title_en=en, difficulty=rng.choice(["easy", "medium", "hard"]),
                                tags=tags)
    return problems


def generate(n_chunks: int, seed: int = SEED) -> SyntheticKB:
    """A knowledge base whose documents chunk into exactly `n_chunks` chunks (chunk_max_chars=1200)."""
    rng = random.Random(f"{seed}-{n_chunks}")
    writer = _Writer(rng)
    problems = make_problems(n_problems_for(n_chunks), seed)
    pids = list(problems)
    # Per problem: a few words of its own (title words, identifiers) that its documents repeat.
    own_zh = {pid: [p.title_zh, *rng.sample(writer.zh_words[2000:], 3)] for pid, p in problems.items()}
    own_en = {pid: [p.title_en.split()[0].lower(), _camel(p.title_en.lower().split())] for pid, p in problems.items()}
    names = {pid: [_camel(p.title_en.lower().split()), "solve", "main"] for pid, p in problems.items()}
    kinds = [k for k, _, _ in _KINDS]
    weights = [w for _, w, _ in _KINDS]

    documents: list[Document] = []
    total = 0
    for serial in itertools.count():
        if total >= n_chunks:
            break
        sections = min(rng.choice((1, 2, 2, 3, 3, 4, 5, 6, 8)), n_chunks - total)
        lang = "zh" if rng.random() < 0.6 else "en"
        if rng.random() < FAQ_SHARE:
            pid, kind = None, "faq"
            title = writer.zh_sentence([])[:16] if lang == "zh" else writer.en_sentence([])[:40]
            zh_extra, en_extra, fn_names = [], [], ["solve", "main", "read_input"]
        else:
            pid = rng.choice(pids)
            kind = rng.choices(kinds, weights)[0]
            problem = problems[pid]
            title = f"{problem.title(lang)} - {kind.replace('_', ' ')}"
            zh_extra, en_extra, fn_names = own_zh[pid], own_en[pid], names[pid]
        verdicts: tuple[str, ...] = ()
        if kind == "error_pattern":
            verdicts = (rng.choice(list(_VERDICT_LINES)),)
        parts = []
        for s in range(sections):
            heading = writer.zh_sentence(zh_extra)[:12] if lang == "zh" else writer.en_sentence(en_extra)[:30]
            body = writer.section(lang, zh_extra, en_extra, fn_names)
            if s == 0 and verdicts:
                body = (rng.choice(_VERDICT_LINES[verdicts[0]]).format(t=rng.randint(2, 60)) + "\n\n" + body)[
                    :MAX_SECTION_CHARS]
            parts.append(f"## {heading.strip('#').strip() or 'Notes'}\n\n{body}")
        doc_id = f"s{serial:06d}-{kind}-{lang}"
        documents.append(Document(
            id=doc_id, kind=kind, title=title, text="\n\n".join(parts), lang=lang, problem_id=pid,
            tags=problems[pid].tags if pid else (), verdicts=verdicts,
            languages=("python",) if rng.random() < 0.5 else (), source=f"synthetic/{doc_id}.md",
        ))
        total += sections
    return SyntheticKB(kb=KnowledgeBase(documents=tuple(documents), problems=problems), n_chunks=n_chunks,
                       seed=seed)


def edited(doc: Document, seed: int = SEED) -> Document:
    """The same document with one section rewritten (for the incremental-update measurement)."""
    rng = random.Random(f"{seed}-edit-{doc.id}")
    extra = "\n\n" + " ".join(rng.choice(_EN_WORDS) for _ in range(30)) + "."
    return dataclasses.replace(doc, text=doc.text + extra)


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class BenchQuery:
    request: Request
    target_problem: str  # the problem the question is about (also when the request does not name it)


def make_queries(kb: SyntheticKB, count: int, seed: int = SEED) -> list[BenchQuery]:
    """Student requests: 75% name their problem, 25% do not; 25% in hint tier; most carry code and an error."""
    rng = random.Random(f"{seed}-queries-{kb.n_chunks}-{count}")
    writer = _Writer(rng)
    problems = kb.kb.problems
    pids = sorted(problems, key=int)
    out: list[BenchQuery] = []
    for _ in range(count):
        pid = rng.choice(pids)
        problem = problems[pid]
        lang = "zh" if rng.random() < 0.6 else "en"
        fn = _camel(problem.title_en.lower().split())
        if lang == "zh":
            question = f"{problem.title_zh}{writer.zh_sentence([problem.title_zh])[:24]}为什么超时？"
        else:
            question = f"Why does my {problem.title_en.lower()} solution fail? " + writer.en_sentence([fn])[:60]
        verdict = rng.choice(list(_VERDICT_LINES))
        error = rng.choice(_VERDICT_LINES[verdict]).format(t=rng.randint(2, 60))
        code = ""
        if rng.random() < 0.8:
            code = writer.code_block([fn], "python").strip("`").removeprefix("python\n")
            if rng.random() < 0.5:
                exc, msg = rng.choice(_PY_ERRORS)
                error += ("\nTraceback (most recent call last):\n  File \"main.py\", line 4, in " + fn +
                          f"\n{exc}: {msg.format(name=rng.choice(_CODE_NAMES))}")
        named = rng.random() < 0.75
        tier = "hint" if rng.random() < 0.25 else rng.choice(("explain", "solution"))
        out.append(BenchQuery(
            request=Request(question=question, problem_id=pid if named else None, language="python", code=code,
                            error=error, tier=tier, ui_lang=lang),
            target_problem=pid,
        ))
    return out


#: Question openings that name no problem (the student asks about a verdict or a technique).
_GLOBAL_ZH = ("我的代码为什么超时？", "这个错误是什么意思？", "递归写法哪里不对？", "为什么答案错误？")
_GLOBAL_EN = ("Why is my solution too slow?", "What does this error mean?", "Where is my recursion wrong?",
              "Why is my answer wrong?")
NAMES_PROBLEM, NO_PROBLEM = "names_problem", "no_problem"


def global_count(count: int, share: float) -> int:
    """How many no-problem questions join `count` problem questions so they are `share` of all."""
    if not 0.0 <= share < 1.0:
        raise ValueError(f"global share must be in [0, 1): {share}")
    return round(count * share / (1.0 - share))


def make_global_queries(kb: SyntheticKB, count: int, seed: int = SEED) -> list[BenchQuery]:
    """Student requests that name no problem (no id, no title): only the whole-base search can answer them.

    `target_problem` is the problem the student has in mind; only the query's synthetic vector uses it.
    """
    rng = random.Random(f"{seed}-global-queries-{kb.n_chunks}-{count}")
    writer = _Writer(rng)
    pids = sorted(kb.kb.problems, key=int)
    out: list[BenchQuery] = []
    for _ in range(count):
        pid = rng.choice(pids)
        lang = "zh" if rng.random() < 0.6 else "en"
        if lang == "zh":
            question = rng.choice(_GLOBAL_ZH) + writer.zh_sentence([])[:24]
        else:
            question = rng.choice(_GLOBAL_EN) + " " + writer.en_sentence([])[:60]
        verdict = rng.choice(list(_VERDICT_LINES))
        error = rng.choice(_VERDICT_LINES[verdict]).format(t=rng.randint(2, 60))
        code = writer.code_block(["solve"], "python").strip("`").removeprefix("python\n") if rng.random() < 0.8 else ""
        tier = "hint" if rng.random() < 0.25 else rng.choice(("explain", "solution"))
        out.append(BenchQuery(
            request=Request(question=question, problem_id=None, language="python", code=code, error=error,
                            tier=tier, ui_lang=lang),
            target_problem=pid,
        ))
    return out


def mixed_queries(kb: SyntheticKB, count: int, share: float,
                  seed: int = SEED) -> tuple[list[BenchQuery], list[str]]:
    """`make_queries(kb, count)` unchanged and in order, with `global_count(count, share)` no-problem
    questions inserted at seeded places; and each query's kind (NAMES_PROBLEM or NO_PROBLEM).

    The problem questions are the same as without the share, so their numbers stay comparable.
    """
    problem = make_queries(kb, count, seed)
    extra = make_global_queries(kb, global_count(count, share), seed)
    total = len(problem) + len(extra)
    places = set(random.Random(f"{seed}-global-places-{kb.n_chunks}-{total}").sample(range(total), len(extra)))
    queries: list[BenchQuery] = []
    kinds: list[str] = []
    named, unnamed = iter(problem), iter(extra)
    for i in range(total):
        queries.append(next(unnamed) if i in places else next(named))
        kinds.append(NO_PROBLEM if i in places else NAMES_PROBLEM)
    return queries, kinds
