"""Fixtures of the banking server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.banking import kit
from tests.helpers import LiveServer


@pytest.fixture
def bank() -> LiveServer:
    return LiveServer(kit, seed=0)
