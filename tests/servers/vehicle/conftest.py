"""Fixtures of the vehicle server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.vehicle import kit
from tests.helpers import LiveServer


@pytest.fixture
def veh() -> LiveServer:
    return LiveServer(kit, seed=0)
