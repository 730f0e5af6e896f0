"""A return visit's saved form never overwrites what the student typed before it landed (headless Chromium).

The restore is held in the browser by the page's test hook (`window.questRestoreGate`, see
quest/ui/page.py) until the test has typed, so "typed before the restore landed" is certain,
not a race with the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.app_server import RunningApp
from tests.test_browser import CHROMIUM_ARGS, _chromium

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOLD_RESTORE = """
window.questRestoreGate = () => new Promise((release) => {
  window.questReleaseRestore = release;
  window.questRestoreHeld = true;
});
"""


@pytest.fixture
def context(live_app: RunningApp) -> Iterator[Any]:
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(locale="en-US", viewport={"width": 1366, "height": 900})
            yield context
            context.close()
        finally:
            browser.close()


def _open(context: Any, url: str) -> Any:
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(url, wait_until="load")
    page.wait_for_selector("#q-send")
    return page


def _leave_field_and_wait_saved(page: Any, next_field: str) -> None:
    """Leaving a text field saves the form in the browser's storage: wait until it has."""
    before = page.evaluate("localStorage.getItem('quest-history')")
    page.locator(next_field).click()
    page.wait_for_function("before => localStorage.getItem('quest-history') !== before", arg=before)


def _code(page: Any) -> str:
    return page.locator("#q-code .cm-content").inner_text()


def test_typing_before_the_saved_form_lands_is_kept_and_the_other_fields_are_restored(context, live_app):
    first = _open(context, live_app.url)
    first.locator("#q-code .cm-content").click()
    first.keyboard.insert_text("print('saved code')")
    _leave_field_and_wait_saved(first, "#q-error textarea")
    first.locator("#q-error textarea").fill("Saved judge message")
    _leave_field_and_wait_saved(first, "#q-question textarea")
    first.locator("#q-question textarea").fill("Saved question")
    _leave_field_and_wait_saved(first, "#q-error textarea")
    first.close()

    context.add_init_script(HOLD_RESTORE)  # the return visit's restore waits for the test
    page = _open(context, live_app.url)
    page.wait_for_function("window.questRestoreHeld === true")  # the page's restore is held
    assert page.locator("#q-question textarea").input_value() == ""  # nothing restored yet
    page.locator("#q-question textarea").click()
    page.keyboard.type("Typed before the restore")
    page.evaluate("window.questReleaseRestore()")

    page.wait_for_function("document.querySelector('#q-error textarea').value === 'Saved judge message'")
    assert "print('saved code')" in _code(page)  # untouched fields are filled in
    assert page.locator("#q-question textarea").input_value() == "Typed before the restore"  # typing survives
