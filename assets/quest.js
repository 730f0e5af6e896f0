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
    const box = last.getBoundingClientRect();
    const composer = document.querySelector("#q-composer");
    const bottom = window.innerHeight - (composer ? composer.getBoundingClientRect().height : 0);
    if (box.bottom > bottom || box.bottom < 0) window.scrollBy(0, box.bottom - bottom + 8);
  });
  const watch = () => {
    const chat = document.querySelector("#q-chat");
    if (chat) follow.observe(chat, { childList: true, subtree: true, characterData: true });
    else setTimeout(watch, 300);
  };
  watch();
})();
