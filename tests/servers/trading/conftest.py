"""Fixtures of the trading server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.trading import kit
from tests.helpers import LiveServer


@pytest.fixture
def trade() -> LiveServer:
    return LiveServer(kit, seed=0)


@pytest.fixture(scope="module")
def ro() -> LiveServer:
    """A server shared by the tests of a module that only read."""
    return LiveServer(kit, seed=0)
