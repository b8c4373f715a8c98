"""The ``gym-mcp`` command line.

::

    gym-mcp servers list                                  bundled servers and their tool counts
    gym-mcp serve banking --transport http --port 8000    a live server for any MCP client
    gym-mcp demo --server banking --episodes 3            a scripted agent plays a few episodes

A bad argument gets one line on stderr saying what is wrong, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from gym_mcp.errors import GymMCPError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: ``gym-mcp: error: ...``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    from gym_mcp.servers import BUNDLED

    parser = _Parser(prog="gym-mcp", description="Gymnasium environments over live MCP servers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    servers = sub.add_parser("servers", help="bundled servers")
    servers_sub = servers.add_subparsers(dest="servers_command", required=True, parser_class=_Parser)
    servers_sub.add_parser("list", help="list bundled servers and their tool counts")

    serve = sub.add_parser("serve", help="run a bundled server for any MCP client")
    serve.add_argument("name", choices=sorted(BUNDLED), help="bundled server name")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000)")
    serve.add_argument(
        "--db", default=None, help="SQLAlchemy database URL (default: a file named after the server)"
    )
    serve.add_argument("--seed", type=int, default=0, help="seed of the generated data for a new database")

    demo = sub.add_parser("demo", help="a scripted agent plays episodes of a bundled environment")
    demo.add_argument("--server", choices=sorted(BUNDLED), default="banking", help="bundled server")
    demo.add_argument("--transport", choices=["inprocess", "stdio", "http"], default="stdio")
    demo.add_argument("--episodes", type=_positive, default=3, help="episodes to play")
    return parser


def _port(text: str) -> int:
    value = _int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 1-65535, got {value}")
    return value


def _positive(text: str) -> int:
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def _servers_list() -> int:
    from gym_mcp.servers import BUNDLED, get_kit

    rows = []
    for name in sorted(BUNDLED):
        kit = get_kit(name)
        writes = sum(1 for t in kit.tools.values() if t.write)
        rows.append((name, len(kit.tools), writes))
    print(f"{'server':<12}{'tools':>6}{'write':>7}  env id")
    from gym_mcp import env_id

    for name, n, w in rows:
        print(f"{name:<12}{n:>6}{w:>7}  {env_id(name)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: Arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The exit status.
    """
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "servers":
            return _servers_list()
        if args.command == "serve":
            from gym_mcp.servers import get_kit

            return get_kit(args.name).serve(
                transport=args.transport, db=args.db, seed=args.seed, host=args.host, port=args.port
            )
        if args.command == "demo":
            from gym_mcp.demo import run_demo

            return run_demo(server=args.server, transport=args.transport, episodes=args.episodes)
    except GymMCPError as exc:
        print(f"gym-mcp: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
