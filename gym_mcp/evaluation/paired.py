"""Paired comparisons of two arms on the same tasks: the difference, its 95% interval, the discordant pairs.

Two models (or two training recipes) evaluated on the same held-out tasks are compared task by
task: a task both solve or both fail says nothing about which is better; only the discordant
ones do. `paired_difference` gives the mean difference in success, a bootstrap interval over
tasks (resampled whole, with every seed's pair of a task kept together), the discordant counts
and an exact McNemar p-value (a two-sided binomial test on the discordant pairs: the
``math.comb`` sum, so no statistics package is needed for one formula).

With several seeds, pass each arm's outcomes as ``{task: [outcome per seed]}``: the difference
is the mean over tasks of the per-task mean difference, and the bootstrap draws tasks, so the
interval reflects how the result would move on another draw of tasks, seeds averaged in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["PairedDifference", "mcnemar_exact", "paired_difference"]


@dataclass(frozen=True)
class PairedDifference:
    """Arm B minus arm A on the same tasks.

    Attributes:
        n: Tasks compared.
        a: Arm A's mean success.
        b: Arm B's mean success.
        diff: ``b - a``.
        low: The 95% interval's lower end (bootstrap percentile over tasks).
        high: Its upper end.
        only_a: Pairs where A succeeded and B did not (binary outcomes; summed over seeds).
        only_b: Pairs where B succeeded and A did not.
        p_value: Exact two-sided McNemar p-value of the discordant pairs.
    """

    n: int
    a: float
    b: float
    diff: float
    low: float
    high: float
    only_a: int
    only_b: int
    p_value: float

    def text(self, unit: str = "points") -> str:
        """One line: ``+12.5 points (95% CI +3.1 to +21.9; 9 vs 1 discordant, McNemar p=0.021)``."""
        scale = 100.0 if unit == "points" else 1.0
        return (
            f"{scale * self.diff:+.1f} {unit} (95% CI {scale * self.low:+.1f} to {scale * self.high:+.1f}; "
            f"{self.only_b} vs {self.only_a} discordant, McNemar p={self.p_value:.3g})"
        )


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: under no difference, each discordant pair is a fair coin."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_difference(
    a: Mapping[str, Sequence[float]] | Sequence[float],
    b: Mapping[str, Sequence[float]] | Sequence[float],
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> PairedDifference:
    """Compare arm B with arm A task by task.

    Args:
        a: Arm A's outcomes (1.0 solved, 0.0 not; fractions allowed): a list aligned with
            ``b``'s, or ``{task id: [outcome per seed]}``.
        b: Arm B's, the same tasks (and, per task, as many seeds).
        resamples: Bootstrap draws.
        seed: The bootstrap's seed (the same inputs give the same interval).

    Returns:
        The difference, its interval, the discordant counts and the McNemar p-value.

    Raises:
        ValueError: The arms are not over the same tasks and seeds, or there are none.
    """
    pairs = _pairs(a, b)
    if not pairs:
        raise ValueError("paired_difference: no tasks to compare")
    per_task = [sum(y - x for x, y in seeds) / len(seeds) for seeds in pairs]
    n = len(per_task)
    diff = sum(per_task) / n
    import numpy as np

    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    means = np.asarray(per_task)[draws].mean(axis=1)
    low, high = (float(v) for v in np.quantile(means, [0.025, 0.975]))
    flat = [pair for seeds in pairs for pair in seeds]
    only_a = sum(1 for x, y in flat if x >= 1.0 > y)
    only_b = sum(1 for x, y in flat if y >= 1.0 > x)
    return PairedDifference(
        n=n,
        a=sum(x for x, _ in flat) / len(flat),
        b=sum(y for _, y in flat) / len(flat),
        diff=diff,
        low=low,
        high=high,
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar_exact(only_a, only_b),
    )


def _pairs(
    a: Mapping[str, Sequence[float]] | Sequence[float], b: Mapping[str, Sequence[float]] | Sequence[float]
) -> list[list[tuple[float, float]]]:
    """Per task, the (A, B) outcome of each seed."""
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        raise ValueError("paired_difference: give both arms as lists or both as {task: outcomes}")
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            raise ValueError(f"paired_difference: the arms differ in tasks ({len(set(a) ^ set(b))} not in both)")
        out = []
        for task in sorted(a):
            if len(a[task]) != len(b[task]) or not a[task]:
                raise ValueError(f"paired_difference: task {task!r} has {len(a[task])} vs {len(b[task])} outcomes")
            out.append(list(zip(a[task], b[task], strict=True)))
        return out
    xs: list[float] = [float(x) for x in a]
    ys: list[float] = [float(y) for y in b]
    if len(xs) != len(ys):
        raise ValueError(f"paired_difference: {len(xs)} outcomes against {len(ys)}")
    return [[(x, y)] for x, y in zip(xs, ys, strict=True)]
