"""The ``gym-mcp`` command line.

::

    gym-mcp servers list                                  bundled servers and their tool counts
    gym-mcp serve banking --transport http --port 8000    a live server for any MCP client
    gym-mcp serve-bfcl multi_turn_base_0                  one BFCL entry's backends, for any MCP client
    gym-mcp envs add spec.toml                            check and save a third-party server spec
    gym-mcp synth banking -n 500 -o banking.jsonl         synthesize replay-verified tasks
    gym-mcp eval --env gym_mcp/Banking-v0 --tasks banking.jsonl --policy reference --policy random
    gym-mcp eval --suite bfcl-multi-turn --category base --policy openai:URL   BFCL v3 multi-turn
    gym-mcp train                                         the default run: SmolLM2 learns banking tasks
    gym-mcp train --config examples/train_cpu.toml        a configured run (SFT, then GRPO)
    gym-mcp export runs/train runs/adapter                its adapter, tokenizer, template and card, portable
    gym-mcp demo --server banking --episodes 3            a scripted agent plays a few episodes

A bad argument gets one line on stderr saying what is wrong, and exit status 2. A reader that
stops early (``gym-mcp servers list | head -1``) ends the command quietly, with status 141 as a
process killed by SIGPIPE has. Each command group is a module here with a ``register(subparsers)``
that adds its parser and the function it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gym_mcp.cli import demo, envs, evaluate, export, openenv, serve, synth, train
from gym_mcp.cli.args import Parser
from gym_mcp.errors import GymMCPError

__all__ = ["build_parser", "main"]


def build_parser() -> Parser:
    """The ``gym-mcp`` argument parser, every command group registered."""
    parser = Parser(prog="gym-mcp", description="Gymnasium environments over live MCP servers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for group in (serve, openenv, envs, synth, evaluate, train, export, demo):
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: Arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The exit status: 141 when whoever reads stdout closed it early.
    """
    try:
        try:
            args = build_parser().parse_args(argv)  # --help prints here (and exits)
            return _run(args)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's flush at exit
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return _BROKEN_PIPE


_BROKEN_PIPE = 128 + 13  # a shell's status for a process killed by SIGPIPE


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command; a `GymMCPError` is one line on stderr and status 1."""
    try:
        status: int = args.run(args)
        return status
    except GymMCPError as exc:
        print(f"gym-mcp: error: {exc}", file=sys.stderr)
        return 1


def _drop_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush at exit cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (e.g. captured in a test)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
