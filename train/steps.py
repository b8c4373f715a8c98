"""Step-level RL at decision points: where the model's own play departs from what the task needs.

A decision point is a task and how many turns of its reference dialogue were played: the live
state (server, conversation, user) of an agent that did everything right so far, and the one
turn the reference takes next. Kinds of turn: ``call`` (the next call), ``ask`` (a question for
a value the user holds), ``confirm`` (asking before an irreversible action; the user confirms,
revises or refuses), ``report`` (a stage done; the user makes the next request) and ``stop``
(the final answer).

`find_points` plays the model greedily at every reference decision of some tasks and judges
each reply (`judge`): the departures are the model's own mistakes, each with its kind ("acted
without asking", "needless call", "wrong arguments", ...). `sample_at` forks a point into a
group of sampled replies (`gym_mcp.policies.decoding.sample_replies`: tokens and log-probs as
drawn) and scores each on the live fork: 1 for the reference's turn (its call with its
arguments, `gym_mcp.users.base.call_done`; or a message the user answers as it answers the
reference's), else 0. A point whose group all scores alike carries no signal and is screened
out; the rest feed `gym_mcp.train.losses.reply_step`.

A point where no sampled reply takes the reference's turn (the model never asks there, say) has
no spread and would teach nothing; with ``guide`` its group gets the reference's own reply as
one more member (`reference_reply`), off-policy as in LUFFY (Yan et al., 2025): scored 1 against
the sampled failures, with its log-probs taken from the current policy, so its ratio starts at 1
like the others'. The sampled replies' advantages are then negative: the mistake is pushed down
where it was made, which supervised data alone never does.

Like `gym_mcp.train.rollouts`, this room reaches past the environment's public API (``fork``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from gym_mcp.policies.decoding import SampledReply
    from gym_mcp.tasks import Task

__all__ = [
    "DecisionKind",
    "DecisionPoint",
    "Mistake",
    "PointGroup",
    "PointQueue",
    "find_points",
    "finish_with_reference",
    "judge",
    "mistake_counts",
    "reference_reply",
    "sample_at",
]

DecisionKind = Literal["call", "ask", "confirm", "report", "stop"]
"""What the reference does at a decision point (see the module docstring)."""

Mistake = Literal[
    "acted without asking",
    "called without asking for the value",
    "needless call",
    "asked instead of calling",
    "stopped before the call",
    "wrong arguments",
    "wrong tool",
    "no confirmation asked",
    "no question for the value",
    "no final answer",
    "wrong message",
]
"""What a reply at a decision point did wrong (`judge`)."""

# the user's reply kind to a reference message -> the kind of that decision
_SAY_KINDS: dict[str, DecisionKind] = {
    "confirm": "confirm",
    "revise": "confirm",
    "refuse": "confirm",
    "answer": "ask",
    "reveal": "report",
}

# where a reply the reference can still finish from may get partial credit (`sample_at`): decisions
# where acting is not itself the mistake, and replies that made a call (a message in place of the
# reference's call only costs a turn, and chatter must not earn credit)
_LATE_KINDS = frozenset({"call", "report", "stop"})
_LATE_MISTAKES = frozenset({"wrong tool", "wrong arguments", "needless call"})

# what a reply that makes a call where the reference speaks did wrong, by the decision's kind
_CALLED_INSTEAD: dict[str, Mistake] = {
    "confirm": "acted without asking",
    "ask": "called without asking for the value",
    "report": "needless call",
    "stop": "needless call",
}


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of a task's reference dialogue.

    Attributes:
        task: The task.
        turn: Reference turns played before it (`Task.reference_dialogue`).
        kind: What the reference does next: ``call``, ``ask``, ``confirm``, ``report`` or ``stop``.
        user_kind: For a message, the kind of the user's reply to the reference's (``confirm``,
            ``answer``, ``stop``, ...); None for a call or without a simulated user.
        mistake: What the model's greedy reply did wrong there (`find_points`), None if right.
    """

    task: Task
    turn: int
    kind: DecisionKind
    user_kind: str | None = None
    mistake: Mistake | None = None

    @property
    def expected(self) -> str | dict[str, Any]:
        """The reference's turn at this point."""
        return self.task.reference_dialogue()[self.turn]


@dataclass
class PointGroup:
    """Replies sampled at one point, with their scores."""

    point: DecisionPoint
    replies: list[SampledReply]
    rewards: list[float]
    mistakes: list[Mistake | None]
    guided: bool = False  # the last reply is the reference's, added because none sampled scored

    @property
    def pass_rate(self) -> float:
        """Mean score of the sampled replies, a guided member left out (without late credit: the share right)."""
        sampled = self.rewards[:-1] if self.guided else self.rewards
        return sum(sampled) / max(1, len(sampled))


def _kinds(info: Mapping[str, Any]) -> Counter[str]:
    return Counter((info.get("user") or {}).get("kinds") or {})


def _user_reply(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    new = _kinds(after) - _kinds(before)
    return next(iter(new), None)


def judge(point: DecisionPoint, reply: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> Mistake | None:
    """What a reply at ``point`` did wrong (None: it took the reference's turn).

    Args:
        point: The decision.
        reply: The reply's text.
        before: The environment's info at the point.
        after: Its info after stepping the reply.
    """
    from gym_mcp.users.base import call_done
    from gym_mcp.users.text import is_question

    expected = point.expected
    calls = list(after.get("calls") or ())
    if isinstance(expected, dict):
        if call_done(expected, calls):
            return None
        if not calls:
            return "asked instead of calling" if is_question(reply) else "stopped before the call"
        return "wrong arguments" if any(c.name == expected["name"] for c in calls) else "wrong tool"
    if calls:
        return _CALLED_INSTEAD.get(point.kind, "needless call")
    if point.user_kind is None or _user_reply(before, after) == point.user_kind:
        return None
    missed: dict[str, Mistake] = {
        "confirm": "no confirmation asked",
        "ask": "no question for the value",
        "stop": "no final answer",
    }
    return missed.get(point.kind, "wrong message")


def _at(env: Any, point: DecisionPoint, seed: int) -> dict[str, Any]:
    """Reset ``env`` on the point's task and play the reference up to the point; its info."""
    _, info = env.reset(seed=seed, options={"task": point.task})
    for turn in point.task.reference_dialogue()[: point.turn]:
        _, _, _, _, info = env.step(turn)
    return info


def reference_points(env: Any, task: Task, seed: int = 0) -> list[DecisionPoint]:
    """Every decision of ``task``'s reference dialogue, each with the user's reply to the reference."""
    _, info = env.reset(seed=seed, options={"task": task})
    points = []
    for i, turn in enumerate(task.reference_dialogue()):
        _, _, terminated, truncated, after = env.step(turn)
        if isinstance(turn, dict):
            points.append(DecisionPoint(task, i, "call"))
        else:
            user = _user_reply(info, after) if "user" in after else None
            kind: DecisionKind = "stop" if terminated or user == "stop" else _SAY_KINDS.get(user or "", "report")
            points.append(DecisionPoint(task, i, kind, user))
        info = after
        if terminated or truncated:
            break
    return points


def sample_at(
    model: Any,
    tokenizer: Any,
    env_for: Any,
    points: Sequence[DecisionPoint],
    size: int,
    *,
    tools_for: Any,
    fmt: Any,
    temperature: float,
    max_new_tokens: int,
    seed: int,
    answer_tokens: int | None = None,
    grammar: Any = None,
    cache: Any = None,
    guide: bool = False,
    late_credit: float = 0.0,
) -> list[PointGroup]:
    """A group of ``size`` replies at each point, sampled in one batch and scored on live forks.

    A reply scores 1 when it takes the reference's turn (`judge`). With ``late_credit`` above 0,
    a call at a call, report or stop decision that was not the reference's turn, but after which
    the reference's remaining turns still reach the task's final state (a harmless read, a later
    reference call made first: `finish_with_reference`), scores ``late_credit``; one that
    spoiled the state scores 0, and so does a message in place of a call. Asking decisions
    (confirm, ask) never get it: there acting is the mistake.

    Args:
        model: The policy.
        tokenizer: Its tokenizer.
        env_for: ``server -> environment`` (reset on each point's task, then forked).
        points: The decision points.
        size: Replies per point (G); at temperature 0, 1 is enough (greedy).
        tools_for: ``(info, task) -> tools`` shown in the prompt (see `compact_tools`).
        fmt: The prompt format.
        temperature: Sampling temperature; 0 decodes greedily (no log-probs recorded).
        max_new_tokens: Longest reply.
        seed: Seeds the sampling.
        answer_tokens: Cut a reply that opens no call within this many tokens.
        grammar: Decode calls under the tools' schemas.
        cache: A `PromptCache` keyed by task id, carried between calls (`find_points`: a task's
            later points extend its earlier prompts, so only their new tokens run).
        guide: Give a group in which no sampled reply took the reference's turn the reference's
            reply as one more member (see the module docstring; needs ``temperature`` > 0).
        late_credit: The score of a reply the reference can still finish from (see above).
    """
    from gym_mcp.policies.decoding import SampledReply, generate_replies, sample_replies
    from gym_mcp.train.rollouts import fork, step_all

    forks, infos, tools = [], [], []
    extra = int(guide and temperature > 0)  # a fork that plays the reference's turn, for its message
    for point in points:
        env = env_for(point.task.server)
        info = _at(env, point, seed)
        forks.append(fork(env, size + extra))
        infos.append(info)
        tools.append(tools_for(info, point.task))
    try:
        prompts = [fmt.prompt(infos[i]["messages"], tools[i]) for i in range(len(points)) for _ in range(size)]
        shown = [tools[i] for i in range(len(points)) for _ in range(size)]
        keys = [(points[i].task.id, j) for i in range(len(points)) for j in range(size)] if cache is not None else None
        kw = dict(max_new_tokens=max_new_tokens, seed=seed, answer_tokens=answer_tokens, grammar=grammar, tools=shown)
        kw.update(cache=cache, keys=keys)
        if temperature > 0:
            replies = sample_replies(model, tokenizer, prompts, temperature=temperature, **kw)
        else:
            replies = [SampledReply(t, []) for t in generate_replies(model, tokenizer, prompts, **kw)]
        flat = [env for group in forks for env in group[:size]]
        results = step_all(flat, [r.text for r in replies])
        groups = []
        for i, point in enumerate(points):
            mine = range(i * size, (i + 1) * size)
            mistakes = [judge(point, replies[j].text, infos[i], results[j][4]) for j in mine]
            rewards = [float(m is None) for m in mistakes]
            if late_credit > 0 and point.kind in _LATE_KINDS:
                for k, j in enumerate(mine):
                    ended = results[j][2] or results[j][3]
                    if (
                        mistakes[k] in _LATE_MISTAKES
                        and not ended
                        and finish_with_reference(flat[j], point, results[j][4])
                    ):
                        rewards[k] = late_credit
            group = PointGroup(point, [replies[j] for j in mine], rewards, mistakes)
            if extra and all(m is not None for m in mistakes):
                _, _, _, _, played = forks[i][size].step(point.expected)
                prompt_ids = replies[i * size].prompt_ids
                theirs = reference_reply(
                    model, tokenizer, fmt, played["messages"], tools[i], prompt_ids, temperature, grammar
                )
                if theirs is not None:
                    group.replies.append(theirs)
                    group.rewards.append(1.0)
                    group.mistakes.append(None)
                    group.guided = True
            groups.append(group)
        return groups
    finally:
        for made in forks:
            for env in made:
                env.close()


def finish_with_reference(env: Any, point: DecisionPoint, after: Mapping[str, Any]) -> bool:
    """Whether the reference's turns from ``point`` on, played after a reply there, reach the task's final state.

    The reply did not take the point's turn; the reference's calls it already made (a later call
    made first) are not made again. Judged as the episode is: the final state's fingerprint
    against the task's (``info["state_match"]`` once the episode ends).

    Args:
        env: The environment just after the reply (a fork; it is played on).
        point: The decision the reply was made at.
        after: The environment's info after the reply.
    """
    from gym_mcp.users.base import call_done

    made = list(after.get("calls") or ())
    info: Mapping[str, Any] = after
    for turn in point.task.reference_dialogue()[point.turn :]:
        if isinstance(turn, dict) and call_done(turn, made):
            continue
        _, _, terminated, truncated, info = env.step(turn)
        made += list(info.get("calls") or ())
        if terminated or truncated:
            break
    return bool(info.get("state_match"))


def reference_reply(
    model: Any,
    tokenizer: Any,
    fmt: Any,
    messages: Any,
    tools: Any,
    prompt_ids: list[int],
    temperature: float,
    grammar: Any = None,
) -> SampledReply | None:
    """The reference's reply at a point, as the tokens the model would have had to sample.

    Its text is the last assistant message of ``messages`` rendered by the prompt format (what
    SFT trains on), tokenized after the prompt, closed by the end-of-turn token where the format
    does not write one. With a grammar, each token's mask is the one a matcher walking those
    tokens gives (the masks sampling would have applied); a reply the grammar refuses gets none.
    Its log-probs are the current policy's (no gradient): the update's first ratio is 1.

    Returns:
        The reply, or None when the format renders no reply for the last message.
    """
    import torch

    from gym_mcp.policies.decoding import SampledReply
    from gym_mcp.policies.prompt import STOP_STRINGS
    from gym_mcp.train.losses import sampled_logprobs

    own = [text for text, mine in fmt.segments(messages, tools) if mine]
    if not own or not own[-1]:
        return None
    ids = list(tokenizer(own[-1], add_special_tokens=False)["input_ids"])
    eos = tokenizer.eos_token_id
    # sampling stops at a stop string (a closed call) without drawing more; otherwise at end of turn
    if not fmt.closes_replies and eos is not None and not any(m in own[-1] for m in STOP_STRINGS):
        ids.append(int(eos))
    allowed = None
    matcher = grammar.matcher(tools) if grammar is not None else None
    if matcher is not None:
        import xgrammar

        masks = []
        for j, token in enumerate(ids):
            bitmask = xgrammar.allocate_token_bitmask(1, grammar.vocab_size)
            matcher.fill_next_token_bitmask(bitmask, 0)
            if not _bit(bitmask[0], token):
                break  # a reply the grammar would not have let the model write: no masks
            masks.append(bitmask[0].clone())
            if j < len(ids) - 1 and not matcher.accept_token(token):
                break
        allowed = masks if len(masks) == len(ids) else None
    forced = [_bit(m, None) for m in allowed] if allowed is not None else [False] * len(ids)
    reply = SampledReply(own[-1], list(prompt_ids), ids, [0.0] * len(ids), allowed, forced)
    with torch.no_grad():
        logprobs, _ = sampled_logprobs(model, [reply], temperature)
    reply.logprobs = [float(x) for x in logprobs[0]]
    return reply


def _bit(bitmask: Any, token: int | None) -> bool:
    """Whether a packed bitmask row allows ``token``; with None, whether it allows exactly one token."""
    import torch

    if token is not None:
        return bool((int(bitmask[token // 32]) >> (token % 32)) & 1)
    shifts = torch.arange(32, dtype=torch.int32)
    return int(((bitmask.unsqueeze(-1) >> shifts) & 1).sum()) == 1


def find_points(
    model: Any,
    tokenizer: Any,
    env_for: Any,
    tasks: Sequence[Task],
    *,
    tools_for: Any,
    fmt: Any,
    max_new_tokens: int,
    batch: int = 16,
    answer_tokens: int | None = None,
    grammar: Any = None,
    progress: Any = None,
) -> list[DecisionPoint]:
    """Every reference decision of ``tasks``, each with what the model's greedy reply there did wrong.

    The model is teacher-forced along the reference (each point's state is the reference's up
    to it), so every decision is judged, not only the first departure of a free episode. Tasks
    go ``batch`` at a time, turn by turn, like episodes in lockstep: each task's prompt KV cache
    is carried from one of its points to the next.
    """
    from gym_mcp.policies.decoding import PromptCache

    judged: list[DecisionPoint] = []
    total = 0
    for start in range(0, len(tasks), batch):
        block = [reference_points(env_for(task.server), task) for task in tasks[start : start + batch]]
        total += sum(map(len, block))
        cache = PromptCache()
        for turn in range(max(map(len, block), default=0)):
            chunk = [points[turn] for points in block if turn < len(points)]
            groups = sample_at(
                model,
                tokenizer,
                env_for,
                chunk,
                1,
                tools_for=tools_for,
                fmt=fmt,
                temperature=0.0,
                max_new_tokens=max_new_tokens,
                seed=0,
                answer_tokens=answer_tokens,
                grammar=grammar,
                cache=cache,
            )
            judged += [replace(g.point, mistake=g.mistakes[0]) for g in groups]
            if progress is not None:
                progress(len(judged), total)
    index = {t.id: i for i, t in enumerate(tasks)}
    return sorted(judged, key=lambda p: (index[p.task.id], p.turn))


def mistake_counts(points: Sequence[DecisionPoint]) -> dict[str, dict[str, int]]:
    """Per kind of decision: how many points, and how many greedy replies made each mistake."""
    out: dict[str, dict[str, int]] = {}
    for p in points:
        row = out.setdefault(p.kind, {"points": 0, "right": 0})
        row["points"] += 1
        if p.mistake is None:
            row["right"] += 1
        else:
            row[p.mistake] = row.get(p.mistake, 0) + 1
    return out


class PointQueue:
    """The decision points step-level RL trains at, the ones the model fails most first.

    A point's priority is its last group's pass rate (a guided member left out), fewer visits
    first among equals: the model's mistakes come back until it gets them right, rather than
    once each behind every decision it already makes. Before its first group a mistake counts
    as pass rate 0 and a decision the greedy reply got right as 1. A point leaves the queue when
    its group had no spread (nothing to learn there now) or after ``max_visits`` groups (a
    point the model cannot learn does not take every step).

    Args:
        points: The points, in the order to take them among equals (`find_points` order,
            shuffled by the caller).
        max_visits: Groups one point may get.

    Raises:
        ValueError: ``max_visits`` below 1.
    """

    def __init__(self, points: Sequence[DecisionPoint], max_visits: int = 4) -> None:
        if max_visits < 1:
            raise ValueError(f"max_visits must be at least 1, got {max_visits}")
        self.max_visits = max_visits
        self.visits: Counter[int] = Counter()  # by place in ``points``
        self._points = list(points)
        self._index = {id(p): i for i, p in enumerate(self._points)}
        self._pass = {i: 0.0 if p.mistake is not None else 1.0 for i, p in enumerate(self._points)}
        self._waiting = set(range(len(self._points)))

    def __len__(self) -> int:
        return len(self._waiting)

    def _key(self, i: int) -> tuple[float, int, int]:
        return (self._pass[i], self.visits[i], i)

    def take(self, n: int) -> list[DecisionPoint]:
        """The next ``n`` points (fewer when fewer wait); they wait again only through `update`."""
        chosen = sorted(self._waiting, key=self._key)[:n]
        self._waiting.difference_update(chosen)
        return [self._points[i] for i in chosen]

    def update(self, groups: Sequence[PointGroup]) -> None:
        """Put back the taken points whose group had spread, ranked by its pass rate."""
        for group in groups:
            i = self._index[id(group.point)]
            self.visits[i] += 1
            self._pass[i] = group.pass_rate
            if len(set(group.rewards)) > 1 and self.visits[i] < self.max_visits:
                self._waiting.add(i)
