from quest.thinking import ThinkSplitter


def run(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkSplitter()
    answer, thinking = [], []
    for piece in pieces:
        a, t = splitter.feed(piece)
        answer.append(a)
        thinking.append(t)
    a, t = splitter.flush()
    return "".join(answer) + a, "".join(thinking) + t


def test_tags_split_across_chunks() -> None:
    pieces = ["<thi", "nk>plan the", " answer</th", "ink>\n\nUse a ", "deque [1]", " <", "b>ok</b>"]
    assert run(pieces) == ("\n\nUse a deque [1] <b>ok</b>", "plan the answer")


def test_one_character_at_a_time() -> None:
    text = "<think>why O(k)?</think>Because pop(0) shifts."
    assert run(list(text)) == ("Because pop(0) shifts.", "why O(k)?")


def test_no_tags_streams_through_immediately() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("a < b and c") == ("a < b and c", "")
    assert splitter.feed(" <t") == (" ", "")  # "<t" could still become "<think>"
    assert splitter.feed("d>") == ("<td>", "")


def test_stray_closing_tag_is_dropped_and_unfinished_thinking_stays_thinking() -> None:
    assert run(["answer</think> more"]) == ("answer more", "")
    assert run(["<think>still thinking"]) == ("", "still thinking")
