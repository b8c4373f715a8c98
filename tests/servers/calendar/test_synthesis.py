"""Tests of the bundled calendar server, driven through a real MCP client (no mocks).

Tests that write create their own events in the week of 2026-02-16, after the last seeded
event (2026-02-11), so their scenarios do not depend on the seeded calendars.: synthesis hints."""

from __future__ import annotations

import inspect
from datetime import datetime

from gym_mcp.servers.calendar import kit
from tests.helpers import LiveServer
from tests.servers.helpers import intent_placeholders, tool_params


def test_every_tool_has_a_synthesis_intent() -> None:
    for name, info in kit.tools.items():
        _, inside = intent_placeholders(name, info)
        for p in tool_params(info):
            if p.default is not inspect.Parameter.empty:
                assert p.name in inside or isinstance(p.default, bool), f"{name}: optional {p.name} has no slot"
        for pname, values in info.samples.items():
            assert len(values) >= 3, f"{name}.{pname}"


def test_synthesis_samples_make_valid_calls(s: LiveServer) -> None:
    people = {pid for (pid,) in s.query("select id from people")}
    for info in kit.tools.values():
        for pname, values in info.samples.items():
            if pname.endswith("_ids"):
                assert all(1 <= len(v) <= 3 and set(v) <= people for v in values), f"{info.name}.{pname}"
    for name in ("create_event", "update_event", "list_rooms"):
        samples = kit.tools[name].samples
        for start in samples["start"]:
            assert start >= "2026-01-15", f"{name}: {start} is in the past"
            for end in samples["end"]:
                if start[:10] == end[:10]:  # a same-day pair always makes a 30-180 minute meeting
                    minutes = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).seconds // 60
                    assert 30 <= minutes <= 180, (name, start, end)
    create = kit.tools["create_event"].samples
    for i, group in enumerate(create["attendee_ids"]):
        start, end = create["start"][i % len(create["start"])], create["end"][i % len(create["end"])]
        if start[:10] != end[:10]:
            end = start[:10] + end[10:]
        s.ok(
            "create_event",
            organizer_id=f"PER-{1030 + i}",
            title=create["title"][i % len(create["title"])],
            start=start,
            end=end,
            attendee_ids=group,
            description=create["description"][i % len(create["description"])],
        )


def test_synthesis_samples_find_free_slots(ro: LiveServer) -> None:
    free = kit.tools["find_free_slot"].samples
    for people_ids in free["person_ids"]:
        for day in free["date"]:
            assert ro.ok("find_free_slot", person_ids=people_ids, date=day, duration_minutes=120)["slot"]
