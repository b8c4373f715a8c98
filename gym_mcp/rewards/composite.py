"""`CompositeReward`: the terms weighted together (PROVE's sum, MUA-RL's binary success)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.rewards.episode import Episode
from gym_mcp.rewards.outcome import answer_match, state_match, success
from gym_mcp.rewards.prove import (
    abstention,
    argument_agreement,
    coverage,
    efficiency,
    efficiency_budget,
    name_precision,
    named_calls,
    validity,
)
from gym_mcp.tasks import Task

__all__ = ["PROCESS_WEIGHTS", "CompositeReward", "all_terms"]

PROCESS_WEIGHTS = ("validity_weight", "coverage_weight", "efficiency_weight", "name_weight", "arguments_weight")
"""The weights of PROVE's process terms (everything but ``success_weight``)."""


@dataclass(frozen=True)
class CompositeReward:
    """A weighted sum of the reward terms; callable as a `RewardFn`.

    ``value = validity_weight * validity + coverage_weight * coverage + name_weight *
    name_precision + arguments_weight * argument_agreement + efficiency_weight * efficiency +
    success_weight * success``. With ``normalize=True`` the sum is divided by the sum of the
    positive weights of the terms bounded by 1 (all but efficiency, whose maximum is 0), so a
    perfect episode within its budget scores exactly 1.0 and extra calls push it below.

    With ``abstain_on_irrelevant`` (the default), a task with no reference calls (an
    irrelevant request) scores the `abstention` term alone: 1.0 for no calls, 0.0 otherwise.

    Use `CompositeReward.prove` for PROVE's reward and `CompositeReward.mua_rl` for MUA-RL's.

    Attributes:
        validity_weight: Weight of `validity`.
        coverage_weight: Weight of `coverage`.
        efficiency_weight: Weight of `efficiency` (a penalty in ``[-a * (n - B) / B, 0]``).
        name_weight: Weight of `name_precision`.
        arguments_weight: Weight of `argument_agreement`.
        success_weight: Weight of `success` (0 or 1).
        efficiency_a: ``a`` of `efficiency`.
        efficiency_b: ``b`` of `efficiency`.
        normalize: Divide by the sum of the positive weights of the bounded terms.
        abstain_on_irrelevant: Score tasks without reference calls by `abstention` alone.
    """

    validity_weight: float = 0.5
    coverage_weight: float = 0.5
    efficiency_weight: float = 0.15
    name_weight: float = 0.2
    arguments_weight: float = 0.1
    success_weight: float = 0.0
    efficiency_a: float = 0.5
    efficiency_b: float = 0.5
    normalize: bool = False
    abstain_on_irrelevant: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int | float) and not isinstance(value, bool) and not math.isfinite(value):
                raise ConfigError(f"CompositeReward.{f.name} must be finite, got {value!r}")
        if self.efficiency_a < 0 or self.efficiency_b < 0:
            raise ConfigError("CompositeReward.efficiency_a and efficiency_b must be non-negative")

    @classmethod
    def prove(cls, *, normalize: bool = True) -> CompositeReward:
        """PROVE's reward: 0.5 validity + 0.5 coverage + 0.15 efficiency + 0.2 name + 0.1 arguments.

        Efficiency uses ``a = b = 0.5``. Unnormalized, a perfect episode within budget scores
        1.3 (the efficiency term is at most 0); normalized (the default) it scores 1.0, and the
        value lies in ``[0.15 * efficiency / 1.3, 1.0]``. A task with no reference calls
        scores the abstention term.

        Args:
            normalize: Divide by 1.3 so a perfect episode scores 1.0.

        Returns:
            The composite reward.
        """
        return cls(normalize=normalize)

    @classmethod
    def mua_rl(cls) -> CompositeReward:
        """MUA-RL's binary reward: 1.0 when the task is completed (see `success`), else 0.0.

        Returns:
            The composite reward.
        """
        no_process_terms: dict[str, Any] = dict.fromkeys(PROCESS_WEIGHTS, 0.0)
        return cls(**no_process_terms, success_weight=1.0, abstain_on_irrelevant=False)

    def _weighted(self) -> Sequence[tuple[float, str, bool]]:
        """``(weight, term name, bounded by 1)`` for each weighted term."""
        return (
            (self.validity_weight, "validity", True),
            (self.coverage_weight, "coverage", True),
            (self.name_weight, "name_precision", True),
            (self.arguments_weight, "argument_agreement", True),
            (self.success_weight, "success", True),
            (self.efficiency_weight, "efficiency", False),
        )

    @property
    def scale(self) -> float:
        """What the weighted sum is divided by: 1.0, or with ``normalize`` its maximum."""
        if not self.normalize:
            return 1.0
        top = sum(w for w, _, bounded in self._weighted() if bounded and w > 0)
        return top if top > 0 else 1.0

    def _value(self, terms: Mapping[str, float], task: Task) -> float:
        if self.abstain_on_irrelevant and not task.reference_calls:
            return terms["abstention"]
        total = sum(w * terms[name] for w, name, _ in self._weighted() if w)
        return total / self.scale

    def __call__(self, episode: Episode) -> float:
        """The reward of a finished episode."""
        return self._value(self.terms(episode), episode.task)

    def terms(self, episode: Episode) -> dict[str, float]:
        """Every reward term of a finished episode, for ``info["reward_terms"]``.

        Args:
            episode: The finished episode.

        Returns:
            ``success`` (0 or 1), ``state_match``, ``answer_match`` (only when the task has an
            expected answer), ``validity``, ``coverage``, ``name_precision``,
            ``argument_agreement``, ``abstention`` (only for tasks without reference calls),
            ``efficiency``, ``n_calls`` (attempted calls naming a tool) and ``budget`` (B).
        """
        out: dict[str, float] = {
            "success": 1.0 if success(episode) else 0.0,
            "state_match": state_match(episode),
        }
        if episode.task.expected_answer is not None:
            out["answer_match"] = answer_match(episode)
        out["validity"] = validity(episode)
        out["coverage"] = coverage(episode)
        out["name_precision"] = name_precision(episode)
        out["argument_agreement"] = argument_agreement(episode)
        abstained = abstention(episode)
        if abstained is not None:
            out["abstention"] = abstained
        out["efficiency"] = efficiency(episode, self.efficiency_a, self.efficiency_b)
        out["n_calls"] = float(len(named_calls(episode)))
        out["budget"] = float(efficiency_budget(episode.task, self.efficiency_b))
        return out


def all_terms(episode: Episode) -> dict[str, float]:
    """Every reward term of PROVE's composite (`CompositeReward.prove`), for any reward function.

    Args:
        episode: The finished episode.

    Returns:
        See `CompositeReward.terms`.
    """
    return CompositeReward.prove().terms(episode)
