"""Follow-up questions: what a new request inherits from the conversation so far.

The rule, as a pure function the UI and the CLI share: a follow-up keeps the problem, the
code (with its language) and the judge message of the conversation unless the student
changes them. Changing the problem starts over: the old code and message belonged to the
old problem. New code without a new judge message drops the old message (it was about the
old code).
"""

from __future__ import annotations

import dataclasses

from quest.kb.documents import normalize_problem_id
from quest.request import Request


def carry_over(previous: Request | None, new: Request) -> Request:
    if previous is None:
        return new
    old_pid = normalize_problem_id(previous.problem_id)
    new_pid = normalize_problem_id(new.problem_id)
    if new_pid and new_pid != old_pid:
        return new  # another problem: nothing carries over
    changes: dict[str, object] = {}
    if not new_pid and old_pid:
        changes["problem_id"] = old_pid
    if not new.code.strip() and previous.code.strip():
        changes["code"] = previous.code
        changes["language"] = previous.language
        if not new.error.strip() and not new.verdict:
            changes["error"] = previous.error
            changes["verdict"] = previous.verdict
    return dataclasses.replace(new, **changes) if changes else new
