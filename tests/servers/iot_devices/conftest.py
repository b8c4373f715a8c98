"""Fixtures of the IoT devices server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.iot_devices import kit
from tests.helpers import LiveServer


@pytest.fixture
def iot() -> LiveServer:
    return LiveServer(kit, seed=0)
