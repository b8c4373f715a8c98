"""Serving the filesystem server: `create_server` over a workspace folder, the command line, its kit."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gym_mcp.servers.filesystem.entities import entities
from gym_mcp.servers.filesystem.seed import seed_tree
from gym_mcp.servers.filesystem.tools import TOOLS
from gym_mcp.servers.filesystem.workspace import Workspace
from gym_mcp.servers.kit.directory import DirectoryKit
from gym_mcp.servers.kit.http import (
    PortUnavailableError,
    add_token_arguments,
    bearer_auth,
    http_token,
    listen_socket,
    serve_http,
)
from gym_mcp.servers.kit.registry import CallFn, ToolFn, build_server

__all__ = ["DEFAULT_QUOTA_BYTES", "INSTRUCTIONS", "NAME", "create_server", "entities", "kit", "main", "seed_tree"]

NAME = "filesystem"
DEFAULT_QUOTA_BYTES = 10 * 2**20
INSTRUCTIONS = (
    "A file workspace: read, search, edit and organize the files of one project folder. Paths are "
    "relative to the workspace root ('/' is the root, e.g. 'docs/readme.md'); nothing outside it can "
    "be reached. delete and delete_directory move things to the trash (restore_from_trash undoes "
    "them); empty_trash is permanent. Writes are limited by a storage quota (see quota_info)."
)


def _os_error(exc: OSError) -> ToolError:
    """An OS error as the model sees it: the reason, never a host path."""
    reason = exc.strerror or type(exc).__name__
    return ToolError(f"the file system refused the operation: {reason}")


def _workspace_call(ws: Workspace) -> CallFn:
    """How a filesystem tool runs: one call at a time on the workspace, OS errors as tool errors."""

    def call(fn: ToolFn, kwargs: dict[str, Any]) -> Any:
        with ws.lock:
            try:
                return fn(ws, **kwargs)
            except ToolError:
                raise
            except OSError as exc:
                raise _os_error(exc) from None

    return call


def create_server(root: Path, *, quota_bytes: int = DEFAULT_QUOTA_BYTES, token: str | None = None) -> MCPServer:
    """Build a live MCP server whose tools act only inside ``root``.

    Args:
        root: The workspace folder (must exist).
        quota_bytes: The most bytes the files under the root (trash included) may hold.
        token: A bearer token every HTTP request must carry; None for none (stdio ignores it).

    Returns:
        An `MCPServer` exposing the filesystem tools, ready for any transport.
    """
    return build_server(
        NAME,
        tools=TOOLS.values(),
        call=_workspace_call(Workspace(root, quota_bytes)),
        instructions=INSTRUCTIONS,
        auth=bearer_auth(token) if token is not None else None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a workspace folder over stdio or HTTP.

    Over HTTP the token is checked and the port bound before the folder is touched: a port
    another process holds ends the run with one line on stderr, before any "serving" line.

    Args:
        argv: Command-line arguments (defaults to ``sys.argv[1:]``).

    Returns:
        The process exit status.
    """
    parser = argparse.ArgumentParser(prog=f"python -m gym_mcp.servers.{NAME}", description=INSTRUCTIONS)
    parser.add_argument("--root", required=True, type=Path, help="the workspace folder (created when missing)")
    parser.add_argument("--seed", type=int, default=None, help="fill the root with the seed tree N when it is empty")
    parser.add_argument("--quota-bytes", type=int, default=DEFAULT_QUOTA_BYTES, help="storage quota in bytes")
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    add_token_arguments(parser)
    args = parser.parse_args(argv)
    root: Path = args.root
    token = None
    sock = None
    if args.transport == "http":  # the token and the port first: nothing is made or said before them
        try:
            token = http_token(args.token, host=args.host, allow_no_token=args.allow_no_token)
        except ValueError as exc:
            parser.error(str(exc))
        try:
            sock = listen_socket(args.host, args.port)
        except PortUnavailableError as exc:
            print(f"{NAME}: error: {exc}", file=sys.stderr)
            return 1
    try:
        root.mkdir(parents=True, exist_ok=True)
        if args.seed is not None and not any(root.iterdir()):
            seed_tree(root, args.seed)
        if sock is None:
            create_server(root, quota_bytes=args.quota_bytes).run("stdio")
            return 0
        server = create_server(root, quota_bytes=args.quota_bytes, token=token)
        app = server.streamable_http_app(json_response=True, stateless_http=False, host=args.host)
        guard = "bearer token required" if token is not None else "no token"
        print(
            f"{NAME}: serving MCP at http://{args.host}:{args.port}/mcp ({guard}; root {os.fspath(root)})",
            file=sys.stderr,
            flush=True,
        )
        serve_http(app, sock)
        return 0
    finally:
        if sock is not None:
            sock.close()


kit = DirectoryKit(
    NAME,
    tools=TOOLS,
    instructions=INSTRUCTIONS,
    create_server=create_server,
    seed=seed_tree,
    entities=entities,
    main=main,
)
"""The filesystem server as the gym sees it (`DirectoryKit`)."""
