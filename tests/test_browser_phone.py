"""The real app on phone-sized screens with touch, in real headless Chromium: measured geometry.

Widths 360 and 390 CSS px (the common Android and iPhone widths), in Chinese and English. The
on-screen keyboard is simulated the way a browser that resizes the page for it behaves: the
viewport gets shorter (420 px) while a field has focus. Shares the app server with
tests/test_browser.py (`quest_app` is session-scoped); skips like it without Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from quest.i18n import t
from tests.fakes.app_server import RunningApp
from tests.test_browser import CPP_CODE, _idle, _last_answer, _wait_until, browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

__all__ = ["browser"]  # the shared Chromium fixture, used by name

KEYBOARD_HEIGHT = 420  # what is left of an 800 px phone screen with the keyboard up
LONG_LINE = "// " + "x" * 400  # an unbroken line far wider than any phone
# An answer with the shapes that once made the conversation scroll sideways: a long inline
# code span, a long link, and a code block with a long line.
ANSWER = [
    "Your loop reads `" + "very_long_identifier_" * 8 + "` on every step [1]. ",
    "See https://oj.example.edu/discuss/" + "a" * 120 + " for details.\n\n",
    "```cpp\nint main() { " + "x" * 200 + " }\n```\n\n",
    "Keep a deque of indices instead [2]. Done.",
]

GEOMETRY = """() => {
  const box = (el) => { const b = el.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, left: b.left,
                                                                      right: b.right, width: b.width}; };
  const one = (s) => { const el = document.querySelector(s); return el ? box(el) : null; };
  // Gradio writes an elem_id on two nested elements; the composer's top is its fields' top.
  const composerTop = Math.min(...['#q-question', '#q-actions'].map((s) => one(s).top));
  const scroller = document.querySelector('#q-code .cm-scroller');
  const label = document.querySelector('#q-code label, #q-code [data-testid="block-info"]');
  // Boxes in the chat and the sources whose content is wider than they are (code blocks scroll
  // inside their <pre>, which is allowed).
  const overflowing = [...document.querySelectorAll('#q-chat *, #q-sources-panel *')]
    .filter((e) => !e.closest('pre') && e.clientWidth && e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${(e.className || e.tagName).toString().slice(0, 40)} ${e.scrollWidth}>${e.clientWidth}`);
  const cards = [...document.querySelectorAll('.q-src')].map(box);
  const sizes = [...document.querySelectorAll('.q-src-title, .q-src-origin, .q-kind, .q-src-group-head')]
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  return {
    scrollWidth: document.scrollingElement.scrollWidth, innerWidth, innerHeight, composerTop,
    send: one('#q-send'), clear: one('#q-clear'), question: one('#q-question textarea'), code: one('#q-code'),
    codeScroll: scroller ? [scroller.scrollWidth, scroller.clientWidth] : null,
    label: label ? {...box(label), text: label.innerText, size: parseFloat(getComputedStyle(label).fontSize)} : null,
    overflowing, cards, sourceFontSizes: sizes,
    diagnostics: one('#q-diagnostics'),
  };
}"""


@pytest.fixture
def phone(browser: Any, live_app: RunningApp) -> Iterator[Any]:
    contexts = []

    def open_(width: int, height: int, locale: str, *, touch: bool = True) -> Any:
        context = browser.new_context(locale=locale, viewport={"width": width, "height": height},
                                      device_scale_factor=2 if touch else 1,
                                      is_mobile=touch, has_touch=touch)  # fmt: skip
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(live_app.url, wait_until="load")
        page.wait_for_selector("#q-send")
        lang = "zh" if locale.startswith("zh") else "en"
        page.wait_for_function(f"document.querySelector('#q-send').innerText.includes('{t('send', lang)}')")
        page.wait_for_function("document.querySelector('#q-status-line .q-dot-ok') !== null")
        return page

    yield open_
    for context in contexts:
        context.close()


def measure(page: Any) -> dict[str, Any]:
    return page.evaluate(GEOMETRY)


def assert_fits(g: dict[str, Any]) -> None:
    assert g["scrollWidth"] <= g["innerWidth"], f"the page scrolls sideways: {g['scrollWidth']} > {g['innerWidth']}"
    for name in ("send", "clear"):
        box = g[name]
        assert box["left"] >= 0 and box["right"] <= g["innerWidth"], (name, box)
        assert box["top"] >= 0 and box["bottom"] <= g["innerHeight"], (name, box)


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
@pytest.mark.parametrize("size", [(360, 800), (390, 844)], ids=["360x800", "390x844"])
def test_a_student_asks_from_a_phone(phone, live_app: RunningApp, size: tuple[int, int], locale: str) -> None:
    width, height = size
    lang = "zh" if locale.startswith("zh") else "en"
    live_app.ollama.tokens = list(ANSWER)
    page = phone(width, height, locale)
    assert_fits(measure(page))

    problem = page.locator("#q-problem input")
    problem.tap()
    problem.fill("sliding")
    page.locator("ul.options li", has_text="Sliding Window Maximum").first.tap()
    page.locator("#q-code .cm-content").tap()
    page.keyboard.insert_text(CPP_CODE + "\n" + LONG_LINE + "\n")
    detected = t("code_detected", lang, name="C++")
    page.wait_for_function(f"document.querySelector('#q-code').innerText.includes({detected!r})")
    question = page.locator("#q-question textarea")
    question.tap()
    question.fill("为什么全是负数时答案错了？" if lang == "zh" else "Why is it wrong when every number is negative?")

    g = measure(page)
    assert_fits(g)
    # The detected language is readable: the whole label inside the code box and the screen.
    label, code = g["label"], g["code"]
    assert label["text"] == detected and label["size"] >= 12
    assert code["left"] <= label["left"] and label["right"] <= code["right"] <= width, (label, code)
    # The 400-character line scrolls inside the code box; the page itself does not widen.
    inner, visible = g["codeScroll"]
    assert inner > visible + 1000 and visible <= code["width"]

    # The keyboard comes up while the question is typed: Send and the question stay on screen.
    page.set_viewport_size({"width": width, "height": KEYBOARD_HEIGHT})
    page.wait_for_timeout(200)
    g = measure(page)
    assert_fits(g)
    assert g["question"]["top"] >= 0 and g["question"]["bottom"] <= g["send"]["top"] + 1
    page.set_viewport_size({"width": width, "height": height})

    page.locator("#q-send").tap()
    _wait_until(lambda: "Done." in _last_answer(page).inner_text(), what="the streamed answer")
    _idle(page)
    assert "deque of indices" in _last_answer(page).inner_text()
    page.wait_for_selector("#q-sources-panel .q-src")
    g = measure(page)
    assert_fits(g)
    assert g["overflowing"] == []  # a long `inline code` or link wraps; only the code block scrolls
    assert g["cards"] and all(c["left"] >= 0 and c["right"] <= width for c in g["cards"]), g["cards"]
    assert min(g["sourceFontSizes"]) >= 12, g["sourceFontSizes"]


def test_the_composer_steps_aside_while_the_code_box_has_the_keyboard(phone, live_app: RunningApp) -> None:
    """With the keyboard up, a fixed composer sat over the code box's caret (measured: caret at
    320-334 px, composer from 288 px of 420). It goes back into the page while another field has
    focus, and comes back to the bottom for the question; it moves only between taps, so a tap on
    Send from the code box still sends (with a :has() rule the composer moved under the finger
    and the tap was lost)."""
    page = phone(360, 800, "en-US")
    page.set_viewport_size({"width": 360, "height": KEYBOARD_HEIGHT})
    page.locator("#q-code .cm-content").tap()
    page.keyboard.insert_text(CPP_CODE)
    page.wait_for_timeout(300)
    caret = page.evaluate("getSelection().getRangeAt(0).getBoundingClientRect().toJSON()")
    g = measure(page)
    assert caret["top"] >= 0 and caret["bottom"] <= KEYBOARD_HEIGHT, caret
    assert caret["bottom"] <= g["composerTop"], (caret, g["composerTop"])  # nothing lies over the caret
    error = page.locator("#q-error textarea")
    error.tap()
    page.wait_for_timeout(300)
    box, g = error.bounding_box(), measure(page)
    assert box is not None and box["y"] + box["height"] <= g["composerTop"], (box, g["composerTop"])
    question = page.locator("#q-question textarea")
    question.tap()
    page.wait_for_timeout(300)
    assert_fits(measure(page))  # the composer is back at the bottom of the (short) screen
    # Straight from the code box to Send: the tap must land on Send although the composer is docked
    # when the finger comes down and goes back to the bottom once focus leaves the code box.
    question.fill("Why is it wrong when every number is negative?")
    page.locator("#q-code .cm-content").tap()
    page.wait_for_timeout(300)
    assert page.locator("#q-composer[data-docked]").count() > 0
    page.locator("#q-send").tap()
    _wait_until(lambda: "Use a deque" in _last_answer(page).inner_text(), what="the answer to the tapped Send")
    _idle(page)
    assert page.locator("#q-composer[data-docked]").count() == 0
    assert_fits(measure(page))


def test_the_end_of_the_page_is_not_under_the_composer(phone) -> None:
    """The diagnostics, the page's last part, lay under the fixed composer (707-747 px under a
    composer from 668 px): it could not be reached. The page now ends with room for the composer,
    also when a long question makes the composer taller."""
    page = phone(360, 800, "zh-CN")
    for question in ("", "第一行\n第二行\n第三行\n第四行\n第五行\n第六行\n第七行"):
        page.locator("#q-question textarea").fill(question)
        page.wait_for_timeout(200)
        page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
        page.wait_for_timeout(200)
        g = measure(page)
        assert g["diagnostics"]["bottom"] <= g["composerTop"], (question, g["diagnostics"], g["composerTop"])


def test_the_streaming_answer_is_kept_above_the_composer(phone, live_app: RunningApp) -> None:
    """quest.js keeps the newest answer in view while it streams. It followed the answer's own
    bottom, which lies inside the conversation's scrolling box and moves each time the chatbot
    scrolls that box: with an answer longer than the box the page ended scrolled past the
    conversation (measured: the answer's visible part at -1276 to -862 px, the form on screen).
    It also measured the composer with querySelector, which finds Gradio's outer, 0 px tall
    copy of #q-composer."""
    live_app.ollama.tokens = [f"Step {i}: move the left end of the window past index {i}.\n\n" for i in range(1, 25)]
    live_app.ollama.pause_at = frozenset({20})
    page = phone(360, 800, "en-US")
    page.locator("#q-question textarea").fill("Walk me through the window.")
    page.locator("#q-send").tap()
    _wait_until(lambda: "Step 20" in _last_answer(page).inner_text(), what="20 streamed steps")
    page.wait_for_timeout(300)
    # The answer scrolls inside the conversation's own box: what shows of it is the overlap.
    shown = page.evaluate("""() => {
      const rows = document.querySelectorAll('#q-chat .bot-row'), row = rows[rows.length - 1].getBoundingClientRect();
      const chat = [...document.querySelectorAll('#q-chat .bubble-wrap')].pop().getBoundingClientRect();
      return {top: Math.max(row.top, chat.top), bottom: Math.min(row.bottom, chat.bottom), height: row.height};
    }""")
    g = measure(page)
    assert shown["height"] > g["innerHeight"]  # longer than the screen
    assert shown["top"] >= 0 and shown["bottom"] - shown["top"] > 200, shown
    assert shown["bottom"] <= g["composerTop"] + 1, (shown, g["composerTop"])
    live_app.ollama.proceed()
    _idle(page)


# Gradio's icon buttons in the conversation: Clear in its corner, Copy under each message.
MESSAGE_BUTTONS = """() => [...document.querySelectorAll('#q-chat .icon-button-wrapper button')]
  .filter((b) => b.offsetParent !== null)
  .map((b) => { const r = b.getBoundingClientRect();
                return {label: b.getAttribute('aria-label') || b.title || '', left: r.left, right: r.right,
                        width: r.width, height: r.height}; })"""


def test_the_chat_s_message_buttons_are_big_enough_for_a_finger(phone, live_app: RunningApp) -> None:
    """Gradio's buttons in the conversation (Clear, Copy under each message) measured 18x18 px on a
    phone (360x800), under the 44 px a fingertip needs (WCAG 2.5.5, Apple's and Google's guidelines);
    on a touch screen they are at least 44x44 px and stay on the screen."""
    live_app.ollama.tokens = ["Keep a deque of indices. Done."]
    page = phone(360, 800, "en-US")
    page.locator("#q-question textarea").fill("Why is it wrong when every number is negative?")
    page.locator("#q-send").tap()
    _wait_until(lambda: "Done." in _last_answer(page).inner_text(), what="the answer")
    _idle(page)
    page.wait_for_selector("#q-chat .message-buttons button")
    buttons = page.evaluate(MESSAGE_BUTTONS)
    labels = sorted(b["label"] for b in buttons)
    assert labels == ["Clear", "Copy message", "Copy message"], buttons
    small = [b for b in buttons if b["width"] < 44 or b["height"] < 44]
    assert small == [], small
    assert all(b["left"] >= 0 and b["right"] <= 360 for b in buttons), buttons
    assert_fits(measure(page))


def test_the_question_s_bubble_shows_no_bidi_controls(phone, live_app: RunningApp) -> None:
    """A right-to-left override (U+202E) in a question reversed the rest of its line in the student's
    bubble ("gnp.exe" showed as "exe.png"). The page shows the question without the controls; the
    model reads it as typed."""
    question = "Is \u202egnp.exe\u202c the file my code reads?"
    live_app.ollama.tokens = ["It reads stdin. Done."]
    page = phone(360, 800, "en-US")
    page.locator("#q-question textarea").fill(question)
    page.locator("#q-send").tap()
    _wait_until(lambda: "Done." in _last_answer(page).inner_text(), what="the answer")
    _idle(page)
    bubble = page.locator("#q-chat .user-row").last.inner_text()
    assert "Is gnp.exe the file my code reads?" in bubble and "\u202e" not in bubble and "\u202c" not in bubble
    assert question in live_app.ollama.chat_bodies[-1]["messages"][-1]["content"]


# The conversation's label and its Clear panel, and the box the messages scroll in.
CHAT_HEAD = """() => {
  const box = (el) => { const b = el.getBoundingClientRect(); return {top: b.top, bottom: b.bottom}; };
  const chat = [...document.querySelectorAll('#q-chat')].pop();
  const scroller = chat.querySelector('.bubble-wrap');
  return {label: box(chat.querySelector('[data-testid="block-label"]')),
          panel: box(chat.querySelector('.icon-button-wrapper.top-panel')),
          messages: box(scroller), scrolls: scroller.scrollHeight > scroller.clientHeight + 1};
}"""


@pytest.mark.parametrize("device", ["phone", "desktop"])
def test_a_long_answer_does_not_scroll_under_the_chat_s_label(phone, live_app: RunningApp, device: str) -> None:
    """Gradio floats the conversation's label ("Conversation") and its Clear panel over the box the
    messages scroll in: once an answer was longer than the box (always on a phone) its lines scrolled
    under them and the label hid words of the answer (the README's phone screenshot). The box now
    starts below both. On a phone the page also stays on the conversation when the answer ends."""
    live_app.ollama.tokens = [f"Step {i}: move the left end of the window past index {i}.\n\n" for i in range(1, 25)]
    width, height = (360, 800) if device == "phone" else (1366, 900)
    page = phone(width, height, "en-US", touch=device == "phone")
    page.locator("#q-question textarea").fill("Walk me through the window.")
    page.locator("#q-send").click()
    _wait_until(lambda: "Step 24" in _last_answer(page).inner_text(), what="the long answer")
    _idle(page)
    page.wait_for_timeout(300)
    head = page.evaluate(CHAT_HEAD)
    assert head["scrolls"], head  # the answer is longer than its box
    assert head["label"]["bottom"] <= head["messages"]["top"], head
    assert head["panel"]["bottom"] <= head["messages"]["top"], head
    if device == "phone":  # the page was not pushed on past the conversation (scroll anchoring)
        assert 0 <= head["messages"]["top"] < height / 2, head
