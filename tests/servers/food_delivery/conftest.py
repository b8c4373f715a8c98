"""Fixtures of the food delivery server's tests."""

from __future__ import annotations

import pytest

from tests.servers.food_delivery.common import FoodServer


@pytest.fixture
def food() -> FoodServer:
    return FoodServer(seed=0)
