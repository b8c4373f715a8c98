"""The former home of model loading, generation, rollouts and the losses, kept for its importers.

Each name now lives in its own room: `gym_mcp.train.loading`, `gym_mcp.policies.decoding`,
`gym_mcp.train.rollouts` and `gym_mcp.train.losses`. Import from those.
"""

from __future__ import annotations

from gym_mcp.policies.decoding import PromptCache, generate_replies
from gym_mcp.train.loading import load_lora_model
from gym_mcp.train.losses import (
    checkpointed,
    clipped_surrogate,
    group_advantages,
    grpo_step,
    kl_to_reference,
    sft_step,
    token_logprobs,
    turn_starts,
    turn_weights,
)
from gym_mcp.train.rollouts import Rollout, play, rollout, rollout_group, step_all

__all__ = [
    "PromptCache",
    "Rollout",
    "checkpointed",
    "clipped_surrogate",
    "generate_replies",
    "group_advantages",
    "grpo_step",
    "kl_to_reference",
    "load_lora_model",
    "play",
    "rollout",
    "rollout_group",
    "sft_step",
    "step_all",
    "token_logprobs",
    "turn_starts",
    "turn_weights",
]
