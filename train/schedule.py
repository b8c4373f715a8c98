"""The SFT learning-rate schedule: transformers' schedulers, placed so they give the trainer's rates.

The schedule warms up over ``warmup_steps`` steps to ``learning_rate * (w + 1) / (w + 1)`` (the
first step already trains: step ``s < w`` runs at ``learning_rate * (s + 1) / (w + 1)``), then
stays (``constant``) or decays over the rest of ``sft_steps`` (``linear`` toward 0, ``cosine``).
transformers' schedulers reach the same rates one index later and with one more warm-up and
training step (their step 0 runs at rate 0), so `sft_scheduler` builds them with
``w + 1`` and ``sft_steps + 1`` and positions them at ``step + 1``. GRPO runs at a constant rate set
by the trainer.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym_mcp.train.config import TrainConfig

__all__ = ["position_scheduler", "sft_learning_rate", "sft_scheduler"]

_NAMES = {"constant": "constant_with_warmup", "linear": "linear", "cosine": "cosine"}
"""transformers' scheduler for each `TrainConfig.lr_scheduler_type` (constant keeps its warm-up)."""


def sft_scheduler(config: TrainConfig, optimizer: Any) -> Any:
    """``transformers.get_scheduler`` for ``config``'s SFT schedule, positioned at step 0.

    Args:
        config: The run's settings (``lr_scheduler_type``, ``warmup_steps``, ``sft_steps``,
            ``learning_rate``: the optimizer's rate is the schedule's peak).
        optimizer: The optimizer whose rate it sets.

    Returns:
        A ``torch.optim.lr_scheduler.LambdaLR``; call ``step()`` after each SFT update.
    """
    from transformers import get_scheduler

    scheduler = get_scheduler(
        _NAMES[config.lr_scheduler_type],
        optimizer,
        num_warmup_steps=config.warmup_steps + 1,
        num_training_steps=config.sft_steps + 1,
    )
    position_scheduler(scheduler, 0)
    return scheduler


def position_scheduler(scheduler: Any, step: int) -> None:
    """Set the optimizer's rate to SFT step ``step``'s (0-based), e.g. when a run resumes there.

    The schedule is a function of the step and the settings, not of history: a resumed run that
    changed ``sft_steps`` (which `TrainConfig` allows) follows its new schedule from here.
    """
    scheduler.last_epoch = step
    with warnings.catch_warnings():  # positioning is not a step taken before the optimizer's
        warnings.filterwarnings("ignore", message=".*lr_scheduler.step.*")
        scheduler.step()


def sft_learning_rate(config: TrainConfig, step: int) -> float:
    """The learning rate of SFT step ``step`` (0-based) under ``config``'s schedule and warm-up.

    The closed form `sft_scheduler` follows, in transformers' arithmetic (``learning_rate`` times
    the schedule's factor), so the two give the same floats.
    """
    w, n = config.warmup_steps + 1, config.sft_steps + 1
    k = step + 1  # transformers' index of this step
    if k < w:
        factor = float(k) / float(max(1, w))
    elif config.lr_scheduler_type == "linear":
        factor = max(0.0, float(n - k) / float(max(1, n - w)))
    elif config.lr_scheduler_type == "cosine":
        progress = float(k - w) / float(max(1, n - w))
        factor = max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))
    else:
        factor = 1.0
    return config.learning_rate * factor
