"""Evaluation with the LoRA adapters merged into the weights: the same model, and left exactly as it was."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")

import gym_mcp  # noqa: E402
from gym_mcp.train.loading import load_lora_model, merged_lora  # noqa: E402
from tests.helpers import deposit_then_balance_task  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _trained_lora(tiny: Path) -> tuple[object, object]:
    """A LoRA model whose adapters change its output (B starts at zero; moved here, as training does)."""
    torch.manual_seed(0)
    model, tokenizer = load_lora_model(
        tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj", "down_proj"])
    )
    for name, p in model.named_parameters():
        if "lora_B" in name:
            p.data.normal_(0, 0.05)
    return model, tokenizer


def _logits(model: object, ids: object) -> object:
    with torch.no_grad():
        return model(input_ids=ids).logits  # type: ignore[operator]


def test_merged_adapters_give_the_adapted_logits_and_leave_every_weight_bit_for_bit(tiny: Path) -> None:
    model, _ = _trained_lora(tiny)
    model.eval()  # type: ignore[attr-defined]
    before = {k: v.clone() for k, v in model.state_dict().items()}  # type: ignore[attr-defined]
    ids = torch.randint(5, int(model.config.vocab_size), (2, 9), generator=torch.Generator().manual_seed(1))  # type: ignore[attr-defined]
    adapted = _logits(model, ids)
    with model.disable_adapter():  # type: ignore[attr-defined]
        plain = _logits(model, ids)
        with merged_lora(model) as n:
            assert n == 0  # adapters off: nothing to merge
    layers = 3 * int(model.config.num_hidden_layers)  # type: ignore[attr-defined]
    with merged_lora(model) as n:
        assert n == layers
        inside = _logits(model, ids)
        # the product the forward runs is one base matrix: the LoRA branch is not run at all
        assert all(m.merged for m in model.modules() if isinstance(m, peft.tuners.lora.LoraLayer))  # type: ignore[attr-defined]
    assert not torch.allclose(adapted, plain, atol=1e-3)  # the adapters matter here ...
    assert torch.allclose(inside, adapted, atol=1e-5)  # ... and merged they give their logits
    after = model.state_dict()  # type: ignore[attr-defined]
    assert after.keys() == before.keys()
    assert all(torch.equal(after[k], before[k]) for k in before)  # no rounding drift from an unmerge
    assert torch.equal(_logits(model, ids), adapted)
    assert not any(m.merged for m in model.modules() if isinstance(m, peft.tuners.lora.LoraLayer))  # type: ignore[attr-defined]


def test_a_failure_inside_still_restores_the_weights(tiny: Path) -> None:
    model, _ = _trained_lora(tiny)
    before = {k: v.clone() for k, v in model.state_dict().items()}  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="boom"), merged_lora(model):
        raise RuntimeError("boom")
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())  # type: ignore[attr-defined]


def test_a_merged_evaluation_plays_the_same_episodes(tiny: Path) -> None:
    from gym_mcp.train.evaluation import evaluate_model

    model, tokenizer = _trained_lora(tiny)
    model.train()  # type: ignore[attr-defined]
    before = {k: v.clone() for k, v in model.state_dict().items()}  # type: ignore[attr-defined]
    tasks = [
        deposit_then_balance_task(),
        gym_mcp.Task(id="u", server="banking", instruction="Lock card CRD-1001.", reference_calls=()),
    ]

    def play(merge: bool) -> list[object]:
        result = evaluate_model(
            model,
            tokenizer,
            lambda: gym.make("gym_mcp/Banking-v0", max_steps=2),
            tasks,
            batch_size=2,
            max_new_tokens=8,
            merge_lora=merge,
        )
        return [row["messages"] for row in result.episodes]

    assert play(True) == play(False)
    assert model.training  # type: ignore[attr-defined]
    assert all(torch.equal(v, before[k]) for k, v in model.state_dict().items())  # type: ignore[attr-defined]
