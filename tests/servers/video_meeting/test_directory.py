"""The video meeting server, driven through a real MCP client on an in-memory database: users and rooms."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one


def test_find_users(vm: LiveServer) -> None:
    user_id, name, email = one(vm, "SELECT id, name, email FROM users ORDER BY id")
    assert user_id in [u["user_id"] for u in vm.ok("find_users", query=name.upper())]
    assert [u["user_id"] for u in vm.ok("find_users", query=email)] == [user_id]
    assert len(vm.ok("find_users", query="an", limit=3)) == 3
    engineers = vm.ok("find_users", query="engineering", limit=100)
    assert engineers
    assert {u["department"] for u in engineers} == {"Engineering"}
    assert vm.ok("find_users", query="zz-nobody") == []
    assert "at least 2 characters" in vm.error("find_users", query="a")
    assert "limit must be between 1 and 100" in vm.error("find_users", query="kim", limit=500)


def test_list_rooms(vm: LiveServer) -> None:
    rooms = vm.ok("list_rooms")
    assert len(rooms) == 12
    assert [r["capacity"] for r in rooms] == sorted(r["capacity"] for r in rooms)
    assert all(r["capacity"] >= 10 for r in vm.ok("list_rooms", min_capacity=10))
    busy, start, end = one(vm, "SELECT room_id, start, end FROM meetings WHERE status = 'scheduled' ORDER BY id")
    window = {"start": start[:16].replace(" ", "T"), "end": end[:16].replace(" ", "T")}
    free = vm.ok("list_rooms", **window)
    assert busy not in [r["room_id"] for r in free]
    assert 0 < len(free) < 12
    assert "both start and end" in vm.error("list_rooms", start=window["start"])
    assert "must be after start" in vm.error("list_rooms", start=window["end"], end=window["start"])
    assert "at least 1" in vm.error("list_rooms", min_capacity=0)
