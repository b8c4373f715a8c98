"""LoRA model loading, the SFT step, and GRPO's pieces (advantages, clipped surrogate, KL).

The GRPO loop itself (rollout groups through the environments, checkpoints, the main job) is
built on these; each piece is a small function with a test.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.errors import ConfigError

__all__ = [
    "Rollout",
    "clipped_surrogate",
    "group_advantages",
    "grpo_step",
    "kl_to_reference",
    "load_lora_model",
    "rollout",
    "sft_step",
    "token_logprobs",
]


def load_lora_model(path: str | os.PathLike[str], lora_config: Any) -> tuple[Any, Any]:
    """A causal LM from a local folder with fresh LoRA adapters (base weights frozen).

    Args:
        path: Model folder (``save_pretrained`` output); nothing is downloaded.
        lora_config: A `peft.LoraConfig`.

    Returns:
        ``(peft_model, tokenizer)``.
    """
    try:
        from peft import get_peft_model
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise ConfigError("training needs the [train] extra: pip install -e '.[train]'") from exc
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    base = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    return get_peft_model(base, lora_config), tokenizer


def token_logprobs(model: Any, input_ids: Any, labels: Any) -> tuple[Any, Any]:
    """Log-probabilities of each labelled token under ``model``, and the label mask.

    Args:
        model: A causal LM.
        input_ids: ``[batch, seq]`` token ids.
        labels: Same shape; ``-100`` where the token is context (not the model's own).

    Returns:
        ``(logprobs, mask)``, both ``[batch, seq-1]``, aligned with the next-token targets.
    """
    import torch

    logits = model(input_ids=input_ids).logits[:, :-1, :]
    targets = labels[:, 1:]
    mask = (targets != -100).float()
    safe = targets.clamp(min=0)
    logprobs = torch.log_softmax(logits.float(), dim=-1).gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    return logprobs * mask, mask


def sft_step(
    model: Any, optimizer: Any, input_ids: Any, labels: Any, *, backward: Callable[[Any], None] | None = None
) -> float:
    """One supervised step on the model's own tokens; returns the mean token loss.

    ``backward`` replaces ``loss.backward()`` (e.g. ``accelerator.backward`` for DDP and mixed
    precision).
    """
    logprobs, mask = token_logprobs(model, input_ids, labels)
    loss = -(logprobs.sum() / mask.sum().clamp(min=1.0))
    (backward or _backward)(loss)
    optimizer.step()
    optimizer.zero_grad()
    return float(loss.detach())


def _backward(loss: Any) -> None:
    loss.backward()


def group_advantages(rewards: Sequence[float], eps: float = 1e-6) -> list[float]:
    """Group-relative advantages: (r - mean) / std; all zeros when every reward is the same."""
    n = len(rewards)
    if n == 0:
        return []
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / n)
    if std < eps:
        return [0.0] * n
    return [(r - mean) / (std + eps) for r in rewards]


def clipped_surrogate(logprobs: Any, old_logprobs: Any, advantages: Any, mask: Any, clip: float = 0.2) -> Any:
    """PPO/GRPO clipped objective as a loss (to minimize), averaged over the model's tokens.

    Args:
        logprobs: ``[batch, seq]`` token log-probs under the current policy.
        old_logprobs: The same under the policy that sampled the rollouts (no gradient).
        advantages: ``[batch]`` one advantage per rollout.
        mask: ``[batch, seq]`` 1 for the model's own tokens.
        clip: The clipping range epsilon.
    """
    import torch

    ratio = torch.exp(logprobs - old_logprobs.detach())
    adv = advantages.unsqueeze(-1)
    objective = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - clip, 1 + clip) * adv)
    return -(objective * mask).sum() / mask.sum().clamp(min=1.0)


def kl_to_reference(logprobs: Any, ref_logprobs: Any, mask: Any) -> Any:
    """The k3 estimate of KL(policy || reference) over the model's tokens.

    The reference log-probs come from the same model with its adapter disabled
    (``with model.disable_adapter(): ...``): no second model copy.
    """
    import torch

    delta = (ref_logprobs.detach() - logprobs) * mask
    return ((torch.exp(delta) - delta - 1.0) * mask).sum() / mask.sum().clamp(min=1.0)


@dataclass
class Rollout:
    """One sampled episode.

    Attributes:
        messages: The conversation (OpenAI format) as the environment recorded it.
        tools: The tools the model was shown.
        reward: The episode's reward.
        terms: The reward terms (``info["reward_terms"]``).
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    reward: float
    terms: dict[str, Any] = field(default_factory=dict)


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
    import torch

    from gym_mcp.local_model import render_prompt
    from gym_mcp.train.data import compact_tools

    _, info = env.reset(seed=seed, options={"task": task})
    torch.manual_seed(seed)
    reward, done = 0.0, False
    tools = compact_tools(info["tools"], task, distractors)
    while not done:
        prompt = render_prompt(info["messages"], tools)
        inputs = tokenizer(prompt, return_tensors="pt")
        with torch.no_grad():
            out = model.generate(
                **inputs,
                max_new_tokens=max_new_tokens,
                do_sample=temperature > 0,
                temperature=max(temperature, 1e-5),
                pad_token_id=tokenizer.eos_token_id,
                stop_strings=["</tool_call>"],
                tokenizer=tokenizer,
            )
        text = str(tokenizer.decode(out[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True))
        end = text.find("</tool_call>")
        action = text[: end + len("</tool_call>")] if end >= 0 else text
        _, r, terminated, truncated, info = env.step(action)
        reward, done = float(r), terminated or truncated
    return Rollout(list(info["messages"]), tools, reward, dict(info.get("reward_terms", {})))


def grpo_step(
    model: Any,
    tokenizer: Any,
    optimizer: Any,
    rollouts: Sequence[Rollout],
    *,
    clip: float = 0.2,
    kl_coef: float = 0.0,
    backward: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """One GRPO update from a group of rollouts of the same task.

    Advantages are group-relative; a group whose rewards are all equal carries no signal and is
    skipped (``zero_spread``). Only the model's own tokens enter the loss. The KL term, when
    ``kl_coef > 0``, is to the base model: the same weights with the adapter disabled.
    """
    import torch

    from gym_mcp.train.data import IGNORE, encode_conversation

    rewards = [r.reward for r in rollouts]
    advantages = group_advantages(rewards)
    stats: dict[str, Any] = {"rewards": rewards, "zero_spread": not any(advantages), "loss": 0.0, "kl": 0.0}
    if stats["zero_spread"]:
        return stats
    examples = [encode_conversation(tokenizer, r.messages, r.tools) for r in rollouts]
    width = max(len(e.input_ids) for e in examples)
    pad = tokenizer.eos_token_id or 0
    ids = torch.tensor([e.input_ids + [pad] * (width - len(e.input_ids)) for e in examples])
    labels = torch.tensor([e.labels + [IGNORE] * (width - len(e.labels)) for e in examples])
    with torch.no_grad():
        old, _ = token_logprobs(model, ids, labels)
        ref = None
        if kl_coef > 0:
            with model.disable_adapter():
                ref, _ = token_logprobs(model, ids, labels)
    logprobs, mask = token_logprobs(model, ids, labels)
    loss = clipped_surrogate(logprobs, old, torch.tensor(advantages), mask, clip=clip)
    if ref is not None:
        kl = kl_to_reference(logprobs, ref, mask)
        loss = loss + kl_coef * kl
        stats["kl"] = float(kl.detach())
    (backward or _backward)(loss)
    optimizer.step()
    optimizer.zero_grad()
    stats["loss"] = float(loss.detach())
    return stats
