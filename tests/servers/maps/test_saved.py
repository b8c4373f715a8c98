"""The maps server, driven through a real MCP client on an in-memory database: users and saved lists."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar


def test_find_user(maps: LiveServer) -> None:
    user, name, email = one(maps, "SELECT id, name, email FROM users ORDER BY id")
    found = maps.ok("find_user", query=name.upper())
    assert user in [u["user_id"] for u in found]
    by_email = maps.ok("find_user", query=email)
    assert [u["user_id"] for u in by_email] == [user]
    assert by_email[0]["list_count"] == scalar(maps, "SELECT count(*) FROM saved_lists WHERE user_id = ?", user)
    assert len(maps.ok("find_user", query="mail.example", limit=3)) == 3
    assert maps.ok("find_user", query="nobody-here") == []
    assert "at least 2 characters" in maps.error("find_user", query="a")
    assert "limit must be between 1 and 100" in maps.error("find_user", query="an", limit=101)


def test_list_saved_lists(maps: LiveServer) -> None:
    user = scalar(maps, "SELECT user_id FROM saved_lists GROUP BY user_id HAVING count(*) >= 2 ORDER BY 1")
    lists = maps.ok("list_saved_lists", user_id=user)
    expected = maps.query("SELECT id FROM saved_lists WHERE user_id = ? ORDER BY id", user)
    assert [x["list_id"] for x in lists] == [r[0] for r in expected]
    first = lists[0]
    places = maps.query("SELECT place_id FROM saved_places WHERE list_id = ? ORDER BY id", first["list_id"])
    assert [p["place_id"] for p in first["places"]] == [r[0] for r in places]
    assert first["place_count"] == len(places)
    assert "find_user" in maps.error("list_saved_lists", user_id="USR-0000")


def test_create_saved_list(maps: LiveServer) -> None:
    user, name = one(maps, "SELECT user_id, min(name) FROM saved_lists GROUP BY user_id HAVING count(*) < 5 ORDER BY 1")
    out = maps.ok("create_saved_list", user_id=user, name=" Brunch spots ")
    assert (out["name"], out["place_count"], out["created_on"]) == ("Brunch spots", 0, "2026-01-15")
    assert one(maps, "SELECT user_id, name FROM saved_lists WHERE id = ?", out["list_id"]) == (user, "Brunch spots")
    state = dump(maps)
    assert "already has a list named" in maps.error("create_saved_list", user_id=user, name=name.upper())
    full = scalar(maps, "SELECT user_id FROM saved_lists GROUP BY user_id HAVING count(*) = 5 ORDER BY 1")
    err = maps.error("create_saved_list", user_id=full, name="Yet another list")
    assert "5 saved lists" in err
    assert "delete_saved_list" in err
    assert "name must be 2 to 40" in maps.error("create_saved_list", user_id=user, name="x" * 41)
    assert dump(maps) == state


def test_save_place(maps: LiveServer) -> None:
    lst = scalar(maps, "SELECT list_id FROM saved_places GROUP BY list_id HAVING count(*) < 15 ORDER BY 1")
    place = scalar(
        maps,
        "SELECT id FROM places WHERE id NOT IN (SELECT place_id FROM saved_places WHERE list_id = ?) ORDER BY id",
        lst,
    )
    count = scalar(maps, "SELECT count(*) FROM saved_places WHERE list_id = ?", lst)
    out = maps.ok("save_place", list_id=lst, place_id=place, note="Open late")
    assert out["place_count"] == count + 1
    assert out["places"][-1] == {**out["places"][-1], "place_id": place, "note": "Open late", "saved_on": "2026-01-15"}
    state = dump(maps)
    assert "already on list" in maps.error("save_place", list_id=lst, place_id=place)
    full = scalar(maps, "SELECT list_id FROM saved_places GROUP BY list_id HAVING count(*) = 15 ORDER BY 1")
    other = scalar(
        maps,
        "SELECT id FROM places WHERE id NOT IN (SELECT place_id FROM saved_places WHERE list_id = ?) ORDER BY id",
        full,
    )
    err = maps.error("save_place", list_id=full, place_id=other)
    assert "is full" in err
    assert "remove_saved_place" in err
    assert "at most 120" in maps.error("save_place", list_id=lst, place_id=other, note="n" * 121)
    assert "list_saved_lists" in maps.error("save_place", list_id="LST-0000", place_id=other)
    assert dump(maps) == state


def test_remove_saved_place(maps: LiveServer) -> None:
    lst, place = one(maps, "SELECT list_id, place_id FROM saved_places ORDER BY id")
    out = maps.ok("remove_saved_place", list_id=lst, place_id=place)
    assert place not in [p["place_id"] for p in out["places"]]
    assert maps.query("SELECT id FROM saved_places WHERE list_id = ? AND place_id = ?", lst, place) == []
    state = dump(maps)
    err = maps.error("remove_saved_place", list_id=lst, place_id=place)
    assert "is not on list" in err
    assert out["places"][0]["place_id"] in err  # names what the list holds
    assert dump(maps) == state


def test_delete_saved_list(maps: LiveServer) -> None:
    lst, user = one(
        maps, "SELECT id, user_id FROM saved_lists WHERE id IN (SELECT list_id FROM saved_places) ORDER BY id"
    )
    count = scalar(maps, "SELECT count(*) FROM saved_places WHERE list_id = ?", lst)
    out = maps.ok("delete_saved_list", list_id=lst)
    assert out == {**out, "deleted_list_id": lst, "user_id": user, "places_removed": count}
    assert maps.query("SELECT id FROM saved_lists WHERE id = ?", lst) == []
    assert maps.query("SELECT id FROM saved_places WHERE list_id = ?", lst) == []
    state = dump(maps)
    assert "list_saved_lists" in maps.error("delete_saved_list", list_id=lst)
    assert dump(maps) == state
