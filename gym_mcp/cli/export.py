"""``gym-mcp export``: a finished training run as a folder that loads anywhere with transformers and peft."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``export`` to the ``gym-mcp`` subparsers."""
    ex = sub.add_parser(
        "export",
        help="a training run's adapter (or merged model), tokenizer, chat template and model card, "
        "for plain transformers + peft on any machine (needs the [train] extra)",
    )
    ex.add_argument("run_dir", metavar="RUN", type=_run_folder, help="a gym-mcp train output folder")
    ex.add_argument("out_dir", metavar="DIR", type=_export_folder, help="the folder to write (new or empty)")
    ex.add_argument(
        "--merge",
        action="store_true",
        help="write the base model with the adapter merged in (a plain transformers model) instead of the adapter",
    )
    ex.add_argument(
        "--base",
        default=None,
        metavar="ID",
        help="the base model's name in adapter_config.json (default: its Hugging Face id, when gym-mcp can tell it)",
    )
    ex.set_defaults(run=_export)


def _run_folder(text: str) -> Any:
    """RUN, checked before any work (no model is loaded)."""
    from gym_mcp.errors import ConfigError
    from gym_mcp.train.export import check_run

    try:
        return check_run(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _export_folder(text: str) -> str:
    """DIR, checked before any work."""
    from gym_mcp.errors import ConfigError
    from gym_mcp.train.export import check_export_dir

    try:
        check_export_dir(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _export(args: argparse.Namespace) -> int:
    from gym_mcp.train.export import base_model_id, export_run

    run = args.run_dir
    base = args.base or base_model_id(str(run.config["model"]))
    if not base:  # an argument the user must add: a usage error, before anything is loaded
        print(
            f"gym-mcp export: error: cannot tell the Hugging Face id of the base model {run.config['model']!r} "
            "of the run; name it with --base ID",
            file=sys.stderr,
        )
        return 2
    if not run.finished:
        print(
            f"note: {run.path} has not finished (step {run.step} of {run.total}); exporting its last checkpoint",
            file=sys.stderr,
        )
    out = export_run(run.path, args.out_dir, merge=args.merge, base=base)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6
    kept = sum(p.stat().st_size for p in run.checkpoint.rglob("*") if p.is_file()) / 1e6
    what = "merged model" if args.merge else "adapter"
    print(f"exported the {what} of {run.path} (base {base}) to {out}: {size:.1f} MB (the checkpoint: {kept:.1f} MB)")
    return 0
