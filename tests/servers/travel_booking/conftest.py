"""Fixtures of the travel booking server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.travel_booking import kit
from tests.helpers import LiveServer


@pytest.fixture
def travel() -> LiveServer:
    return LiveServer(kit, seed=0)
