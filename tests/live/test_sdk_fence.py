"""The MCP SDK's private names are read in one module, and without them calls take the public path.

`gym_mcp.transport.sdk` is the only module that names the SDK's private attributes (an AST scan
of the sources says so, and is shown to catch one). When the installed SDK lacks one (here: the
fence's probe is made to report it missing), the fast path it serves is off and the calls go
through the MCP client's session instead, with identical results and final state.
"""

from __future__ import annotations

import ast
import importlib.metadata
from typing import Any

import pytest
from mcp import Client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from gym_mcp import BundledSource
from gym_mcp.live import LiveServer
from gym_mcp.transport import sdk
from gym_mcp.transport.runner import run_sync
from tests.conftest import ROOT
from tests.live.test_direct import BANKING_CALLS

FENCE = ROOT / "gym_mcp" / "transport" / "sdk.py"
SOURCES = [ROOT / "gym_mcp", ROOT / "servers", ROOT / "synth", ROOT / "train"]


def _hide(monkeypatch: pytest.MonkeyPatch, hidden: str) -> None:
    """Make the fence's probe report ``hidden`` missing, as an SDK without that name would."""
    real = sdk.probe

    def probe(owner: object, name: str) -> Any:
        return sdk.MISSING if name == hidden else real(owner, name)

    monkeypatch.setattr(sdk, "probe", probe)


SDK = tuple(int(part) for part in importlib.metadata.version("mcp").split(".")[:2])
ADDED = {"_later_revision_fields": (2, 1)}
"""The fenced names that the oldest SDK of the declared range (mcp 2.0) lacks, and the release that added each."""

PIPE_ON_THIS_SDK = ADDED["_later_revision_fields"] <= SDK
needs_pipe = pytest.mark.skipif(
    not PIPE_ON_THIS_SDK,
    reason=f"mcp {importlib.metadata.version('mcp')} has no _later_revision_fields (added in 2.1): "
    "the stdio pipe is off and every call goes through the session",
)


def test_the_installed_sdk_has_the_fenced_names_of_its_release() -> None:
    """Each fenced read finds its name on every release that has it (so the fast paths are on there).

    A later release that drops one fails here, and the table says which fast path it turns off.
    """
    server = MCPServer("fenced")
    assert isinstance(sdk.lowlevel_server(server), Server)
    assert sdk.lowlevel_server(object()) is None
    has_fields = sdk.later_revision_fields("tools/call", "2025-06-18") is not None
    assert has_fields == PIPE_ON_THIS_SDK

    async def stamp() -> object:
        async with Client(server) as client:
            return sdk.session_stamp(client.session)

    assert run_sync(stamp()) is not None
    live: LiveServer = run_sync(BundledSource("banking", "stdio").launch(call_timeout=10.0))
    try:
        assert live.connection.piped == PIPE_ON_THIS_SDK  # the pipe needs the stamp and the revision fields
    finally:
        run_sync(live.close())


@pytest.mark.parametrize(
    ("transport", "hidden", "shortcut"),
    [
        ("inprocess", "_lowlevel_server", "direct"),
        pytest.param("stdio", "_stamp", "piped", marks=needs_pipe),
        pytest.param("stdio", "_later_revision_fields", "piped", marks=needs_pipe),
    ],
)
def test_without_a_private_name_calls_take_the_public_path_with_identical_results(
    monkeypatch: pytest.MonkeyPatch, transport: str, hidden: str, shortcut: str
) -> None:
    fast: LiveServer = run_sync(BundledSource("banking", transport).launch(call_timeout=10.0))  # type: ignore[arg-type]
    try:
        assert getattr(fast.connection, shortcut)  # the installed SDK: the fast path is on
        expected = [run_sync(fast.connection.call_tool(name, arguments)) for name, arguments in BANKING_CALLS]
        expected_print = fast.state.fingerprint()
    finally:
        run_sync(fast.close())

    _hide(monkeypatch, hidden)
    public: LiveServer = run_sync(BundledSource("banking", transport).launch(call_timeout=10.0))  # type: ignore[arg-type]
    try:
        assert not public.connection.direct and not public.connection.piped  # every call through the session
        got = [run_sync(public.connection.call_tool(name, arguments)) for name, arguments in BANKING_CALLS]
        assert got == expected
        assert public.state.fingerprint() == expected_print
        assert not got[0].is_error and got[1].is_error
    finally:
        run_sync(public.close())


def _violations(source: str) -> list[str]:
    """Where ``source`` names one of the SDK's fenced private names, or imports a private SDK name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in sdk.FENCED:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Constant) and node.value in sdk.FENCED:
            found.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("mcp", "mcp_types"):
            private = [a.name for a in node.names if a.name.startswith("_")]
            private += [part for part in (node.module or "").split(".") if part.startswith("_")]
            found += [f"line {node.lineno}: imports {name} from {node.module}" for name in private]
    return found


def test_the_scan_catches_a_private_name() -> None:
    assert _violations("server = target._lowlevel_server")
    assert _violations("stamp = getattr(session, '_stamp', None)")
    assert _violations("from mcp.client.session import _later_revision_fields")
    assert _violations("from mcp.client._memory import InMemoryTransport")
    assert not _violations("server = target.lowlevel_server; from mcp.types import Tool")


def test_no_module_outside_the_fence_names_the_sdks_private_names() -> None:
    problems = {}
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            if path == FENCE or "__pycache__" in path.parts:
                continue
            found = _violations(path.read_text(encoding="utf-8"))
            if found:
                problems[str(path.relative_to(ROOT))] = found
    assert problems == {}, f"private SDK names outside {FENCE.relative_to(ROOT)}: {problems}"
    assert _violations(FENCE.read_text(encoding="utf-8"))  # the fence itself does name them


def test_the_fence_module_names_only_what_it_declares() -> None:
    """Every private name the fence reads from the SDK is in FENCED (so the scan above covers it)."""
    tree = ast.parse(FENCE.read_text(encoding="utf-8"))
    read = {
        node.args[1].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "probe"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Constant)
    }
    assert read == set(sdk.FENCED)
