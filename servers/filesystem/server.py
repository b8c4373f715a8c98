"""The filesystem server: `create_server` over a workspace folder, `seed_tree` and the command line."""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import sys
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from gym_mcp.servers.filesystem.seed import seed_tree
from gym_mcp.servers.filesystem.tools import TOOLS
from gym_mcp.servers.filesystem.workspace import TRASH, Workspace
from gym_mcp.servers.kit.directory import DirectoryKit, EntityTables
from gym_mcp.servers.kit.server import (
    PortUnavailableError,
    ToolInfo,
    add_token_arguments,
    bearer_auth,
    http_token,
    listen_socket,
    serve_http,
    split_docstring,
    tool_meta,
)

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


def _bind(ws: Workspace, info: ToolInfo) -> tuple[Callable[..., Any], str]:
    """Wrap a tool function: one call at a time on the workspace, OS errors as tool errors, JSON out."""
    fn = info.fn
    description, param_docs = split_docstring(fn.__doc__ or "")
    hints = typing.get_type_hints(fn, include_extras=True)
    sig = inspect.signature(fn)
    params = []
    for p in list(sig.parameters.values())[1:]:  # drop the workspace
        annotation = hints.get(p.name, Any)
        if param_docs.get(p.name):
            annotation = Annotated[annotation, Field(description=param_docs[p.name])]
        params.append(p.replace(annotation=annotation))

    def run(kwargs: dict[str, Any]) -> str:
        with ws.lock:
            try:
                result = fn(ws, **kwargs)
            except ToolError:
                raise
            except OSError as exc:
                raise _os_error(exc) from None
        text = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")

    @functools.wraps(fn)
    async def handler(**kwargs: Any) -> str:
        return await anyio.to_thread.run_sync(run, kwargs, abandon_on_cancel=True)

    del handler.__wrapped__  # the schema comes from the signature below, not from fn
    handler.__signature__ = sig.replace(parameters=params, return_annotation=str)  # type: ignore[attr-defined]
    return handler, description


def create_server(root: Path, *, quota_bytes: int = DEFAULT_QUOTA_BYTES, token: str | None = None) -> MCPServer:
    """Build a live MCP server whose tools act only inside ``root``.

    Args:
        root: The workspace folder (must exist).
        quota_bytes: The most bytes the files under the root (trash included) may hold.
        token: A bearer token every HTTP request must carry; None for none (stdio ignores it).

    Returns:
        An `MCPServer` exposing the filesystem tools, ready for any transport.
    """
    ws = Workspace(root, quota_bytes)
    auth = bearer_auth(token) if token is not None else {}
    server: MCPServer = MCPServer(NAME, instructions=INSTRUCTIONS, log_level="WARNING", **auth)
    for info in TOOLS.values():
        handler, description = _bind(ws, info)
        server.add_tool(
            handler,
            name=info.name,
            description=description,
            annotations=ToolAnnotations(
                read_only_hint=not info.write, destructive_hint=info.write, idempotent_hint=not info.write
            ),
            meta=tool_meta(info),
            structured_output=False,
        )
    return server


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


def entities(root: Path) -> EntityTables:
    """The paths of a tree by kind, the pools synthesis draws path arguments from.

    Tables ``folders`` (column ``directory``), ``files`` (``file``, and ``text_file``,
    ``csv_file``, ``summary_file`` or ``zip_file`` where it is one), ``links`` (``link``) and
    ``trash`` (``trash_id``); the tools' ``pools`` name these columns. Links are not followed
    and the trash's contents are not paths a tool takes.
    """
    root = Path(root)
    tables: EntityTables = {"folders": [], "files": [], "links": [], "trash": []}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == root and TRASH in dirnames:
            dirnames.remove(TRASH)
        dirnames.sort()
        for name in dirnames + sorted(filenames):
            path = here / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                tables["links"].append({"link": rel})
            elif path.is_dir():
                tables["folders"].append({"directory": rel})
            elif path.is_file():
                tables["files"].append({"file": rel, **_file_kinds(path, rel)})
    index = root / TRASH / "index.json"
    if index.is_file() and not index.is_symlink():
        for trash_id in sorted(json.loads(index.read_text())):
            tables["trash"].append({"trash_id": trash_id})
    return tables


def _file_kinds(path: Path, rel: str) -> dict[str, str]:
    """The kinds of one regular file beyond "file": text, CSV, JSON summary, zip archive."""
    data = path.read_bytes()
    kinds: dict[str, str] = {}
    if rel.endswith(".zip"):
        kinds["zip_file"] = rel
        return kinds
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return kinds
    if text.strip() and "\x00" not in text:
        kinds["text_file"] = rel
    if rel.endswith(".csv"):
        kinds["csv_file"] = rel
    if rel.endswith(".json"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and {"topic", "owner", "totals", "items"} <= set(doc):
            kinds["summary_file"] = rel
    return kinds


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
