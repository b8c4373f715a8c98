"""Shared fixtures: real servers over every transport."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# One intra-op thread per pytest-xdist worker (set before torch loads): torch's default, a thread
# per core in every worker, oversubscribes the cores, and training the tiny model then slows
# tenfold when the machine is busy (a 27 s test passed 300 s beside other work).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")

from gym_mcp import BundledSource
from tests.helpers import CraftedChat, serve_handler
from tests.servers.counter import kit as counter_kit
from tests.servers.faulty import kit as faulty_kit

ROOT = Path(__file__).resolve().parent.parent
TRANSPORTS = ["inprocess", "stdio", "http"]


def git_server_command() -> list[str]:
    """The command of PyPI's mcp-server-git (a third-party server the dev extra installs), less its arguments.

    Skips the test where it is not installed: it requires mcp>=2.3, so the low end of the mcp
    range (benchmarks/mcp_range.sh) installs the test dependencies without it.
    """
    if importlib.util.find_spec("mcp_server_git") is None:
        pytest.skip("mcp-server-git is not installed (it requires mcp>=2.3; the dev extra installs it)")
    return [sys.executable, "-m", "mcp_server_git"]


def counter_source(transport: str = "inprocess") -> BundledSource:
    """The small test server (notes + a tool that sleeps), run like a bundled one."""
    return BundledSource(
        "counter",
        transport,  # type: ignore[arg-type]
        kit=counter_kit,
        module="tests.servers.counter",
        env={"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")},
    )


def faulty_source(transport: str = "inprocess", **env: str) -> BundledSource:
    """The test server whose tools fail, die, hang or flood on purpose (see tests/servers/faulty.py)."""
    return BundledSource(
        "faulty",
        transport,  # type: ignore[arg-type]
        kit=faulty_kit,
        module="tests.servers.faulty",
        env={"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "FAULTY_PROCESS": "1", **env},
    )


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """Each test using this runs once per transport."""
    return str(request.param)


@pytest.fixture
def make_counter_source() -> Callable[[str], BundledSource]:
    return counter_source


@pytest.fixture
def endpoint() -> Iterator[tuple[str, type[CraftedChat]]]:
    """A loopback OpenAI-compatible endpoint that answers with crafted replies (``handler.replies``)."""
    handler = type("Crafted", (CraftedChat,), {"replies": [], "requests": []})
    with serve_handler(handler) as url:
        yield url, handler
