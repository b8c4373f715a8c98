"""Every bundled server's tools under extreme numbers and LIKE wildcards: a clear answer, never a crash.

A sweep over all 20 servers: each tool that takes a number is called with 1e26 and 1e300 (the
other arguments drawn from the server's own entities, as synthesis draws them); none may answer
with the bare "Error executing tool X" that an unexpected exception gives (the kit's `to_cents`
quantized 1e26 into `decimal.InvalidOperation`). And a search for "%" or "_" finds only text
holding that character: they are not wildcards (calendar's `find_person` and `search_events`
matched everyone).
"""

from __future__ import annotations

import json
import random

import pytest

from gym_mcp.env import MCPEnv
from gym_mcp.live import bundled_source
from gym_mcp.servers import BUNDLED
from gym_mcp.synth.arguments import ArgumentFiller
from gym_mcp.synth.graph import tool_specs
from gym_mcp.synth.pools import entity_pools


@pytest.mark.parametrize("server", sorted(BUNDLED))
def test_huge_numbers_get_the_limit_message_not_a_crash(server: str) -> None:
    source = bundled_source(server)
    env = MCPEnv(source, max_steps=1_000_000)
    crashed, tried = [], 0
    try:
        env.reset(seed=0)
        filler = ArgumentFiller(entity_pools(source, source.initial_snapshot(0)), [], 0.5)
        rng = random.Random(0)
        for spec in tool_specs(list(env.mcp_tools.values())):
            numbers = [p for p, s in spec.properties.items() if s.get("type") in ("number", "integer")]
            for param in numbers:
                for value in (1e26, 1e300):
                    drawn = filler.fill(spec, rng, [], {})
                    if drawn is None:
                        continue
                    env.reset(seed=0)
                    obs, *_ = env.step({"name": spec.name, "arguments": {**drawn[0], param: value}})
                    tried += 1
                    if obs.strip().rstrip(".") == f"Error executing tool {spec.name}":
                        crashed.append(f"{spec.name}({param}={value:g})")
    finally:
        env.close()
    assert not crashed, crashed
    if server in ("banking", "payments", "trading", "vehicle", "budget", "marketplace"):
        assert tried, "no number parameter was tried"


@pytest.mark.parametrize(
    ("server", "tool", "extra"),
    [
        ("calendar", "find_person", {}),
        ("calendar", "search_events", {}),
        ("food_delivery", "find_customer", {}),
        ("food_delivery", "search_restaurants", {}),
        ("social_media", "find_users", {}),
    ],
)
def test_percent_and_underscore_are_not_wildcards(server: str, tool: str, extra: dict[str, object]) -> None:
    env = MCPEnv(bundled_source(server), max_steps=1_000_000)
    try:
        env.reset(seed=0)
        found = {}
        for query in ("%", "_", "an"):
            obs, *_ = env.step({"name": tool, "arguments": {"query": query, **extra}})
            data = json.loads(obs) if obs.startswith(("[", "{")) else []  # an error (too short): nothing found
            rows = data if isinstance(data, list) else next((v for v in data.values() if isinstance(v, list)), [])
            found[query] = rows
        assert found["an"], f"{tool}('an') found nothing: the check below would prove nothing"
        for query in ("%", "_"):
            assert all(query in json.dumps(row) for row in found[query]), (query, found[query][:2])
            assert len(found[query]) < len(found["an"]) or not found[query], (tool, query)
    finally:
        env.close()
