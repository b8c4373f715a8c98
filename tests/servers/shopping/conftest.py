"""Fixtures of the shopping server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.shopping import kit
from tests.helpers import LiveServer


@pytest.fixture
def srv() -> LiveServer:
    return LiveServer(kit, seed=0)
