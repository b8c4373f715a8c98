"""Fixtures of the marketplace server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.marketplace import kit
from tests.helpers import LiveServer


@pytest.fixture
def mkt() -> LiveServer:
    return LiveServer(kit, seed=0)
