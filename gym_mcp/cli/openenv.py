"""``gym-mcp serve-openenv`` and ``gym-mcp openenv init``: gym-mcp environments for OpenEnv's trainers.

NAME is a bundled server or composition (``banking``), a registered id (``gym_mcp/Banking-v0``,
``gym_mcp/BFCL-MultiTurn-v0``) or a third-party server's spec file (``spec.toml``, served as
``gym_mcp/External-v0``). Everything is checked before any environment is built: an unknown
NAME, a missing tasks or spec file, a bad mix, a non-loopback host without a token, a port in use.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gym_mcp.cli.args import Parser, add_serve_flags, positive

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add ``serve-openenv`` and ``openenv init`` to the ``gym-mcp`` subparsers."""
    from gym_mcp.servers.kit import add_token_arguments

    so = sub.add_parser(
        "serve-openenv",
        help="serve a gym-mcp environment over OpenEnv (WebSocket sessions, /mcp) for TRL and others ([openenv])",
    )
    so.add_argument("name", help="bundled server or composition, a gym_mcp/... id, or a spec .toml")
    _recipe_flags(so)
    add_serve_flags(so, transports=None)
    add_token_arguments(so)
    so.add_argument(
        "--max-sessions", type=positive, default=256, help="sessions open at once (OpenEnv's max_concurrent_envs)"
    )
    so.add_argument(
        "--session-timeout", type=positive, default=None, help="idle seconds before a session is ended (default never)"
    )
    so.add_argument("--warm", type=int, default=0, help="environments built before the first session (default 0)")
    so.add_argument(
        "--in-flight",
        type=positive,
        default=None,
        help="resets and steps run at once (default 4 in-process, 32 for servers in other processes)",
    )
    so.add_argument(
        "--ws-compression",
        action="store_true",
        help="offer WebSocket compression to clients (off: it costs server CPU; for slow links)",
    )
    so.set_defaults(run=_serve)

    oe = sub.add_parser("openenv", help="OpenEnv packaging ([openenv])")
    oe_sub = oe.add_subparsers(dest="openenv_command", required=True, parser_class=Parser)
    init = oe_sub.add_parser(
        "init", help="write the folder OpenEnv expects of an environment (openenv.yaml, server/app.py, ...)"
    )
    init.add_argument("name", help="bundled server or composition, a gym_mcp/... id, or a spec .toml")
    init.add_argument("dir", help="the folder to write (new or empty)")
    init.add_argument("--package", default=None, help="the package's name (default: from NAME, e.g. banking)")
    init.add_argument("--tasks", default=None, help="tasks JSONL the environment serves (its absolute path is written)")
    init.add_argument("--max-sessions", type=positive, default=64, help="max_concurrent_envs of the generated app")
    init.set_defaults(run=_init)


def _recipe_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", default=None, help="tasks JSONL (gym-mcp synth's output) the episodes draw from")
    parser.add_argument(
        "--transport",
        choices=["inprocess", "stdio", "http"],
        default="inprocess",
        help=(
            "bundled servers: inprocess (default), or out of process: one sessions server process holds every "
            "session's state (stdio and http both run that way, never a process per session)"
        ),
    )
    parser.add_argument("--user", default=None, help="a simulated user: scripted, or openai:URL[@MODEL]")
    parser.add_argument(
        "--perturb", default=None, help="a perturbation mix applied to every episode (see eval --perturb)"
    )
    parser.add_argument("--max-steps", type=positive, default=None, help="steps before an episode is truncated")
    parser.add_argument("--seed", type=int, default=0, help="the perturbation mix's seed")


def _env_id(name: str) -> tuple[str, dict[str, Any]]:
    """The environment id NAME means, and the keyword arguments it needs (a spec's path).

    Raises:
        ValueError: NAME is none of the things it may be.
    """
    import gymnasium as gym

    from gym_mcp import EXTERNAL_ID, env_id

    if name.endswith(".toml"):
        path = Path(name)
        if not path.is_file():
            raise ValueError(f"{name}: no such spec file")
        return EXTERNAL_ID, {"spec": str(path.resolve())}
    if name in gym.registry:
        return name, {}
    if env_id(name) in gym.registry:
        return env_id(name), {}
    raise ValueError(f"{name!r} is not a bundled server or composition, a registered gym_mcp id, or a spec .toml file")


def _recipe_parts(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The environment id and ``gym.make`` keyword arguments the flags ask for, all checked.

    Nothing of OpenEnv is imported here (it takes seconds): a bad argument is said at once.

    Raises:
        ValueError: An unknown NAME, a missing file.
        ConfigError: An unknown perturbation mix.
    """
    env_id, kwargs = _env_id(args.name)
    if args.tasks is not None:
        tasks = Path(args.tasks)
        if not tasks.is_file():
            raise ValueError(f"--tasks {args.tasks}: no such file")
        kwargs["tasks"] = str(tasks.resolve())
    if args.user:
        kwargs["user"] = args.user
    if args.max_steps is not None:
        kwargs["max_steps"] = args.max_steps
    if args.perturb:
        from gym_mcp.wrappers import mix

        mix(args.perturb)  # an unknown mix fails here, before any environment
    if args.transport != "inprocess":
        from gym_mcp.servers import BUNDLED

        if args.name not in BUNDLED:
            raise ValueError(
                f"--transport {args.transport} serves a bundled server's sessions; {args.name!r} is not one"
            )
    return env_id, kwargs


def _serve(args: argparse.Namespace) -> int:
    from gym_mcp.errors import ConfigError
    from gym_mcp.servers.kit import PortUnavailableError, http_token, listen_socket

    try:
        token = http_token(args.token, host=args.host, allow_no_token=args.allow_no_token)
        env_id, kwargs = _recipe_parts(args)
        listen_socket(args.host, args.port).close()  # a port in use is said before anything is built
    except PortUnavailableError as exc:
        print(f"gym-mcp serve-openenv: error: {exc}", file=sys.stderr)
        return 1
    except (ValueError, ConfigError) as exc:
        print(f"gym-mcp serve-openenv: error: {exc}", file=sys.stderr)
        return 2
    from gym_mcp.openenv import EnvRecipe, serve_openenv

    serve = {
        "host": args.host,
        "port": args.port,
        "token": token,
        "max_sessions": args.max_sessions,
        "session_timeout": args.session_timeout,
        "warm": args.warm,
        "max_in_flight": args.in_flight,
        "ws_compression": args.ws_compression,
    }
    if args.transport == "inprocess":
        return serve_openenv(EnvRecipe(env_id, kwargs, perturb=args.perturb, seed=args.seed), **serve)
    with _sessions_server(args.name, env_id) as (url, inner_token):
        kwargs = {**kwargs, "transport": "http", "url": url, "sessions": True, "token": inner_token}
        return serve_openenv(EnvRecipe(env_id, kwargs, perturb=args.perturb, seed=args.seed), **serve)


@contextlib.contextmanager
def _sessions_server(name: str, label: str) -> Iterator[tuple[str, str]]:
    """One ``gym-mcp serve NAME --transport http --sessions`` child on a free loopback port, for every session.

    Raises:
        ValueError: The child exited or did not listen within 60 s.
    """
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_urlsafe(24)
    env = {**os.environ, "GYM_MCP_TOKEN": token}
    cmd = [sys.executable, "-m", "gym_mcp.cli", "serve", name, "--transport", "http", "--sessions", "--port", str(port)]
    child = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            if child.poll() is not None:
                raise ValueError(f"the sessions server of {name} exited with status {child.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise ValueError(f"the sessions server of {name} did not listen within 60 s")
            time.sleep(0.1)
        print(f"{label}: sessions server pid {child.pid} at http://127.0.0.1:{port}/mcp", file=sys.stderr, flush=True)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        child.terminate()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()


def _init(args: argparse.Namespace) -> int:
    from gym_mcp.errors import ConfigError
    from gym_mcp.openenv import write_package

    try:
        env_id, kwargs = _env_id(args.name)
        if args.tasks is not None:
            if not Path(args.tasks).is_file():
                raise ValueError(f"--tasks {args.tasks}: no such file")
            kwargs["tasks"] = str(Path(args.tasks).resolve())
        package = args.package or Path(args.name).stem.lower().replace("-", "_").split("/")[-1]
        if "/" in args.name and not args.name.endswith(".toml"):
            package = env_id.split("/")[-1].rsplit("-v", 1)[0].lower()
        out = write_package(package, args.dir, env_id=env_id, env_kwargs=kwargs, max_sessions=args.max_sessions)
    except (ValueError, ConfigError) as exc:
        print(f"gym-mcp openenv init: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({env_id} as OpenEnv package {package}); serve it with: cd {out} && python -m server.app")
    return 0
