"""``gym-mcp servers list``, ``serve``, ``serve-bfcl`` and ``serve-model``: live servers for any client."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gym_mcp.cli.args import Parser, add_serve_flags, positive

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the server commands to the ``gym-mcp`` subparsers."""
    from gym_mcp.servers import BUNDLED
    from gym_mcp.servers.kit import add_token_arguments

    servers = sub.add_parser("servers", help="bundled servers")
    servers_sub = servers.add_subparsers(dest="servers_command", required=True, parser_class=Parser)
    servers_sub.add_parser("list", help="list bundled servers and their tool counts").set_defaults(run=_list)

    serve = sub.add_parser("serve", help="run a bundled server for any MCP client")
    serve.add_argument("name", choices=sorted(BUNDLED), help="bundled server name")
    add_serve_flags(serve)
    serve.add_argument(
        "--db",
        default=None,
        help=(
            "SQLAlchemy database URL, created and seeded when new (default: $GYM_MCP_DB_URL, else a fresh "
            "database in a temporary folder, removed on exit; its path goes to stderr)"
        ),
    )
    serve.add_argument(
        "--root",
        default=None,
        help=(
            "filesystem only: the workspace folder, seeded when new (default: a fresh one in a temporary "
            "folder, removed on exit)"
        ),
    )
    serve.add_argument("--seed", type=int, default=0, help="seed of the generated data for a new database or folder")
    add_token_arguments(serve)
    serve.add_argument(
        "--sessions",
        action="store_true",
        help=(
            "http only: one process, a private state per session (made from --seed when it opens), "
            "reset and snapshotted through a control channel at /control that needs the token"
        ),
    )
    serve.add_argument("--max-sessions", type=positive, default=None, help="with --sessions: the most open at once")
    serve.add_argument(
        "--idle-timeout",
        type=positive,
        default=1800,
        help="with --sessions: seconds a session may stay idle before it is ended (default 1800)",
    )
    serve.set_defaults(run=_serve)

    sb = sub.add_parser("serve-bfcl", help="serve one BFCL multi-turn entry's backends for any MCP client ([bfcl])")
    sb.add_argument("entry", help="entry id, e.g. multi_turn_base_0")
    add_serve_flags(sb)
    add_token_arguments(sb)
    sb.set_defaults(run=_serve_bfcl)

    sm = sub.add_parser("serve-model", help="an OpenAI-compatible chat server over a local model (+ adapter)")
    sm.add_argument(
        "--model",
        required=True,
        help="a local model folder (save_pretrained output), a .gguf file (converted once, then cached), or "
        "smollm2 (the default model, SmolLM2-135M-Instruct)",
    )
    sm.add_argument("--adapter", default=None, help="PEFT adapter folder to apply")
    add_serve_flags(sm, transports=None)
    sm.set_defaults(run=_serve_model)


def _list(args: argparse.Namespace) -> int:
    from gym_mcp import env_id
    from gym_mcp.servers import BUNDLED, get_kit

    print(f"{'server':<16}{'tools':>6}{'write':>7}{'entities':>10}  env id")
    totals = [0, 0, 0]
    for name in sorted(BUNDLED):
        kit = get_kit(name)
        writes = sum(1 for t in kit.tools.values() if t.write)
        entities = _seeded_rows(kit)
        for i, n in enumerate((len(kit.tools), writes, entities)):
            totals[i] += n
        print(f"{name:<16}{len(kit.tools):>6}{writes:>7}{entities:>10}  {env_id(name)}")
    print(f"{f'{len(BUNDLED)} servers':<16}{totals[0]:>6}{totals[1]:>7}{totals[2]:>10}")
    return 0


def _seeded_rows(kit: Any) -> int:
    """Rows in all tables of the server's seed-0 data (its entities); entries of a folder server's tree."""
    import sqlite3

    from gym_mcp.servers import DirectoryKit

    if isinstance(kit, DirectoryKit):
        return kit.entity_count(seed=0)
    conn = sqlite3.connect(":memory:")
    try:
        kit.init_database(conn, seed=0)
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return sum(int(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]) for t in tables)
    finally:
        conn.close()


def _serve(args: argparse.Namespace) -> int:
    from gym_mcp.servers import DirectoryKit, get_kit
    from gym_mcp.servers.kit import PortUnavailableError

    kit = get_kit(args.name)
    try:
        if args.root is not None and not isinstance(kit, DirectoryKit):
            raise ValueError(f"--root is for the filesystem server; {args.name} keeps its state in a database (--db)")
        if args.sessions:
            return _serve_sessions(kit, args)
        if isinstance(kit, DirectoryKit) and args.root is None and not args.db:
            return _serve_fresh_folder(kit, args)
        return kit.serve_args(args)
    except ValueError as exc:  # a bad argument: one line, status 2, as the parser would
        print(f"gym-mcp serve: error: {exc}", file=sys.stderr)
        return 2
    except PortUnavailableError as exc:  # one line, before anything said it was serving
        print(f"gym-mcp serve: error: {exc}", file=sys.stderr)
        return 1


def _serve_fresh_folder(kit: Any, args: argparse.Namespace) -> int:
    """A folder server without ``--root``: a fresh workspace in a temporary folder, removed on exit."""
    from gym_mcp.servers.kit import serving_folder

    with serving_folder(kit.name) as folder:
        args.root = str(folder / kit.name)
        if args.transport == "stdio":  # over HTTP the "serving" line names the root
            fresh = f"fresh from seed {args.seed}, removed on exit; --root DIR keeps one"
            print(f"{kit.name}: workspace {args.root} ({fresh})", file=sys.stderr, flush=True)
        status: int = kit.serve_args(args)
        return status


def _serve_sessions(kit: Any, args: argparse.Namespace) -> int:
    """``serve NAME --transport http --sessions``: many sessions, each on its own state, in one process.

    Raises:
        ValueError: Not over HTTP, a folder server, a database given, or no token.
    """
    from gym_mcp.servers import DirectoryKit
    from gym_mcp.servers.kit import TOKEN_ENV, http_token
    from gym_mcp.sessions.app import serve_sessions

    if args.transport != "http":
        raise ValueError("--sessions needs --transport http")
    if isinstance(kit, DirectoryKit):
        raise ValueError(f"--sessions serves database servers; {args.name} keeps its state in a folder")
    if args.db is not None:
        raise ValueError("--sessions gives every session its own database; --db does not apply")
    token = http_token(args.token, host=args.host, allow_no_token=False)
    if token is None:
        raise ValueError(
            f"--sessions needs a token (its control channel resets and reads every session): "
            f"set ${TOKEN_ENV} or --token"
        )
    return serve_sessions(
        kit,
        token=token,
        host=args.host,
        port=args.port,
        seed=args.seed,
        max_sessions=args.max_sessions,
        idle_timeout=float(args.idle_timeout),
    )


def _serve_bfcl(args: argparse.Namespace) -> int:
    from gym_mcp.bfcl import run_entry_server
    from gym_mcp.servers.kit import PortUnavailableError, http_token, listen_socket

    token = None
    if args.transport == "http":
        try:
            token = http_token(args.token, host=args.host, allow_no_token=args.allow_no_token)
        except ValueError as exc:  # a bad argument: one line, status 2, as the parser would
            print(f"gym-mcp serve-bfcl: error: {exc}", file=sys.stderr)
            return 2
        try:  # the port is checked before the entry loads and before the line that says it is serving
            listen_socket(args.host, args.port).close()
        except PortUnavailableError as exc:
            print(f"gym-mcp serve-bfcl: error: {exc}", file=sys.stderr)
            return 1
    try:
        return run_entry_server(args.entry, transport=args.transport, host=args.host, port=args.port, token=token)
    except PortUnavailableError as exc:  # taken between the check and the entry's own bind
        print(f"gym-mcp serve-bfcl: error: {exc}", file=sys.stderr)
        return 1


def _serve_model(args: argparse.Namespace) -> int:
    from gym_mcp.policies.local import LocalModel, make_app
    from gym_mcp.servers.kit import PortUnavailableError, listen_socket, serve_http

    try:  # bound before the model loads (which takes a while), and before "serving" is said
        sock = listen_socket(args.host, args.port)
    except PortUnavailableError as exc:
        print(f"gym-mcp serve-model: error: {exc}", file=sys.stderr)
        return 1
    try:
        model = LocalModel(args.model, adapter=args.adapter)
        print(f"serving {model.name} at http://{args.host}:{args.port}/v1", file=sys.stderr, flush=True)
        serve_http(make_app(model), sock)
    finally:
        sock.close()
    return 0
