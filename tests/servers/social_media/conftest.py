"""Fixtures of the social media server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.social_media import kit
from tests.helpers import LiveServer


@pytest.fixture
def sm() -> LiveServer:
    return LiveServer(kit, seed=0)
