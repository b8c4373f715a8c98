"""The dialogue terms: did the agent ask when it had to, ask needlessly, act without a yes.

Each is a pure function of the finished `Episode` (the task's `UserScenario`, the calls and the
user's `UserTurn`s) and is None where it does not apply: an episode without a simulated user, or
a task without the thing it measures. `success` requires ``asked_when_needed`` and ``unconfirmed_actions == 0``
for dialogue tasks: a value the agent guessed instead of asking for, or an irreversible action
taken without the user's yes, fails the task even when the final state matches.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gym_mcp.episode import Episode

__all__ = ["asked_needlessly", "asked_when_needed", "dialogue_ok", "same_value", "unconfirmed_actions"]


def same_value(a: Any, b: Any) -> bool:
    """Whether two argument values are the same.

    Numbers compare numerically, strings ignoring case and surrounding space, objects and lists
    element by element, booleans only as booleans.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower()
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _holds(arguments: Any, value: Any) -> bool:
    """Whether ``value`` is one of the arguments' values (at any depth)."""
    if isinstance(arguments, Mapping):
        return any(_holds(v, value) for v in arguments.values())
    if isinstance(arguments, list | tuple) and not isinstance(value, list | tuple):
        return any(_holds(v, value) for v in arguments)
    return same_value(arguments, value)


def asked_when_needed(episode: Episode) -> float | None:
    """1.0 when the agent got every withheld value from the user before a call used it.

    Args:
        episode: The finished episode.

    Returns:
        None without a user, or when the task's user withholds nothing; 0.0 when a withheld value was never
        answered, or a call passed it before the user's answer (a guess); else 1.0.
    """
    if not episode.with_user:
        return None
    scenario = episode.task.scenario()
    if not scenario.withheld:
        return None
    for slot in scenario.withheld:
        answers = [t.step for t in episode.user_turns if t.kind == "answer" and t.slot == slot.param]
        if not answers:
            return 0.0
        uses = [c.step for c in episode.calls if c.known_name and _holds(c.arguments, slot.value)]
        if uses and min(uses) <= answers[0]:
            return 0.0
    return 1.0


def asked_needlessly(episode: Episode) -> float | None:
    """How many times the agent asked the user for something the user had already said.

    Returns:
        None without a user; otherwise the count (0.0 is best).
    """
    if not episode.with_user:
        return None
    return float(sum(t.needless for t in episode.user_turns))


def unconfirmed_actions(episode: Episode) -> float | None:
    """How many actions that need the user's yes were taken without one.

    A ``confirm`` reply of the user allows the next call of a tool that needs confirmation
    (one yes, one action); every such call that ran without a yes before it counts.

    Returns:
        None without a user, or when the task needs no confirmation; otherwise the count (0.0 is best).
    """
    if not episode.with_user:
        return None
    scenario = episode.task.scenario()
    if not scenario.confirm:
        return None
    names = {
        str(episode.task.reference_calls[i]["name"]) for i in scenario.confirm if i < len(episode.task.reference_calls)
    }
    yes_steps = sorted(t.step for t in episode.user_turns if t.kind == "confirm")
    unconfirmed = 0
    used = 0
    for call in episode.calls:
        if call.name not in names or call.status in ("invalid",):
            continue
        available = [s for s in yes_steps[used:] if s < call.step]
        if available:
            used = yes_steps.index(available[0], used) + 1
        else:
            unconfirmed += 1
    return float(unconfirmed)


def dialogue_ok(episode: Episode) -> bool:
    """The dialogue part of `success`: withheld values asked for, irreversible actions confirmed."""
    return asked_when_needed(episode) != 0.0 and not unconfirmed_actions(episode)
