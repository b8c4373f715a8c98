"""The vehicle server through a real MCP client: workshops, bookings and service due dates."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.vehicle.common import row, vehicle

NO_BOOKING = "id NOT IN (SELECT vehicle_id FROM service_records WHERE status = 'booked')"


def test_list_service_centers(veh: LiveServer) -> None:
    everything = veh.ok("list_service_centers")
    assert len(everything) == 10
    ev = veh.ok("list_service_centers", powertrain="ev")
    assert ev
    assert all("ev" in c["services"] for c in ev)
    assert len(ev) < len(everything)
    assert {c["city"] for c in veh.ok("list_service_centers", city="bergen")} == {"Bergen"}
    assert "powertrain must be one of" in veh.error("list_service_centers", powertrain="hybrid")


def test_list_service_records(veh: LiveServer) -> None:
    car = scalar(veh, "SELECT vehicle_id FROM service_records WHERE status = 'booked' ORDER BY vehicle_id")
    out = veh.ok("list_service_records", vehicle_id=car)
    assert len(out["records"]) == veh.query("SELECT count(*) FROM service_records WHERE vehicle_id = ?", car)[0][0]
    assert out["service_due"]["status"] in ("ok", "due_soon", "overdue")
    booked = veh.ok("list_service_records", vehicle_id=car, status="booked")["records"]
    assert [r["status"] for r in booked] == ["booked"]
    assert "status must be one of" in veh.error("list_service_records", vehicle_id=car, status="open")


def test_overdue_service_is_reported(veh: LiveServer) -> None:
    car = vehicle(veh, "odometer_km > last_service_km + service_interval_km")
    service = veh.ok("get_vehicle_status", vehicle_id=car)["service"]
    assert service["status"] == "overdue"
    assert service["km_left"] < 0


def test_book_service(veh: LiveServer) -> None:
    car = vehicle(veh, f"powertrain = 'ev' AND {NO_BOOKING}")
    center = scalar(veh, "SELECT id FROM service_centers WHERE services_ev = 1 ORDER BY id")
    out = veh.ok("book_service", vehicle_id=car, center_id=center, service_type="Battery_Check", date="2026-02-03")
    assert (out["status"], out["service_type"], out["scheduled_on"]) == ("booked", "battery_check", "2026-02-03")
    assert one(
        veh, "SELECT vehicle_id, center_id, status FROM service_records WHERE id = ?", out["service_record_id"]
    ) == (car, center, "booked")
    state = dump(veh)
    err = veh.error("book_service", vehicle_id=car, center_id=center, service_type="inspection", date="2026-02-04")
    assert out["service_record_id"] in err
    assert "cancel_service" in err
    assert dump(veh) == state


def test_book_service_refusals_change_nothing(veh: LiveServer) -> None:
    state = dump(veh)
    ev = vehicle(veh, f"powertrain = 'ev' AND {NO_BOOKING}")
    fuel_only = scalar(veh, "SELECT id FROM service_centers WHERE services_ev = 0 ORDER BY id")
    ev_center = scalar(veh, "SELECT id FROM service_centers WHERE services_ev = 1 ORDER BY id")
    err = veh.error("book_service", vehicle_id=ev, center_id=fuel_only, service_type="inspection", date="2026-02-03")
    assert "does not service ev vehicles" in err
    assert ev_center in err
    assert "battery_check" in veh.error(
        "book_service", vehicle_id=ev, center_id=ev_center, service_type="oil_change", date="2026-02-03"
    )
    assert "Sunday" in veh.error(
        "book_service", vehicle_id=ev, center_id=ev_center, service_type="inspection", date="2026-01-18"
    )
    for day in ("2026-01-15", "2026-04-16"):
        assert "out of range" in veh.error(
            "book_service", vehicle_id=ev, center_id=ev_center, service_type="inspection", date=day
        )
    assert "ISO 8601" in veh.error(
        "book_service", vehicle_id=ev, center_id=ev_center, service_type="inspection", date="next week"
    )
    assert "service_type must be one of" in veh.error(
        "book_service", vehicle_id=ev, center_id=ev_center, service_type="wash", date="2026-02-03"
    )
    assert "list_service_centers" in veh.error(
        "book_service", vehicle_id=ev, center_id="CTR-9", service_type="inspection", date="2026-02-03"
    )
    assert dump(veh) == state


def test_cancel_service(veh: LiveServer) -> None:
    booked = scalar(veh, "SELECT id FROM service_records WHERE status = 'booked' ORDER BY id")
    assert veh.ok("cancel_service", service_record_id=booked)["status"] == "cancelled"
    assert one(veh, "SELECT status FROM service_records WHERE id = ?", booked) == ("cancelled",)
    state = dump(veh)
    assert "already cancelled" in veh.error("cancel_service", service_record_id=booked)
    done = scalar(veh, "SELECT id FROM service_records WHERE status = 'completed' ORDER BY id")
    assert "only a booked visit" in veh.error("cancel_service", service_record_id=done)
    assert dump(veh) == state


def test_complete_service(veh: LiveServer) -> None:
    record, car = one(
        veh,
        "SELECT id, vehicle_id FROM service_records WHERE status = 'booked' AND scheduled_on <= '2026-01-15' AND service_type = 'inspection' ORDER BY id",
    )
    odometer, interval = row(veh, car, "odometer_km", "service_interval_km")
    out = veh.ok("complete_service", service_record_id=record, cost=149.5)
    assert (out["status"], out["odometer_km"], out["cost"]) == ("completed", odometer, 149.5)
    assert row(veh, car, "last_service_km", "last_service_on") == (odometer, "2026-01-15")
    assert out["service_due"]["due_at_km"] == odometer + interval
    assert out["service_due"]["status"] == "ok"
    state = dump(veh)
    assert "already completed" in veh.error("complete_service", service_record_id=record)
    future = scalar(
        veh, "SELECT id FROM service_records WHERE status = 'booked' AND scheduled_on > '2026-01-15' ORDER BY id"
    )
    assert "after today" in veh.error("complete_service", service_record_id=future)
    cancelled = scalar(veh, "SELECT id FROM service_records WHERE status = 'cancelled' ORDER BY id")
    assert "book_service" in veh.error("complete_service", service_record_id=cancelled)
    assert dump(veh) == state
