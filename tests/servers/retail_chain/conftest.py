"""Fixtures of the retail chain server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.retail_chain import kit
from tests.helpers import LiveServer


@pytest.fixture
def rc() -> LiveServer:
    return LiveServer(kit, seed=0)
