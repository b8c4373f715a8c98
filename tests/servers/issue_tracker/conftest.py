"""Fixtures of the issue tracker's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.issue_tracker import kit
from tests.helpers import LiveServer


@pytest.fixture
def tracker() -> LiveServer:
    return LiveServer(kit, seed=0)
