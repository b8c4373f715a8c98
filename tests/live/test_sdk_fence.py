"""The MCP SDK's private names are read in one module, and without them calls take the public path.

`gym_mcp.transport.sdk` is the only module that names the SDK's private attributes (an AST scan
of the sources says so, and is shown to catch one). When the installed SDK lacks one (here: the
fence's probe is made to report it missing), the fast path it serves is off and the calls go
through the MCP client's session instead, with identical results and final state.
"""

from __future__ import annotations

import ast
from typing import Any

import pytest
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


def test_the_pinned_sdk_has_every_fenced_name() -> None:
    """With the installed SDK, each fenced read finds its name (so the fast paths are on)."""
    server = MCPServer("fenced")
    assert isinstance(sdk.lowlevel_server(server), Server)
    assert sdk.lowlevel_server(object()) is None
    assert sdk.later_revision_fields("tools/call", "2025-06-18") is not None
    live: LiveServer = run_sync(BundledSource("banking", "stdio").launch(call_timeout=10.0))
    try:
        assert live.connection.piped  # the session's stamp was found
    finally:
        run_sync(live.close())


@pytest.mark.parametrize(
    ("transport", "hidden", "shortcut"),
    [
        ("inprocess", "_lowlevel_server", "direct"),
        ("stdio", "_stamp", "piped"),
        ("stdio", "_later_revision_fields", "piped"),
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
