"""The rooms of the connection and provisioning code hold no import cycle, type-checking imports counted.

import-linter's layers contract checks the rooms against each other; inside one room, two
modules that import each other (one of them only under ``TYPE_CHECKING``, as ``ray/pool.py``
and ``ray/remote.py`` did) are a circle it does not see. This test builds the import graph with
type-checking imports counted and finds none inside the rooms below; a planted circle is found.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOMS = ["gym_mcp.transport", "gym_mcp.live", "gym_mcp.specs", "gym_mcp.sessions", "gym_mcp.ray"]


def _cycles(package: str, rooms: list[str]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Pairs of import chains, one each way, between two modules of one room."""
    graph = grimp.build_graph(package, exclude_type_checking_imports=False, cache_dir=None)
    found = []
    for room in rooms:
        for a, b in itertools.combinations(sorted({room} | graph.find_descendants(room)), 2):
            there = graph.find_shortest_chain(importer=a, imported=b)
            back = graph.find_shortest_chain(importer=b, imported=a)
            if there and back:
                found.append((there, back))
    return found


def test_no_room_imports_itself_in_a_circle() -> None:
    assert _cycles("gym_mcp", ROOMS) == []


def test_a_circle_through_a_type_checking_import_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    room = tmp_path / "circled" / "room"
    room.mkdir(parents=True)
    (tmp_path / "circled" / "__init__.py").write_text("")
    (room / "__init__.py").write_text("")
    (room / "pool.py").write_text("def make():\n    from circled.room.remote import Remote\n    return Remote()\n")
    (room / "remote.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from circled.room.pool import make\nclass Remote: ...\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    cycles = _cycles("circled", ["circled.room"])
    assert [(a[0], b[0]) for a, b in cycles] == [("circled.room.pool", "circled.room.remote")]
    # and the same package without the type-checking import has none
    (room / "remote.py").write_text("class Remote: ...\n")
    assert _cycles("circled", ["circled.room"]) == []


def test_importing_the_ray_room_without_ray_names_the_extra() -> None:
    """Breaking the circle kept the order: a missing Ray is `DependencyMissing`, not an ImportError."""
    code = (
        "import sys\n"
        "sys.modules['ray'] = None\n"
        "try:\n"
        "    import gym_mcp.ray\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, getattr(exc, 'extra', None))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["DependencyMissing", "ray"], out.stdout + out.stderr
