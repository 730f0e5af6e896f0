"""The "local setup" notice (Windows' loader could not start the program: kind windows-dll, see
tests/test_local_setup_notice.py) on a 390 px phone, in real headless Chromium: measured, not assumed.

The student pastes Dev-C++'s line for STATUS_DLL_NOT_FOUND (return value 3221225781 = 0xC0000135) and the loader
dialog's words; the question carries markup that must stay text. The notice, above the answer, must fit the screen
(no sideways scrolling, its quote inside the chat), be visible (on top where it is drawn, readable size) and escaped.
Shares the app server and Chromium with tests/test_browser.py; skips like it without Chromium (fails under CI=true).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from quest.i18n import ASSISTANT_TEXT
from tests.fakes.app_server import RunningApp
from tests.test_browser import _idle, _last_answer, _wait_until, browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

__all__ = ["browser"]  # the shared Chromium fixture, used by name

WIDTH, HEIGHT = 390, 844
# Our wording of what Dev-C++ and Windows print when a MinGW build cannot find its runtime DLL at start-up.
# The dialog's title names the program and says "System Error" (zh: 系统错误), as Windows titles it.
LOADER_ERROR = {
    "en": "main.exe - System Error: The code execution cannot proceed because libstdc++-6.dll was not found.\n"
          "Process exited after 0.1 seconds with return value 3221225781",
    "zh": "main.exe - 系统错误\n由于找不到 libgcc_s_seh-1.dll，无法继续执行代码。重新安装程序可能会解决此问题。",
}
QUESTION = 'It will not even start <img src=x onerror="window.__questPwned=1"> <b>why</b>?'

NOTICE = """() => {
  const row = [...document.querySelectorAll('#q-chat .bot-row')].pop();
  const quote = row && row.querySelector('blockquote');
  if (!quote) return null;
  quote.scrollIntoView({block: 'center'});
  const b = quote.getBoundingClientRect();
  const style = getComputedStyle(quote);
  const hit = document.elementFromPoint(b.left + b.width / 2, b.top + Math.min(b.height / 2, 20));
  const wide = [...document.querySelectorAll('#q-chat *')]
    .filter((e) => !e.closest('pre') && e.clientWidth && e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${(e.className || e.tagName).toString().slice(0, 40)} ${e.scrollWidth}>${e.clientWidth}`);
  return {
    text: quote.innerText, left: b.left, right: b.right, top: b.top, bottom: b.bottom, height: b.height,
    fontSize: parseFloat(style.fontSize), visibility: style.visibility, opacity: parseFloat(style.opacity),
    onTop: !!hit && quote.contains(hit), scrollWidth: document.scrollingElement.scrollWidth, innerWidth,
    innerHeight, wide, pwned: window.__questPwned === 1, injected: document.querySelectorAll('#q-chat img[src="x"], '
      + '#q-chat b').length,
  };
}"""


@pytest.fixture(params=["en-US", "zh-CN"])
def phone_page(browser: Any, live_app: RunningApp, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(locale=request.param, viewport={"width": WIDTH, "height": HEIGHT},
                                  device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(live_app.url, wait_until="load")
    page.wait_for_selector("#q-send")
    page.wait_for_function("document.querySelector('#q-status-line .q-dot-ok') !== null")
    page.lang = request.param[:2]
    yield page
    context.close()


def test_the_local_setup_notice_is_readable_on_a_390px_phone(phone_page: Any, live_app: RunningApp) -> None:
    live_app.ollama.tokens = ["Fix the setup first, then run the samples again. ", "Done."]
    page = phone_page
    page.locator("#q-error textarea").fill(LOADER_ERROR[page.lang])
    page.locator("#q-question textarea").fill(QUESTION)
    page.locator("#q-send").tap()
    _wait_until(lambda: "Done." in _last_answer(page).inner_text(), what="the streamed answer")
    _idle(page)
    g = page.evaluate(NOTICE)
    assert g is not None, "no notice quoted above the answer"
    assert " ".join(g["text"].split()) == " ".join(ASSISTANT_TEXT[page.lang]["local_setup"].split())
    # Fits: the page does not scroll sideways, the quote lies inside the screen, nothing in the chat overflows.
    assert g["scrollWidth"] <= g["innerWidth"] == WIDTH, (g["scrollWidth"], g["innerWidth"])
    assert 0 <= g["left"] < g["right"] <= WIDTH, g
    assert g["wide"] == [], g["wide"]
    # Visible: drawn on top (not under the fixed composer), at a readable size, not hidden or faded out.
    assert g["top"] >= 0 and g["bottom"] <= g["innerHeight"] and g["height"] > 0, g
    assert g["onTop"], g
    assert g["fontSize"] >= 12 and g["visibility"] == "visible" and g["opacity"] == 1, g
    # Escaped: the student's markup is text, never an element.
    assert not g["pwned"] and g["injected"] == 0, g
    assert '<img src=x onerror="window.__questPwned=1">' in page.locator("#q-chat").inner_text()
