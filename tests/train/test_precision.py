"""`TrainConfig.precision`: bf16 autocast where asked (on GPUs by default), fp32 adapters either way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
pytest.importorskip("peft", reason="training needs the [train] extra")

from gym_mcp.errors import ConfigError  # noqa: E402
from gym_mcp.train import GymTrainer, TrainConfig  # noqa: E402
from gym_mcp.train.evaluation import eval_cache_path  # noqa: E402
from gym_mcp.train.loading import mixed_precision  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks

    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=6, seed=4, max_chain=2)).tasks, path)
    return path


def test_the_choice_maps_to_accelerates_mixed_precision() -> None:
    assert mixed_precision("fp32", gpu=False) == "no" and mixed_precision("fp32", gpu=True) == "no"
    assert mixed_precision("bf16", gpu=False) == "bf16"
    assert mixed_precision("auto", gpu=False) == "no"  # measured not worth it on a CPU (see TrainConfig)
    with pytest.raises(ConfigError, match="precision must be one of auto, bf16, fp32, got 'half'"):
        TrainConfig(precision="half")


STEP = """
import sys
from typing import Any

import torch

from gym_mcp.train import GymTrainer, TrainConfig

model, tasks, out, precision = sys.argv[1:5]
config = TrainConfig(
    model=model, tasks=tasks, output_dir=out, precision=precision, sft_steps=1, grpo_steps=0, eval_tasks=0,
    lora_r=4, lora_alpha=8, lora_targets=["q_proj", "v_proj"], learning_rate=1e-2,
)
trainer = GymTrainer(config, progress=False)
trainer.setup()
trainer.examples = trainer.build_sft_examples()
adapters = {n: p for n, p in trainer.policy.named_parameters() if p.requires_grad}
before = {n: p.detach().clone() for n, p in adapters.items()}
seen: list[Any] = []
hook = trainer.policy.get_output_embeddings().register_forward_hook(lambda m, i, out: seen.append(out.dtype))
row = trainer.sft_step(0)
hook.remove()
changed = any(not torch.equal(p, before[n]) for n, p in adapters.items())
fp32 = all(p.dtype == torch.float32 for p in adapters.values())
print(trainer.accelerator.mixed_precision, sorted({str(d) for d in seen}), row["loss"] > 0, changed, fp32)
trainer.close()
"""


@pytest.mark.parametrize(
    ("precision", "expected"),
    [("bf16", "bf16 ['torch.bfloat16'] True True True"), ("fp32", "no ['torch.float32'] True True True")],
)
def test_a_step_in_either_precision_trains_fp32_adapters(
    tiny: Path, tasks: Path, tmp_path: Path, precision: str, expected: str
) -> None:
    # a process of its own: accelerate keeps the first mixed precision for the whole process
    done = subprocess.run(
        [sys.executable, "-c", STEP, str(tiny), str(tasks), str(tmp_path / "run"), precision],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == expected  # the head's output in bf16, the adapters fp32


def test_a_second_precision_in_one_process_is_one_clear_line(tiny: Path, tasks: Path, tmp_path: Path) -> None:
    def trainer(precision: str) -> GymTrainer:
        config = TrainConfig(
            model=str(tiny),
            tasks=str(tasks),
            output_dir=str(tmp_path / precision),
            precision=precision,
            sft_steps=1,
            grpo_steps=0,
            eval_tasks=0,
            lora_r=4,
            lora_alpha=8,
            lora_targets=["q_proj", "v_proj"],
        )
        return GymTrainer(config, progress=False)

    first = trainer("fp32")
    first.setup()  # what every other training test in this process does
    first.close()
    with pytest.raises(ConfigError) as caught:
        trainer("bf16").setup()
    assert str(caught.value).startswith("precision: this process already trained with another precision")
    assert "\n" not in str(caught.value)


def test_the_base_models_cached_evaluation_is_per_precision(tiny: Path, tasks: Path) -> None:
    from transformers import AutoTokenizer

    from gym_mcp.policies.prompt import prompt_format
    from gym_mcp.tasks import load_tasks

    fmt = prompt_format(AutoTokenizer.from_pretrained(tiny), "auto")
    held = load_tasks(tasks)[:2]
    paths = {p: eval_cache_path(TrainConfig(model=str(tiny), precision=p), fmt, held) for p in ("bf16", "fp32")}
    assert paths["bf16"] != paths["fp32"]
