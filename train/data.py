"""Training data from tasks: conversations as token ids, with a loss mask on the model's own tokens.

A reference trajectory is the task's reference calls played through a real environment (so the
tool results are the live server's), followed by a short final answer; with a simulated user, it
is the task's reference dialogue (questions, confirmations, calls, reports) and the user's real
replies. It is rendered in the
prompt format the local-model policy and the rollouts use (`gym_mcp.policies.prompt.prompt_format`:
the model's own chat template when it renders tools, gym-mcp's compact prompt otherwise); only the
assistant turns (tool calls, messages to the user and the answer) are learned: the system
block, user turns (the simulated user's replies included) and tool results are masked out of the
loss (label -100).
"""

from __future__ import annotations

import math
import random
import sys
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from gym_mcp.env.mcp import MCPEnv
from gym_mcp.episode import shown_call
from gym_mcp.errors import ConfigError
from gym_mcp.playback import replay
from gym_mcp.policies.prompt import PromptFormat, prompt_format
from gym_mcp.state.base import StateBackend
from gym_mcp.tasks import Task

__all__ = [
    "Example",
    "compact_tools",
    "encode_conversation",
    "held_out_split",
    "needless_call_conversation",
    "pad_batch",
    "recovery_conversation",
    "reference_conversation",
    "run_tasks",
    "schema_ordered",
    "sft_batch_indices",
]

if TYPE_CHECKING:
    from gym_mcp.train.config import TrainConfig

IGNORE = -100


@dataclass(frozen=True)
class Example:
    """One training example.

    Attributes:
        input_ids: Token ids of the whole conversation.
        labels: The same ids where the model speaks, ``-100`` elsewhere.
        task_id: The task it came from.
    """

    input_ids: list[int]
    labels: list[int]
    task_id: str


def compact_tools(
    tools: Sequence[Mapping[str, Any]],
    task: Task,
    distractors: int | None = 3,
    injections: Sequence[Mapping[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The task's own tools plus a few others, so prompts stay short on a small machine.

    Args:
        tools: All tools the environment offers (OpenAI format).
        task: The task; the tools of its reference calls are always kept.
        distractors: How many other tools to add (chosen by the task id, so SFT and rollouts
            of one task see the same list); None keeps every tool.
        injections: ``info["perturbations"]`` under a `Perturb` wrapper: the task's tools are
            kept under the names shown, and so are the distractor and duplicate tools made from them.
    """
    if distractors is None:
        return [dict(t) for t in tools]
    needed = {shown_call(c, injections)["name"] for c in task.reference_calls}
    for injection in injections:
        if injection.get("kind") in ("distractor_tool", "duplicate_tool") and injection.get("original") in {
            str(c["name"]) for c in task.reference_calls
        }:
            needed.add(shown_call({"name": injection["shown"]}, injections)["name"])
    own = [dict(t) for t in tools if t["function"]["name"] in needed]
    others = sorted(
        (dict(t) for t in tools if t["function"]["name"] not in needed), key=lambda t: t["function"]["name"]
    )
    picked = random.Random(task.id).sample(others, k=min(distractors, len(others)))
    return sorted(own + picked, key=lambda t: t["function"]["name"])


def schema_ordered(task: Task, tools: Sequence[Mapping[str, Any]]) -> Task:
    """``task`` with each reference call's arguments in the order its tool's schema lists them.

    The order of a call's arguments is what the model is taught to write, and it should not
    depend on where the task came from: a synthesized task keeps the synthesizer's order, the
    same task read back from JSONL has its keys sorted (`save_tasks`). Arguments the schema
    does not list keep their place after the listed ones.

    Args:
        task: The task.
        tools: The server's tools (OpenAI format).
    """
    order = {t["function"]["name"]: list((t["function"].get("parameters") or {}).get("properties", {})) for t in tools}
    calls = []
    for call in task.reference_calls:
        args = dict(call.get("arguments", {}))
        known = [k for k in order.get(str(call["name"]), []) if k in args]
        ordered = {k: args[k] for k in known} | {k: v for k, v in args.items() if k not in known}
        calls.append({**call, "arguments": ordered})
    return Task.from_dict({**task.to_dict(), "reference_calls": calls})


def reference_conversation(
    env: gym.Env[str, Any], task: Task, distractors: int | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play a task's reference calls in ``env``; return (messages, tools) as the agent saw them.

    Each reference call is its own assistant turn, followed by the live tool result; a final
    answer closes the conversation. ``distractors`` selects a compact tool list (`compact_tools`).
    """
    answer = task.expected_answer or ("Done." if task.reference_calls else "I can't help with that here.")
    played = replay(env, task, answer=answer)
    tools = compact_tools(played.info["tools"], task, distractors, played.info.get("perturbations", ()))
    return played.messages, tools


def recovery_conversation(
    env: gym.Env[str, Any], task: Task, distractors: int | None = None, *, seed: int = 0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int] | None:
    """A reference trajectory with one bad call before one of its calls, and the live error it gets.

    One reference call is preceded by a broken version of it: a required argument dropped, an
    argument the tool does not take added, or the tool's name misspelled. The environment
    rejects it before it reaches the server (the state is untouched) and answers with its real
    error message; the correct call follows, then the rest of the reference. Trained with the
    bad call as context (see ``masked`` in `encode_conversation`), the model learns that an
    error is answered by a corrected call, not by ending the episode.

    Args:
        env: An environment of the task's server.
        task: A task with reference calls.
        distractors: The compact tool list's size (see `compact_tools`).
        seed: Chooses the call and the kind of breakage.

    Returns:
        ``(messages, tools, bad)`` where ``messages[bad]`` is the bad call's assistant message,
        or None when the task has no call to break, its reference dialogue talks to the user
        before the end (a question or a confirmation), or the replay did not reach the expected
        state.
    """
    if not task.reference_calls:
        return None
    _, info = env.reset(options={"task": task})
    if "user" in info and [t for t in task.reference_dialogue() if isinstance(t, str)][:-1]:
        return None  # a dialogue that needs questions or confirmations: the bad call has no place yet
    rng = random.Random(f"{seed}:{task.id}")
    tools = {t["function"]["name"]: t["function"] for t in info["tools"]}
    renames = info.get("perturbations") or ()  # under a Perturb wrapper: the names shown
    at = rng.randrange(len(task.reference_calls))
    target = shown_call(task.reference_calls[at], renames)
    bad = _broken(target, tools, rng)
    bad_index = -1
    for i, call in enumerate(task.reference_calls):
        if i == at:
            _, _, _, _, info = env.step(bad)
            bad_index = len(info["messages"]) - 2
            if info["calls"][-1].ok:
                return None  # the server took it: not a bad call after all
        _, _, _, _, info = env.step(shown_call(call, renames))
    if task.expected_fingerprint is not None and _state(env).fingerprint() != task.expected_fingerprint:
        return None
    _, _, _, _, info = env.step(task.expected_answer or "Done.")
    shown = compact_tools(info["tools"], task, distractors, info.get("perturbations", ()))
    return list(info["messages"]), shown, bad_index


def needless_call_conversation(
    env: gym.Env[str, Any], task: Task, distractors: int | None = None, *, seed: int = 0
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int] | None:
    """A reference trajectory with one needless call at its end, and then the stop.

    After the reference calls, one of them is made again (a repeated read: it must succeed and
    leave the expected state, so a write is never repeated; the episode is restored from a
    snapshot after a call that fails that test, and the next is tried), its real
    result comes back, and the conversation ends with the reference's final answer. Trained
    with the needless call as context (see ``masked`` in `encode_conversation`), the model
    learns that a call the task did not need is followed by stopping, not by more calls.

    Args:
        env: An environment of the task's server.
        task: A task with reference calls.
        distractors: The compact tool list's size (see `compact_tools`).
        seed: Chooses the call repeated.

    Returns:
        ``(messages, tools, needless)`` where ``messages[needless]`` is the needless call's
        assistant message, or None when the task has no call, its reference dialogue talks to
        the user before the end, or every reference call writes.
    """
    if not task.reference_calls:
        return None
    _, info = env.reset(options={"task": task})
    if "user" in info and [t for t in task.reference_dialogue() if isinstance(t, str)][:-1]:
        return None  # a dialogue that needs questions or confirmations
    renames = info.get("perturbations") or ()
    for call in task.reference_calls:
        env.step(shown_call(call, renames))
    candidates = list(task.reference_calls)
    random.Random(f"{seed}:needless:{task.id}").shuffle(candidates)
    done = env.unwrapped.snapshot()  # type: ignore[attr-defined]
    for again in candidates:  # the first that is a read: made again, it succeeds and changes nothing
        _, _, _, _, info = env.step(shown_call(again, renames))
        unchanged = task.expected_fingerprint is None or _state(env).fingerprint() == task.expected_fingerprint
        if info["calls"][-1].ok and unchanged:
            break
        env.unwrapped.restore(done)  # type: ignore[attr-defined]
    else:
        return None  # every call writes (or is refused the second time, as a payee removed twice)
    needless = len(info["messages"]) - 2
    _, _, _, _, info = env.step(task.expected_answer or "Done.")
    shown = compact_tools(info["tools"], task, distractors, info.get("perturbations", ()))
    return list(info["messages"]), shown, needless


def _state(env: gym.Env[str, Any]) -> StateBackend:
    """The state of the environment's live server (``env.unwrapped.state``)."""
    inner = env.unwrapped
    if not isinstance(inner, MCPEnv):
        raise ConfigError(f"training data comes from gym-mcp environments over MCP servers, got {type(inner).__name__}")
    return inner.state


def _broken(call: Mapping[str, Any], tools: Mapping[str, Mapping[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A version of ``call`` the environment rejects (see `recovery_conversation`)."""
    name, args = str(call["name"]), dict(call.get("arguments", {}))
    required = [a for a in (tools.get(name, {}).get("parameters") or {}).get("required", []) if a in args]
    own = set((tools.get(name, {}).get("parameters") or {}).get("properties", {}))
    foreign = sorted({p for t in tools.values() for p in (t.get("parameters") or {}).get("properties", {})} - own)
    kinds = ["misspelled"] + (["dropped"] if required else []) + (["foreign"] if foreign else [])
    kind = rng.choice(kinds)
    if kind == "dropped":
        args.pop(rng.choice(required))
    elif kind == "foreign":
        args[rng.choice(foreign)] = next(iter(args.values()), "x")
    else:
        cut = rng.randrange(len(name))
        name = name[:cut] + name[cut + 1 :] if len(name) > 3 else name + "_x"
    return {"name": name, "arguments": args}


def encode_conversation(
    tokenizer: Any,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    task_id: str = "",
    *,
    context_messages: int = 0,
    fmt: PromptFormat | None = None,
    masked: Sequence[int] = (),
) -> Example:
    """Token ids and labels for a conversation: the loss covers the assistant turns only.

    Segments (see `PromptFormat.segments`) are tokenized one by one, so every token is either
    the model's own (labelled) or context (``-100``). In the compact format the last reply ends
    with the end-of-text token; a chat template closes every reply with its own end-of-turn
    token, which is labelled (the model learns to stop). The first ``context_messages`` messages
    are context even where the assistant speaks (calls given to a forked rollout, not sampled by
    the model).

    Args:
        tokenizer: The model's tokenizer.
        messages: The conversation (OpenAI format).
        tools: The tools the model is shown.
        task_id: Recorded on the example.
        context_messages: Leading messages that are context, assistant ones included.
        fmt: The prompt format (default: `prompt_format` of the tokenizer).
        masked: Indices of assistant messages that are context anyway (a bad call shown so the
            model learns what follows it, see `recovery_conversation`).
    """
    fmt = fmt or prompt_format(tokenizer)
    input_ids: list[int] = []
    labels: list[int] = []
    segments = fmt.segments(messages, tools)
    replies_of = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    context = {r for r, i in enumerate(replies_of) if i < context_messages or i in set(masked)}
    last_model = max((i for i, (_, mine) in enumerate(segments) if mine), default=-1)
    replies = 0
    for i, (text, mine) in enumerate(segments):
        if i == last_model and tokenizer.eos_token and not fmt.closes_replies:
            text += tokenizer.eos_token
        ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
        input_ids += ids
        learned = mine and replies not in context
        replies += int(mine)
        labels += ids if learned else [IGNORE] * len(ids)
    return Example(input_ids, labels, task_id)


def pad_batch(examples: Sequence[Example], pad_id: int, device: Any = None) -> tuple[Any, Any]:
    """Right-pad examples into ``(input_ids, labels)`` tensors; padding is never labelled.

    Args:
        examples: Encoded conversations.
        pad_id: Token id for the padding (the causal mask keeps it out of every real position).
        device: Torch device of the tensors.
    """
    import torch

    width = max(len(e.input_ids) for e in examples)
    ids = torch.tensor([e.input_ids + [pad_id] * (width - len(e.input_ids)) for e in examples], device=device)
    labels = torch.tensor([e.labels + [IGNORE] * (width - len(e.labels)) for e in examples], device=device)
    return ids, labels


def pack_batch(examples: Sequence[Example], pad_id: int, capacity: int, device: Any = None) -> tuple[Any, Any, Any]:
    """Several conversations to a row: ``(input_ids, labels, position_ids)`` with fewer, fuller rows.

    Conversations go into rows of at most ``capacity`` tokens (never fewer than the longest
    conversation), longest first, each into the first row it fits (first-fit decreasing). Each
    conversation's position ids start again at 0: transformers reads a restart as a new sequence
    and builds a block-diagonal causal mask (its ``find_packed_sequence_indices``, used when no
    attention mask is passed), so no token attends to another conversation. The first token of
    every conversation after a row's first is unlabelled: it would otherwise be predicted from the
    conversation before it (a row's first token is never a target either). Rows are right-padded
    to the longest; each padding token is a sequence of its own (position 0) and unlabelled.

    The loss over packed rows equals `pad_batch`'s over the same conversations (to float
    rounding; tests/train/test_batching.py); a GPU runs a few long rows instead of many padded ones.

    Args:
        examples: Encoded conversations.
        pad_id: Token id for the padding.
        capacity: The most tokens a row holds (raised to the longest conversation).
        device: Torch device of the tensors.
    """
    import torch

    capacity = max(capacity, *(len(e.input_ids) for e in examples))
    rows: list[list[Example]] = []
    used: list[int] = []  # tokens in each row
    for example in sorted(examples, key=lambda e: -len(e.input_ids)):  # stable: ties keep their order
        n = len(example.input_ids)
        i = next((i for i, u in enumerate(used) if u + n <= capacity), len(rows))
        if i == len(rows):
            rows.append([])
            used.append(0)
        rows[i].append(example)
        used[i] += n
    ids, labels, positions = [], [], []
    for row in rows:
        ids.append([t for e in row for t in e.input_ids])
        labels.append([t for i, e in enumerate(row) for t in ([IGNORE] if i else e.labels[:1]) + e.labels[1:]])
        positions.append([p for e in row for p in range(len(e.input_ids))])
    width = max(len(r) for r in ids)
    return (
        torch.tensor([r + [pad_id] * (width - len(r)) for r in ids], device=device),
        torch.tensor([r + [IGNORE] * (width - len(r)) for r in labels], device=device),
        torch.tensor([r + [0] * (width - len(r)) for r in positions], device=device),
    )


def run_tasks(config: TrainConfig) -> list[Any]:
    """The run's tasks: ``config.tasks`` read, or synthesized on each of the run's servers with ``config.seed``.

    A training server gets its share of ``n_tasks``; an ``eval_servers`` server gets just its
    held-out places (see `held_out_quotas`). Each server's tasks are what `synthesize` makes for
    it alone, whatever else runs beside it (see `synthesize_many`), listed server by server.
    """
    from gym_mcp.synth import SynthConfig, synthesize_many
    from gym_mcp.tasks import load_tasks

    if config.tasks:
        return load_tasks(config.tasks)
    from gym_mcp.progress import progress_bar

    counts = largest_remainder(config.n_tasks, config.train_servers)
    if config.eval_servers and config.eval_tasks:
        places = held_out_quotas(config.eval_tasks, config.all_servers)
        counts.update({s: places[s] for s in config.eval_servers if places[s]})
    names = ", ".join(f"{s} {n}" for s, n in counts.items())
    print(f"synthesizing {sum(counts.values())} tasks ({names}), each verified by replay", file=sys.stderr)
    settings = SynthConfig(
        n=config.n_tasks,
        seed=config.seed,
        max_chain=config.max_chain,
        heldout_tools=config.held_out_tools,
        ask_to_confirm=config.ask_to_confirm and bool(config.user),
    )
    if config.dialogue_share and config.user:
        plain = {k: v * (1 - config.dialogue_share) for k, v in settings.variants.items()}
        each = config.dialogue_share / 3
        variants = {**plain, "staged": each, "change_of_mind": each, "confirmation": each}
        settings = replace(settings, variants=variants, max_attempts=60)
    jobs = {server: replace(settings, n=n) for server, n in counts.items() if n}
    results = synthesize_many(jobs, progress=progress_bar("synthesizing", "tasks"))
    made = {server: list(results[server].tasks) for server in jobs}
    if config.eval_tasks:
        _top_up_held_out(config, jobs, made)
    return [task for server in jobs for task in made[server]]


TOP_UP_ROUNDS = 3
"""Syntheses at most per training server whose test split is short of its held-out places."""


def _top_up_held_out(config: TrainConfig, jobs: Mapping[str, Any], made: dict[str, list[Any]]) -> None:
    """Synthesize more where a training server's test split cannot fill its held-out places.

    Which tasks are held out (their entities) is drawn per task, so the test split's size moves
    with the seed: at 360 tasks, seed 0 left 66 test tasks and seed 1 only 42 for 64 places. A
    short server is synthesized again with more tasks (the same seed: the same call chains
    first, then more) and keeps as many train tasks of each kind as it had, the first ones, and
    every test task: the training chains stay what they were (the irrelevant requests, drawn
    after the chains, may be others), the held-out set gets its places. In place, on ``made``.
    """
    from gym_mcp.progress import progress_bar
    from gym_mcp.synth import synthesize_many

    places = held_out_quotas(config.eval_tasks, config.all_servers)
    jobs = dict(jobs)
    for _ in range(TOP_UP_ROUNDS):
        short = {}
        for server, job in jobs.items():
            tested = sum(t.split == "test" for t in made[server])
            if server in config.eval_servers or tested >= places[server]:
                continue
            short[server] = replace(job, n=min(math.ceil(job.n * 1.25 * places[server] / max(tested, 1)), 4 * job.n))
            print(
                f"{server}: {tested} test-split tasks for {places[server]} held-out places; "
                f"synthesizing {short[server].n} to find more",
                file=sys.stderr,
            )
        if not short:
            return
        results = synthesize_many(short, progress=progress_bar("synthesizing more", "tasks"))
        for server, job in short.items():
            # as many train tasks of each kind as before: the chains come first in a synthesis
            # and the irrelevant requests after them (their number grows with n)
            room = Counter(t.variant == "irrelevant" for t in made[server] if t.split == "train")
            kept = []
            for task in results[server].tasks:
                if task.split == "train":
                    if room[task.variant == "irrelevant"] == 0:
                        continue
                    room[task.variant == "irrelevant"] -= 1
                kept.append(task)
            made[server] = kept
            jobs[server] = job


def largest_remainder(n: int, shares: Mapping[str, float]) -> dict[str, int]:
    """``n`` split by ``shares`` (in proportion; whole numbers that sum to ``n``, ties to the first named)."""
    total = sum(shares.values())
    exact = {k: n * v / total for k, v in shares.items()}
    out = {k: int(v) for k, v in exact.items()}
    order = sorted(shares, key=lambda k: (-(exact[k] - out[k]), list(shares).index(k)))
    for k in order[: n - sum(out.values())]:
        out[k] += 1
    return out


def held_out_quotas(n: int, servers: Sequence[str]) -> dict[str, int]:
    """The ``n`` held-out places shared equally by the servers evaluated (largest remainder)."""
    return largest_remainder(n, dict.fromkeys(servers, 1.0))


def _stratum(task: Any) -> tuple[str, int]:
    return (str(task.variant or "complete"), len(task.reference_calls))


def held_out_split(tasks: Sequence[Any], n: int, eval_servers: Collection[str] = ()) -> tuple[list[Any], list[Any]]:
    """The train tasks and ``n`` held-out tasks, stratified by server, variant and chain length.

    The servers evaluated (every server of ``tasks``) share the ``n`` places equally (a server
    with fewer candidates leaves its places to the others, in server order). A training
    server's held-out tasks come from its ``test`` split (templates and entities the train split
    does not use); any task of an ``eval_servers`` server may be held out, and none is trained on.
    Within a server, each (variant, chain length) stratum gets a share of its places in
    proportion to its size, at least one while places last (so a rare variant, e.g. irrelevant
    requests, is evaluated), the rest by largest remainder; within a stratum, tasks keep their
    file order. A task set without a test split trains on everything and holds nothing out.

    Returns:
        ``(train, held_out)``, each in the order of ``tasks``.
    """
    trained = [t for t in tasks if t.server not in eval_servers]
    train = [t for t in trained if t.split == "train"] or list(trained)
    candidates: dict[str, list[Any]] = {}
    for task in tasks:
        if task.server in eval_servers or task.split == "test":
            candidates.setdefault(task.server, []).append(task)
    places = held_out_quotas(n, list(candidates)) if candidates else {}
    spare = sum(max(0, places[s] - len(group)) for s, group in candidates.items())
    places = {s: min(places[s], len(group)) for s, group in candidates.items()}
    while spare > 0 and any(places[s] < len(g) for s, g in candidates.items()):  # places a server cannot fill
        for server, group in candidates.items():
            if spare > 0 and places[server] < len(group):
                places[server] += 1
                spare -= 1
    chosen = {id(t) for server, group in candidates.items() for t in _stratified(group, places[server])}
    return train, [t for t in tasks if id(t) in chosen]


def _stratified(test: Sequence[Any], n: int) -> list[Any]:
    """``n`` of ``test``, stratified by variant and chain length (see `held_out_split`)."""
    if n >= len(test):
        return list(test)
    strata: dict[tuple[str, int], list[Any]] = {}
    for task in test:
        strata.setdefault(_stratum(task), []).append(task)
    keys = sorted(strata, key=lambda k: (-len(strata[k]), k))
    quota = dict.fromkeys(keys, 0)
    for key in keys[:n]:  # at least one each, the largest strata first
        quota[key] = 1
    left = n - sum(quota.values())
    if left > 0:
        exact = {k: n * len(strata[k]) / len(test) for k in keys}
        while left > 0:  # the stratum furthest below its proportional share gets the next place
            key = max(
                (k for k in keys if quota[k] < len(strata[k])), key=lambda k: (exact[k] - quota[k], -keys.index(k))
            )
            quota[key] += 1
            left -= 1
    return [t for k in keys for t in strata[k][: quota[k]]]


def sft_batch_indices(n: int, step: int, batch: int, seed: int) -> list[int]:
    """Which of ``n`` examples SFT step ``step`` trains on: epoch after epoch, each in a new order.

    Every example is seen once per epoch (sampling with replacement leaves about a third of
    them unseen after one epoch's worth of steps). The order depends only on ``seed`` and the
    epoch, so a resumed run draws the batches the uninterrupted one would have.

    Args:
        n: Number of examples.
        step: SFT step (0-based).
        batch: Conversations per step (at most ``n``).
        seed: The run's seed.
    """
    size = min(batch, n)
    orders: dict[int, list[int]] = {}
    picked = []
    for pos in range(step * size, (step + 1) * size):
        epoch, i = divmod(pos, n)
        if epoch not in orders:
            orders[epoch] = list(range(n))
            random.Random(f"{seed}:sft:{epoch}").shuffle(orders[epoch])
        picked.append(orders[epoch][i])
    return picked
