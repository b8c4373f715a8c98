"""Does a reset really reset? `check_reset` finds a server that keeps state in its memory.

A reset restores the state a spec declares (an SQLite file, a JSON file, a folder) into a warm
server: the process stays up. A server that also keeps state in its own memory (it read its
file once at start, or never had one) remembers, after the reset, what the episode before did.
The check shows it as a user would meet it:

1. a fresh start: a new server on the initial state; its read tools are called (each twice: one
   that answers differently the second time, say with the time, is left out) and their answers
   kept. A read is a tool the synthesizer classifies as one (``gym_mcp/kind`` metadata, else
   `gym_mcp.synth.infer.tool_kind`: ``readOnlyHint``, then the verb of its name), called with no
   arguments when it requires none, else with arguments drawn from the state's own entities;
2. one write: the first write tool whose call (arguments drawn the same way) succeeds and
   changes the declared state's fingerprint or a read's answer;
3. a reset, as an environment does it (``restart_on_reset`` included), and the reads again.

The reads that now answer differently than on the fresh start are named in one
`InMemoryStateWarning`, which says to set ``restart_on_reset = true`` in the spec (a new process
at every reset). The check runs on a private copy of the state, in a server of its own; it runs
in ``gym-mcp synth`` on a spec, in ``gym-mcp envs add`` and as ``gym-mcp envs check SPEC``.
"""

from __future__ import annotations

import os
import random
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gym_mcp.env import AsyncMCPEnv, EnvConfig
from gym_mcp.errors import ConfigError, InMemoryStateWarning
from gym_mcp.live import ExternalSource, ServerPool, ServerSource, bundled_source, spec_source
from gym_mcp.specs import ServerSpec, is_spec_file, load_spec
from gym_mcp.synth.arguments import ArgumentFiller
from gym_mcp.synth.graph import ToolSpec, tool_specs
from gym_mcp.synth.infer import infer_specs
from gym_mcp.synth.pools import entity_pools
from gym_mcp.tasks import Task
from gym_mcp.transport.runner import run_sync

__all__ = ["ResetCheck", "check_reset"]

MAX_READS = 12
"""Read tools compared at most (the first ones listed)."""
MAX_WRITE_TRIES = 12
"""Write calls tried at most before the check gives up finding one that changes something."""


@dataclass(frozen=True)
class ResetCheck:
    """What `check_reset` found.

    Attributes:
        server: The server's name.
        reads: The read tools compared (agent names), with the arguments they were called with.
        write: The write that was made (``{"name", "arguments"}``), or None when no write tool
            changed anything (nothing could be compared).
        differing: The reads that answered differently after the write and a reset than on the
            fresh start: the server keeps state in its memory.
        skipped: ``{read tool: why it was not compared}``.
        restart_on_reset: Whether the server was started anew at the reset.
    """

    server: str
    reads: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    write: Mapping[str, Any] | None = None
    differing: tuple[str, ...] = ()
    skipped: Mapping[str, str] = field(default_factory=dict)
    restart_on_reset: bool = False

    @property
    def passed(self) -> bool:
        """True when a write was made and every read answered after the reset as on a fresh start."""
        return self.write is not None and bool(self.reads) and not self.differing

    def message(self) -> str:
        """One line saying what the check found and what to do about it."""
        if self.differing:
            names = ", ".join(self.differing)
            seen = (
                f"{self.server}: after a write ({self.write['name'] if self.write else '?'}) and a reset, "
                f"read tool(s) {names} answer differently than on a fresh start"
            )
            if self.restart_on_reset:
                return (
                    f"{seen}, even with restart_on_reset: the server keeps state outside the state its spec "
                    "declares (a file elsewhere?); declare that state in the spec's [state] table"
                )
            return (
                f"{seen}: the server keeps state in its memory that restoring its declared state does not "
                "undo; set restart_on_reset = true in its spec (a new server process at every reset)"
            )
        if self.write is None:
            return f"{self.server}: reset not checked: no write tool call changed the state or a read's answer"
        if not self.reads:
            return f"{self.server}: reset not checked: no read tool could be called on a fresh start"
        how = "a restart on reset" if self.restart_on_reset else "a reset"
        return (
            f"{self.server}: reset checked: after a write ({self.write['name']}) and {how}, "
            f"{len(self.reads)} read tool(s) answer as on a fresh start"
        )

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (what a synthesis report keeps)."""
        return {
            "server": self.server,
            "passed": self.passed,
            "reads": sorted(self.reads),
            "write": dict(self.write) if self.write is not None else None,
            "differing": list(self.differing),
            "skipped": dict(sorted(self.skipped.items())),
            "restart_on_reset": self.restart_on_reset,
            "message": self.message(),
        }


def check_reset(
    server: str | os.PathLike[str] | ServerSpec | ServerSource,
    *,
    hide_tools: Iterable[str] = (),
    rename_tools: Mapping[str, str] | None = None,
    call_timeout: float = 30.0,
    seed: int = 0,
    warn: bool = True,
) -> ResetCheck:
    """Check that a reset makes the server answer as a fresh start does (see the module's doc).

    The check makes one write on a private copy of the state, in a server started for it (never
    a warm one from the pool). A server someone else runs (a url and no command) is not checked:
    its state is not a copy.

    Args:
        server: A spec file path, a parsed `ServerSpec`, a `ServerSource` or a bundled server name.
        hide_tools: Tools never called (server names; added to a spec's ``[tools] hide``).
        rename_tools: ``{server name: agent name}`` (over a spec's).
        call_timeout: Seconds each call may take.
        seed: Seed of the arguments drawn for calls that require some.
        warn: Emit an `InMemoryStateWarning` when reads differ.

    Returns:
        What was compared and what differed.

    Raises:
        ConfigError: A bad spec, or a server someone else runs.
        ServerStartError: The server does not start.
    """
    spec = load_spec(server) if not isinstance(server, ServerSpec | ServerSource) and is_spec_file(server) else server
    hide = list(hide_tools)
    rename = dict(rename_tools or {})
    source: ServerSource
    if isinstance(spec, ServerSpec):
        source = spec_source(spec)
        hide = [*spec.hide_tools, *hide]
        rename = {**spec.rename_tools, **rename}
    elif isinstance(spec, ServerSource):
        source = spec
    else:
        source = bundled_source(os.fspath(spec))
    if isinstance(source, ExternalSource) and source.shared:
        raise ConfigError(
            f"{source.name}: a server someone else runs (a url, no command) is not checked: its state is no copy"
        )
    result = run_sync(_check(source, hide, rename, call_timeout, seed))
    if warn and result.differing:
        warnings.warn(InMemoryStateWarning(result.message()), stacklevel=2)
    return result


async def _check(
    source: ServerSource, hide: list[str], rename: dict[str, str], call_timeout: float, seed: int
) -> ResetCheck:
    pool = ServerPool(max_idle=0)  # its own: a warm server from the shared pool may remember anything
    env = AsyncMCPEnv(
        source,
        pool=pool,
        hide_tools=hide,
        rename_tools=rename,
        config=EnvConfig(max_steps=1_000_000, call_timeout=call_timeout),
    )
    task = Task(id="reset-check", server=source.name, instruction="reset check", initial_state={"seed": 0})
    try:
        await env.reset(options={"task": task})
        live = env.live
        assert live is not None
        restart = live.restart_on_reset
        tools = list(env.view.tools.values())
        pools = entity_pools(source, source.initial_snapshot(0))
        specs, _ = infer_specs(tools, tool_specs(tools), pools)
        filler = ArgumentFiller(pools, (), 0.0)
        rng = random.Random(seed)

        async def call(name: str, arguments: Mapping[str, Any]) -> tuple[bool, str]:
            obs, *_, info = await env.step({"name": name, "arguments": dict(arguments)})
            return bool(info["calls"][-1].ok), obs

        reads: dict[str, dict[str, Any]] = {}
        fresh: dict[str, str] = {}
        skipped: dict[str, str] = {}
        for spec in [s for s in specs if not s.write][:MAX_READS]:
            arguments = _arguments(spec, filler, rng)
            if arguments is None:
                skipped[spec.name] = "its required arguments cannot be drawn from the state"
                continue
            ok, first = await call(spec.name, arguments)
            if not ok:
                skipped[spec.name] = f"fails on a fresh start: {first[:120]}"
                continue
            _, second = await call(spec.name, arguments)
            if second != first:
                skipped[spec.name] = "answers differently twice in a row (a time, a random value)"
                continue
            reads[spec.name] = arguments
            fresh[spec.name] = first
        if not reads:
            return ResetCheck(source.name, skipped=skipped, restart_on_reset=restart)
        write = await _write([s for s in specs if s.write], filler, rng, env, call, reads, fresh)
        if write is None:
            return ResetCheck(source.name, reads=reads, skipped=skipped, restart_on_reset=restart)
        await env.reset(options={"task": task})
        differing = []
        for name, arguments in reads.items():
            _, answer = await call(name, arguments)
            if answer != fresh[name]:
                differing.append(name)
        return ResetCheck(source.name, reads, write, tuple(differing), skipped, restart)
    finally:
        await env.close()
        await pool.close()


def _arguments(spec: ToolSpec, filler: ArgumentFiller, rng: random.Random) -> dict[str, Any] | None:
    """No arguments for a tool that requires none; else arguments drawn from the state's entities."""
    if not spec.required:
        return {}
    filled = filler.fill(spec, rng, [], {})
    if filled is None or any(p not in filled[0] for p in spec.required):
        return None
    return filled[0]


async def _write(
    writes: list[ToolSpec],
    filler: ArgumentFiller,
    rng: random.Random,
    env: AsyncMCPEnv,
    call: Any,
    reads: Mapping[str, Mapping[str, Any]],
    fresh: Mapping[str, str],
) -> dict[str, Any] | None:
    """The first write that succeeds and changes the state's fingerprint or a read's answer (None: none did)."""
    tries = 0
    for spec in writes * 3:  # each write tool a few times (other arguments each time)
        if tries >= MAX_WRITE_TRIES:
            break
        arguments = filler.fill(spec, rng, [], {})
        if arguments is None:
            continue
        tries += 1
        before = env.state.fingerprint()
        ok, _ = await call(spec.name, arguments[0])
        if not ok:
            continue
        if env.state.fingerprint() != before:
            return {"name": spec.name, "arguments": arguments[0]}
        for name, args in reads.items():
            _, answer = await call(name, args)
            if answer != fresh[name]:
                return {"name": spec.name, "arguments": arguments[0]}
    return None
