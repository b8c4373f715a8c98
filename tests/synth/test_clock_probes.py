"""Deferred clock probes: the tasks probing in place makes, without sleeping to each second boundary.

A probe replays a task twice across a second boundary to find clock stamps. `synthesize` defers
the second replay until the second has passed anyway (`Prover.settle`); a probe that rejects its
task makes the whole run again with probes in place. The deferred run is compared with the
in-place synthesizer itself on a bundled server that stamps dates; the fallback is shown on a
third-party stdio server that stamps whole seconds (whose tasks depend on when its calls ran,
either way; its deferred probes are tests/synth/test_third_party_rules.py's clock test).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gym_mcp.live import bundled_source
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.synth.pipeline import _Synthesizer


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))


def _in_place(name: str, source: object, config: SynthConfig) -> tuple[list[str], int]:
    """The tasks of a run that probes in place (sleeping to each boundary), and how many probes it made."""
    synth = _Synthesizer(name, source, config, None)  # type: ignore[arg-type]
    try:
        tasks = synth.run().tasks
        return [t.model_dump_json() for t in tasks], len(synth.prover.probed)
    finally:
        synth.close()


def test_deferred_probes_make_the_tasks_that_probes_in_place_make() -> None:
    config = SynthConfig(n=30, seed=0)
    result = synthesize("banking", config)
    expected, probed = _in_place("banking", bundled_source("banking"), config)
    assert probed  # banking's writes stamp today's date: the in-place run did probe
    assert result.stats["clock_probes"] == "deferred"
    assert [t.model_dump_json() for t in result.tasks] == expected


def test_a_deferred_probe_that_rejects_its_task_makes_the_run_probe_in_place(records_spec: Path) -> None:
    """``nondeterministic="refuse"``: the stamp a probe finds refuses the task kept ahead of it."""
    result = synthesize(records_spec, SynthConfig(n=12, seed=0, heldout_tools=False, nondeterministic="refuse"))
    assert result.stats["clock_probes"].startswith("in place")
    assert result.stats["nondeterministic"]["tasks_refused"] >= 1
    assert len(result.tasks) == 12 and not any("volatile" in t.metadata for t in result.tasks)
    # (which tasks: a server that stamps seconds makes them depend on when its calls ran, either way)
