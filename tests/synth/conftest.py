"""Fixtures of the synthesis tests: each server's seed-0 tasks, made once a session."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.tasks import Task

Seed0 = Callable[[str, int], list[Task]]


@pytest.fixture(scope="session")
def seed0_tasks(tmp_path_factory: pytest.TempPathFactory) -> Seed0:
    """``get(server, n)``: ``synthesize(server, SynthConfig(n=n, seed=0)).tasks``, made once a session.

    The checks of the renderer over every server read the same batches: synthesizing them once
    keeps those tests within a minute on one core. The graph cache is a folder of the session's.
    """
    made: dict[tuple[str, int], list[Task]] = {}
    home = str(tmp_path_factory.mktemp("synth-home"))

    def get(server: str, n: int) -> list[Task]:
        if (server, n) not in made:
            before = os.environ.get("GYM_MCP_HOME")
            os.environ["GYM_MCP_HOME"] = home
            try:
                made[server, n] = synthesize(server, SynthConfig(n=n, seed=0)).tasks
            finally:
                if before is None:
                    del os.environ["GYM_MCP_HOME"]
                else:
                    os.environ["GYM_MCP_HOME"] = before
        return made[server, n]

    return get


RECORDS_CLOCK = Path(__file__).resolve().parents[1] / "live" / "servers" / "records_clock.py"


@pytest.fixture
def records_spec(tmp_path: Path) -> Path:
    """The spec of a third-party stdio server whose writes stamp ``updated_at`` in whole seconds."""
    subprocess.run([sys.executable, str(RECORDS_CLOCK), "--seed", str(tmp_path / "r.db")], check=True)
    spec = tmp_path / "records.toml"
    spec.write_text(
        f'name = "records-clock"\ncommand = [{sys.executable!r}, {str(RECORDS_CLOCK)!r}, "{{state}}"]\n'
        '\n[state]\nkind = "sqlite"\npath = "r.db"\n'
    )
    return spec
