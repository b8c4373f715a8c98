"""Fixtures of the maps server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.maps import kit
from tests.helpers import LiveServer


@pytest.fixture
def maps() -> LiveServer:
    return LiveServer(kit, seed=0)
