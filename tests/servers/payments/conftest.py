"""Fixtures of the payments server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.payments import kit
from tests.helpers import LiveServer


@pytest.fixture
def pay() -> LiveServer:
    return LiveServer(kit, seed=0)
