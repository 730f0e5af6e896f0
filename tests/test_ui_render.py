"""Escaping and rendering of answers, sources and the status line."""

from __future__ import annotations

import json

from quest.events import Notice
from quest.ui.render import (
    SourceGroup,
    answer_markdown,
    diagnostics_html,
    link_citations,
    safe_markdown,
    source_dicts,
    sources_html,
    sources_json,
    sources_panel_html,
    student_status_html,
    timing_parts,
    without_bidi_controls,
)
from tests.fakes.assistant import make_source

XSS = "<img src=x onerror=alert(1)> and <script>alert(2)</script>"


def test_raw_tags_outside_code_are_escaped():
    assert safe_markdown(XSS) == "&lt;img src=x onerror=alert(1)> and &lt;script>alert(2)&lt;/script>"


def test_code_spans_and_fences_stay_verbatim():
    text = "Use `vector<int>` here.\n```cpp\n#include <vector>\nint main() {}\n```\nafter <b>"
    assert safe_markdown(text) == "Use `vector<int>` here.\n```cpp\n#include <vector>\nint main() {}\n```\nafter &lt;b>"


def test_unclosed_fence_keeps_the_rest_as_code():
    # While an answer streams, the fence is still open: Markdown shows the rest as code too.
    assert safe_markdown("see:\n```python\nif a < b:\n") == "see:\n```python\nif a < b:\n"


def test_tilde_fence_and_longer_closing_fence():
    text = "~~~\n<x>\n~~~~\n<y>"
    assert safe_markdown(text) == "~~~\n<x>\n~~~~\n&lt;y>"


def test_unmatched_backtick_does_not_open_code():
    assert safe_markdown("a ` <img src=x>") == "a ` &lt;img src=x>"


def test_escaped_backtick_does_not_open_code():
    # "\`" is a literal backtick in Markdown, so the tag after it is not inside a code span.
    assert safe_markdown("\\`<img src=x onerror=alert(1)>`") == "\\`&lt;img src=x onerror=alert(1)>`"


def test_backslash_before_tag_cannot_unescape_it():
    assert safe_markdown("\\<script>") == "&lt;script>"


def test_code_span_with_pipe_is_escaped_too():
    # A table would split the span at "|" and leave the tag as raw HTML: keep it inert.
    assert safe_markdown("| `a | <img src=x> | b` |") == "| `a | &lt;img src=x> | b` |"


def test_markdown_images_are_disabled():
    assert safe_markdown("![pixel](http://evil.example/p.png)") == "!\\[pixel](http://evil.example/p.png)"


def test_answer_markdown_puts_notices_first_and_marks_incomplete():
    notices = [Notice("llm_unavailable", "Ollama is not running: <start it>", "warning")]
    text = answer_markdown("Partial [1]", notices, lang="en", incomplete=True)
    assert text == "> Ollama is not running: &lt;start it>\n\nPartial [1]\n\n*(The answer is incomplete.)*"


def test_answer_markdown_streaming_cursor_and_stopped_zh():
    assert answer_markdown("", (), streaming=True) == "▍"
    assert answer_markdown("abc", (), streaming=True) == "abc ▍"
    assert answer_markdown("abc", (), lang="zh", stopped=True) == "abc\n\n*（已停止。）*"


def test_sources_html_escapes_and_marks_cited():
    sources = [
        make_source(1, "official_solution", title="<b>Title</b>", text=XSS),
        make_source(2, "error_pattern", title="list.pop(0) is O(k)", problem_id=None, score=0.5),
    ]
    html = sources_html(sources, cited=[1], lang="en")
    assert "<script>" not in html and "<img" not in html and "<b>Title" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;b&gt;Title&lt;/b&gt;" in html
    assert html.count('class="q-src q-src-cited"') == 1
    assert html.count('class="q-src"') == 1
    assert 'id="q-src-1-1"' in html and 'id="q-src-1-2"' in html
    assert "Official solution" in html and "Common error" in html
    assert "score 0.83" in html and "problem 239" in html
    assert html.count("<details>") == 2


def test_sources_html_labels_in_chinese_and_empty_states():
    html = sources_html([make_source(1, "faq")], cited=[], lang="zh")
    assert "常见问题" in html and "相似度 0.83" in html and "已引用" not in html
    assert "来源会显示在这里" in sources_html(None, lang="zh")
    assert "No source in the knowledge base" in sources_html([], lang="en")


def test_source_dicts_and_json():
    sources = [make_source(1), make_source(2, "faq", problem_id=None, score=0.123456)]
    assert source_dicts(sources, cited=[2])[1] == {
        "number": 2, "kind": "faq", "label": "faq", "title": "滑动窗口最大值 - 官方题解", "section": "",
        "problem_id": None, "score": 0.1235, "doc_id": "doc2", "chunk_id": "doc2#0", "cited": True,
    }  # fmt: skip
    data = json.loads(sources_json(sources, [1]))
    assert [d["cited"] for d in data] == [True, False]
    assert data[0]["text"] == "Use a deque."


def test_status_html_shows_everything_escaped():
    status = {
        "model": "qwen<2.5>", "ollama_reachable": False, "embedding_mode": "bm25-only",
        "documents": 12, "chunks": 34, "problems": 3, "notices": ["embedding model unavailable: <offline>"],
    }  # fmt: skip
    stats = {"retrieval_ms": 35.2, "ttft_ms": 1520, "tokens_per_second": 24.46, "first_token_ms": 9}
    html = diagnostics_html(status, lang="en", last_stats=stats)
    assert "qwen&lt;2.5&gt;" in html
    assert "Ollama not reachable: answers from the sources only" in html
    assert "bm25-only" in html and "12 documents, 34 chunks" in html
    assert "retrieval 35 ms · first token 1.5 s · 24.5 tokens/s" in html
    assert "embedding model unavailable: &lt;offline&gt;" in html


def test_status_html_starting_and_failed():
    assert "Starting… building index 40%" in diagnostics_html(None, lang="en", starting="building index 40%")
    failed = diagnostics_html(None, lang="zh", failed="<boom>")
    assert "Quest 启动失败：&lt;boom&gt;" in failed


def test_timing_parts_ignores_unknown_and_bad_values():
    parts = timing_parts({"retrieval_ms": "x", "completion_tokens": 180, "total_ms": 2500}, "zh")
    assert parts == ["总计 2.5 s", "180 词元"]
    assert timing_parts(None, "en") == []


def test_a_notice_the_answer_already_says_is_not_repeated():
    line = "Ollama is not reachable at http://127.0.0.1:9, so there is no generated answer."
    notices = [Notice("llm_unavailable", line, "warning"), Notice("retrieval", "BM25 only", "info")]
    assert answer_markdown(line + "\n\nFrom the sources: ...", notices) == (
        "> BM25 only\n\n" + line + "\n\nFrom the sources: ..."
    )


def test_sources_are_in_rank_order_markdown_rendered_and_kept_per_answer():
    low = {"number": 1, "kind": "faq", "title": "Low", "score": 0.30, "text": "plain"}
    high = {"number": 2, "kind": "error_pattern", "title": "High", "score": 0.35,
            "text": "Why:\n\n```python\nw.pop(0)  # <b>\n```", "url": "https://oj.example/p/239", "problem_id": "239"}
    first = SourceGroup(1, "first question", ({"number": 1, "kind": "faq", "title": "Old", "score": 0.9, "text": "o"},))
    html = sources_panel_html([first, SourceGroup(2, "second <q>", (low, high), (2,))], lang="en")
    assert html.index("Answer 2 · second &lt;q&gt;") < html.index("Answer 1 · first question")  # newest first
    assert html.index(">High<") < html.index(">Low<")  # 0.35 above 0.30
    assert "<pre><code class=\"language-python\">w.pop(0)  # &lt;b&gt;\n</code></pre>" in html
    assert 'href="https://oj.example/p/239"' in html and "problem 239" in html
    assert 'id="q-src-1-1"' in html and 'id="q-src-2-2"' in html


RLO, PDF, LRI, PDI = "\u202e", "\u202c", "\u2066", "\u2069"  # right-to-left override, pop, isolate, pop


def test_bidi_controls_are_removed_from_shown_text_only_those():
    every = "".join(map(chr, [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]))
    assert without_bidi_controls(f"a{every}b") == "ab"
    # Right-to-left text itself, the marks (LRM/RLM, which reorder nothing by themselves) and other
    # invisible characters are left alone.
    kept = "שלום مرحبا \u200e\u200f\u200b\u2060x"
    assert without_bidi_controls(kept) == kept


def test_a_question_s_bidi_controls_do_not_reach_its_sources_heading():
    html = sources_panel_html([SourceGroup(1, f"is <b>{RLO}fdp.txt{PDF}</b> ok" + "y" * 80, ())], lang="en")
    assert "Answer 1 · is &lt;b&gt;fdp.txt&lt;/b&gt; ok" + "y" * 59 + "…</div>" in html
    assert RLO not in html and PDF not in html


def test_citations_become_links_outside_code_only():
    text = "See [1] and [2].\n```\nx[1]\n```\n`a[2]` [3](http://x)"
    assert link_citations(text, 4) == (
        "See [[1]](#q-src-4-1) and [[2]](#q-src-4-2).\n```\nx[1]\n```\n`a[2]` [3](http://x)"
    )


def test_the_student_status_is_short_and_in_their_language():
    assert "AI answers ready" in student_status_html({"ollama_reachable": True}, lang="en")
    assert "AI 回答已就绪" in student_status_html({"ollama_reachable": True}, lang="zh")
    assert "Answers from the course notes only right now" in student_status_html({}, lang="en")
    assert "请告诉老师" in student_status_html(None, lang="zh", failed="OSError: disk")


def test_imported_source_shows_its_judge_link_and_source_name():
    from dataclasses import replace

    imported = replace(make_source(1, problem_id="hustoj-main:1007"), source_name="hustoj-main",
                       url="http://oj.example.edu/problem.php?id=1007")
    hostile = replace(make_source(2), url="javascript:alert(1)")
    html_out = sources_html([imported, hostile])
    assert '<a href="http://oj.example.edu/problem.php?id=1007" target="_blank" rel="noopener noreferrer">' in html_out
    assert "hustoj-main" in html_out.split('data-number="1"')[1].split('data-number="2"')[0]
    assert "javascript:" not in html_out


def test_diagnostics_show_each_model_host_escaped():
    status = {"model": "m", "ollama_reachable": True, "embedding_mode": "bm25-only", "documents": 2, "chunks": 3,
              "model_hosts": [
                  {"host": "http://gpu1:11434", "healthy": True, "in_flight": 2, "served": 40, "failures": 0,
                   "retry_in_s": 0.0, "last_error": ""},
                  {"host": "http://gpu2:11434", "healthy": False, "in_flight": 0, "served": 7, "failures": 3,
                   "retry_in_s": 12.5, "last_error": "<refused>"},
              ]}
    out = diagnostics_html(status, lang="en")
    assert "http://gpu1:11434: healthy, 2 in flight, 40 served, 0 failed" in out
    assert "http://gpu2:11434: skipped for 12.5 s (&lt;refused&gt;), 0 in flight, 7 served, 3 failed" in out
    zh = diagnostics_html(status, lang="zh")
    assert "gpu2:11434：暂停使用 12.5 秒（&lt;refused&gt;），进行中 0，已完成 7，失败 3" in zh


def test_the_ask_api_serialises_an_answers_sources_again_only_when_they_change():
    from quest.ui.api import _SourcesJson
    from tests.fakes.assistant import make_source

    found = (make_source(1), make_source(2))
    as_json = _SourcesJson()
    first = as_json(found, ())
    assert as_json(found, ()) is first  # the same sources on the next token: the same text, not made again
    cited = as_json(found, (2,))
    assert cited is not first and '"cited": true' in cited and '"cited": true' not in first
    assert as_json(None, ()) == "[]"
