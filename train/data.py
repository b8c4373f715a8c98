"""Training data from tasks: conversations as token ids, with a loss mask on the model's own tokens.

A reference trajectory is the task's reference calls played through a real environment (so the
tool results are the live server's), followed by a short final answer. It is rendered with the
same compact prompt the local-model policy uses (`gym_mcp.policies.prompt.render_prompt`); only the
assistant turns (tool calls and the answer) are learned: the system block, user turns and tool
results are masked out of the loss (label -100).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from gym_mcp.policies.prompt import render_segments
from gym_mcp.tasks import Task, replay

__all__ = ["Example", "compact_tools", "encode_conversation", "pad_batch", "reference_conversation"]

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


def compact_tools(tools: Sequence[Mapping[str, Any]], task: Task, distractors: int | None = 3) -> list[dict[str, Any]]:
    """The task's own tools plus a few others, so prompts stay short on a small machine.

    Args:
        tools: All tools the environment offers (OpenAI format).
        task: The task; the tools of its reference calls are always kept.
        distractors: How many other tools to add (chosen by the task id, so SFT and rollouts
            of one task see the same list); None keeps every tool.
    """
    if distractors is None:
        return [dict(t) for t in tools]
    needed = {str(c["name"]) for c in task.reference_calls}
    own = [dict(t) for t in tools if t["function"]["name"] in needed]
    others = sorted(
        (dict(t) for t in tools if t["function"]["name"] not in needed), key=lambda t: t["function"]["name"]
    )
    picked = random.Random(task.id).sample(others, k=min(distractors, len(others)))
    return sorted(own + picked, key=lambda t: t["function"]["name"])


def reference_conversation(
    env: gym.Env[str, Any], task: Task, distractors: int | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play a task's reference calls in ``env``; return (messages, tools) as the agent saw them.

    Each reference call is its own assistant turn, followed by the live tool result; a final
    answer closes the conversation. ``distractors`` selects a compact tool list (`compact_tools`).
    """
    answer = task.expected_answer or ("Done." if task.reference_calls else "I can't help with that here.")
    played = replay(env, task, answer=answer)
    tools = compact_tools(played.info["tools"], task, distractors)
    return played.messages, tools


def encode_conversation(
    tokenizer: Any,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]],
    task_id: str = "",
    *,
    context_messages: int = 0,
) -> Example:
    """Token ids and labels for a conversation: the loss covers the assistant turns only.

    Segments (see `render_segments`) are tokenized one by one, so every token is either the
    model's own (labelled) or context (``-100``); the last reply ends with the end-of-text token.
    The first ``context_messages`` messages are context even where the assistant speaks (calls
    given to a forked rollout, not sampled by the model).
    """
    input_ids: list[int] = []
    labels: list[int] = []
    segments = render_segments(messages, tools)
    given = len(render_segments(messages[:context_messages], tools)) if context_messages else 0
    last_model = max((i for i, (_, mine) in enumerate(segments) if mine), default=-1)
    for i, (text, mine) in enumerate(segments):
        if i == last_model and tokenizer.eos_token:
            text += tokenizer.eos_token
        ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
        input_ids += ids
        labels += ids if mine and i >= given else [IGNORE] * len(ids)
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
