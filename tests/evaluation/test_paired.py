"""Paired comparisons: exact McNemar against hand-counted binomial tails, a bootstrap interval that covers."""

from __future__ import annotations

import math
import random

import pytest

from gym_mcp.evaluation import mcnemar_exact, paired_difference


def test_mcnemar_is_the_two_sided_binomial_tail_of_the_discordant_pairs() -> None:
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)  # P(X <= 1), X ~ Bin(10, 1/2), doubled
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(5, 5) == 1.0 and mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(3, 17) == pytest.approx(2 * sum(math.comb(20, i) for i in range(4)) / 2**20)


def test_the_difference_counts_discordant_tasks_and_its_interval_covers_the_truth() -> None:
    a = [1.0] * 10 + [0.0] * 20 + [1.0] * 2 + [0.0] * 32
    b = [1.0] * 10 + [1.0] * 20 + [0.0] * 2 + [0.0] * 32
    r = paired_difference(a, b)
    assert (r.n, r.only_b, r.only_a) == (64, 20, 2)
    assert r.diff == pytest.approx(18 / 64) and r.low < r.diff < r.high
    assert r.p_value < 1e-3 and r.low > 0
    assert "+28.1 points (95% CI" in r.text() and "20 vs 2 discordant" in r.text()
    assert paired_difference(a, b) == r  # the bootstrap is seeded


def test_no_real_difference_gives_an_interval_around_zero_most_of_the_time() -> None:
    rng = random.Random(5)
    covered = 0
    for trial in range(40):  # two arms with the same 50% success, independent per task
        a = [float(rng.random() < 0.5) for _ in range(128)]
        b = [float(rng.random() < 0.5) for _ in range(128)]
        r = paired_difference(a, b, resamples=2000, seed=trial)
        covered += r.low <= 0 <= r.high
    assert covered >= 34  # 95% nominal: 38 of 40 expected; well above chance-level failure


def test_seeds_per_task_are_averaged_and_mismatched_arms_are_refused() -> None:
    a = {"t1": [0.0, 0.0, 1.0], "t2": [1.0, 1.0, 1.0]}
    b = {"t1": [1.0, 1.0, 1.0], "t2": [1.0, 0.0, 1.0]}
    r = paired_difference(a, b)
    assert r.diff == pytest.approx(((2 / 3) + (-1 / 3)) / 2)
    assert (r.only_b, r.only_a) == (2, 1)
    with pytest.raises(ValueError, match="differ in tasks"):
        paired_difference(a, {"t1": [1.0, 1.0, 1.0]})
    with pytest.raises(ValueError, match="3 vs 2 outcomes"):
        paired_difference(a, {"t1": [1.0, 1.0], "t2": [1.0, 1.0, 1.0]})
    with pytest.raises(ValueError, match="no tasks"):
        paired_difference([], [])
