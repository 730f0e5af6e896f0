"""The interface's words in Chinese and English, and the messages Quest shows for errors.

`t(key, lang, **values)` looks a string up and fills it in. Every key exists in both
languages (a unit test checks it); an unknown language falls back to English.
"""

from __future__ import annotations

from typing import Any

from quest.errors import InputError

UI_LANGS = ("zh", "en")

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Quest · OJ help desk",
        "subtitle": "Pick the problem, paste your code and the judge's message, and ask. "
        "Every answer cites the course notes it used.",
        "student_starting": "Getting ready… answers will be available in a moment.",
        "student_unavailable": "Quest is not available right now. Please tell your teacher.",
        "student_ready": "AI answers ready",
        "student_notes_only": "Answers from the course notes only right now",
        "diagnostics": "Diagnostics (for the operator)",
        "fix_ollama": "Fix: start Ollama with `ollama serve`, check OLLAMA_HOST ({host}) and `ollama pull {model}`.",
        "code_held": "code held back in this mode until the block is complete…",
        "answer_number": "Answer {n}",
        "open_link": "open",
        "new_conversation": "New conversation",
        "recent": "Recent conversations",
        "untitled": "(untitled)",
        "feedback_prompt": "Was this answer helpful?",
        "feedback_comment": "What was wrong? (optional, one line)",
        "feedback_send": "Send feedback",
        "feedback_up": "👍 Yes",
        "failure_fallback": "The AI helper is not available right now, so here is what the course notes say "
        "about your question.",
        "failure_timeout": "The AI helper is busy and did not answer in time, so here is what the course notes "
        "say. You can ask again in a minute.",
        "failure_partial": "The AI helper stopped before finishing this answer. Ask again in a moment for a "
        "complete one.",
        "feedback_down": "👎 No",
        "regenerate": "Regenerate",
        "edit_last": "Edit last question",
        "more_options": "More options",
        "lang_switch": "Language",
        "chat": "Conversation",
        "chat_placeholder": "Ask about a problem, a verdict or your code, or try one of the worked examples.",
        "question": "Your question",
        "question_placeholder": "e.g. Why does my sliding-window solution get Time Limit Exceeded?",
        "problem": "Problem (optional)",
        "problem_info": "Search by number or title, in Chinese or English",
        "language": "Language",
        "language_auto": "Detect from code",
        "language_other": "Other",
        "code": "Your code",
        "code_detected": "Your code · detected: {name}",
        "verdict": "Verdict",
        "verdict_none": "(none)",
        "error": "Judge's message",
        "error_placeholder": "Paste the judge's full message: verdict, failing test, traceback or compiler output",
        "tier": "How much help",
        "tier_hint": "Hint",
        "tier_explain": "Explain",
        "tier_solution": "Solution",
        "reasoning": "Think step by step (slower)",
        "send": "Send",
        "stop": "Stop",
        "clear": "Clear",
        "submission": "Your submission",
        "examples": "Worked examples",
        "sources": "Sources",
        "sources_empty": "The sources of each answer appear here.",
        "sources_none": "No source in the knowledge base matched this question.",
        "cited": "cited",
        "score": "score",
        "problem_word": "problem",
        "show_text": "show text",
        "truncated": "(truncated)",
        "thinking": "Reasoning",
        "incomplete": "(The answer is incomplete.)",
        "stopped": "(Stopped.)",
        "status_starting": "Starting…",
        "status_start_failed": "Quest could not start: {reason}. The operator can see the details in the console.",
        "status_model": "Model",
        "status_ollama_ok": "Ollama reachable",
        "status_ollama_down": "Ollama not reachable: answers from the sources only",
        "status_embedding": "Retrieval",
        "status_index": "{documents} documents, {chunks} chunks",
        "status_host": "{host}: {state}, {in_flight} in flight, {served} served, {failures} failed",
        "host_healthy": "healthy",
        "host_backing_off": "skipped for {seconds} s ({error})",
        "status_last": "Last answer",
        "stat_retrieval": "retrieval {value}",
        "stat_first_token": "first token {value}",
        "stat_total": "total {value}",
        "stat_speed": "{value} tokens/s",
        "stat_tokens": "{value} tokens",
        "not_ready": "Quest is still starting ({progress}). Please try again in a moment.",
        "rate_limited": "You are asking faster than Quest can answer. Please wait {seconds} s and ask again.",
        "internal_error": "Something went wrong on our side and this answer could not be finished. "
        "Please try again; if it keeps happening, tell the operator.",
        "input_empty": "Please type a question (and, if you have them, your code and the judge's message).",
        "input_too_long": "Your {field} is {length} characters long; the limit is {limit}. "
        "Please shorten it and send again (nothing was cut for you).",
        "input_binary": "Your {field} looks like binary data, not text. Please paste it as text.",
        "input_invalid": "Your {field} cannot be used: {reason}",
        "input_not_text": "The field `{field}` must be text, not {kind}. Please send it as a string.",
        "field_question": "question",
        "field_code": "code",
        "field_error": "judge's message",
        "field_problem": "problem field",
        "field_verdict": "verdict field",
        "feedback_thanks": "Thanks for the feedback!",
        "feedback_removed": "Feedback removed.",
        "user_code": "code, {lines} lines",
        "user_code_one": "code, 1 line",
        "user_error": "judge's message",
    },
    "zh": {
        "title": "Quest · OJ 答疑台",
        "subtitle": "选择题目，贴上你的代码和评测信息，然后提问。每个回答都会注明引用的课程资料。",
        "student_starting": "正在准备……稍后即可提问。",
        "student_unavailable": "Quest 暂时不可用，请告诉老师。",
        "student_ready": "AI 回答已就绪",
        "student_notes_only": "目前仅根据课程资料回答",
        "diagnostics": "诊断信息（供管理员查看）",
        "fix_ollama": "解决：用 `ollama serve` 启动 Ollama，检查 OLLAMA_HOST（{host}），并运行 `ollama pull {model}`。",
        "code_held": "当前模式下，代码块完整后才会显示……",
        "answer_number": "回答 {n}",
        "open_link": "打开",
        "new_conversation": "新对话",
        "recent": "最近的对话",
        "untitled": "（无标题）",
        "feedback_prompt": "这个回答有帮助吗？",
        "feedback_comment": "哪里不对？（可选，一行）",
        "feedback_send": "提交反馈",
        "feedback_up": "👍 有帮助",
        "failure_fallback": "AI 助手暂时不可用，下面是课程资料中与你的问题相关的内容。",
        "failure_timeout": "AI 助手正忙，没有及时回答；下面是课程资料中的相关内容。可以过一会儿再问。",
        "failure_partial": "AI 助手没有写完这个回答，请稍后再问一次。",
        "feedback_down": "👎 没帮助",
        "regenerate": "重新生成",
        "edit_last": "修改上一个问题",
        "more_options": "更多选项",
        "lang_switch": "界面语言",
        "chat": "对话",
        "chat_placeholder": "可以问题目、评测结果或你的代码，也可以试试示例。",
        "question": "你的问题",
        "question_placeholder": "例如：我的滑动窗口解法为什么超时？",
        "problem": "题目（可选）",
        "problem_info": "可按题号或中英文标题搜索",
        "language": "编程语言",
        "language_auto": "自动识别",
        "language_other": "其他",
        "code": "你的代码",
        "code_detected": "你的代码 · 识别为 {name}",
        "verdict": "评测结果",
        "verdict_none": "（无）",
        "error": "评测信息",
        "error_placeholder": "粘贴完整的评测信息：结果、出错的测试点、报错栈或编译输出",
        "tier": "帮助程度",
        "tier_hint": "提示",
        "tier_explain": "讲解",
        "tier_solution": "题解",
        "reasoning": "逐步思考（较慢）",
        "send": "发送",
        "stop": "停止",
        "clear": "清空",
        "submission": "你的提交",
        "examples": "示例",
        "sources": "参考来源",
        "sources_empty": "每个回答引用的来源会显示在这里。",
        "sources_none": "知识库中没有与这个问题相关的内容。",
        "cited": "已引用",
        "score": "相似度",
        "problem_word": "题目",
        "show_text": "展开原文",
        "truncated": "（已截断）",
        "thinking": "思考过程",
        "incomplete": "（回答不完整。）",
        "stopped": "（已停止。）",
        "status_starting": "正在启动……",
        "status_start_failed": "Quest 启动失败：{reason}。详细信息见服务器控制台。",
        "status_model": "模型",
        "status_ollama_ok": "Ollama 已连接",
        "status_ollama_down": "无法连接 Ollama：仅根据参考来源作答",
        "status_embedding": "检索",
        "status_index": "{documents} 篇文档，{chunks} 个片段",
        "status_host": "{host}：{state}，进行中 {in_flight}，已完成 {served}，失败 {failures}",
        "host_healthy": "正常",
        "host_backing_off": "暂停使用 {seconds} 秒（{error}）",
        "status_last": "上一个回答",
        "stat_retrieval": "检索 {value}",
        "stat_first_token": "首字 {value}",
        "stat_total": "总计 {value}",
        "stat_speed": "{value} 词元/秒",
        "stat_tokens": "{value} 词元",
        "not_ready": "Quest 仍在启动（{progress}），请稍后再试。",
        "rate_limited": "提问太频繁了，请等待 {seconds} 秒后再提问。",
        "internal_error": "服务器出了点问题，这个回答没能完成。请重试；如果一直出现，请告诉管理员。",
        "input_empty": "请输入问题（如果有，也请附上代码和评测信息）。",
        "input_too_long": "你的{field}有 {length} 个字符，超过了上限 {limit}。请删减后重新发送（系统不会替你截断）。",
        "input_binary": "你的{field}看起来是二进制数据而不是文本，请以文本形式粘贴。",
        "input_invalid": "你的{field}无法使用：{reason}",
        "input_not_text": "字段 `{field}` 必须是文本，而不是 {kind}。请以字符串发送。",
        "field_question": "问题",
        "field_code": "代码",
        "field_error": "评测信息",
        "field_problem": "题目",
        "field_verdict": "评测结果",
        "feedback_thanks": "感谢你的反馈！",
        "feedback_removed": "已撤销反馈。",
        "user_code": "代码 {lines} 行",
        "user_code_one": "代码 1 行",
        "user_error": "评测信息",
    },
}


def resolve_lang(value: str | None, default: str = "en") -> str:
    """'zh-CN', 'zh_TW', 'zh' -> 'zh'; 'en-US' -> 'en'; anything else -> `default`."""
    text = (value or "").strip().lower().replace("_", "-")
    if text.startswith("zh"):
        return "zh"
    if text.startswith("en"):
        return "en"
    return default if default in UI_LANGS else "en"


def t(key: str, lang: str, **values: Any) -> str:
    table = STRINGS.get(lang, STRINGS["en"])
    text = table.get(key, STRINGS["en"].get(key, key))
    return text.format(**values) if values else text


#: The request fields an InputError may name, each with a `field_<name>` string.
INPUT_FIELDS = ("question", "code", "error", "problem", "verdict")


def input_error_text(exc: InputError, lang: str) -> str:
    """A clear message for an unusable request, naming the field and the limit."""
    field = t(f"field_{exc.field}", lang) if exc.field in INPUT_FIELDS else (exc.field or "")
    if exc.reason == "empty":
        return t("input_empty", lang)
    if exc.reason == "too_long":
        return t(
            "input_too_long",
            lang,
            field=field,
            length=f"{exc.length:,}" if exc.length is not None else "?",
            limit=f"{exc.limit:,}" if exc.limit is not None else "?",
        )
    if exc.reason == "binary":
        return t("input_binary", lang, field=field)
    return t("input_invalid", lang, field=field, reason=exc.message)


# The assistant's own words (answers it writes without the model, notices, failure lines).
ASSISTANT_TEXT: dict[str, dict[str, Any]] = {
    "en": {
        "locked": "Help for this problem is paused right now (contest in progress){until}. "
                  "Quest cannot discuss it until the lock ends; good luck!",
        "locked_broken": "Help is paused right now: the operator's contest lock could not be read, so every "
                         "problem is locked to be safe. Please ask the operator.",
        "until": " until {time}",
        "tier_capped": "The operator allows at most the '{tier}' mode here; answering in that mode.",
        "history_trimmed": "The conversation was too long for the model; the {n} oldest turn(s) were left out.",
        "no_sources": "The knowledge base has nothing on this question, so Quest will not guess.",
        "no_sources_answer": "The knowledge base does not cover this question, so Quest will not guess an answer. "
                             "Try naming the problem (its number or title), pasting your code and the judge's "
                             "message, or asking in other words.",
        "no_sources_model": "The knowledge base has nothing on this; the answer below relies on your own code and "
                            "message only.",
        "retrieval_failed": "Searching the knowledge base failed; answering without sources.",
        "judge_side": "The judge reported a System Error: the judge itself failed while testing your submission. "
                      "That says nothing about your code. Submit again later; if it keeps happening, tell the "
                      "judge's operators or your teacher.",
        "local_setup": "Windows could not start your program (a missing or mismatched DLL, e.g. MinGW's "
                       "libstdc++-6.dll): that is your computer's compiler setup, not a bug in your code. Link "
                       "statically (-static) or add the compiler's bin folder to PATH; a judge will not see this.",
        "weak_sources": "The knowledge base has only weak matches for this question; check the sources "
                        "before relying on them.",
        "from_sources": "What the knowledge base says (no generated answer):",
        "also": "More sources:",
        "exact_intro": "From the knowledge base (answered directly, without the model):",
        "hint_more": "Hint mode: think about the ideas above. Ask again in explain mode for the reasoning, "
                     "or in solution mode (where allowed) for the full solution.",
        "code_hidden": "> (code not shown in this mode)",
        "limits": "limits",
        "failures": {
            "llm_unavailable": "Ollama is not reachable at {host}, so there is no generated answer. "
                               "Fix: start it with `ollama serve`, and check OLLAMA_HOST.",
            "model_not_found": "The model {model} is not pulled in Ollama, so there is no generated answer. "
                               "Fix: run `ollama pull {model}`.",
            "llm_timeout": "Ollama did not answer within {timeout:g} s, so there is no generated answer. "
                           "Fix: try again in a moment (the model may still be loading), or use a smaller model.",
            "stream_broken": "The connection to Ollama broke while it was answering. "
                             "Fix: check that `ollama serve` is still running, then ask again.",
            "no_model": "No language model is configured, so there is no generated answer.",
            "llm": "Ollama failed ({message}). Fix: check the `ollama serve` log, and OLLAMA_HOST ({host}).",
        },
        "partial": "The answer stopped before it was complete: {line}",
    },
    "zh": {
        "locked": "本题目前暂停答疑（比赛进行中）{until}。锁定结束前 Quest 不能讨论这道题，祝你顺利！",
        "locked_broken": "答疑暂停：管理员的比赛锁定文件无法读取，为安全起见所有题目都已锁定。请联系管理员。",
        "until": "，至 {time}",
        "tier_capped": "管理员在这里最多允许“{tier}”模式，本次按该模式回答。",
        "history_trimmed": "对话太长，超出了模型的上下文，最早的 {n} 轮没有带上。",
        "no_sources": "知识库里没有与这个问题相关的内容，Quest 不会凭空猜测。",
        "no_sources_answer": "知识库没有覆盖这个问题，Quest 不会凭空猜测答案。可以试试写明题号或题目名称，"
                             "贴上代码和评测信息，或者换一种说法提问。",
        "no_sources_model": "知识库里没有相关内容；下面的回答只依据你自己的代码和评测信息。",
        "retrieval_failed": "检索知识库失败；本次回答没有资料可引用。",
        "judge_side": "评测机返回了系统错误（System Error）：是评测系统自己在测试你的提交时出了故障，"
                      "这并不说明你的代码有问题。请稍后重新提交；如果一直出现，请告诉评测平台的管理员或老师。",
        "local_setup": "Windows 没能启动你的程序（缺少或不匹配的 DLL，例如 MinGW 的 libstdc++-6.dll）："
                       "这是你电脑上编译环境的问题，不是代码的错误。可以静态链接（-static），或把编译器的 bin "
                       "目录加入 PATH；提交到评测机不会遇到它。",
        "weak_sources": "知识库中只找到相关度较低的资料，请先核对来源再参考。",
        "from_sources": "知识库中的相关内容（未生成回答）：",
        "also": "其他资料：",
        "exact_intro": "来自知识库（直接回答，未使用模型）：",
        "hint_more": "提示模式：先想想上面的思路。想看推理过程可以用“讲解”模式再问，"
                     "允许时可用“完整题解”模式查看完整解法。",
        "code_hidden": "> （当前模式不显示代码）",
        "limits": "限制",
        "failures": {
            "llm_unavailable": "无法连接 Ollama（{host}），所以没有生成的回答。"
                               "解决：运行 `ollama serve`，并检查 OLLAMA_HOST。",
            "model_not_found": "Ollama 中还没有模型 {model}，所以没有生成的回答。解决：运行 `ollama pull {model}`。",
            "llm_timeout": "Ollama 在 {timeout:g} 秒内没有回答，所以没有生成的回答。"
                           "解决：稍后再试（模型可能还在加载），或换用更小的模型。",
            "stream_broken": "Ollama 在回答过程中断开了连接。解决：确认 `ollama serve` 仍在运行，然后重新提问。",
            "no_model": "没有配置语言模型，所以没有生成的回答。",
            "llm": "Ollama 出错（{message}）。解决：查看 `ollama serve` 的日志，并检查 OLLAMA_HOST（{host}）。",
        },
        "partial": "回答没有完整生成：{line}",
    },
}

TIER_NAMES: dict[str, dict[str, str]] = {"en": {"hint": "hint", "explain": "explain", "solution": "solution"},
              "zh": {"hint": "提示", "explain": "讲解", "solution": "完整题解"}}
