"""`ScriptedUser`: a deterministic user that follows the task's scenario to the letter.

Its rules, in order, for each agent message:

1. Every request made and done: it says it is done and ends the dialogue.
2. A request to confirm an action (the pending action to confirm whose values it names most):
   when the user has a change of mind pending for that action, the revision ("Actually, make the
   amount 150 instead."); one that names a value the user no longer wants, or an id the user
   never gave for that action, is refused; one that names a value the user withheld but gets it
   wrong is answered with the right value; otherwise yes.
3. A question naming a value the user holds (by its parameter's noun, "which account type?"):
   the value. Asking again for what the user already said is answered too, and counted as
   needless.
4. The current request done and another to come: the next request.
5. A report while the current request is not done: the user takes it as the end and stops (the
   episode is then judged on the state).
6. Any other question: "I don't know."
"""

from __future__ import annotations

import re

from gym_mcp.tasks import Slot, Task, UserScenario
from gym_mcp.tasks.dialogue import format_value, noun
from gym_mcp.users.base import User, UserReply, UserView, call_done, progress
from gym_mcp.users.text import asks_confirmation, is_question, mentions, slot_asked, values_in

__all__ = ["ScriptedUser"]

DONE = "Thank you, that's all I needed."
YES = "Yes, please go ahead."
UNKNOWN = "I don't know."


def _shape(value: object) -> str | None:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z]+[-_]?\d+", value):
        return None
    return re.sub(r"\d", "9", value.lower())


class ScriptedUser(User):
    """A deterministic user driven by the task's `UserScenario` (see the module docstring)."""

    name = "scripted"

    async def reply(self, view: UserView) -> UserReply:
        """Answer the agent's message by the rules above."""
        return self.decide(view)

    def decide(self, view: UserView) -> UserReply:
        """The reply, synchronously (the rules are pure)."""
        scenario = view.task.scenario()
        stage, done = progress(view)
        last = stage == len(scenario.stages) - 1
        message = view.message
        answered = {t.slot for t in view.turns if t.kind == "answer"}
        if done and last:
            return UserReply(DONE, "stop", stop=True)
        if asks_confirmation(message):
            reply = self._confirmation(view, scenario, stage, answered)
            if reply is not None:
                return reply
        if is_question(message):
            slots = [s for s in scenario.slots if scenario.stage_of(s.call) <= stage]
            prefer = [i for i, s in enumerate(slots) if not s.said and s.param not in answered]
            slot = slot_asked(message, slots, prefer)
            if slot is not None:
                needless = slot.said or slot.param in answered
                text = f"The {noun(slot.param)} is {format_value(slot.value)}."
                return UserReply(text, "answer", slot=slot.param, needless=needless)
        if done:
            return UserReply(f"Thank you. {scenario.stages[stage + 1].request}", "reveal")
        if not is_question(message):
            return UserReply(DONE, "stop", stop=True)
        return UserReply(UNKNOWN, "unknown")

    def _confirmation(
        self, view: UserView, scenario: UserScenario, stage: int, answered: set[str | None]
    ) -> UserReply | None:
        message = view.message
        target = _target(view, scenario, stage)
        revised_before = {t.slot for t in view.turns if t.kind == "revise"}
        for slot in scenario.revised:
            if slot.call != target:
                continue
            if slot.param not in revised_before and not mentions(message, slot.value):
                text = (
                    f"Actually, I changed my mind: make the {noun(slot.param)} {format_value(slot.value)} "
                    f"instead of {format_value(slot.was)}."
                )
                return UserReply(text, "revise", slot=slot.param)
            if mentions(message, slot.was) and not mentions(message, slot.value):
                return self._refuse(slot)
        for slot in scenario.withheld:
            if slot.call != target or slot.param in answered:
                continue
            if slot_asked(message, [slot]) is not None and not mentions(message, slot.value):
                text = f"The {noun(slot.param)} is {format_value(slot.value)}."
                return UserReply(text, "answer", slot=slot.param)
        wrong = _wrong_id(message, view.task, target)
        if wrong is not None:
            return self._refuse(wrong)
        return UserReply(YES, "confirm")

    @staticmethod
    def _refuse(slot: Slot) -> UserReply:
        text = f"No, that's not right: the {noun(slot.param)} should be {format_value(slot.value)}."
        return UserReply(text, "refuse", slot=slot.param)


def _target(view: UserView, scenario: UserScenario, stage: int) -> int | None:
    """The action a confirmation request is about.

    Of the current request's actions to confirm that are not done yet, the one whose argument
    values the message names most (the first on a tie); None when none is pending.
    """
    pending = [
        i
        for i in scenario.confirm
        if i < len(view.task.reference_calls)
        and scenario.stage_of(i) == stage
        and not call_done(view.task.reference_calls[i], view.calls)
    ]
    if not pending:
        return None

    def named(i: int) -> int:
        args = dict(view.task.reference_calls[i].get("arguments", {}))
        return sum(mentions(view.message, v) for v in args.values())

    return max(pending, key=lambda i: (named(i), -i))


def _wrong_id(message: str, task: Task, target: int | None) -> Slot | None:
    """An id argument of the action to confirm that the message gets wrong (same shape, other value)."""
    if target is None:
        return None
    ids, _ = values_in(message)
    for param, value in dict(task.reference_calls[target].get("arguments", {})).items():
        want = _shape(value)
        if want is None or str(value).lower() in ids:
            continue
        if any(_shape(i) == want for i in ids):
            return Slot(param=param, value=value, call=target)
    return None
