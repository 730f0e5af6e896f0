"""What problem resolution found (`Resolution`: the problem or a missing name, the rule that fired, its evidence,
the problems to ask between) and how the notice says it; `Alternative` is a base problem the notice offers instead of
a missing one."""

from __future__ import annotations

from dataclasses import dataclass

from quest.kb.importers.safety import quoted

RULES = ("field", "id", "title", "name", "reworded", "code", "consensus", "none")


@dataclass(frozen=True)
class Alternative:
    """A base problem the notice offers for a missing one students often confuse with it."""

    problem_id: str
    title_zh: str = ""
    title_en: str = ""

    def label(self, lang: str = "en") -> str:
        """"problem 5 (Longest Palindromic Substring)", "第 5 题（最长回文子串）"."""
        if lang == "zh":
            title = self.title_zh or self.title_en
            return f"第 {self.problem_id} 题（{title}）" if title else f"第 {self.problem_id} 题"
        title = self.title_en or self.title_zh
        return f"problem {self.problem_id} ({title})" if title else f"problem {self.problem_id}"


SHOWN_OPTIONS = 6  # the ambiguity notice lists at most this many of the problems a name fits, then how many more
SHOWN_NAME_CHARS = 60  # a notice echoes at most this much of a name from the question (5,000 digits are an "id")


def shown_name(name: str, lang: str = "en") -> str:
    """A name the question gave, as a notice echoes it: escaped and cut, its full length said."""
    if lang == "zh" and len(name) > SHOWN_NAME_CHARS:
        return f"{quoted(name[:SHOWN_NAME_CHARS], bare=True)}……（共 {len(name)} 个字符）"
    return quoted(name, SHOWN_NAME_CHARS, bare=True)


def carried_name(name: str | None) -> str | None:
    """A name from the question as the plan's JSON (`search --json`, `ask`'s stats, the feedback log) carries it:
    whole up to `SHOWN_NAME_CHARS`, else that much of it and its length, so a 5,000-digit "id" is still recognisable
    without the plan repeating the paste. Not escaped: JSON escapes what it must."""
    if name is None or len(name) <= SHOWN_NAME_CHARS:
        return name
    return f"{name[:SHOWN_NAME_CHARS]}... ({len(name)} characters)"


@dataclass(frozen=True)
class Resolution:
    problem_id: str | None = None
    rule: str = "none"  # one of RULES
    evidence: str = ""  # what matched, e.g. "#239" or the title
    # An id (or, by the rules "title" and "name", a title) named in the request that the base does not have.
    missing_id: str | None = None
    # Several imported problem sets share the id named: which ones (qualified ids), to ask.
    candidates: tuple[str, ...] = ()
    # A missing problem named by a name students often give a base problem (`quest.known_problems.CONFUSED_WITH`):
    # the base problems they may mean, offered in the notice; the search still keeps to general documents.
    alternatives: tuple[Alternative, ...] = ()
    known_as: str | None = None  # the missing problem's judge and id ("LeetCode 409"), when it has alternatives

    @property
    def ambiguous(self) -> bool:
        """A shortened name several problems' titles fit (`_ambiguous`): nothing resolved, the student is asked which.
        Its options are the base problems (`alternatives`) and the known ones the base lacks (`candidates`): either
        may be empty (an imported base may hold every problem the name fits)."""
        return self.problem_id is None and self.missing_id is None and self.rule in ("title", "name") and \
            bool(self.candidates or self.alternatives)

    def describe(self, lang: str = "en") -> str:
        """One line for the UI, `search` and the API."""
        if self.alternatives and self.missing_id is not None:
            named = f"「{self.missing_id}」（{self.known_as}）" if self.known_as else f"「{self.missing_id}」"
            if lang == "zh":
                options = "、".join(a.label("zh") for a in self.alternatives)
                return (f"题目{named}不在知识库中。你是不是想问{options}？"
                        f"在题号栏填入 {self.alternatives[0].problem_id} 即可检索该题。")
            named = f'"{self.missing_id}" ({self.known_as})' if self.known_as else f'"{self.missing_id}"'
            options = " or ".join(a.label("en") for a in self.alternatives)
            return (f"problem {named} is not in the knowledge base; did you mean {options}? "
                    f"Put {self.alternatives[0].problem_id} in the problem field to search it.")
        if self.ambiguous:
            options = [a.label(lang) for a in self.alternatives] + list(self.candidates)
            if len(options) > SHOWN_OPTIONS:  # an imported base: a shortening may fit hundreds of its titles
                more = len(options) - SHOWN_OPTIONS
                options = [*options[:SHOWN_OPTIONS], f"另外 {more} 道题" if lang == "zh" else f"{more} more"]
            named = shown_name(self.evidence, lang)  # a fitting name is a title's length; bounded all the same
            if lang == "zh":
                lacking = "（不在知识库中的题只能参考通用资料）" if self.candidates else ""
                return (f"「{named}」可能指几道题：{'、'.join(options)}，你指的是哪一道？在题号栏填入题号即可"
                        f"检索该题{lacking}。")
            lacking = " (a problem not in the knowledge base gets general material only)" if self.candidates else ""
            return (f'"{named}" may name several problems: {", ".join(options)}; which one do you mean? '
                    f"Put its id in the problem field{lacking}.")
        if self.candidates:
            options = "; ".join(self.candidates)
            return (f"有多个题目是 {self.evidence}，你指的是哪一个：{options}？" if lang == "zh"
                    else f"several problems are {self.evidence}; which one do you mean: {options}?")
        if self.missing_id is not None and self.rule in ("title", "name"):  # named by its title
            return (f"题目「{shown_name(self.missing_id, lang)}」不在知识库中" if lang == "zh"
                    else f'problem "{shown_name(self.missing_id)}" is not in the knowledge base')
        if self.missing_id is not None:
            return (f"题目 {shown_name(self.missing_id, lang)} 不在知识库中" if lang == "zh"
                    else f"problem {shown_name(self.missing_id)} is not in the knowledge base")
        if self.problem_id is None:
            return "未识别出题目" if lang == "zh" else "no problem recognised"
        how = {"field": ("from the problem field", "来自题号栏"), "id": ("by its id in the text", "按文中的题号"),
               "title": ("by its title in the question", "按问题中的题目名称"),
               "reworded": ("by its title, reworded, in the question", "按问题中改写的题目名称"),
               "code": ("by the judge's function name in the code", "按代码中评测平台的函数名"),
               "consensus": ("because most top sources are about it", "因为大多数检索结果属于该题")}[self.rule]
        return f"题目 {self.problem_id}（{how[1]}）" if lang == "zh" else f"problem {self.problem_id} ({how[0]})"
