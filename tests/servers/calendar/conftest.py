"""Fixtures of the calendar server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.calendar import kit
from tests.helpers import LiveServer


@pytest.fixture
def s() -> LiveServer:
    return LiveServer(kit)


@pytest.fixture(scope="module")
def ro() -> LiveServer:
    """A shared server for tests that only read."""
    return LiveServer(kit)
