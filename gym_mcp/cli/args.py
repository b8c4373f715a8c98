"""What every command group shares: the one-line-error parser, argument types and the serve flags."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

__all__ = ["Parser", "add_serve_flags", "chain_length", "integer", "output_file", "port", "positive", "task_count"]


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``gym-mcp: error: ...``."""

    def error(self, message: str) -> NoReturn:
        """Print ``prog: error: message`` and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message}\n")


def integer(text: str) -> int:
    """An integer argument."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def _in_range(text: str, low: int, high: int | None, what: str) -> int:
    value = integer(text)
    if value < low or (high is not None and value > high):
        bounds = f"{low}-{high}" if high is not None else f"at least {low}"
        raise argparse.ArgumentTypeError(f"{what}{bounds}, got {value}")
    return value


def chain_length(text: str) -> int:
    """A call-chain length, 1-5."""
    return _in_range(text, 1, 5, "must be ")


def port(text: str) -> int:
    """A TCP port, 1-65535."""
    return _in_range(text, 1, 65535, "port must be ")


def positive(text: str) -> int:
    """An integer of at least 1."""
    return _in_range(text, 1, None, "must be ")


MAX_TASKS = 1_000_000


def task_count(text: str) -> int:
    """A number of tasks to make, 1-1,000,000."""
    return _in_range(text, 1, MAX_TASKS, "must be ")


def output_file(text: str) -> str:
    """A file the command will write (with files beside it): checked before any work is done.

    The path must not be a folder, and its folder must exist and take new files (a file is made
    there and removed, which also catches what permissions do not show, such as ``/proc``).
    """
    path = Path(text)
    if path.is_dir():
        example = str(path / "tasks.jsonl")
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name in it, e.g. {example!r}")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {str(folder)!r} of {text!r} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".gym-mcp-write-check-")
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write in {str(folder)!r}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)
    return text


def add_serve_flags(parser: argparse.ArgumentParser, transports: Sequence[str] | None = ("stdio", "http")) -> None:
    """The flags of every ``serve*`` command: ``--transport`` (unless None), ``--host``, ``--port``."""
    if transports is not None:
        parser.add_argument("--transport", choices=list(transports), default=transports[0], help="MCP transport")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind for HTTP (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8000, help="HTTP port (default 8000)")
