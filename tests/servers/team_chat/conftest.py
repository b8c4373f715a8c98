"""Fixtures of the team chat server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.team_chat import kit
from tests.helpers import LiveServer


@pytest.fixture
def chat() -> LiveServer:
    return LiveServer(kit, seed=0)
