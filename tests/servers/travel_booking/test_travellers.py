"""The travel booking server through a real MCP client: travellers and passports."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import assert_error, one, scalar
from tests.servers.travel_booking.common import good_traveller


def test_list_travellers(travel: LiveServer) -> None:
    everyone = travel.ok("list_travellers", limit=100)
    assert len(everyone) == 60
    first, last = one(travel, "SELECT first_name, last_name FROM travellers WHERE id = 'TRV-1001'")
    found = travel.ok("list_travellers", query=last.lower())
    assert found and all(last.lower() in (t["name"] + t["email"]).lower() for t in found)
    assert any(t["traveller_id"] == "TRV-1001" for t in found)
    assert travel.ok("list_travellers", query="zzqx") == []
    assert len(travel.ok("list_travellers", limit=3)) == 3
    assert_error(travel, "list_travellers", "at least 2 characters", query="a")
    assert_error(travel, "list_travellers", "between 1 and 100", limit=0)


def test_get_traveller(travel: LiveServer) -> None:
    traveller = good_traveller(travel)
    out = travel.ok("get_traveller", traveller_id=traveller.lower())
    number, expiry = one(travel, "SELECT passport_number, passport_expiry FROM travellers WHERE id = ?", traveller)
    assert out["traveller_id"] == traveller
    assert out["passport"] == {
        "number": number,
        "country": out["passport"]["country"],
        "expiry_date": expiry,
        "expired": False,
    }
    members = travel.query("SELECT id FROM memberships WHERE traveller_id = ? ORDER BY id", traveller)
    assert [m["membership_id"] for m in out["memberships"]] == [m[0] for m in members]
    nobody = scalar(travel, "SELECT id FROM travellers WHERE passport_number IS NULL ORDER BY id")
    assert travel.ok("get_traveller", traveller_id=nobody)["passport"] is None
    assert_error(travel, "get_traveller", "TRV-1001", "list_travellers", traveller_id="TRV-1")


def test_update_passport(travel: LiveServer) -> None:
    nobody = scalar(travel, "SELECT id FROM travellers WHERE passport_number IS NULL ORDER BY id")
    out = travel.ok(
        "update_passport", traveller_id=nobody, passport_number="x4821390", country="gb", expiry_date="2031-03-15"
    )
    assert out["passport"] == {"number": "X4821390", "country": "GB", "expiry_date": "2031-03-15", "expired": False}
    assert out["previous_passport"] is None
    assert travel.query(
        "SELECT passport_number, passport_country, passport_expiry FROM travellers WHERE id = ?", nobody
    ) == [("X4821390", "GB", "2031-03-15")]
    args = {"traveller_id": nobody, "country": "GB"}
    assert_error(
        travel, "update_passport", "nothing changed", passport_number="X4821390", expiry_date="2031-03-15", **args
    )
    assert_error(
        travel, "update_passport", "not after today", passport_number="X4821390", expiry_date="2026-01-15", **args
    )
    assert_error(travel, "update_passport", "6 to 9", passport_number="12-34", expiry_date="2031-03-15", **args)
    assert_error(travel, "update_passport", "ISO 8601", passport_number="X4821391", expiry_date="15/03/2031", **args)
    err = travel.error(
        "update_passport", traveller_id=nobody, passport_number="X4821390", country="Britain", expiry_date="2031-03-15"
    )
    assert "2-letter ISO code" in err
    assert_error(
        travel,
        "update_passport",
        "not one we issue",
        traveller_id=nobody,
        passport_number="X4821390",
        country="ZZ",
        expiry_date="2031-03-15",
    )
    assert travel.query("SELECT passport_number FROM travellers WHERE id = ?", nobody) == [("X4821390",)]
