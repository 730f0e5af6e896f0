"""The app launched in this process, driven through `gradio_client` and its `/ask` endpoint.

Real assistant and index (tiny bge-m3 model), fake Ollama on 127.0.0.1: see tests/fakes/app_server.py.
"""

from __future__ import annotations

import itertools
import json
import logging
import time

import pytest

from quest.i18n import t
from quest.ratelimit import RateLimiter
from tests.fakes.app_server import LOCKED_PROBLEM, RunningApp
from tests.fakes.ollama_server import DEFAULT_TOKENS
from tests.test_resolve_aliases21 import AMBIGUOUS_EN, AMBIGUOUS_ZH

pytestmark = pytest.mark.slow

SLIDING_CODE = "def maxSlidingWindow(nums, k):\n    w = []\n    for x in nums:\n        w.append(x)\n        w.pop(0)\n"


def _ask(app: RunningApp, checkpoints: tuple[str, ...] = (), **fields):
    """Every output of one /ask call. `checkpoints`: the partial answers at which the fake model was told
    to pause (`pause_at`); each lets the model go on only once the client has received it."""
    job = app.client().submit(api_name="/ask", **fields)
    outputs, waiting = [], list(checkpoints)
    for output in job:
        outputs.append(tuple(output))
        if waiting and output[0] == waiting[0]:
            waiting.pop(0)
            app.ollama.proceed()
    assert waiting == [], f"never received the partial answers {waiting}"
    final = tuple(job.result())
    if not outputs or outputs[-1] != final:
        outputs.append(final)
    return outputs


def test_ask_endpoint_is_documented_with_the_form_fields(live_app: RunningApp):
    info = live_app.client().view_api(return_format="dict", print_info=False)
    endpoint = info["named_endpoints"]["/ask"]
    params = [p["parameter_name"] for p in endpoint["parameters"]]
    assert params == ["question", "problem", "language", "code", "verdict", "error", "tier", "lang"]
    for param in endpoint["parameters"]:
        assert param["type"]["type"] == "string", param
        assert param["label"].startswith(param["parameter_name"] + ": ") and len(param["type"]["description"]) > 20
    problem = next(p for p in endpoint["parameters"] if p["parameter_name"] == "problem")
    assert "title" in problem["type"]["description"]
    assert [r["label"].split(":")[0] for r in endpoint["returns"]] == ["answer", "sources", "status"]
    assert [r["python_type"]["type"] for r in endpoint["returns"]][:2] == ["str", "str"]
    assert "done" in endpoint["returns"][2]["type"]["enum"]
    assert set(info["named_endpoints"]) == {"/ask"}  # the page's own events are private


def test_a_request_streams_partial_answers_then_the_full_answer_with_sources(live_app: RunningApp):
    tokens = ["Your ", "`w.pop(0)` ", "is ", "O(k) ", "[1]", "; use ", "a deque", "."]
    live_app.ollama.tokens = tokens
    # The model pauses after pieces 2, 4 and 6 until the client has those partial answers: it streams
    # in parts however busy the machine is (a per-token delay raced the server's coalescing).
    live_app.ollama.pause_at = frozenset({2, 4, 6})
    parts = tuple("".join(tokens[:n]) for n in (2, 4, 6))
    outputs = _ask(live_app, parts, question="Why is my sliding window too slow?", problem="239", language="python",
                   code=SLIDING_CODE, verdict="TLE", error="Time Limit Exceeded on test 14", tier="explain")
    answers = [o[0] for o in outputs]
    statuses = [o[2] for o in outputs]
    final_answer, final_sources, final_status = outputs[-1]
    assert final_status == "done"
    assert final_answer == "Your `w.pop(0)` is O(k) [1]; use a deque."
    # it grew: several distinct partial answers, each a prefix of the next
    partial = [a for a, s in zip(answers, statuses, strict=True) if s == "streaming" and a]
    assert len(set(partial)) >= 3
    assert all(b.startswith(a) for a, b in itertools.pairwise(partial))
    sources = json.loads(final_sources)
    assert sources and sources[0]["number"] == 1 and sources[0]["cited"] is True
    assert any(s["problem_id"] == "239" for s in sources)
    assert all({"label", "title", "score", "kind", "text"} <= set(s) for s in sources)
    # the student's code reached the model inside the prompt
    assert "w.pop(0)" in live_app.ollama.chat_text()


def test_a_stopped_request_stops(live_app: RunningApp):
    live_app.ollama.tokens = [f"word{i} " for i in range(60)]
    live_app.ollama.delay = 0.2
    job = live_app.client().submit(question="Why TLE?", problem="239", code=SLIDING_CODE, verdict="TLE",
                                   api_name="/ask")  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        outs = job.outputs()
        if outs and "word2 " in outs[-1][0]:
            break
        time.sleep(0.05)
    else:
        pytest.fail("no partial answer arrived")
    job.cancel()
    # the model's stream is closed: Ollama sees the client go away long before the 60 tokens
    assert live_app.ollama.client_closed.wait(10), "the Ollama stream was not closed"
    (_when, sent) = live_app.ollama.disconnects[0]
    assert sent < 60
    assert all(o[2] == "streaming" for o in job.outputs())


@pytest.mark.parametrize(
    ("fields", "key", "values"),
    [
        ({"question": "   "}, "input_empty", {}),
        ({"question": "x" * 501}, "input_too_long", {"field": "question", "length": "501", "limit": "500"}),
        ({"question": "q", "code": "c" * 3001}, "input_too_long", {"field": "code", "length": "3,001",
                                                                   "limit": "3,000"}),
        ({"question": "q", "error": "e" * 1001}, "input_too_long", {"field": "error", "length": "1,001",
                                                                    "limit": "1,000"}),
    ],
    ids=["empty", "question", "code", "error"],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_oversized_or_empty_field_gets_its_message(live_app: RunningApp, fields, key, values, lang):
    if "field" in values:
        values = {**values, "field": t(f"field_{values['field']}", lang)}
    outputs = _ask(live_app, lang=lang, **fields)
    assert outputs[-1] == (t(key, lang, **values), "[]", "error")
    assert live_app.ollama.chat_bodies == []


def test_a_locked_problem_is_refused(live_app: RunningApp):
    answer, sources, status = _ask(live_app, question="How do I solve it?", problem=LOCKED_PROBLEM,
                                   code="def twoSum(nums, target): pass", lang="en")[-1]  # fmt: skip
    assert status == "refused"
    assert answer.startswith("Help for this problem is paused right now (contest in progress)")
    assert json.loads(sources) == []
    assert live_app.ollama.chat_bodies == []  # the model never saw it


def test_ollama_down_gives_the_retrieval_only_answer(live_app: RunningApp):
    live_app.ollama.stop()
    answer, sources, status = _ask(live_app, question="Why TLE?", problem="239", code=SLIDING_CODE, verdict="TLE",
                                   lang="en")[-1]  # fmt: skip
    assert status == "fallback"
    student = "The AI helper is not available right now, so here is what the course notes say about your question."
    assert answer.startswith(student) and answer.count(student) == 1
    assert "ollama" not in answer.lower() and live_app.ollama.url not in answer  # nothing a student cannot act on
    assert json.loads(sources), "the sources still come"


def test_the_problem_may_be_given_by_its_picker_label(live_app: RunningApp):
    label = "239 · 滑动窗口最大值 · Sliding Window Maximum"
    answer, _, status = _ask(live_app, question="What is wrong?", problem=label, code=SLIDING_CODE, lang="en")[-1]
    assert status == "done" and answer == "".join(DEFAULT_TOKENS)
    assert "239" in live_app.ollama.chat_text()


def test_the_problem_may_be_given_by_its_title(live_app: RunningApp):
    answer, _, status = _ask(live_app, question="What is wrong?", problem="Sliding Window Maximum", code=SLIDING_CODE,
                             lang="en")[-1]  # fmt: skip
    assert status == "done" and answer == "".join(DEFAULT_TOKENS)
    assert "Problem 239" in live_app.ollama.chat_text() or "239" in live_app.ollama.chat_text()


def test_auto_language_follows_the_question(live_app: RunningApp):
    answer, _, status = _ask(live_app, question="   ", lang="auto")[-1]
    assert (answer, status) == (t("input_empty", "en"), "error")
    answer, _, status = _ask(live_app, question="x" * 501 + "为什么", lang="auto")[-1]
    assert status == "error" and answer.startswith("Your question is 504 characters long")
    answer, _, status = _ask(live_app, question="为什么超时" * 101, lang="auto")[-1]
    assert status == "error" and answer.startswith("你的问题有 505 个字符")


def test_rate_limit_is_per_session_and_friendly(live_app: RunningApp):
    desk = live_app.desk
    saved = desk.limiter
    desk.limiter = RateLimiter(1, window=60)
    try:
        client = live_app.client()
        first = client.predict(question="Why TLE?", problem="239", code=SLIDING_CODE, api_name="/ask")
        second = client.predict(question="Why TLE?", problem="239", code=SLIDING_CODE, api_name="/ask")
        other = live_app.client().predict(question="Why TLE?", problem="239", code=SLIDING_CODE, api_name="/ask")
    finally:
        desk.limiter = saved
    assert first[2] == "done" and other[2] == "done"
    assert second[2] == "error"
    assert second[0].startswith("You are asking faster than Quest can answer. Please wait ")


def test_no_stack_trace_and_no_data_dir_files_are_served(live_app: RunningApp):
    import urllib.error
    import urllib.request

    for path in ("/gradio_api/file=" + str(live_app.settings.data_dir / "feedback.sqlite3"),
                 "/gradio_api/file=" + str(live_app.settings.kb_dir / "problems.yaml"),
                 "/gradio_api/file=/etc/passwd"):  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(live_app.url + path, timeout=10)
        assert info.value.code in (403, 404)


def test_a_problem_the_base_lacks_named_by_its_title_is_said_so(live_app: RunningApp):
    answer, sources, status = _ask(live_app, question="力扣 课程表 II 有环时为什么没返回空数组", lang="zh")[-1]
    assert status in ("done", "fallback")
    assert answer.startswith("> 题目「课程表 II」不在知识库中")
    assert all(s["problem_id"] is None for s in json.loads(sources))  # never problem 207's material



@pytest.mark.parametrize("question,lang,notice", [
    ("buy and sell stock: my greedy misses the second transaction", "en", AMBIGUOUS_EN),
    ("二叉树深度 递归的终止条件怎么写", "zh", AMBIGUOUS_ZH),
])
def test_a_shortened_name_several_problems_fit_is_asked_about(live_app: RunningApp, question, lang, notice):
    """Round 21's ambiguity notice reaches `/ask` (review 21: tested in `search` only)."""
    answer, _sources, status = _ask(live_app, question=question, lang=lang)[-1]
    assert status in ("done", "fallback")
    assert answer.startswith(f"> {notice}\n\n")


@pytest.mark.parametrize("question,lang,notice", [
    ("buy and sell stock: my greedy misses the second transaction", "en", AMBIGUOUS_EN),
    ("二叉树深度 递归的终止条件怎么写", "zh", AMBIGUOUS_ZH),
])
def test_the_page_asks_which_problem_a_shortened_name_means(live_app: RunningApp, question, lang, notice):
    """The page's chat generator (what Send runs) with the live app's desk: the notice quoted above the answer."""
    from pathlib import Path

    from quest.ui.app import load_problems
    from quest.ui.page import QuestPage
    from quest.ui.session import Session

    page = QuestPage(live_app.settings, live_app.desk, load_problems(Path(live_app.settings.kb_dir)))
    session = Session()
    page.begin_turn(session)
    for _ in page.stream_answer(question, "", "auto", "", "", "", "explain", False, lang, session, None):
        pass
    user, answer = session.messages()
    assert user["role"] == "user" and answer["role"] == "assistant"
    assert answer["content"].startswith(f"> {notice}\n\n")

CPP_CODE = ("class Solution {\npublic:\n    int maxSubArray(vector<int>& nums) {\n        int best = 0, cur = 0;\n"
            "        for (int x : nums) { cur = max(x, cur + x); best = max(best, cur); }\n        return best;\n"
            "    }\n};\n")


def test_the_language_defaults_to_auto_and_pasted_cpp_is_answered_as_cpp(live_app: RunningApp):
    info = live_app.client().view_api(return_format="dict", print_info=False)
    language = next(p for p in info["named_endpoints"]["/ask"]["parameters"] if p["parameter_name"] == "language")
    assert (language["parameter_has_default"], language["parameter_default"]) == (True, "auto")
    assert "csharp" in language["type"]["description"] and "auto" in language["type"]["description"]
    # No language given: the code says C++, and the prompt the model received fences it as C++.
    _, _, status = _ask(live_app, question="Why is the answer wrong when all numbers are negative?", code=CPP_CODE,
                        lang="en")[-1]  # fmt: skip
    assert status == "done"
    prompt = live_app.ollama.chat_text()
    assert '<student_code language="cpp">\n1| class Solution {' in prompt
    assert "The student writes C++." in prompt and '<student_code language="python">' not in prompt
    # The field the student sets still wins.
    live_app.reset()
    _ask(live_app, question="Why is the answer wrong?", code=CPP_CODE, language="java", lang="en")
    assert '<student_code language="java">' in live_app.ollama.chat_text()


@pytest.mark.parametrize("language,fence", [("C++17", "cpp"), ("cobol", "cpp"), (5, "cpp"), ("other", "other")])
def test_a_judge_label_or_an_unknown_language_is_answered_without_an_error(live_app: RunningApp, language, fence):
    # A judge's label with a version is its language; anything unknown (even a number) is read from the code, as
    # auto; "other" is the student's own word. Never an error status (review of round 14).
    live_app.reset()
    _, _, status = _ask(live_app, question="Why is the answer wrong?", code=CPP_CODE, language=language, lang="en")[-1]
    assert status == "done"
    assert f'<student_code language="{fence}">' in live_app.ollama.chat_text()


def test_a_number_where_text_belongs_is_read_as_its_digits(live_app: RunningApp):
    # A JSON caller writes "problem": 239 without quotes; it used to fail outside /ask's error handling.
    live_app.reset()
    _, sources, status = _ask(live_app, question="Why TLE?", problem=239, code=SLIDING_CODE, lang="en")[-1]
    assert status == "done"
    assert json.loads(sources)[0]["problem_id"] == "239"
    answer, _, status = _ask(live_app, question=5, lang="en")[-1]
    assert status in ("done", "fallback") and "Traceback" not in answer


@pytest.mark.parametrize("field,value,kind", [("question", ["Why TLE?"], "list"), ("code", {"a": 1}, "dict"),
                                              ("error", True, "bool")])
def test_a_list_or_object_where_text_belongs_is_refused_plainly(live_app: RunningApp, field, value, kind):
    live_app.reset()
    fields = {"question": "Why TLE?", "problem": "239", "lang": "en", field: value}
    assert _ask(live_app, **fields) == [
        (f"The field `{field}` must be text, not {kind}. Please send it as a string.", "[]", "refused")]
    assert live_app.ollama.chat_bodies == []  # nothing was guessed from it


def _ask_raw(app: RunningApp, body: bytes) -> list[str]:
    """/ask over plain HTTP with a JSON body written by hand (gradio_client cannot send a lone surrogate): the
    `data:` lines of the event stream."""
    import httpx

    posted = httpx.post(app.url + "/gradio_api/call/ask", content=body, headers={"content-type": "application/json"},
                        timeout=30)  # fmt: skip
    assert posted.status_code == 200, posted.text
    with httpx.stream("GET", f"{app.url}/gradio_api/call/ask/{posted.json()['event_id']}", timeout=60) as reply:
        return [line.removeprefix("data: ") for line in reply.iter_lines() if line.startswith("data: ")]


@pytest.mark.parametrize("field", [0, 3, 5])  # question, code, error
def test_a_lone_surrogate_in_a_field_still_reaches_the_model(live_app: RunningApp, field: int):
    # JSON's "\ud800" decodes to a lone surrogate, which no UTF-8 encoder accepts: the model call failed and the
    # student read "The AI helper is not available right now" (status fallback) with Ollama up and well.
    live_app.reset()
    data = ["Why TLE in my sliding window?", "239", "auto", SLIDING_CODE, "TLE", "Time Limit Exceeded", "", "en"]
    data[field] += " \\ud800"
    body = ('{"data": ' + json.dumps(data).replace("\\\\ud800", "\\ud800") + "}").encode()
    answer, _, status = json.loads(_ask_raw(live_app, body)[-1])
    assert (answer, status) == ("".join(DEFAULT_TOKENS), "done")
    assert "\ufffd" in live_app.ollama.chat_text()


@pytest.mark.parametrize("question", ["\u200b\u200b", "\u202e\u2066 \u2060"])
def test_a_question_of_invisible_characters_gets_the_empty_message(live_app: RunningApp, question: str):
    assert _ask(live_app, question=question, lang="en")[-1] == (t("input_empty", "en"), "[]", "error")
    assert live_app.ollama.chat_bodies == []


def test_an_oversized_problem_or_verdict_is_refused_by_name(live_app: RunningApp):
    # The verdict had no bound: a 3 MB one reached the judge parser beside the bounded message.
    answer, sources, status = _ask(live_app, question="Why TLE?", problem="239", verdict="TLE" * 40, lang="en")[-1]
    assert (answer, sources, status) == ("Your verdict field is 120 characters long; the limit is 100. Please shorten "
                                         "it and send again (nothing was cut for you).", "[]", "error")
    assert live_app.ollama.chat_bodies == []


@pytest.mark.parametrize("garbage", [b'{"error":"llama runner process has terminated: exit status 2"}\n',
                                     b'{"message": {"content": "cut sh\n', b'{"done": true}\n', b"[1, 2]\n"],
                         ids=["error object", "json cut short", "record without message", "not an object"])
def test_a_model_stream_that_turns_to_garbage_keeps_the_partial_answer(live_app: RunningApp, garbage: bytes):
    live_app.ollama.mode, live_app.ollama.drop_after, live_app.ollama.garbage = "garbage", 2, garbage
    answer, sources, status = _ask(live_app, question="Why TLE?", problem="239", code=SLIDING_CODE, lang="en")[-1]
    # The student keeps what came and reads one plain line; what broke is for the operator's log.
    assert (answer, status) == ("> The AI helper stopped before finishing this answer. Ask again in a moment for a "
                                "complete one.\n\nUse a \n\n*(The answer is incomplete.)*", "incomplete")
    assert json.loads(sources)


def test_no_student_text_is_logged_above_debug_on_any_path(live_app: RunningApp, caplog: pytest.LogCaptureFixture):
    # The whole real pipeline (planner, retriever, judge parser, prompt, model client, HTTP logs), on a normal
    # answer, a broken model stream, a refused field and a locked problem.
    code = "def maxSlidingWindow(nums, k):\n    SECRET_CODE_7f3 = []\n    w.pop(0)\n"
    question, error = "Why TLE SECRET_Q_51c?", "Time Limit Exceeded on test 14 SECRET_ERR_9d2"
    with caplog.at_level(logging.DEBUG):
        assert _ask(live_app, question=question, problem="239", code=code, error=error, lang="en")[-1][2] == "done"
        live_app.ollama.mode, live_app.ollama.drop_after = "garbage", 1
        assert _ask(live_app, question=question, problem="239", code=code, error=error, lang="en")[-1][2] == (
            "incomplete")
        assert _ask(live_app, question=question, code=code * 200, lang="en")[-1][2] == "error"
        assert _ask(live_app, question=question, problem=LOCKED_PROBLEM, code=code, lang="en")[-1][2] == "refused"
    assert any("SECRET_CODE_7f3" in r.getMessage() for r in caplog.records)  # DEBUG has it: the test can fail
    loud = [r for r in caplog.records if r.levelno > logging.DEBUG]
    assert loud
    for record in loud:
        text = record.getMessage() + (record.exc_text or "")
        assert not any(m in text for m in ("SECRET_CODE_7f3", "SECRET_Q_51c", "SECRET_ERR_9d2")), record.getMessage()
