// Quest: chat habits the page's components do not have on their own.
(() => {
  const phone = () => window.matchMedia("(max-width: 760px)").matches;
  const visible = (el) => el && el.offsetParent !== null && !el.disabled;

  // Enter sends, Shift+Enter is a new line (question box only; the code editor keeps Enter).
  // An IME composing Chinese also uses Enter: leave that alone.
  document.addEventListener("keydown", (e) => {
    const box = e.target && e.target.closest && e.target.closest("#q-question textarea");
    if (!box || e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    e.stopPropagation();
    const send = document.querySelector("#q-send");
    if (visible(send)) send.click(); // while an answer streams, Send is Stop: the text stays in the box
  }, true);

  // The form fields the student has edited in this visit: a return visit's saved form, landing a
  // moment after the page, fills only the others (quest/ui/page.py, RESTORE_FORM_JS). Gradio sets
  // values without DOM events, so only the student's own typing, pasting, ticking or picking counts.
  const FORM = "#q-question, #q-problem, #q-language, #q-code, #q-verdict, #q-error, #q-tier, #q-reasoning";
  window.questTouched = new Set();
  const touch = (e) => {
    const field = e.target && e.target.closest && e.target.closest(FORM);
    if (field) window.questTouched.add(field.id);
  };
  ["beforeinput", "input", "change", "paste", "drop"].forEach((type) => document.addEventListener(type, touch, true));
  document.addEventListener("mousedown", (e) => {
    if (e.target && e.target.closest && e.target.closest("ul.options li")) touch(e); // a dropdown's option
  }, true);

  // [n] in an answer links to source n of that answer: open it, scroll to it, highlight it.
  document.addEventListener("click", (e) => {
    const link = e.target && e.target.closest && e.target.closest('a[href*="#q-src-"]');
    if (!link) return;
    e.preventDefault();
    e.stopPropagation();
    const card = document.getElementById(link.getAttribute("href").split("#").pop());
    if (!card) return;
    const details = card.querySelector("details");
    if (details) details.open = true;
    document.querySelectorAll(".q-src-flash").forEach((el) => el.classList.remove("q-src-flash"));
    card.classList.add("q-src-flash");
    card.scrollIntoView({ behavior: "smooth", block: "center" });
  }, true);

  // On a phone the chat sits above the form: after Send, bring it into view and keep the newest
  // answer in view while it streams.
  window.questScrollToChat = () => {
    if (!phone()) return;
    const chat = document.querySelector("#q-chat");
    if (chat) chat.scrollIntoView({ block: "start" });
  };
  const follow = new MutationObserver(() => {
    const stop = document.querySelector("#q-stop");
    if (!phone() || !visible(stop)) return;
    const bots = document.querySelectorAll("#q-chat .bot-row, #q-chat .message-row.bot-row");
    const last = bots[bots.length - 1];
    if (!last) return;
    // The conversation scrolls inside its own box, and the chatbot scrolls that box to the newest
    // line a moment after each token: what shows of the answer ends where the box ends. Following
    // the answer's own bottom instead chased a point the box was about to scroll away, and left
    // the page scrolled past the conversation (the student saw the form, not the answer).
    const scroller = last.closest(".bubble-wrap");
    const shown = Math.min(last.getBoundingClientRect().bottom,
      scroller ? scroller.getBoundingClientRect().bottom : Infinity);
    const bottom = window.innerHeight - composerHeight();
    if (shown > bottom || shown < 0) window.scrollBy(0, shown - bottom + 8);
  });

  // The composer's height on screen. Gradio writes the elem_id on two nested elements, and the
  // outer one, which querySelector finds, is 0 px tall: measure the tallest.
  const composerHeight = () => {
    const boxes = [...document.querySelectorAll("#q-composer")].map((el) => el.getBoundingClientRect().height);
    return Math.max(0, ...boxes);
  };
  // The page keeps room for the fixed composer at its end (quest.css, --q-composer-h).
  const reserve = () => {
    document.documentElement.style.setProperty("--q-composer-h", `${Math.ceil(composerHeight())}px`);
  };
  const sized = new ResizeObserver(reserve);
  const measure = () => {
    const parts = document.querySelectorAll("#q-composer");
    if (!parts.length) return setTimeout(measure, 300);
    parts.forEach((el) => sized.observe(el));
    reserve();
  };
  measure();
  // Phone: while a form field other than the question has focus (the keyboard is up), the
  // composer is docked into the page instead of fixed over the field's lower part. It changes
  // only between taps: moving it while a finger is down would move Send away from under the
  // finger, and the tap would land on whatever took its place.
  const DOCKING_FIELDS = "#q-form-top, #q-form-mid, #q-code, #q-error";
  let pressed = false;
  let settle = null;
  const dock = () => {
    if (pressed) return;
    const active = document.activeElement;
    const docked = phone() && Boolean(active && active.closest && active.closest(DOCKING_FIELDS));
    document.querySelectorAll("#q-composer").forEach((el) => el.toggleAttribute("data-docked", docked));
  };
  const later = () => setTimeout(dock, 0);
  document.addEventListener("pointerdown", () => { pressed = true; clearTimeout(settle); }, true);
  // The click that ends a tap comes after pointerup; a press that turns into a scroll has none.
  document.addEventListener("click", () => { pressed = false; later(); }, true);
  document.addEventListener("pointerup", () => { settle = setTimeout(() => { pressed = false; dock(); }, 350); }, true);
  document.addEventListener("pointercancel", () => { pressed = false; later(); }, true);
  document.addEventListener("focusin", later, true);
  document.addEventListener("focusout", later, true);

  const watch = () => {
    const chat = document.querySelector("#q-chat");
    if (chat) follow.observe(chat, { childList: true, subtree: true, characterData: true });
    else setTimeout(watch, 300);
  };
  watch();
})();
