"""A run is the same bytes for the same seed, whatever else loads the machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
pytest.importorskip("peft", reason="training needs the [train] extra")

from gym_mcp.train import TrainConfig, train  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402


def _run(model: Path, tasks: Path, out: Path) -> dict[str, Any]:
    config = TrainConfig(
        model=str(model),
        tasks=str(tasks),
        output_dir=str(out),
        sft_steps=3,
        grpo_steps=1,
        num_generations=3,
        max_resamples=0,
        temperature=1.0,
        lora_r=4,
        lora_alpha=8,
        eval_tasks=3,
        max_completion_length=12,
        max_answer_tokens=8,
        max_episode_steps=2,
        guided_calls=False,
    )
    return train(config, progress=False)


def test_a_run_is_the_same_bytes_beside_a_cpu_hog(tmp_path: Path) -> None:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks

    # wide enough that torch splits its matrix products over threads (the tiny default is not)
    model = build_tiny_model(tmp_path / "model", hidden=256, layers=3)
    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=12, seed=4, max_chain=2)).tasks, tasks)
    _run(model, tasks, tmp_path / "alone")
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        for _ in range(len(os.sched_getaffinity(0)) * 2)
    ]
    try:
        _run(model, tasks, tmp_path / "busy")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait(10)
    for name in ("checkpoint/adapter_model.safetensors", "train.jsonl", "test.jsonl"):
        assert (tmp_path / "alone" / name).read_bytes() == (tmp_path / "busy" / name).read_bytes(), name

    def rows(run: str, name: str) -> list[dict[str, Any]]:
        text = (tmp_path / run / name).read_text()
        parsed = [json.loads(line) for line in text.splitlines()] if name.endswith(".jsonl") else [json.loads(text)]
        return [
            {k: v for k, v in row.items() if k != "seconds"} for row in parsed
        ]  # wall times differ, nothing else may

    for name in ("eval_after.json", "metrics.jsonl"):
        assert rows("alone", name) == rows("busy", name), name
