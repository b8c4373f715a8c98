"""The episode record: what an environment did, as every room above it reads it.

- `CallRecord`: one attempted tool call and its outcome (a `CallStatus`); ``info["calls"]``
  holds the records a step made, `Episode.calls` all of an episode's;
- `UserTurn`: one reply of a simulated user;
- `Episode`: a finished (or truncated) episode, as reward functions see it, with the `Limit`s
  it reached; ``env.unwrapped.episode()`` gives it;
- `TRANSIENT_MARKER` and `shown_call`: what a perturbed episode's records mean to an agent
  replaying calls (a failure that goes away on retry; the names a perturbation shows).

It is the lowest room that knows about episodes: environments write these records; rewards,
users, policies, replay, synthesis, evaluation and training read them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from gym_mcp.tasks import Task

__all__ = [
    "CALL_STATUSES",
    "LIMITS",
    "TRANSIENT_MARKER",
    "USER_TURN_KINDS",
    "CallRecord",
    "CallStatus",
    "Episode",
    "Limit",
    "RewardFn",
    "UserTurn",
    "UserTurnKind",
    "shown_call",
]

CallStatus = Literal["ok", "tool_error", "invalid", "timeout", "crash"]
"""What came of an attempted call (`CallRecord.status`).

``"ok"``: the tool ran without error; ``"tool_error"``: it ran (or a perturbation answered in
its place) and refused; ``"invalid"``: it never reached the server (an unknown tool, arguments
that do not fit its schema, an action that could not be read, one call too many);
``"timeout"``: it ran past its time and the server was restarted; ``"crash"``: the server died
during the call (it was restarted, unless the episode's limits say ``server_down``).
"""
CALL_STATUSES: tuple[CallStatus, ...] = get_args(CallStatus)

Limit = Literal["max_steps", "max_steps_per_turn", "max_user_turns", "server_down", "state_lost"]
"""A limit that truncated an episode (``info["limits"]``).

``"max_steps"`` / ``"max_steps_per_turn"`` / ``"max_user_turns"``: the environment's settings;
``"server_down"``: the server could not be started again; ``"state_lost"``: a failed call's
write could not be undone, or the state itself is gone (a sessions server ended the session after
a write whose result nobody kept): the state cannot be trusted, so the episode cannot go on (its
``final_fingerprint`` is then ``""`` when there is no state left to fingerprint).
"""
LIMITS: tuple[Limit, ...] = get_args(Limit)

TRANSIENT_MARKER = "(transient)"
"""Every injected failure that goes away on retry says so (see `gym_mcp.wrappers`): retry the call."""


@dataclass(frozen=True)
class CallRecord:
    """One attempted tool call and what came of it.

    Attributes:
        name: Tool name as the agent sent it.
        arguments: Arguments as the agent sent them.
        output: What the agent was shown.
        status: What came of it (see `CallStatus`): ``"ok"``, ``"tool_error"`` (the tool ran
            and refused), ``"invalid"`` (never reached the server: unknown tool, bad
            arguments), ``"timeout"`` or ``"crash"``.
        step: The step the call was made in.
        known_name: The tool name exists in the environment.
        valid_arguments: The arguments passed the tool's schema (required keys, types).
    """

    name: str
    arguments: Any
    output: str
    status: CallStatus
    step: int
    known_name: bool = False
    valid_arguments: bool = False

    def __post_init__(self) -> None:
        if self.status not in CALL_STATUSES:
            raise ValueError(f"CallRecord.status must be one of {', '.join(CALL_STATUSES)}, got {self.status!r}")

    @property
    def ok(self) -> bool:
        """True when the call ran without error."""
        return self.status == "ok"

    @property
    def transient(self) -> bool:
        """A failure that says it goes away on retry (`TRANSIENT_MARKER`): a careful agent retries."""
        return self.status != "ok" and TRANSIENT_MARKER in self.output

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the arguments as the agent sent them, not copied)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


UserTurnKind = Literal["answer", "confirm", "refuse", "revise", "reveal", "unknown", "stop", "other"]
"""What a user's reply did (`UserTurn.kind`)."""
USER_TURN_KINDS: tuple[UserTurnKind, ...] = get_args(UserTurnKind)


@dataclass(frozen=True)
class UserTurn:
    """One reply of the simulated user, and what it did.

    Attributes:
        step: The step of the agent message it answers.
        text: What the user said (as the agent saw it).
        kind: ``"answer"`` (gave a value it holds), ``"confirm"`` (said yes to an action),
            ``"refuse"`` (said no), ``"revise"`` (changed its mind about a value), ``"reveal"``
            (made its next request), ``"unknown"`` (had nothing to say to the message),
            ``"stop"`` (ended the dialogue) or ``"other"``.
        slot: For an answer, the parameter whose value it gave.
        needless: The agent asked for something the user had already said.
        guards: The guards against simulator failures that this reply hit (LLM users).
    """

    step: int
    text: str
    kind: UserTurnKind
    slot: str | None = None
    needless: bool = False
    guards: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class Episode:
    """A finished (or truncated) episode, as reward functions see it.

    Attributes:
        task: The task.
        calls: Every attempted call, in order.
        messages: The conversation in OpenAI chat format.
        final_answer: The agent's closing text (None when truncated).
        final_fingerprint: Fingerprint of the server state at the end.
        terminated: The agent ended the episode with an answer.
        truncated: The episode hit a limit (named in ``limits``).
        user_turns: The simulated user's replies, in order.
        with_user: The episode was a dialogue with a simulated user (the dialogue terms apply).
        extra: Anything else an environment reports.
        limits: The limits the episode reached (see `Limit`).
    """

    task: Task
    calls: tuple[CallRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    final_answer: str | None
    final_fingerprint: str
    terminated: bool
    truncated: bool
    extra: Mapping[str, Any] = field(default_factory=dict)
    user_turns: tuple[UserTurn, ...] = ()
    with_user: bool = False
    limits: tuple[Limit, ...] = ()


RewardFn = Callable[[Episode], float]
"""A reward function: the finished episode's reward."""


def shown_call(call: Mapping[str, Any], injections: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``call`` under the names a perturbation shows the agent (renamed tools and parameters).

    Args:
        call: A call under the server's names (``{"name": ..., "arguments": {...}}``).
        injections: ``info["perturbations"]`` of a `gym_mcp.wrappers.Perturb` episode; its
            ``renamed_tool`` and ``renamed_param`` records are applied in the order they were made.
    """
    name, arguments = str(call.get("name", "")), dict(call.get("arguments") or {})
    for injection in injections:
        kind, original = injection.get("kind"), injection.get("original")
        if kind == "renamed_tool" and original == name:
            name = str(injection["shown"])
        elif kind == "renamed_param" and injection.get("tool") == name and original in arguments:
            arguments[str(injection["shown"])] = arguments.pop(str(original))
    return {**call, "name": name, "arguments": arguments}
