"""IoT tools for scenes: named sets of device settings of one home, applied all at once or not at all."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.iot_devices.models import Scene, SceneAction
from gym_mcp.servers.iot_devices.tools.common import (
    apply_setting,
    check_setting,
    kit,
    load_device,
    load_home,
    load_scene,
    scene_view,
)
from gym_mcp.servers.kit import ToolError, check_length, next_id

MAX_SETTINGS = 20
"""Most settings one scene holds."""


@kit.tool(write=False, intent="List the scenes of home {home_id} with their settings")
def list_scenes(db: Session, home_id: str) -> list[dict[str, Any]]:
    """List a home's scenes, each with its settings (device, attribute, value) and when it was last applied.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
    """
    home = load_home(db, home_id)
    return [scene_view(db, s) for s in db.scalars(select(Scene).where(Scene.home_id == home.id).order_by(Scene.id))]


@kit.tool(
    write=True,
    intent="Create a scene called '{name}' in home {home_id}",
    samples={"name": ("Morning routine", "Party", "Cozy evening", "Bedtime", "Work from home", "Game night")},
)
def create_scene(db: Session, home_id: str, name: str) -> dict[str, Any]:
    """Create an empty scene in a home; add its settings with set_scene_action. Names are unique per home.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        home_id: Home id, e.g. "HOME-1001".
        name: Scene name, 2 to 60 characters, e.g. "Movie night".
    """
    home = load_home(db, home_id)
    label = check_length(name.strip(), "name", 2, 60, ", e.g. 'Movie night'")
    same = db.scalar(select(Scene).where(Scene.home_id == home.id, func.lower(Scene.name) == label.lower()))
    if same is not None:
        raise ToolError(
            f"Home {home.id} already has a scene named '{same.name}' ({same.id}); pick another name or add "
            "settings to that one with set_scene_action."
        )
    scene = Scene(id=next_id(db, Scene.id, "SCN"), home_id=home.id, name=label)
    db.add(scene)
    db.flush()
    return scene_view(db, scene)


@kit.tool(
    write=True,
    intent="In scene {scene_id}, set the {attribute} of device {device_id} to {value}",
    samples={
        "attribute": ("power", "power", "brightness", "brightness", "target_temp", "lock"),
        "value": ("on", "off", "20", "30", "locked"),
    },
)
def set_scene_action(
    db: Session, scene_id: str, device_id: str, attribute: str, value: str | int | float
) -> dict[str, Any]:
    """Add a setting to a scene, or change the value the scene gives that device attribute.

    The device must be in the scene's home and the setting valid for its kind (as for
    set_device_state); a scene holds at most 20 settings. Nothing is applied until apply_scene.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        scene_id: Scene id, e.g. "SCN-1001".
        device_id: A device of the scene's home, e.g. "DEV-1001".
        attribute: The capability to set, e.g. "brightness".
        value: The value the scene gives it, e.g. 30 or "off".
    """
    scene = load_scene(db, scene_id)
    device = load_device(db, device_id)
    if device.home_id != scene.home_id:
        raise ToolError(
            f"Device {device.id} is in home {device.home_id} but scene {scene.id} belongs to {scene.home_id}; a scene "
            f"only sets devices of its own home (list_devices with home_id {scene.home_id})."
        )
    setting, text = check_setting(device, attribute, value)
    row = db.get(SceneAction, (scene.id, device.id, setting))
    if row is None:
        count = db.scalar(select(func.count()).where(SceneAction.scene_id == scene.id)) or 0
        if count >= MAX_SETTINGS:
            raise ToolError(f"Scene {scene.id} already holds {MAX_SETTINGS} settings, the maximum; remove one first.")
        db.add(SceneAction(scene_id=scene.id, device_id=device.id, attribute=setting, value=text))
    elif row.value == text:
        raise ToolError(f"Scene {scene.id} already sets {setting} of {device.id} to {text}; nothing changed.")
    else:
        row.value = text
    db.flush()
    return scene_view(db, scene)


@kit.tool(write=True, intent="Remove device {device_id} from scene {scene_id}")
def remove_scene_action(db: Session, scene_id: str, device_id: str) -> dict[str, Any]:
    """Remove every setting a scene gives one device (e.g. a device that is offline for good).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        scene_id: Scene id, e.g. "SCN-1001".
        device_id: A device the scene sets, e.g. "DEV-1001".
    """
    scene = load_scene(db, scene_id)
    device = load_device(db, device_id)
    where = (SceneAction.scene_id == scene.id, SceneAction.device_id == device.id)
    count = db.scalar(select(func.count()).where(*where)) or 0
    if not count:
        held = db.scalars(select(SceneAction.device_id).where(SceneAction.scene_id == scene.id).distinct()).all()
        raise ToolError(
            f"Scene {scene.id} sets nothing on {device.id}; the devices it sets are: "
            f"{', '.join(sorted(held)) or 'none'}."
        )
    db.execute(delete(SceneAction).where(*where))
    return {**scene_view(db, scene), "removed_device_id": device.id, "removed_settings": count}


@kit.tool(write=True, intent="Apply scene {scene_id}")
def apply_scene(db: Session, scene_id: str) -> dict[str, Any]:
    """Apply every setting of a scene at once. All or nothing.

    If any device of the scene is offline the whole scene is refused and nothing changes: the
    message names the offline devices (remove them with remove_scene_action, or wait). Returns
    each setting with its old and new value.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        scene_id: Scene id, e.g. "SCN-1001".
    """
    scene = load_scene(db, scene_id)
    actions = db.scalars(
        select(SceneAction)
        .where(SceneAction.scene_id == scene.id)
        .order_by(SceneAction.device_id, SceneAction.attribute)
    ).all()
    if not actions:
        raise ToolError(f"Scene {scene.id} ('{scene.name}') has no settings yet; add some with set_scene_action.")
    devices = {a.device_id: load_device(db, a.device_id) for a in actions}
    offline = [d for d in devices.values() if d.status != "online"]
    if offline:
        names = ", ".join(f"{d.id} ({d.name}, last seen {d.last_seen_on})" for d in offline)
        raise ToolError(
            f"Scene {scene.id} ('{scene.name}') cannot be applied because these devices are offline: {names}. "
            "A scene applies all its settings or none, so nothing was changed; remove the offline device with "
            "remove_scene_action or try later."
        )
    results = [apply_setting(db, devices[a.device_id], a.attribute, a.value, f"scene {scene.id}") for a in actions]
    scene.last_applied_on = kit.today
    return {"scene_id": scene.id, "name": scene.name, "applied": results, "changed": sum(r["changed"] for r in results)}
