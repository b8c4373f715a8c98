"""``gym-mcp train``: LoRA training (evaluate, SFT warm start, GRPO, evaluate again)."""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``train`` to the ``gym-mcp`` subparsers."""
    tr = sub.add_parser(
        "train",
        help="LoRA training: evaluate, SFT warm start, GRPO, evaluate again (needs the [train] extra)",
    )
    tr.add_argument("--config", default=None, help="a TOML config (default: the embedded default run)")
    tr.add_argument("--output-dir", default=None, help="where results go (overrides the config)")
    tr.set_defaults(run=_train)


def _train(args: argparse.Namespace) -> int:
    from gym_mcp.train import TrainConfig, train
    from gym_mcp.train.reporting import summary_table, timing_table

    config = TrainConfig.from_toml(args.config) if args.config else TrainConfig()
    if args.output_dir:
        config = replace(config, output_dir=args.output_dir)
    start = time.perf_counter()
    result = train(config)
    print(summary_table(result["before"], result["after"]))
    if result["breakdown"]:
        print("\nheld-out tasks solved, by chain length and variant:\n" + result["breakdown"])
    peaks = result["peak_rss_gb"], result.get("peak_gpu_gb"), result.get("rss_by_phase")
    times = timing_table(result["timings"], *peaks)
    print("\ntime and memory:\n" + times)
    print(
        f"done in {time.perf_counter() - start:.0f}s; adapter, metrics, evaluations and "
        f"training.png in {config.output_dir}"
    )
    return 0
