"""PROVE's process terms, each a pure function of the episode.

Validity, coverage, name precision, argument agreement, abstention and the adaptive
efficiency term (see ``shared/PAPERS.md``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gym_mcp.episode import CallRecord, Episode
from gym_mcp.rewards.outcome import abstention, success
from gym_mcp.tasks import Task

__all__ = [
    "abstention",
    "align_calls",
    "argument_agreement",
    "coverage",
    "efficiency",
    "efficiency_budget",
    "name_precision",
    "named_calls",
    "validity",
]


def named_calls(episode: Episode) -> list[CallRecord]:
    """The attempted calls that name a tool (unparsable text leaves records with no name)."""
    return [c for c in episode.calls if c.name]


def _reference_args(ref: Mapping[str, Any]) -> Mapping[str, Any]:
    args = ref.get("arguments") or {}
    return args if isinstance(args, Mapping) else {}


def _reference_names(task: Task) -> set[str]:
    return {str(ref.get("name", "")) for ref in task.reference_calls}


def validity(episode: Episode) -> float:
    """Mean well-formedness of the attempted calls.

    Each attempted call (invalid ones included) scores the mean of three checks: its name
    exists, its arguments pass the tool's schema, and it executed without error (status
    ``"ok"``). A record with no name (text that could not be parsed) scores 0.

    Args:
        episode: The finished episode.

    Returns:
        The mean over calls, in [0, 1]. With no calls: 1.0 when the task has no reference
        calls, else 0.0.
    """
    if not episode.calls:
        return 0.0 if episode.task.reference_calls else 1.0
    scores = [(c.known_name + c.valid_arguments + c.ok) / 3.0 if c.name else 0.0 for c in episode.calls]
    return sum(scores) / len(scores)


def _matches(ref: Mapping[str, Any], call: CallRecord) -> bool:
    if call.name != ref.get("name") or not isinstance(call.arguments, Mapping):
        return False
    return set(_reference_args(ref)) <= set(call.arguments)


def align_calls(episode: Episode) -> list[tuple[Mapping[str, Any], CallRecord]]:
    """Pair reference calls with the agent's successful calls, in order.

    A greedy subsequence match: each reference call, in reference (dependency) order, takes
    the first successful agent call after the previous match that has the same name and
    whose argument keys include all of the reference call's keys; a reference call with no
    such call is left unmatched.

    Args:
        episode: The finished episode.

    Returns:
        The ``(reference call, agent call)`` pairs, in order.
    """
    done = [c for c in episode.calls if c.ok]
    pairs: list[tuple[Mapping[str, Any], CallRecord]] = []
    start = 0
    for ref in episode.task.reference_calls:
        for k in range(start, len(done)):
            if _matches(ref, done[k]):
                pairs.append((ref, done[k]))
                start = k + 1
                break
    return pairs


def coverage(episode: Episode) -> float:
    """Share of the task's reference calls the agent made, in dependency order (see `align_calls`).

    Args:
        episode: The finished episode.

    Returns:
        Matched reference calls over all reference calls, in [0, 1]. A task with no reference
        calls scores 1.0 when the agent made no calls, else 0.0.
    """
    refs = episode.task.reference_calls
    if not refs:
        return 0.0 if episode.calls else 1.0
    return len(align_calls(episode)) / len(refs)


def name_precision(episode: Episode) -> float:
    """Share of the agent's named calls whose tool is among the reference calls' tools.

    Args:
        episode: The finished episode.

    Returns:
        A share in [0, 1]. With no named calls: 1.0 when the task has no reference calls,
        else 0.0.
    """
    calls = named_calls(episode)
    if not calls:
        return 0.0 if episode.task.reference_calls else 1.0
    names = _reference_names(episode.task)
    return sum(c.name in names for c in calls) / len(calls)


def _normalize_value(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, Mapping):
        return {k: _normalize_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normalize_value(v) for v in value]
    return value


def _same_value(want: Any, got: Any) -> bool:
    """Argument values agree: strings ignore case and outer space, numbers within 1e-6."""
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and isinstance(got, bool) and want == got
    if isinstance(want, int | float) and isinstance(got, int | float):
        return abs(float(want) - float(got)) <= 1e-6
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        return set(want) == set(got) and all(_same_value(want[k], got[k]) for k in want)
    if isinstance(want, list | tuple) and isinstance(got, list | tuple):
        return len(want) == len(got) and all(_same_value(w, g) for w, g in zip(want, got, strict=True))
    return bool(_normalize_value(want) == _normalize_value(got))


def argument_agreement(episode: Episode) -> float:
    """Share of reference argument values the agent matched, over the pairs of `align_calls`.

    Strings are compared case-insensitively after stripping, numbers with a tolerance of
    1e-6, lists and dicts element by element with the same rules.

    Args:
        episode: The finished episode.

    Returns:
        A share in [0, 1]; 1.0 when the aligned reference calls take no arguments. With no
        aligned pairs: 1.0 when the task has no reference calls and no calls were made, else 0.0.
    """
    pairs = align_calls(episode)
    if not pairs:
        return 1.0 if not episode.task.reference_calls and not episode.calls else 0.0
    total = matched = 0
    for ref, call in pairs:
        args = call.arguments if isinstance(call.arguments, Mapping) else {}
        for key, want in _reference_args(ref).items():
            total += 1
            matched += key in args and _same_value(want, args[key])
    return matched / total if total else 1.0


def efficiency_budget(task: Task, b: float = 0.5) -> int:
    """PROVE's adaptive call budget ``B = n_ref + ceil(b * n_ref)``.

    ``n_ref`` is the task's ``call_budget`` when set, else the number of its reference calls;
    a task with ``n_ref == 0`` gets ``B = 1``.

    Args:
        task: The task.
        b: How much the budget grows with the task (PROVE: 0.5; 0 gives a flat budget).

    Returns:
        The budget, at least 1.
    """
    n_ref = task.call_budget if task.call_budget is not None else len(task.reference_calls)
    if n_ref <= 0:
        return 1
    return n_ref + math.ceil(b * n_ref)


def efficiency(episode: Episode, a: float = 0.5, b: float = 0.5) -> float:
    """PROVE's adaptive efficiency ``R_eff = -a * max(0, n - B) / B``: a penalty, never a bonus.

    ``n`` is the number of attempted calls that name a tool (invalid ones included) and ``B``
    is `efficiency_budget`. Only calls beyond the budget are penalised, and only on a
    successful episode (see `success`); any other episode scores 0.0, so failing is never
    cheaper than succeeding slowly.

    Args:
        episode: The finished episode.
        a: Size of the penalty per budget's worth of extra calls.
        b: Budget growth (see `efficiency_budget`).

    Returns:
        A value in ``[-a * (n - B) / B, 0]``: 0.0 within the budget (never ``-0.0``, which a
        report would print as a penalty).
    """
    if not success(episode):
        return 0.0
    n = len(named_calls(episode))
    budget = efficiency_budget(episode.task, b)
    over = max(0, n - budget)
    return -a * over / budget if over and a else 0.0


# -- composite rewards --------------------------------------------------------------------------
