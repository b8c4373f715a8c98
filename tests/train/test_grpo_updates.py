"""GRPO spends its rollouts well: several clipped updates per group, and groups without signal redrawn."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")

from gym_mcp.train.loading import load_lora_model  # noqa: E402
from gym_mcp.train.losses import grpo_step  # noqa: E402
from gym_mcp.train.rollouts import rollout  # noqa: E402
from tests.helpers import deposit_then_balance_task  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402

TASK = deposit_then_balance_task()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _lora(tiny: Path) -> tuple[object, object]:
    torch.manual_seed(0)  # the same adapter initialisation for every call
    return load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))


def _group(model: object, tokenizer: object) -> list:  # type: ignore[type-arg]
    # a reward with spread even for a random model: the length of its final answer, modulo 3
    env = gym.make("gym_mcp/Banking-v0", max_steps=2, reward=lambda ep: float(len(ep.final_answer or "x") % 3))
    try:
        for first in range(0, 40, 4):
            group = [rollout(model, tokenizer, env, TASK, max_new_tokens=12, seed=s) for s in range(first, first + 4)]
            if len({r.reward for r in group}) > 1:
                return group
    finally:
        env.close()
    pytest.fail("no sampled group had reward spread")


def test_later_iterations_move_the_policy_further_from_the_same_rollouts(tiny: Path) -> None:
    once, tokenizer = _lora(tiny)
    group = _group(once, tokenizer)
    thrice, _ = _lora(tiny)
    start = {n: p.detach().clone() for n, p in thrice.named_parameters()}  # type: ignore[attr-defined]
    opt_once = torch.optim.AdamW([p for p in once.parameters() if p.requires_grad], lr=5e-2)  # type: ignore[attr-defined]
    opt_thrice = torch.optim.AdamW([p for p in thrice.parameters() if p.requires_grad], lr=5e-2)  # type: ignore[attr-defined]
    one = grpo_step(once, tokenizer, opt_once, group)
    three = grpo_step(thrice, tokenizer, opt_thrice, group, num_iterations=3)
    assert one["loss"] == pytest.approx(three["loss"])  # the first update is the single-update path's
    assert one["clipped"] == 0.0  # one update: ratio 1 throughout
    assert 0.0 < three["clipped"] <= 1.0  # at this learning rate the later updates reach the clip range
    moved_once = {n: p.detach() for n, p in once.named_parameters()}  # type: ignore[attr-defined]
    changed = [n for n, p in thrice.named_parameters() if not torch.equal(p, moved_once[n])]  # type: ignore[attr-defined]
    assert changed and all("lora_" in n for n in changed)  # the later updates moved the adapter, nothing else
    assert all(torch.equal(p, start[n]) for n, p in thrice.named_parameters() if "lora_" not in n)  # type: ignore[attr-defined]


def test_groups_without_reward_spread_are_redrawn(tiny: Path, tmp_path: Path) -> None:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import TrainConfig, train

    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, tasks)
    config = TrainConfig(
        model=str(tiny),
        tasks=str(tasks),
        output_dir=str(tmp_path / "out"),
        sft_steps=0,
        grpo_steps=2,
        num_generations=2,
        max_resamples=2,
        reward="mua_rl",  # a random model solves no call task and every irrelevant one: never any spread
        lora_r=4,
        lora_alpha=8,
        lora_targets=["q_proj", "v_proj"],
        eval_tasks=0,
        max_completion_length=8,
        max_episode_steps=2,
        guided_calls=False,
    )
    train(config, progress=False)
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["grpo", "grpo"]
    assert all(r["discarded_groups"] == 2 and r["zero_spread"] for r in rows)  # three groups drawn per step
