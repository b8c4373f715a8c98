"""Rollouts: the model playing environments, one batched generation per turn for every open episode.

`play` drives reset (or forked) environments in lockstep; `rollout` plays one episode;
`rollout_group` plays a GRPO group from one task, optionally forked mid-episode after some of its
reference calls. This room is also where training reaches past an environment's public API
(`last_call_status`, `state_fingerprint`, `fork`, `server_tools`): every such access in
`gym_mcp.train` is here, so the move to a public episode API changes this module only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gym_mcp.errors import WorkerLostError
from gym_mcp.policies.decoding import PromptCache, generate_replies

if TYPE_CHECKING:
    from gym_mcp.policies.guided import CallGrammar

__all__ = [
    "Rollout",
    "fork",
    "play",
    "rollout",
    "rollout_group",
    "server_tools",
    "step_all",
]


@dataclass
class Rollout:
    """One sampled episode.

    Attributes:
        messages: The conversation (OpenAI format) as the environment recorded it.
        tools: The tools the model was shown.
        reward: The episode's reward.
        terms: The reward terms (``info["reward_terms"]``).
        context_messages: How many leading messages were given, not sampled (a forked start:
            the reference calls played before the fork); they are context in the loss.
        invalid_calls: Malformed or invalid calls the model made (``info["invalid_calls"]``).
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    reward: float
    terms: dict[str, Any] = field(default_factory=dict)
    context_messages: int = 0
    invalid_calls: int = 0


def play(
    model: Any,
    tokenizer: Any,
    envs: Sequence[Any],
    infos: Sequence[Mapping[str, Any]],
    tools: Sequence[Sequence[Mapping[str, Any]]],
    *,
    max_new_tokens: int = 32,
    temperature: float = 0.0,
    seed: int | None = None,
    context_messages: Sequence[int] | None = None,
    answer_tokens: int | None = None,
    fmt: Any = None,
    reuse_cache: bool = True,
    grammar: CallGrammar | None = None,
    batch_prefill: bool | None = None,
) -> list[Rollout]:
    """Play episodes in lockstep: each turn, one batched generation for every episode still open.

    The environments must be reset (or forked) already; ``infos`` are their latest infos. The
    model's replies go through ``env.step`` (tool results come back as observations) until each
    episode ends.

    Args:
        model: A causal LM (with or without adapters).
        tokenizer: Its tokenizer.
        envs: One environment per episode.
        infos: The info each environment returned last.
        tools: The tool list each episode's prompt shows (see `compact_tools`).
        max_new_tokens: Longest reply per turn.
        temperature: Sampling temperature; 0 is greedy.
        seed: Seeds sampling once for the whole batch.
        context_messages: Per episode, how many leading messages were given, not sampled.
        answer_tokens: Cut a reply that opens no call within this many tokens (see
            `generate_replies`).
        fmt: The prompt format (default: `prompt_format` of the tokenizer).
        reuse_cache: Carry each episode's prompt KV cache from turn to turn (see `PromptCache`),
            so a turn runs only its new tokens through the model; False runs every prompt whole.
        grammar: Decode calls under each episode's tool schemas (see `gym_mcp.policies.guided`).
        batch_prefill: Run the episodes' new prompt tokens in one padded pass a turn (False: one
            pass per episode; None: batched on a GPU only; see `PromptCache`).

    Returns:
        One `Rollout` per environment, in order, except for environments on a Ray worker that
        died mid-episode (`gym_mcp.ray`): those episodes are lost and left out.
    """
    from gym_mcp.policies.prompt import prompt_format

    fmt = fmt or prompt_format(tokenizer)
    n = len(envs)
    latest = [dict(i) for i in infos]
    rewards = [0.0] * n
    open_ = list(range(n))
    lost: set[int] = set()
    turn = 0
    cache = PromptCache(batch_prefill=batch_prefill) if reuse_cache else None
    while open_:
        prompts = [fmt.prompt(latest[i]["messages"], tools[i]) for i in open_]
        replies = generate_replies(
            model,
            tokenizer,
            prompts,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            seed=None if seed is None else seed + turn,
            answer_tokens=answer_tokens,
            cache=cache,
            keys=open_,
            grammar=grammar,
            tools=[tools[i] for i in open_],
        )
        still = []
        for i, result in zip(open_, step_all([envs[i] for i in open_], replies), strict=True):
            if isinstance(result, WorkerLostError):  # its Ray worker died: the episode is gone
                lost.add(i)
                if cache is not None:
                    cache.forget(i)
                continue
            _, r, terminated, truncated, latest[i] = result
            rewards[i] = float(r)
            if not (terminated or truncated):
                still.append(i)
            elif cache is not None:
                cache.forget(i)
        open_ = still
        turn += 1
    ctx = list(context_messages or [0] * n)
    return [
        Rollout(
            list(latest[i]["messages"]),
            [dict(t) for t in tools[i]],
            rewards[i],
            dict(latest[i].get("reward_terms", {})),
            ctx[i],
            int(latest[i].get("invalid_calls", 0)),
        )
        for i in range(n)
        if i not in lost
    ]


def step_all(envs: Sequence[Any], actions: Sequence[Any]) -> list[Any]:
    """Step each environment with its action: the step results, in order.

    Remote environments (`gym_mcp.ray.RemoteEnv`, which have ``step_async``) are all sent their
    step before any is waited for, so they step side by side on their workers. A remote
    environment whose worker died gives its `WorkerLostError` in its place instead of raising.
    """
    pending = [env.step_async(a) if hasattr(env, "step_async") else None for env, a in zip(envs, actions, strict=True)]
    results: list[Any] = []
    for env, action, sent in zip(envs, actions, pending, strict=True):
        try:
            results.append(sent.result() if sent is not None else env.step(action))
        except WorkerLostError as exc:
            results.append(exc)
    return results


def rollout(
    model: Any,
    tokenizer: Any,
    env: Any,
    task: Any,
    *,
    max_new_tokens: int = 32,
    temperature: float = 1.0,
    seed: int = 0,
    distractors: int | None = None,
) -> Rollout:
    """Play one episode with the model sampling its replies; tool results come from ``env.step``.

    ``distractors`` shows the model a compact tool list (see `compact_tools`).
    """
    from gym_mcp.train.data import compact_tools

    _, info = env.reset(seed=seed, options={"task": task})
    tools = compact_tools(info["tools"], task, distractors, info.get("perturbations", ()))
    return play(
        model, tokenizer, [env], [info], [tools], max_new_tokens=max_new_tokens, temperature=temperature, seed=seed
    )[0]


def rollout_group(
    model: Any,
    tokenizer: Any,
    env: Any,
    task: Any,
    size: int,
    *,
    fork_after: int = 0,
    max_new_tokens: int = 32,
    temperature: float = 1.0,
    seed: int = 0,
    distractors: int | None = None,
    answer_tokens: int | None = None,
    fmt: Any = None,
    grammar: CallGrammar | None = None,
) -> list[Rollout]:
    """A GRPO group: ``size`` rollouts of one task, sampled as one batch from forked environments.

    With ``fork_after=k`` the task's first ``k`` reference calls are played first (with a
    simulated user, the reference dialogue up to them) and the group starts from that mid-episode
    state (``env.fork``): the rollouts differ only in what the model does next, and the given
    turns are context, not the model's tokens.

    Args:
        model: The policy.
        tokenizer: Its tokenizer.
        env: An environment of the task's server (it is reset on the task; the group plays in forks).
        task: The task.
        size: Rollouts in the group (G).
        fork_after: Reference calls to play before forking (clamped to the task's length - 1).
        max_new_tokens: Longest reply per turn.
        temperature: Sampling temperature.
        seed: Seeds the reset and the sampling.
        distractors: Tools shown besides the task's own (see `compact_tools`).
        answer_tokens: Cut a reply that opens no call within this many tokens.
        fmt: The prompt format (default: `prompt_format` of the tokenizer).
        grammar: Decode calls under the tools' schemas (see `gym_mcp.policies.guided`).

    Returns:
        The group's rollouts. With a remote environment (`gym_mcp.ray.RemoteEnv`) whose worker
        dies, those it lost are left out: fewer than ``size``, or none when it died before the
        group began (the caller trains on the rest or skips the group).
    """
    from gym_mcp.episode import shown_call
    from gym_mcp.train.data import compact_tools

    try:
        _, info = env.reset(seed=seed, options={"task": task})
        tools = compact_tools(info["tools"], task, distractors, info.get("perturbations", ()))
        given = max(0, min(fork_after, len(task.reference_calls) - 1))
        # with a simulated user, the reference dialogue up to the given calls (its questions included)
        turns: list[Any] = task.reference_dialogue() if "user" in info else [dict(c) for c in task.reference_calls]
        played = 0
        renames = info.get("perturbations") or ()  # under a Perturb wrapper: the names shown
        for turn in turns:
            if played >= given:
                break
            _, _, _, _, info = env.step(shown_call(turn, renames) if isinstance(turn, dict) else turn)
            played += isinstance(turn, dict)
        forks = fork(env, size)
    except WorkerLostError:
        return []  # the Ray worker holding the environment died before the group began
    try:
        return play(
            model,
            tokenizer,
            forks,
            [info] * size,
            [tools] * size,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            seed=seed,
            context_messages=[len(info["messages"])] * size,
            answer_tokens=answer_tokens,
            fmt=fmt,
            grammar=grammar,
        )
    finally:
        for forked in forks:
            forked.close()


def fork(env: Any, n: int) -> list[Any]:
    """``n`` copies of ``env`` at its current mid-episode point (see `MCPEnv.fork`)."""
    return list(env.unwrapped.fork(n))


def server_tools(env: Any) -> list[dict[str, Any]]:
    """The server's own tool list, from a reset outside any wrapper (a perturbation draws its own per episode)."""
    _, info = env.unwrapped.reset()
    return list(info["tools"])
