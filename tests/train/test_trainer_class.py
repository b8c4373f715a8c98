"""`GymTrainer`: the steps and hooks a subclass overrides are the ones `train()` runs; schedule and checkpoints."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
pytest.importorskip("peft", reason="training needs the [train] extra")

from gym_mcp import env_id  # noqa: E402
from gym_mcp.errors import ConfigError  # noqa: E402
from gym_mcp.train import GymTrainer, SampledGroup, train  # noqa: E402
from gym_mcp.train import trainer as trainer_module  # noqa: E402
from gym_mcp.train.config import TrainConfig  # noqa: E402
from gym_mcp.train.schedule import sft_learning_rate, sft_scheduler  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks

    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, path)
    return path


def _config(tiny: Path, out: Path, tasks: Path, **overrides: Any) -> TrainConfig:
    base: dict[str, Any] = {
        "model": str(tiny),
        "tasks": str(tasks),
        "output_dir": str(out),
        "sft_steps": 2,
        "sft_batch": 2,
        "grpo_steps": 0,
        "lora_r": 4,
        "lora_alpha": 8,
        "lora_targets": ["q_proj", "v_proj"],
        "learning_rate": 1e-2,
        "eval_tasks": 0,
        "max_completion_length": 8,
        "max_answer_tokens": 6,
        "max_episode_steps": 2,
        "num_generations": 3,
        "temperature": 1.0,
    }
    return TrainConfig(**{**base, **overrides})


class SpreadTrainer(GymTrainer):
    """Rollouts scored by the length of the final answer, modulo 3: reward spread even for a random model."""

    def make_env(self, user: str | None = None, perturb: str | None = None, server: str | None = None) -> Any:
        reward = lambda ep: float(len(ep.final_answer or "x") % 3)  # noqa: E731
        return gym.make(env_id(server or self.config.server), max_steps=self.config.max_episode_steps, reward=reward)


def test_train_runs_the_steps_and_hooks_a_subclass_overrides(tiny: Path, tasks: Path, tmp_path: Path) -> None:
    calls: list[str] = []

    class Recording(SpreadTrainer):
        def build_sft_examples(self) -> list[Any]:
            calls.append("examples")
            return super().build_sft_examples()[:1]  # one example: every SFT batch is that one

        def sft_step(self, step: int) -> dict[str, Any]:
            calls.append(f"sft {step}")
            return {**super().sft_step(step), "custom": True}

        def sample_group(self) -> SampledGroup:
            calls.append("group")
            return super().sample_group()

        def grpo_step(self, step: int) -> dict[str, Any]:
            calls.append(f"grpo {step}")
            return super().grpo_step(step)

        def log(self, row: dict[str, Any]) -> None:
            calls.append(f"log {row['step']}")
            super().log(row)

    out = tmp_path / "run"
    result = Recording(_config(tiny, out, tasks, grpo_steps=1), progress=False).train()
    assert calls == ["examples", "sft 0", "log 1", "sft 1", "log 2", "grpo 2", "group", "log 3"]
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r.get("custom") for r in rows] == [True, True, None]
    assert rows[-1]["phase"] == "grpo" and rows[-1]["reward_spread"] > 0  # the subclass's environment scored it
    assert result["last"] == rows[-1]
    assert [r["tokens"] for r in rows[:2]] == [rows[0]["tokens"]] * 2  # the one example, twice


def test_train_is_the_trainer_called_once(tiny: Path, tasks: Path, tmp_path: Path) -> None:
    a = train(_config(tiny, tmp_path / "a", tasks), progress=False)
    b = GymTrainer(_config(tiny, tmp_path / "b", tasks), progress=False).train()
    assert {k: v for k, v in a["last"].items() if k != "seconds"} == {
        k: v for k, v in b["last"].items() if k != "seconds"
    }
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(p.name for p in (tmp_path / "b").iterdir())


def _former_rate(config: TrainConfig, step: int) -> float:
    """The SFT rate as the trainer computed it before it used transformers' schedulers (the spec)."""
    if step < config.warmup_steps:
        return config.learning_rate * (step + 1) / (config.warmup_steps + 1)
    span = max(config.sft_steps - config.warmup_steps, 1)
    done = (step - config.warmup_steps) / span
    if config.lr_scheduler_type == "linear":
        return config.learning_rate * (1.0 - done)
    if config.lr_scheduler_type == "cosine":
        return config.learning_rate * 0.5 * (1.0 + math.cos(math.pi * done))
    return config.learning_rate


@pytest.mark.parametrize("kind", ["constant", "linear", "cosine"])
def test_get_scheduler_gives_the_former_learning_rates(kind: str) -> None:
    for learning_rate in (7e-4, 1e-2, 3e-3):
        for sft_steps in (1, 2, 5, 12, 90):
            for warmup in (0, 1, 3):
                config = TrainConfig(
                    model="m",
                    learning_rate=learning_rate,
                    lr_scheduler_type=kind,
                    warmup_steps=warmup,
                    sft_steps=sft_steps,
                )
                weight = torch.nn.Parameter(torch.zeros(1))
                optimizer = torch.optim.AdamW([weight], lr=learning_rate)
                scheduler = sft_scheduler(config, optimizer)
                for step in range(sft_steps):
                    rate = optimizer.param_groups[0]["lr"]
                    assert rate == sft_learning_rate(config, step)  # the closed form, to the bit
                    # the former formula: the same up to the order of float operations (a few ulps);
                    # to the bit after warm-up for constant and cosine
                    assert rate == pytest.approx(_former_rate(config, step), rel=1e-14, abs=0)
                    if kind != "linear" and step >= warmup:
                        assert rate == _former_rate(config, step)
                    optimizer.step()
                    scheduler.step()


def test_resume_through_load_state_continues_identically_in_grpo(tiny: Path, tasks: Path, tmp_path: Path) -> None:
    """Stopped after a GRPO step and resumed: the task sampler, the sampling RNG and the adapter carry on."""
    from safetensors.torch import load_file

    settings = {"sft_steps": 2, "grpo_steps": 2, "save_steps": 1, "beta": 0.1}
    SpreadTrainer(_config(tiny, tmp_path / "straight", tasks, **settings), progress=False).train()
    stopped = {**settings, "grpo_steps": 1}
    SpreadTrainer(_config(tiny, tmp_path / "resumed", tasks, **stopped), progress=False).train()
    ckpt = tmp_path / "resumed" / "checkpoint"
    saved = {p.name for p in ckpt.iterdir()}
    # accelerate's state (optimizer, every RNG, the sampler) beside the adapter; never the base weights
    assert {trainer_module.CHECKPOINT_MARK, "random_states_0.pkl", "custom_checkpoint_0.pkl"} <= saved
    assert "adapter_model.safetensors" in saved and "model.safetensors" not in saved
    resumed = SpreadTrainer(_config(tiny, tmp_path / "resumed", tasks, **settings), progress=False)
    resumed.setup()
    assert resumed.step == 3
    resumed.train()

    def rows(name: str) -> list[dict[str, Any]]:
        lines = (tmp_path / name / "metrics.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in lines]

    assert rows("resumed") == rows("straight")
    assert any(r["phase"] == "grpo" and not r["zero_spread"] for r in rows("straight"))  # GRPO did update
    a = load_file(tmp_path / "straight" / "checkpoint" / "adapter_model.safetensors")
    b = load_file(tmp_path / "resumed" / "checkpoint" / "adapter_model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_a_checkpoint_of_the_former_format_still_resumes(tiny: Path, tasks: Path, tmp_path: Path) -> None:
    """A run checkpointed before save_state (``state.pt`` beside the adapter) resumes where it stopped."""
    import random

    out = tmp_path / "run"
    train(_config(tiny, out, tasks, sft_steps=1), progress=False)
    ckpt = out / "checkpoint"
    trainer = GymTrainer(_config(tiny, out, tasks, sft_steps=2), progress=False)
    trainer.setup()
    legacy = {
        "optimizer": trainer.optimizer.state_dict(),
        "rng": random.Random(7).getstate(),
        "torch_rng": torch.get_rng_state(),
        "step": 1,
    }
    trainer.close()
    for path in ckpt.iterdir():
        if path.name not in ("adapter_model.safetensors", "adapter_config.json"):
            path.unlink()
    torch.save(legacy, ckpt / "state.pt")
    resumed = GymTrainer(_config(tiny, out, tasks, sft_steps=2), progress=False)
    resumed.setup()
    assert resumed.step == 1 and resumed.rng.getstate() == random.Random(7).getstate()
    resumed.train()
    assert json.loads((out / "metrics.jsonl").read_text().splitlines()[-1])["step"] == 2
    assert (ckpt / trainer_module.CHECKPOINT_MARK).exists()  # from now on in accelerate's format


def test_ask_repeats_copy_only_the_conversations_that_ask(tiny: Path, tmp_path: Path) -> None:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks

    made = synthesize("banking", SynthConfig(n=32, seed=0, max_chain=2, ask_to_confirm=True)).tasks
    confirm = {t.id for t in made if t.user is not None and t.user.confirm}
    missing = {t.id for t in made if t.user is not None and t.user.withheld}
    # every kind present (only confirms, only missing values, both, neither), or the test shows nothing
    assert confirm - missing and missing - confirm and confirm & missing and {t.id for t in made} - confirm - missing
    path = tmp_path / "tasks.jsonl"
    save_tasks(made, path)

    def counts(**repeats: int) -> dict[str, int]:
        out = tmp_path / "-".join(f"{k}{v}" for k, v in repeats.items())
        trainer = GymTrainer(_config(tiny, out, path, **repeats), progress=False)
        trainer.setup()
        try:
            ids = [e.task_id for e in trainer.build_sft_examples()]
        finally:
            trainer.close()
        return {i: ids.count(i) for i in ids}

    once = counts(sft_confirm_repeats=1, sft_missing_repeats=1)  # the train split's tasks
    assert set(once.values()) == {1} and confirm & missing & set(once)
    assert counts(sft_confirm_repeats=3, sft_missing_repeats=1) == {i: 3 if i in confirm else 1 for i in once}
    both = counts(sft_confirm_repeats=3, sft_missing_repeats=2)  # the larger count where a task does both
    assert both == {i: 3 if i in confirm else 2 if i in missing else 1 for i in once}
    assert counts() == {i: 3 if i in confirm | missing else 1 for i in once}  # the defaults: 3 and 3
    for name in ("sft_confirm_repeats", "sft_missing_repeats"):
        with pytest.raises(ConfigError, match=f"{name} must be >= 1"):
            _config(tiny, tmp_path / "bad", path, **{name: 0})


def test_a_group_is_sampled_merged_and_leaves_the_weights_bit_for_bit(tiny: Path, tasks: Path, tmp_path: Path) -> None:
    import peft

    trainer = SpreadTrainer(_config(tiny, tmp_path / "run", tasks, grpo_steps=1, max_resamples=2), progress=False)
    trainer.setup()
    merged_during: list[bool] = []
    play = trainer.rollout_env_for

    def watching(server: str) -> Any:  # called inside each draw: are the adapters merged then?
        merged_during.append(
            any(m.merged for m in trainer.policy.modules() if isinstance(m, peft.tuners.lora.LoraLayer))
        )
        return play(server)

    trainer.rollout_env_for = watching  # type: ignore[method-assign]
    before = {k: v.clone() for k, v in trainer.policy.state_dict().items()}
    try:
        group = trainer.sample_group()
    finally:
        trainer.close()
    assert merged_during and all(merged_during)
    assert len(merged_during) == group.discarded + 1
    after = trainer.policy.state_dict()
    assert after.keys() == before.keys() and all(torch.equal(after[k], before[k]) for k in before)
    assert not any(m.merged for m in trainer.policy.modules() if isinstance(m, peft.tuners.lora.LoraLayer))
