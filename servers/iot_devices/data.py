"""Deterministic seed data of the IoT devices server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the same
homes, rooms, devices with their states, schedules, scenes, automations, energy readings and
change log, and a different seed gives different ones. Every seed has offline devices, unlocked
doors, homes in each mode, paused schedules that clash with active ones, scenes that hold an
offline device and disabled automations that clash with enabled ones, so the error paths of the
tools are reachable.
"""

from __future__ import annotations

import random
from datetime import timedelta

from sqlalchemy import insert
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import (
    DAY_NAMES,
    KINDS,
    TODAY,
    Automation,
    Capability,
    Device,
    DeviceEvent,
    DeviceState,
    EnergyReading,
    Home,
    Room,
    Scene,
    SceneAction,
    Schedule,
)

__all__ = ["ENERGY_DAYS", "seed"]

ENERGY_DAYS = 14
"""Days of energy readings per device, up to the day before today."""

OWNERS = (
    "Maya Thompson", "Daniel Okafor", "Sofia Rossi", "Kenji Tanaka", "Amara Mensah", "Lucas Schmidt",
    "Priya Patel", "Elena Novak", "Omar Haddad", "Grace Kim", "Jonas Larsen", "Camila Diaz",
)  # fmt: skip
CITIES = ("Portland", "Austin", "Denver", "Chicago", "Boston", "Seattle", "Atlanta", "Madison", "Tucson", "Raleigh")
ROOMS = (
    ("Living Room", 0), ("Kitchen", 0), ("Hallway", 0), ("Master Bedroom", 1), ("Office", 1),
    ("Guest Bedroom", 1), ("Garage", 0), ("Porch", 0), ("Basement", -1), ("Kids Room", 1),
)  # fmt: skip
BRANDS = {
    "light": ("Philips Hue", "LIFX", "Nanoleaf"),
    "thermostat": ("Nest", "Ecobee", "Honeywell"),
    "lock": ("August", "Yale", "Schlage"),
    "camera": ("Arlo", "Ring", "Wyze"),
    "plug": ("TP-Link Kasa", "Eve", "Meross"),
    "speaker": ("Sonos", "Echo", "Nest Audio"),
    "blind": ("Lutron", "IKEA Fyrtur", "SmartWings"),
    "sensor": ("Aqara", "Eve", "Ecolink"),
}
PLUGS = ("Coffee Maker", "Space Heater", "TV", "Fan", "Aquarium", "Desk Lamp")
LOCKS = (("Front Door Lock", "Hallway"), ("Back Door Lock", "Kitchen"), ("Garage Door Lock", "Garage"))
DAILY_WH = {
    "light": (40, 400),
    "thermostat": (1500, 6000),
    "lock": (5, 15),
    "camera": (100, 300),
    "plug": (150, 2500),
    "speaker": (30, 200),
    "blind": (10, 40),
}
TIMES = ("06:30", "07:00", "07:30", "08:00", "12:00", "18:00", "19:30", "21:00", "22:00", "23:00")
DAY_SETS = ("daily", "weekdays", "weekends", "mon,wed,fri", "tue,thu", "sat")
SCENES = ("Good morning", "Movie night", "Good night", "Dinner time", "Leaving home", "Reading")


def day_set(days: str) -> set[str]:
    """The days of the week a canonical days string covers (``"weekdays"`` -> mon..fri)."""
    if days == "daily":
        return set(DAY_NAMES)
    if days == "weekdays":
        return set(DAY_NAMES[:5])
    if days == "weekends":
        return {"sat", "sun"}
    return set(days.split(","))


def value_for(cap: Capability, rng: random.Random) -> str:
    """A valid value of a capability, as stored."""
    if cap.words:
        return rng.choice(cap.words)
    steps = int((cap.high - cap.low) / cap.step)
    if cap.name == "target_temp":
        return f"{rng.choice((18, 19, 19.5, 20, 20.5, 21, 21.5, 22, 23)):g}"
    if cap.name in ("brightness", "volume", "position"):
        return str(rng.choice((0, 10, 20, 25, 30, 40, 50, 60, 70, 75, 80, 100)))
    return f"{cap.low + cap.step * rng.randint(0, steps):g}"


def _devices_for(rng: random.Random, home: Home, rooms: list[Room], first: int) -> list[Device]:
    """Eleven to sixteen devices of every kind, spread over the home's rooms."""
    by_name = {r.name: r for r in rooms}
    plan: list[tuple[str, str, Room]] = []
    for room in rooms:
        if room.name not in ("Garage", "Porch", "Basement") or rng.random() < 0.5:
            plan.append(("light", f"{room.name} Light", room))
    for name, where in LOCKS[: rng.randint(1, 3)]:
        plan.append(("lock", name, by_name.get(where, rooms[0])))
    plan.append(("thermostat", f"{rooms[0].name} Thermostat", rooms[0]))
    if len(rooms) > 4 and rng.random() < 0.5:
        plan.append(("thermostat", f"{rooms[3].name} Thermostat", rooms[3]))
    plan.append(("camera", "Porch Camera" if "Porch" in by_name else "Front Camera", by_name.get("Porch", rooms[0])))
    if rng.random() < 0.5:
        plan.append(("camera", "Backyard Camera", by_name.get("Kitchen", rooms[0])))
    for label in rng.sample(PLUGS, rng.randint(1, 2)):
        plan.append(("plug", f"{label} Plug", rng.choice(rooms)))
    plan.append(("speaker", f"{rooms[0].name} Speaker", rooms[0]))
    for room in rng.sample(rooms, rng.randint(0, 2)):
        plan.append(("blind", f"{room.name} Blinds", room))
    plan.append(("sensor", "Hallway Motion Sensor", by_name["Hallway"]))
    climate = rng.choice(rooms)
    plan.append(("sensor", f"{climate.name} Climate Sensor", climate))
    devices: list[Device] = []
    for kind, name, room in plan:
        offline = rng.random() < 0.12
        devices.append(
            Device(
                id=f"DEV-{first + len(devices)}",
                home_id=home.id,
                room_id=room.id,
                name=name,
                kind=kind,
                brand=rng.choice(BRANDS[kind]),
                status="offline" if offline else "online",
                last_seen_on=TODAY - timedelta(days=rng.randint(1, 9)) if offline else TODAY,
            )
        )
    return devices


def _states(rng: random.Random, device: Device, home: Home) -> list[DeviceState]:
    """The current settings and readings of a device (doors locked in an empty home)."""
    kind = KINDS[device.kind]
    out = []
    for cap in kind.capabilities:
        value = value_for(cap, rng)
        if cap.name == "lock":
            away = home.mode in ("away", "vacation") and device.status == "online"
            value = "locked" if away or rng.random() < 0.55 else "unlocked"
        if cap.name == "power" and device.kind in ("thermostat", "camera"):
            value = "on" if rng.random() < 0.85 else "off"
        out.append(DeviceState(device_id=device.id, attribute=cap.name, value=value))
    readings = {
        "current_temp": f"{rng.choice(range(36, 48)) / 2:g}",
        "temperature": f"{rng.choice(range(34, 50)) / 2:g}",
        "humidity": str(rng.randint(30, 65)),
        "motion": rng.choice(("clear", "clear", "detected")),
        "battery": str(rng.randint(8, 100)),
    }
    out.extend(DeviceState(device_id=device.id, attribute=r, value=readings[r]) for r in kind.readings)
    return out


def _schedules(rng: random.Random, devices: list[Device], first: int) -> list[Schedule]:
    """Recurring commands; active ones never clash, some paused ones clash with an active one."""
    out: list[Schedule] = []
    taken: dict[tuple[str, str], set[str]] = {}
    settable = [d for d in devices if KINDS[d.kind].capabilities]
    for device in rng.sample(settable, min(len(settable), rng.randint(5, 8))):
        cap = rng.choice(KINDS[device.kind].capabilities)
        when, days = rng.choice(TIMES), rng.choice(DAY_SETS)
        clash = bool(taken.get((device.id, when), set()) & day_set(days))
        status = "paused" if clash or rng.random() < 0.15 else "active"
        if status == "active":
            taken.setdefault((device.id, when), set()).update(day_set(days))
        out.append(
            Schedule(
                id=f"SCH-{first + len(out)}",
                device_id=device.id,
                name=f"{device.name} {cap.name.replace('_', ' ')} at {when}",
                time=when,
                days=days,
                attribute=cap.name,
                value=value_for(cap, rng),
                status=status,
                created_on=TODAY - timedelta(days=rng.randint(5, 300)),
            )
        )
    active = [s for s in out if s.status == "active"]
    if active:  # a paused twin of an active schedule: resuming it must be refused
        twin = rng.choice(active)
        out.append(
            Schedule(
                id=f"SCH-{first + len(out)}",
                device_id=twin.device_id,
                name=f"{twin.name} (old)",
                time=twin.time,
                days=twin.days,
                attribute=twin.attribute,
                value=twin.value,
                status="paused",
                created_on=twin.created_on - timedelta(days=rng.randint(10, 90)),
            )
        )
    return out


def _scenes(rng: random.Random, home: Home, devices: list[Device], first: int) -> tuple[list[Scene], list[SceneAction]]:
    """Two to four scenes of three to five settings; some hold a device that is offline now."""
    scenes: list[Scene] = []
    actions: list[SceneAction] = []
    # mostly online devices: about one scene in three holds a device that is offline now
    settable = [d for d in devices if KINDS[d.kind].capabilities and (d.status == "online" or rng.random() < 0.6)]
    for name in rng.sample(SCENES, rng.randint(2, 4)):
        scene = Scene(
            id=f"SCN-{first + len(scenes)}",
            home_id=home.id,
            name=name,
            last_applied_on=TODAY - timedelta(days=rng.randint(1, 40)) if rng.random() < 0.7 else None,
        )
        scenes.append(scene)
        for device in rng.sample(settable, min(len(settable), rng.randint(3, 5))):
            cap = rng.choice(KINDS[device.kind].capabilities)
            actions.append(
                SceneAction(scene_id=scene.id, device_id=device.id, attribute=cap.name, value=value_for(cap, rng))
            )
    offline = [d for d in devices if d.status != "online" and KINDS[d.kind].capabilities]
    held = {a.device_id for a in actions if a.scene_id == scenes[0].id}
    if offline and rng.random() < 0.5 and offline[0].id not in held:
        cap = rng.choice(KINDS[offline[0].kind].capabilities)
        actions.append(
            SceneAction(scene_id=scenes[0].id, device_id=offline[0].id, attribute=cap.name, value=value_for(cap, rng))
        )
    return scenes, actions


def _automations(rng: random.Random, home: Home, devices: list[Device], first: int) -> list[Automation]:
    """Two to four trigger-action rules; a disabled one may clash with an enabled one."""
    out: list[Automation] = []
    triggers = [d for d in devices if d.kind in ("sensor", "lock", "camera", "blind")]
    actors = [d for d in devices if d.kind in ("light", "plug", "speaker", "thermostat", "camera")]
    for _ in range(rng.randint(2, 4)):
        trigger = rng.choice(triggers)
        actor = rng.choice([d for d in actors if d.id != trigger.id])
        cap = rng.choice(KINDS[actor.kind].capabilities)
        event = rng.choice(KINDS[trigger.kind].events)
        key = (trigger.id, event, actor.id, cap.name)
        clash = any((a.trigger_device_id, a.trigger_event, a.action_device_id, a.action_attribute) == key for a in out)
        out.append(
            Automation(
                id=f"AUT-{first + len(out)}",
                home_id=home.id,
                name=f"{actor.name} on {event.replace('_', ' ')}",
                trigger_device_id=trigger.id,
                trigger_event=event,
                action_device_id=actor.id,
                action_attribute=cap.name,
                action_value=value_for(cap, rng),
                enabled=not clash and rng.random() < 0.75,
                created_on=TODAY - timedelta(days=rng.randint(5, 200)),
            )
        )
    enabled = [a for a in out if a.enabled]
    if enabled and rng.random() < 0.6:  # a disabled variant of an enabled rule: enabling it must be refused
        base = rng.choice(enabled)
        kind = KINDS[next(d.kind for d in devices if d.id == base.action_device_id)]
        found = kind.capability(base.action_attribute)
        words = found.words if found is not None and found.words else ("0", "50", "100")
        other = [v for v in words if v != base.action_value] or [base.action_value]
        out.append(
            Automation(
                id=f"AUT-{first + len(out)}",
                home_id=home.id,
                name=f"{base.name} (old)",
                trigger_device_id=base.trigger_device_id,
                trigger_event=base.trigger_event,
                action_device_id=base.action_device_id,
                action_attribute=base.action_attribute,
                action_value=rng.choice(other),
                enabled=False,
                created_on=base.created_on + timedelta(days=rng.randint(1, 5)),
            )
        )
    return out


def _history(rng: random.Random, devices: list[Device], states: dict[tuple[str, str], str]) -> list[DeviceEvent]:
    """Past changes of settings that end in each device's current value."""
    out: list[DeviceEvent] = []
    sources = ("manual", "manual", "app", "voice assistant")
    for device in devices:
        for cap in KINDS[device.kind].capabilities:
            if rng.random() < 0.35:
                current = states[(device.id, cap.name)]
                old = value_for(cap, rng)
                if old == current:
                    continue
                out.append(
                    DeviceEvent(
                        device_id=device.id,
                        attribute=cap.name,
                        old_value=old,
                        new_value=current,
                        source=rng.choice(sources),
                        logged_on=min(device.last_seen_on, TODAY - timedelta(days=rng.randint(1, 20))),
                    )
                )
    out.sort(key=lambda e: (e.logged_on, e.device_id, e.attribute))
    for i, event in enumerate(out):
        event.id = f"LOG-{1001 + i}"
    return out


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty IoT database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    owners = rng.sample(OWNERS, 10)
    homes: list[Home] = []
    rooms: list[Room] = []
    devices: list[Device] = []
    states: list[DeviceState] = []
    schedules: list[Schedule] = []
    scenes: list[Scene] = []
    actions: list[SceneAction] = []
    automations: list[Automation] = []
    readings: list[dict[str, object]] = []
    modes = ["home"] * 4 + ["away", "night", "vacation"] * 2
    rng.shuffle(modes)
    per_home: list[tuple[Home, list[Device]]] = []
    for i, (owner, mode) in enumerate(zip(owners, modes, strict=True)):
        kind = rng.choice(("House", "Residence", "Apartment", "Cabin"))
        home = Home(
            id=f"HOME-{1001 + i}", name=f"{owner.split()[1]} {kind}", owner=owner, city=rng.choice(CITIES), mode=mode
        )
        homes.append(home)
        picked = [ROOMS[0], ROOMS[1], ROOMS[2], ROOMS[3], *rng.sample(ROOMS[4:], rng.randint(1, 4))]
        home_rooms = [
            Room(id=f"ROOM-{1001 + len(rooms) + k}", home_id=home.id, name=name, floor=floor)
            for k, (name, floor) in enumerate(picked)
        ]
        rooms.extend(home_rooms)
        home_devices = _devices_for(rng, home, home_rooms, 1001 + len(devices))
        devices.extend(home_devices)
        per_home.append((home, home_devices))
    for kind in KINDS:  # at least two offline devices of every kind
        of_kind = [d for d in devices if d.kind == kind]
        for device in rng.sample(of_kind, max(0, 2 - sum(d.status == "offline" for d in of_kind))):
            device.status, device.last_seen_on = "offline", TODAY - timedelta(days=rng.randint(1, 9))
    for home, home_devices in per_home:
        for device in home_devices:
            states.extend(_states(rng, device, home))
        schedules.extend(_schedules(rng, home_devices, 1001 + len(schedules)))
        home_scenes, home_actions = _scenes(rng, home, home_devices, 1001 + len(scenes))
        scenes.extend(home_scenes)
        actions.extend(home_actions)
        automations.extend(_automations(rng, home, home_devices, 1001 + len(automations)))
    for device in devices:
        if device.kind == "sensor":
            continue
        low, high = DAILY_WH[device.kind]
        for back in range(ENERGY_DAYS, 0, -1):
            day = TODAY - timedelta(days=back)
            if day <= device.last_seen_on:
                readings.append({"device_id": device.id, "day": day, "wh": rng.randint(low, high)})
    values = {(s.device_id, s.attribute): s.value for s in states}
    history = _history(rng, devices, values)
    for batch in (homes, rooms, devices, states, schedules, scenes, actions, automations, history):
        db.add_all(batch)
        db.flush()
    db.execute(insert(EnergyReading), readings)  # many rows: a bulk insert
