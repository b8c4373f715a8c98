"""Fixtures of the budget server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.budget import kit
from tests.helpers import LiveServer


@pytest.fixture
def bud() -> LiveServer:
    return LiveServer(kit, seed=0)
