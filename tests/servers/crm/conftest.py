"""Fixtures of the CRM server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.crm import kit
from tests.helpers import LiveServer


@pytest.fixture
def crm() -> LiveServer:
    return LiveServer(kit, seed=0)


@pytest.fixture(scope="module")
def ro() -> LiveServer:
    """A shared server for tests that only read."""
    return LiveServer(kit, seed=0)
