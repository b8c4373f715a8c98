"""`CompositeReward`: the terms weighted together (PROVE's sum, MUA-RL's binary success, grounded)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from gym_mcp.episode import Episode
from gym_mcp.errors import ConfigError
from gym_mcp.rewards.dialogue import asked_needlessly, asked_when_needed, unconfirmed_actions
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

    With ``gate``, the weighted sum (normalized, clamped to ``[0, 1]``; call it ``c``) only
    shapes the reward inside a band that `success` picks: ``pass_floor + (1 - pass_floor) * c``
    when the task's verifier passes, ``fail_ceiling * c`` when it fails. Since ``fail_ceiling <
    pass_floor``, every failing episode scores strictly below every passing one, whatever its
    process terms (see `CompositeReward.grounded`).

    Use `CompositeReward.prove` for PROVE's reward, `CompositeReward.mua_rl` for MUA-RL's and
    `CompositeReward.grounded` for the success-gated one.

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
        gate: Put the value in the band `success` picks (``success_weight`` must then be 0).
        fail_ceiling: With ``gate``, the most a failing episode scores.
        pass_floor: With ``gate``, the least a passing episode scores; above ``fail_ceiling``.
        extra_call_cost: With ``gate``, what each call past the reference's count costs inside
            the success band: the process term is divided by ``1 + extra_call_cost * extra /
            n_ref`` (so with 1.0 a success scores ``pass_floor + (1 - pass_floor) * c * n_ref /
            n``: a 1-call task done in 2 calls 0.75, not 1.0). PROVE's budget lets such calls go
            free; 0 keeps it that way.
        stop_required: With ``gate``, an episode that hit a limit without a final answer (it
            never stopped calling) does not pass the gate, whatever its final state: it scores
            in the failing band.
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
    gate: bool = False
    fail_ceiling: float = 0.45
    pass_floor: float = 0.5
    extra_call_cost: float = 0.0
    stop_required: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int | float) and not isinstance(value, bool) and not math.isfinite(value):
                raise ConfigError(f"CompositeReward.{f.name} must be finite, got {value!r}")
        if self.efficiency_a < 0 or self.efficiency_b < 0:
            raise ConfigError("CompositeReward.efficiency_a and efficiency_b must be non-negative")
        if not 0.0 <= self.fail_ceiling < self.pass_floor <= 1.0:
            raise ConfigError(
                "CompositeReward needs 0 <= fail_ceiling < pass_floor <= 1, "
                f"got fail_ceiling={self.fail_ceiling!r}, pass_floor={self.pass_floor!r}"
            )
        if self.extra_call_cost < 0:
            raise ConfigError(f"CompositeReward.extra_call_cost must be >= 0, got {self.extra_call_cost!r}")
        if self.gate and self.success_weight != 0:
            raise ConfigError("CompositeReward.success_weight must be 0 with gate=True (the gate weighs success)")

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

    @classmethod
    def grounded(
        cls,
        *,
        fail_ceiling: float = 0.45,
        pass_floor: float = 0.5,
        extra_call_cost: float = 0.0,
        stop_required: bool = False,
        efficiency_b: float = 0.5,
    ) -> CompositeReward:
        """A training reward grounded in the live state: success picks the band, PROVE shapes it.

        Let ``c`` be PROVE's normalized composite (`CompositeReward.prove`: validity, coverage,
        name precision, argument agreement and the adaptive efficiency penalty; abstention alone
        on a request that needs no tool), clamped to ``[0, 1]``. The reward is
        ``pass_floor + (1 - pass_floor) * c`` when `success` holds (the final state matches the
        expected fingerprint, the final answer holds the expected values on read tasks, and
        nothing was called on an irrelevant request), else ``fail_ceiling * c``.

        The order guarantee: every failing episode scores in ``[0, fail_ceiling]`` and every
        passing one in ``[pass_floor, 1]``, so no failure (a guessed value, a wrong id, a
        dropped call, a call on an irrelevant request) ever outscores a success, however close
        its calls are to the reference. Within each band the process terms still rank
        episodes: the lean reference run scores 1.0, a success with calls past the adaptive
        budget (or calls to tools the reference does not use) scores less but at least
        ``pass_floor``, and a near miss scores more than doing nothing. With the defaults a
        perfect failure scores 0.45 and the worst success 0.5.

        Efficiency can be taught harder than PROVE's budget does (``extra_call_cost``: every
        call past the reference's count costs inside the success band; ``stop_required``: an
        episode that never stopped calling is not a success; ``efficiency_b = 0``: PROVE's
        flat budget); the order guarantee holds with any of them.

        Args:
            fail_ceiling: The most a failing episode scores (``c = 1``).
            pass_floor: The least a passing episode scores (``c = 0``); above ``fail_ceiling``.
            extra_call_cost: See `CompositeReward`; 0 (PROVE's budget alone) by default.
            stop_required: See `CompositeReward`; False by default.
            efficiency_b: PROVE's budget growth ``b`` (0: a flat budget, the reference's count).

        Returns:
            The composite reward (``gate=True``, ``normalize=True``, ``success_weight=0``).

        Raises:
            ConfigError: Unless ``0 <= fail_ceiling < pass_floor <= 1``.
        """
        return cls(
            normalize=True,
            gate=True,
            fail_ceiling=fail_ceiling,
            pass_floor=pass_floor,
            extra_call_cost=extra_call_cost,
            stop_required=stop_required,
            efficiency_b=efficiency_b,
        )

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

    def _weighted_sum(self, terms: Mapping[str, float], task: Task) -> float:
        """The weighted (and maybe normalized) sum of the terms, before any gate."""
        if self.abstain_on_irrelevant and not task.reference_calls:
            return terms["abstention"]
        return sum(w * terms[name] for w, name, _ in self._weighted() if w) / self.scale

    def _process(self, terms: Mapping[str, float], task: Task) -> float:
        """``c``: the weighted sum clamped to ``[0, 1]``, which the gate scales into its band."""
        return min(1.0, max(0.0, self._weighted_sum(terms, task)))

    def _value(self, terms: Mapping[str, float], task: Task) -> float:
        if not self.gate:
            return self._weighted_sum(terms, task)
        process = self._process(terms, task)
        if terms["success"] == 1.0 and not terms.get("never_stopped"):
            return self.pass_floor + (1.0 - self.pass_floor) * process / self._extra_calls_divisor(terms, task)
        return self.fail_ceiling * process

    def _extra_calls_divisor(self, terms: Mapping[str, float], task: Task) -> float:
        """``1 + extra_call_cost * extra / n_ref`` (1.0 without the cost, or within the reference's count)."""
        n_ref = task.call_budget if task.call_budget is not None else len(task.reference_calls)
        extra = max(0.0, terms["n_calls"] - n_ref)
        if not self.extra_call_cost or not extra:
            return 1.0
        return 1.0 + self.extra_call_cost * extra / max(1, n_ref)

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
            Dialogue tasks add ``asked_when_needed``, ``asked_needlessly`` and
            ``unconfirmed_actions`` where they apply (`gym_mcp.rewards.dialogue`).
            With ``gate``, also ``process``: the clamped composite ``c`` the band is scaled by;
            with ``stop_required``, ``never_stopped`` (1.0: a limit hit without a final answer).
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
        for name, term in (
            ("asked_when_needed", asked_when_needed),
            ("asked_needlessly", asked_needlessly),
            ("unconfirmed_actions", unconfirmed_actions),
        ):
            value = term(episode)
            if value is not None:
                out[name] = value
        if self.gate:
            out["process"] = self._process(out, episode.task)
            if self.stop_required:
                out["never_stopped"] = 1.0 if episode.truncated and episode.final_answer is None else 0.0
        return out


def all_terms(episode: Episode) -> dict[str, float]:
    """Every reward term of PROVE's composite (`CompositeReward.prove`), for any reward function.

    Args:
        episode: The finished episode.

    Returns:
        See `CompositeReward.terms`.
    """
    return CompositeReward.prove().terms(episode)
