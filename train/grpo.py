"""LoRA model loading, the SFT step, and GRPO's pieces (advantages, clipped surrogate, KL).

The GRPO loop itself (rollout groups through the environments, checkpoints, the main job) is
built on these; each piece is a small function with a test.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from gym_mcp.errors import ConfigError

__all__ = [
    "clipped_surrogate",
    "group_advantages",
    "kl_to_reference",
    "load_lora_model",
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


def sft_step(model: Any, optimizer: Any, input_ids: Any, labels: Any) -> float:
    """One supervised step on the model's own tokens; returns the mean token loss."""
    logprobs, mask = token_logprobs(model, input_ids, labels)
    loss = -(logprobs.sum() / mask.sum().clamp(min=1.0))
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return float(loss.detach())


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
