"""What every bundled server must have, checked over the whole suite (a new server gets these free).

Each server's own tests (tests/servers/<name>/) cover its tools and rules; these cover the bar
they all share: every tool and parameter described for the model, a synthesis intent and samples
on every tool, a seed of at least 200 entities that is deterministic, and a listing whose kinds
(read/write) match the kit's. The folder server (filesystem) is held to the same bar: its
entities are the entries of its seed tree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gym_mcp.servers import BUNDLED, DirectoryKit, get_kit
from gym_mcp.state import DirectoryState, SQLiteState
from tests.helpers import LiveServer
from tests.servers.helpers import assert_every_tool_described, intent_placeholders, listed_tools, tool_params

SERVERS = sorted(BUNDLED)


@pytest.fixture(scope="module", params=SERVERS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    kit = get_kit(str(request.param))
    if isinstance(kit, DirectoryKit):  # a server over a folder: its seed tree in a folder of its own
        root = tmp_path_factory.mktemp(kit.name) / "root"
        kit.seed_tree(root, 0)
        return SimpleNamespace(kit=kit, server=kit.create_server(root))
    return LiveServer(kit, seed=0)


def test_every_tool_and_parameter_is_described(server: Any) -> None:
    assert len(server.kit.tools) >= 10
    assert_every_tool_described(server, min_description=20)


def test_every_tool_has_an_intent_samples_and_its_kind(server: Any) -> None:
    metas = {t.name: t.meta for t in listed_tools(server)}
    assert set(metas) == set(server.kit.tools)
    for name, info in server.kit.tools.items():
        intent_placeholders(name, info)
        assert metas[name]["gym_mcp/intent"] == info.intent
        assert metas[name]["gym_mcp/kind"] == ("write" if info.write else "read")
        for p in tool_params(info):
            # ids and parameters with a declared pool are drawn from the state, not from samples
            literal = not p.name.endswith("_id") and p.name not in info.pools and p.annotation not in (bool, "bool")
            if literal and "{" + p.name + "}" in (info.intent or ""):
                assert len(info.samples.get(p.name, ())) >= 2, f"{name}.{p.name} needs samples"


def _fingerprint_and_rows(name: str, seed: int, tmp: Path) -> tuple[str, int]:
    kit = get_kit(name)
    if isinstance(kit, DirectoryKit):
        root = tmp / f"{name}-{seed}-{len(list(tmp.iterdir()))}"
        kit.seed_tree(root, seed)
        return DirectoryState(root).fingerprint(), sum(1 for _ in root.rglob("*"))
    state = SQLiteState(None, volatile=kit.volatile_columns)
    try:
        kit.init_database(state.connection, seed=seed)
        return state.fingerprint(), sum(state.row_counts().values())
    finally:
        state.close()


@pytest.mark.parametrize("name", SERVERS)
def test_the_seed_is_deterministic_and_has_200_entities(name: str, tmp_path: Path) -> None:
    first, rows = _fingerprint_and_rows(name, 0, tmp_path)
    again, _ = _fingerprint_and_rows(name, 0, tmp_path)
    other, _ = _fingerprint_and_rows(name, 1, tmp_path)
    assert rows >= 200
    assert first == again  # volatile columns (wall-clock times) left out
    assert other != first


_LAYOUT = """
import json, sqlite3, sys
from gym_mcp.servers import BUNDLED, DirectoryKit, get_kit
out = {}
for name in sorted(BUNDLED):
    kit = get_kit(name)
    if not isinstance(kit, DirectoryKit):
        conn = sqlite3.connect(":memory:")
        kit.init_database(conn, seed=0)
        out[name] = conn.execute("SELECT type, name, rootpage FROM sqlite_master ORDER BY name").fetchall()
json.dump(out, sys.stdout)
"""


def test_a_seeded_database_has_its_tables_and_indexes_at_the_same_pages_in_every_process() -> None:
    """Two processes (other hash seeds, other object ids) seed every database with the same layout.

    A snapshot travels between processes (Ray workers, the sessions server); with indexes at
    swapped pages a connection that had read one layout could read the other through its
    cached schema (tests/state/test_sqlite.py::test_a_restore_never_lands_on_a_schema_cookie_read_before).
    """
    layouts = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", _LAYOUT], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        layouts.append(json.loads(done.stdout))
    assert len(layouts[0]) >= 15
    assert layouts[0] == layouts[1]
