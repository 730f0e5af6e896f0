"""Resolution's cost (issue 9, round 12 review): the same answers as before, without work that grows with the
input times its numbers (`quest.weak_names.bare_ids`) or with the catalogue (`quest.fuzzy_titles`, the reworded
title rule of `quest.resolution`).

Each change is checked against the code it replaced, kept here: on the development splits' questions (never a
held-out split), on seeded random strings of numbers and data markers, and on the starter base's titles and a
synthetic 2,000-problem catalogue. No timing is asserted; the large inputs assert their results.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections import Counter
from collections.abc import Collection
from pathlib import Path

import pytest

from quest.bench.corpus import make_problems
from quest.fuzzy_titles import FuzzyMatch, FuzzyTitles, fuzzy_titles, units_of
from quest.kb.documents import Problem
from quest.kb.markdown import load_knowledge_base
from quest.problem_names import normalize
from quest.resolution import Catalogue
from quest.resolution.misremembered import REWORDED, _reworded_base_title, _shortened
from quest.resolution.words import _units
from quest.weak_names import _BARE, _DATA_AFTER, _DATA_BEFORE, MIN_BARE_DIGITS, WeakName, bare_ids

ROOT = Path(__file__).resolve().parent.parent
DEV_SPLITS = ("queries", "heldout-fresh", "heldout-dec", "heldout-r4", "heldout-r7", "heldout-r8", "heldout-r9",
              "heldout-r10", "heldout-r11", "dev-r7")


def dev_questions() -> list[str]:
    out = []
    for name in DEV_SPLITS:
        for line in (ROOT / "knowledge" / "eval" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("//"):
                case = json.loads(line)
                out += [case["question"], case.get("error") or ""]
    return [q for q in out if q]


# --------------------------------------------------------------------------- bare ids


def old_bare_ids(question: str, problems: Collection[str]) -> list[WeakName]:
    """`bare_ids` before the review: the data-marker pattern searched over the whole text before every number."""
    text = unicodedata.normalize("NFKC", question)
    out: list[WeakName] = []
    for m in _BARE.finditer(text):
        number = m.group(1).lstrip("0")
        if len(number) < MIN_BARE_DIGITS or number not in problems or any(w.problem_id == number for w in out):
            continue
        if _DATA_BEFORE.search(text[:m.start()]) or _DATA_AFTER.match(text, m.end()):
            continue
        out.append(WeakName(number, "id", m.group(0)))
    return out


_PIECES = ("239", "0239", "300", "322", "99999", "7", "12", "146", "k", "n =", "=", "test", "Test", "case", "this",
           "is", "his", "expected", "unexpected", "returns", "输出", "预期", "第", "题", "前", "次", "ms", "x", "for",
           "solution", "和", ",", "，", ", ", ".", "-", "[", "]", "(", ")", "/", ":", "：", "'", "\"", "#", "$", "^",
           "%", "\u3000", "２３９", "\n", "\t", " ", "  ", "      ", "lists", "at", "cat", "len", "index", "行", "to")


def random_texts(count: int, seed: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) + rng.choice(("", " ", "", "\n")) for _ in range(rng.randint(1, 30)))
            for _ in range(count)]


def test_bare_ids_agree_with_the_old_scan_on_the_development_questions(base):
    questions = dev_questions()
    assert len(questions) > 700
    for q in questions:
        assert bare_ids(q, base.problems) == old_bare_ids(q, base.problems), q


def test_bare_ids_agree_with_the_old_scan_on_random_numbers_and_markers(base):
    texts = random_texts(4000)
    found = 0
    for text in texts:
        new = bare_ids(text, base.problems)
        assert new == old_bare_ids(text, base.problems), text
        found += bool(new)
    assert found > 200  # the strings exercise both answers, not only "no weak name"


def test_a_marker_far_before_a_number_still_counts_only_right_before_it(base):
    # blanks between the marker and the number: a marker ends right before it all the same
    assert bare_ids("expected" + " " * 5000 + "239", base.problems) == []
    assert bare_ids("this" + "\n" * 40 + "239", base.problems) == [WeakName("239", "id", "239")]
    # "is" inside "this" is no marker (its look-behind reads the letter before, inside the window)
    assert bare_ids("x" * 20 + "this 239", base.problems) == [WeakName("239", "id", "239")]
    assert bare_ids("x" * 20 + " is 239", base.problems) == []


def test_a_200_kb_paste_of_numbers_is_read_to_its_end(base):
    values = "k = 239, " * 23_000  # 207 KB of values, each a base id after a data marker
    text = values + "my solution for 300 and 0322 keeps a stack"
    assert len(text) > 200_000
    assert bare_ids(text, base.problems) == [WeakName("300", "id", "300"), WeakName("322", "id", "0322")]
    short = "k = 239, " * 50 + "my solution for 300 and 0322 keeps a stack"
    assert old_bare_ids(short, base.problems) == bare_ids(short, base.problems)


# --------------------------------------------------------------------------- fuzzy titles


def old_scores(fuzzy: FuzzyTitles, question: str, floor: float) -> list[FuzzyMatch]:
    """`FuzzyTitles.scores` before the review: every title of the catalogue through the quick test."""
    norm = normalize(fuzzy._rewrite(question[:600]))
    found = units_of(norm)
    if not found:
        return []
    seq = [u for u, _, _ in found]
    have = set(seq)
    out = []
    for title in fuzzy.titles:
        quick = sum(fuzzy.weights[u] * c for u, c in title.units.items() if u in have) / title.weight
        if quick < max(floor, 0.5):
            continue
        best = fuzzy._best_window(seq, title)
        if best is None or best[0] < floor:
            continue
        score, lo, hi, missing = best
        out.append(FuzzyMatch(title.key, round(score, 4), norm[found[lo][1]:found[hi - 1][2]], missing))
    out.sort(key=lambda m: (-m.score, -len(m.key)))
    return out


def title_questions(cat: Catalogue, seed: int = 9) -> list[str]:
    """Each title as written, reordered, cut short, and inside a sentence of another title's words."""
    rng = random.Random(seed)
    shown = list(cat.shown.values())
    out = []
    for title in shown:
        words = re.findall(r"[A-Za-z0-9]+|[\u4e00-\u9fff]", title)
        rng.shuffle(words)
        other = rng.choice(shown)
        out += [title, " ".join(words), title[: max(2, len(title) * 2 // 3)],
                f"{other[:len(other) // 2]} 我的 {title} 为什么不对 {other[len(other) // 2:]}"]
    return out


def synthetic_catalogue(size: int) -> Catalogue:
    """The starter base's problems and synthetic ones (the benchmark's titles) up to `size` problems."""
    problems = dict(load_knowledge_base(ROOT / "knowledge").problems)
    for i, p in enumerate(make_problems(size - len(problems)).values()):
        pid = str(100_000 + i)
        problems[pid] = Problem(id=pid, title_zh=p.title_zh, title_en=p.title_en, difficulty=p.difficulty,
                                tags=p.tags)
    return Catalogue(problems)


def test_the_fuzzy_scores_agree_with_every_title_tested_on_the_starter_titles(base):
    questions = [*dev_questions(), *title_questions(base)]
    matched = 0
    for q in questions:
        new = base.fuzzy.scores(q, 0.0)
        assert new == old_scores(base.fuzzy, q, 0.0), q
        matched += bool(new)
    assert matched > 300


@pytest.fixture(scope="module")
def big() -> Catalogue:
    return synthetic_catalogue(2000)


def test_the_fuzzy_scores_agree_with_every_title_tested_on_2000_problems(big):
    assert len(big.problems) == 2000
    rng = random.Random(5)
    questions = [*rng.sample(dev_questions(), 150), *rng.sample(title_questions(big), 250)]
    matched = candidates = 0
    for q in questions:
        new = big.fuzzy.scores(q, 0.0)
        assert new == old_scores(big.fuzzy, q, 0.0), q
        matched += bool(new)
        have = {u for u, _, _ in units_of(normalize(big.fuzzy._rewrite(q[:600])))}
        candidates += len({at for u in have for at in big.fuzzy._by_unit.get(u, ())})
    assert matched > 150
    # what the index is for: far fewer titles tested than the catalogue holds
    assert candidates / len(questions) < len(big.fuzzy.titles) / 4


def test_catalogues_of_the_same_titles_share_one_table_and_a_changed_one_builds_its_own(base):
    again = Catalogue(base.problems)
    assert again.fuzzy is base.fuzzy
    renamed = dict(base.problems)
    renamed["560"] = Problem(id="560", title_zh="连续和等于目标的区间个数", title_en="Subarray Sum Equals K",
                             difficulty="medium", tags=("prefix_sum",))
    changed = Catalogue(renamed)
    assert changed.fuzzy is not base.fuzzy
    assert changed.titles[changed.fuzzy.scores("连续和等于目标的区间个数", 0.6)[0].key] == "560"
    assert base.fuzzy.scores("连续和等于目标的区间个数", 0.6) == []
    assert fuzzy_titles(dict(base.shown), skip=set(base.weak), rewrite=base.fuzzy._rewrite) is base.fuzzy


# --------------------------------------------------------------------------- reworded titles


def old_reworded_base_title(text: str, cat: Catalogue) -> str | None:
    """`_reworded_base_title` before the review: every title compared."""
    mine = Counter(_units(text))
    size = mine.total()
    for key, theirs in cat.title_units.items():
        common = (mine & theirs).total()
        if size and theirs and (common / max(size, theirs.total()) >= REWORDED or _shortened(mine, theirs)):
            return cat.titles[key]
    return None


def reworded_phrases(cat: Catalogue, questions: list[str], seed: int = 3) -> list[str]:
    """The questions' Chinese phrases, and each Chinese title shortened, reordered, with a character added."""
    rng = random.Random(seed)
    phrases = [p for q in questions for p in re.findall(r"[\u4e00-\u9fff]+", q)]
    han = [t for t in cat.shown.values() if re.search(r"[\u4e00-\u9fff]", t)]
    for title in han:
        chars = [c for c in title if not c.isspace()]
        rng.shuffle(chars)
        phrases += ["".join(chars), title[1:], title[:-1], title + rng.choice(han)[0], title[:2] + "的" + title[2:]]
    english = [t for t in cat.shown.values() if t.isascii()]
    phrases += [" ".join(rng.sample(t.split(), len(t.split()))) for t in english]
    return phrases


def test_reworded_titles_agree_with_every_title_compared_on_the_starter_titles(base):
    phrases = reworded_phrases(base, dev_questions())
    found = 0
    for phrase in phrases:
        new = _reworded_base_title(phrase, base)
        assert new == old_reworded_base_title(phrase, base), phrase
        found += new is not None
    assert found > 100


def test_reworded_titles_agree_with_every_title_compared_on_2000_problems(big):
    rng = random.Random(4)
    phrases = rng.sample(reworded_phrases(big, dev_questions()), 800)
    found = 0
    for phrase in phrases:
        new = _reworded_base_title(phrase, big)
        assert new == old_reworded_base_title(phrase, big), phrase
        found += new is not None
    assert found > 50
