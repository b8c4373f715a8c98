"""Fixtures of the video meeting server's tests."""

from __future__ import annotations

import pytest

from gym_mcp.servers.video_meeting import kit
from tests.helpers import LiveServer


@pytest.fixture
def vm() -> LiveServer:
    return LiveServer(kit, seed=0)
