"""What every command group shares: the one-line-error parser, argument types and the serve flags."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

__all__ = ["Parser", "add_serve_flags", "chain_length", "integer", "port", "positive"]


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


def add_serve_flags(parser: argparse.ArgumentParser, transports: Sequence[str] | None = ("stdio", "http")) -> None:
    """The flags of every ``serve*`` command: ``--transport`` (unless None), ``--host``, ``--port``."""
    if transports is not None:
        parser.add_argument("--transport", choices=list(transports), default=transports[0], help="MCP transport")
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind for HTTP (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8000, help="HTTP port (default 8000)")
